package threads

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientErrors(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvBaseURL, "")
	tests := []struct {
		name string
		opts []ClientOption
		want string
	}{
		{"no base URL", []ClientOption{WithAPIKey("k")}, "no base URL"},
		{"no key", []ClientOption{WithBaseURL("https://api.example.com")}, "no API key"},
		{"ftp", []ClientOption{WithAPIKey("k"), WithBaseURL("ftp://example.com")}, "scheme must be http or https"},
		{"no scheme", []ClientOption{WithAPIKey("k"), WithBaseURL("api.example.com")}, "scheme must be http or https"},
		{"no host", []ClientOption{WithAPIKey("k"), WithBaseURL("https:///x")}, "no host"},
		{"userinfo", []ClientOption{WithAPIKey("k"), WithBaseURL("https://u:p@example.com")}, "credentials"},
		{"negative retries", []ClientOption{WithMaxRetries(-1)}, "WithMaxRetries(-1)"},
		{"retry wait order", []ClientOption{WithRetryWait(2, 1)}, "min <= max"},
		{"bad header name", []ClientOption{WithHeader("bad name", "v")}, "not a valid header name"},
		{"reserved header", []ClientOption{WithHeader("authorization", "x")}, "sets this header itself"},
		{"header value", []ClientOption{WithHeader("X-A", "a\r\nb")}, "cannot carry"},
		{"key with newline", []ClientOption{WithAPIKey("a\nb")}, "cannot carry"},
		{"nil option", []ClientOption{nil}, "option 0 is nil"},
		{"max event size", []ClientOption{WithMaxEventSize(0)}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewClientFromEnvironment(t *testing.T) {
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	t.Setenv(EnvAPIKey, testKey)
	t.Setenv(EnvBaseURL, srv.URL)
	c, err := NewClient()
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+testKey, srv.requests()[0].Header.Get("Authorization"))

	// Options win over the environment; WithoutEnvironmentDefaults ignores it.
	c, err = NewClient(WithAPIKey("other-key"))
	require.NoError(t, err)
	assert.Equal(t, "other-key", c.cfg.apiKey.get())
	_, err = NewClient(WithoutEnvironmentDefaults())
	assert.ErrorContains(t, err, "no base URL")
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 201, "application/json; charset=utf-8", fixture(t, "live/create.json"))
	c := cannedClient(t, srv, WithHeader("X-Tenant", "acme"), WithUserAgent("my-app/2.0"))
	_, err := c.Threads.Create(context.Background(), CreateThreadParams{ProjectID: "p_1"}, WithHeader("X-Call", "one"))
	require.NoError(t, err)
	h := srv.requests()[0].Header
	assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "my-app/2.0 threads-go/"+Version), h.Get("User-Agent"))
	assert.Equal(t, "acme", h.Get("X-Tenant"))
	assert.Equal(t, "one", h.Get("X-Call"))

	// A per-call header does not stick to the client.
	_, err = c.Threads.Create(context.Background(), CreateThreadParams{ProjectID: "p_1"})
	require.NoError(t, err)
	assert.Empty(t, srv.requests()[1].Header.Get("X-Call"))
}

func TestAPIKeyHeader(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	c := cannedClient(t, srv, WithAPIKeyHeader("x-api-key"))
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
		c, err := NewClient(WithoutEnvironmentDefaults(), WithBaseURL(base), WithAPIKey(testKey))
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		require.NoError(t, err)
	}
	for _, r := range srv.requests() {
		assert.Equal(t, "/api/threads/thr_1.a", r.Path)
	}
}

func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	c, err := NewClient(WithoutEnvironmentDefaults(), WithBaseURL("http://127.0.0.1:1"), WithAPIKey(testKey), WithMaxRetries(0))
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", c.cfg), fmt.Sprintf("%+v", struct{ C config }{c.cfg}),
		fmt.Sprintf("%+v", WithAPIKey(testKey)), fmt.Sprintf("%#v", WithAPIKey(testKey)), fmt.Sprintf("%v", c.cfg)} {
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
	for _, opt := range []ClientOption{WithAPIKeyHeader("Authorization"), WithAPIKeyHeader("x-api-key")} {
		c, err := NewClient(WithoutEnvironmentDefaults(), WithBaseURL(redirect.URL), WithAPIKey(testKey), opt)
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		var p *Problem
		require.ErrorAs(t, err, &p)
		assert.Equal(t, http.StatusFound, p.Status)
	}
	assert.Empty(t, leaked)
}
