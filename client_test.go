package threads_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientErrors(t *testing.T) {
	t.Setenv(threads.EnvAPIKey, "")
	t.Setenv(threads.EnvBaseURL, "")
	tests := []struct {
		name string
		opts []threads.ClientOption
		want string
	}{
		{"no base URL", []threads.ClientOption{threads.WithAPIKey("k")}, "no base URL"},
		{"no key", []threads.ClientOption{threads.WithBaseURL("https://api.example.com")}, "no API key"},
		{"ftp", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("ftp://example.com")}, "scheme must be http or https"},
		{"no scheme", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("api.example.com")}, "scheme must be http or https"},
		{"no host", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("https:///x")}, "no host"},
		{"userinfo", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("https://u:p@example.com")}, "credentials"},
		{"negative retries", []threads.ClientOption{threads.WithMaxRetries(-1)}, "WithMaxRetries(-1)"},
		{"retry wait order", []threads.ClientOption{threads.WithRetryWait(2, 1)}, "min <= max"},
		{"bad header name", []threads.ClientOption{threads.WithHeader("bad name", "v")}, "not a valid header name"},
		{"reserved header", []threads.ClientOption{threads.WithHeader("authorization", "x")}, "sets this header itself"},
		{"header value", []threads.ClientOption{threads.WithHeader("X-A", "a\r\nb")}, "cannot carry"},
		{"key with newline", []threads.ClientOption{threads.WithAPIKey("a\nb")}, "cannot carry"},
		{"nil option", []threads.ClientOption{nil}, "option 0 is nil"},
		{"max event size", []threads.ClientOption{threads.WithMaxEventSize(0)}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := threads.NewClient(tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewClientFromEnvironment(t *testing.T) {
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	t.Setenv(threads.EnvAPIKey, testKey)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	c, err := threads.NewClient()
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+testKey, srv.requests()[0].Header.Get("Authorization"))

	// Options win over the environment; WithoutEnvironmentDefaults ignores it.
	c, err = threads.NewClient(threads.WithAPIKey("other-key"))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	assert.Equal(t, "Bearer other-key", srv.requests()[1].Header.Get("Authorization"))
	_, err = threads.NewClient(threads.WithoutEnvironmentDefaults())
	assert.ErrorContains(t, err, "no base URL")
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 201, "application/json; charset=utf-8", fixture(t, "live/create.json"))
	c := cannedClient(t, srv, threads.WithHeader("X-Tenant", "acme"), threads.WithUserAgent("my-app/2.0"))
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"}, threads.WithHeader("X-Call", "one"))
	require.NoError(t, err)
	h := srv.requests()[0].Header
	assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "my-app/2.0 threads-go/"+threads.Version), h.Get("User-Agent"))
	assert.Equal(t, "acme", h.Get("X-Tenant"))
	assert.Equal(t, "one", h.Get("X-Call"))

	// A per-call header does not stick to the client.
	_, err = c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"})
	require.NoError(t, err)
	assert.Empty(t, srv.requests()[1].Header.Get("X-Call"))
}

func TestAPIKeyHeader(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	c := cannedClient(t, srv, threads.WithAPIKeyHeader("x-api-key"))
	_, err := c.Threads.Get(context.Background(), "thr_1.a")
	require.NoError(t, err)
	h := srv.requests()[0].Header
	assert.Equal(t, testKey, h.Get("X-Api-Key"))
	assert.Empty(t, h.Get("Authorization"))
}

func TestPathEscaping(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	c := cannedClient(t, srv)
	for id, want := range map[string]string{
		"thr_aB3dE9xZ.1f2e3d": "/threads/thr_aB3dE9xZ.1f2e3d",
		"a/b":                 "/threads/a%2Fb",
		"../../admin":         "/threads/..%2F..%2Fadmin",
		"x?y#z":               "/threads/x%3Fy%23z",
		"sp ace":              "/threads/sp%20ace",
	} {
		_, err := c.Threads.Get(context.Background(), id)
		require.NoError(t, err, id)
		reqs := srv.requests()
		assert.Equal(t, want, reqs[len(reqs)-1].Path, id)
		assert.Empty(t, reqs[len(reqs)-1].RawQuery, id)
	}
	_, err := c.Threads.Get(context.Background(), "")
	assert.ErrorContains(t, err, "empty thread id")
}

func TestBaseURLPrefix(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	for _, base := range []string{srv.URL + "/api", srv.URL + "/api/"} {
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey))
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		require.NoError(t, err)
	}
	for _, r := range srv.requests() {
		assert.Equal(t, "/api/threads/thr_1.a", r.Path)
	}
}

// BaseURL gives the base URL as configured, the prefix a companion
// package derives an endpoint from; "" for a nil client.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example.com/v2/"), threads.WithAPIKey(testKey))
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/v2/", c.BaseURL())
	var nilClient *threads.Client
	assert.Empty(t, nilClient.BaseURL())
}

func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", threads.ClientConfig(c)), fmt.Sprintf("%+v", struct{ C any }{threads.ClientConfig(c)}),
		fmt.Sprintf("%+v", threads.WithAPIKey(testKey)), fmt.Sprintf("%#v", threads.WithAPIKey(testKey)), fmt.Sprintf("%#v", threads.ClientConfig(c))} {
		assert.NotContains(t, s, testKey)
	}
	// A connection error names the call, not the key.
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), testKey)
	assert.Contains(t, err.Error(), "GET /threads/thr_1.a")
}

func TestRedirectToOtherHostKeepsKey(t *testing.T) {
	t.Parallel()
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = append(leaked, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		w.WriteHeader(200)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirect.Close()
	for _, opt := range []threads.ClientOption{threads.WithAPIKeyHeader("Authorization"), threads.WithAPIKeyHeader("x-api-key")} {
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(redirect.URL), threads.WithAPIKey(testKey), opt)
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		var p *threads.Problem
		require.ErrorAs(t, err, &p)
		assert.Equal(t, http.StatusFound, p.Status)
	}
	assert.Empty(t, leaked)
}

// TestHardenMisuse: zero values and bad ids fail with an error naming the
// problem, without a panic or a request.
func TestHardenMisuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := threads.AdvanceParams{Message: threads.UserMessage("x")}
	for name, fn := range map[string]func() error{
		"zero Client Get":  func() error { _, err := (&threads.Client{}).Threads.Get(ctx, "thr_1"); return err },
		"zero Client List": func() error { _, err := (&threads.Client{}).Threads.List(ctx, nil); return err },
		"zero Client Create": func() error {
			_, err := (&threads.Client{}).Threads.Create(ctx, threads.CreateThreadParams{})
			return err
		},
		"zero Client Stream":    func() error { _, err := (&threads.Client{}).Threads.AdvanceStream(ctx, "thr_1", p); return err },
		"zero Client Advance":   func() error { _, err := (&threads.Client{}).Threads.Advance(ctx, "thr_1", p); return err },
		"zero Client Cancel":    func() error { _, err := (&threads.Client{}).Threads.Cancel(ctx, "thr_1"); return err },
		"zero Client CreateAdv": func() error { _, err := (&threads.Client{}).Threads.CreateAndAdvanceStream(ctx, p); return err },
		"new ThreadsService":    func() error { _, err := new(threads.ThreadsService).Get(ctx, "thr_1"); return err },
		"new ProjectsService":   func() error { _, err := new(threads.ProjectsService).Current(ctx); return err },
	} {
		var err error
		require.NotPanics(t, func() { err = fn() }, name)
		require.ErrorContains(t, err, "NewClient", name)
	}

	srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	c := hardClient(t, srv.URL)
	for _, id := range []string{" ", "\t\n", ".", "..", " .. "} {
		_, err := c.Threads.Get(ctx, id)
		require.ErrorContains(t, err, "thread id", "%q", id)
		_, err = c.Threads.AdvanceStream(ctx, id, p)
		require.ErrorContains(t, err, "thread id", "%q", id)
		_, err = c.Threads.Cancel(ctx, id)
		require.ErrorContains(t, err, "thread id", "%q", id)
	}
	require.Zero(t, n.Load())
}
