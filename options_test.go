package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
)

// recorder is a loopback server that answers every request with status and
// body and keeps the requests' headers and URLs.
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
	urls    []string
}

func newRecorder(t *testing.T, status int, header http.Header, body string) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.headers = append(rec.headers, r.Header.Clone())
		rec.urls = append(rec.urls, r.URL.String())
		rec.mu.Unlock()
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) last() (http.Header, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headers[len(r.headers)-1], r.urls[len(r.urls)-1]
}

const threadJSON = `{"id":"thr_1.a","projectId":"p_1","generationStage":"IDLE","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","messages":[]}`

// TestAPIKeyHeaderFromEnvironment: $THREADS_API_KEY_HEADER picks the header
// the key travels in, and WithAPIKeyHeader wins over it.
func TestAPIKeyHeaderFromEnvironment(t *testing.T) {
	rec := newRecorder(t, http.StatusOK, nil, threadJSON)
	t.Setenv(threads.EnvBaseURL, rec.URL)
	t.Setenv(threads.EnvAPIKey, "sk-env-key-123")
	t.Setenv(threads.EnvAPIKeyHeader, "x-api-key")

	c, err := threads.NewClient()
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.NoError(t, err)
	h, _ := rec.last()
	assert.Equal(t, "sk-env-key-123", h.Get("X-Api-Key"))
	assert.Empty(t, h.Get("Authorization"))

	c, err = threads.NewClient(threads.WithAPIKeyHeader("x-other-key"))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.NoError(t, err)
	h, _ = rec.last()
	assert.Equal(t, "sk-env-key-123", h.Get("X-Other-Key"))
	assert.Empty(t, h.Get("X-Api-Key"))

	t.Setenv(threads.EnvAPIKeyHeader, "")
	c, err = threads.NewClient()
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.NoError(t, err)
	h, _ = rec.last()
	assert.Equal(t, "Bearer sk-env-key-123", h.Get("Authorization"))

	t.Setenv(threads.EnvAPIKeyHeader, "bad header")
	_, err = threads.NewClient()
	assert.ErrorContains(t, err, "$THREADS_API_KEY_HEADER")
}

// TestOptionMisuse: options that would send a request without a key, or put
// the key in a header the SDK owns, are refused with an error naming them.
func TestOptionMisuse(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, http.StatusOK, nil, threadJSON)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	for _, tc := range []struct {
		opt  threads.RequestOption
		want string
	}{
		{threads.WithAPIKey(""), "WithAPIKey: empty key"},
		{threads.WithAPIKey("  "), "WithAPIKey: empty key"},
		{threads.WithAPIKeyHeader("Host"), "sets this header itself"},
		{threads.WithAPIKeyHeader("content-type"), "sets this header itself"},
		{threads.WithQuery("", "v"), "WithQuery: empty parameter name"},
		{threads.WithResponseInto(nil), "WithResponseInto: nil destination"},
		{nil, "option 0 is nil"},
	} {
		_, err := c.Threads.Get(context.Background(), "thr_1.a", tc.opt)
		assert.ErrorContains(t, err, tc.want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Empty(t, rec.urls, "no request is sent with a refused option")
}

// TestNewClientErrorsHideURLSecrets: a malformed base URL's credentials and
// query never reach the error.
func TestNewClientErrorsHideURLSecrets(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"https://user:hunter2-pass@api.example.com",
		"https://api.example.com/?api_key=hunter2-pass",
		"ftp://user:hunter2-pass@api.example.com",
		"https://user:hunter2-pass@api.example.com:bad/",
		"https://api.example.com/#hunter2-pass",
		"api.example.com?key=hunter2-pass",
	} {
		_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithAPIKey("k-123456"), threads.WithBaseURL(raw))
		require.Error(t, err, raw)
		assert.NotContains(t, err.Error(), "hunter2", raw)
	}
}

// TestWithQueryAndResponseInto: an extra query parameter reaches the
// service, and the 2xx answer's headers reach the caller.
func TestWithQueryAndResponseInto(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, http.StatusOK, http.Header{"X-Ratelimit-Remaining": {"41"}}, threadJSON)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	var resp *http.Response
	_, err = c.Threads.Get(context.Background(), "thr_1.a", threads.WithQuery("contextKey", "user 7"), threads.WithResponseInto(&resp))
	require.NoError(t, err)
	_, u := rec.last()
	assert.Equal(t, "/threads/thr_1.a?contextKey=user+7", u)
	assert.Equal(t, "41", resp.Header.Get("X-Ratelimit-Remaining"))
}

// TestProblemHeader: a caller who turned retries off reads Retry-After from
// the problem.
func TestProblemHeader(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}}, `{"statusCode":429,"message":"slow down","error":"Too Many Requests"}`)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL), threads.WithAPIKey("sk-key-123456"), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "7", p.Header.Get("Retry-After"))
}

// TestClientOnlyOptionPerCallDoesNotCompile: a ClientOption given to a call
// is a compile error, not a run-time one.
func TestClientOnlyOptionPerCallDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/misuse\n\ngo 1.25.0\n\nrequire github.com/threadsapi/threads-go v0.0.0\n\nreplace github.com/threadsapi/threads-go => "+root+"\n")
	write("go.sum", string(sum))
	build := func(call string) (string, error) {
		write("main.go", `package main

import (
	"context"

	threads "github.com/threadsapi/threads-go"
)

func main() {
	client, _ := threads.NewClient()
	_, _ = client.Threads.List(context.Background(), nil, `+call+`)
}
`)
		cmd := exec.Command(goBin, "build", "-mod=mod", "-o", os.DevNull, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := build(`threads.WithMaxRetries(1)`)
	require.NoError(t, err, "a RequestOption per call must compile: %s", out)
	out, err = build(`threads.WithBaseURL("https://elsewhere.example")`)
	require.Error(t, err)
	assert.True(t, strings.Contains(out, "does not implement threads.RequestOption") || strings.Contains(out, "RequestOption"), out)
}

// The SDK numbers its retries in X-Retry-Count: a key sent in that header
// was overwritten on the wire by each retry ([key, "1", "2"]), and a
// WithHeader value with it was replaced. Every header the SDK (or its
// transport) sets itself is refused, by option and by environment.
func TestHeadersTheSDKSetsAreRefused(t *testing.T) {
	for _, name := range []string{"X-Retry-Count", "x-retry-count", "Accept-Encoding"} {
		for opt, o := range map[string]threads.ClientOption{
			"WithAPIKeyHeader": threads.WithAPIKeyHeader(name),
			"WithHeader":       threads.WithHeader(name, "v"),
		} {
			_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"),
				threads.WithAPIKey(testKey), o)
			require.Error(t, err, "%s(%q)", opt, name)
			assert.Contains(t, err.Error(), "sets this header itself", "%s(%q)", opt, name)
		}
	}
	t.Setenv(threads.EnvAPIKeyHeader, "X-Retry-Count")
	_, err := threads.NewClient(threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey(testKey))
	require.Error(t, err)
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)
	assert.Contains(t, err.Error(), "sets this header itself")
}

// WithContextKey sends the thread's context key as the contextKey query
// value, once, replacing an earlier one; an empty key is refused before
// anything is sent.
func TestWithContextKey(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"thr_1","messages":[]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk_ctxkey_test_1"))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = c.Threads.Get(ctx, "thr_1", threads.WithContextKey("user 42"))
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, "thr_1", threads.WithQuery("contextKey", "old"), threads.WithContextKey("new"))
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, "thr_1", threads.WithContextKey(""))
	assert.ErrorContains(t, err, "WithContextKey")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"contextKey=user+42", "contextKey=new"}, queries)
}

// WithResponseInto writes into one caller-owned destination: given to
// NewClient, every concurrent call of the client would write that one
// pointer (a data race under -race with a few concurrent calls). NewClient
// refuses it, naming the option; on a single call it keeps working, also
// with many calls at once, each writing its own answer.
func TestNewClientRefusesCallOnlyOptions(t *testing.T) {
	t.Parallel()
	var into *http.Response
	_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"),
		threads.WithAPIKey(testKey), threads.WithResponseInto(&into))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WithResponseInto")
	assert.NotContains(t, err.Error(), testKey)

	var n sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Lock()
		calls++
		id := strconv.Itoa(calls)
		n.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Call", id)
		_, _ = w.Write([]byte(`{"id":"thr_1.a"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	require.NoError(t, err)
	const workers = 8
	answers := make([]*http.Response, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Threads.Get(context.Background(), "thr_1.a", threads.WithResponseInto(&answers[i]))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, r := range answers {
		if assert.NotNil(t, r) {
			seen[r.Header.Get("X-Call")] = true
		}
	}
	assert.Len(t, seen, workers, "each call got its own answer's headers")
}
