package threads_test

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// connKey is the API key of the Conn tests.
const connKey = "sk_conn_1a2b3c4d5e6f"

// connServer answers every request with status and body (JSON) and
// records the requests' headers and paths.
func connServer(t *testing.T, status int, body string) (*threads.Client, func() []*http.Request) {
	t.Helper()
	var mu sync.Mutex
	var seen []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Clone(context.Background()))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(connKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	return c, func() []*http.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]*http.Request(nil), seen...)
	}
}

// Package runs sends its /v1 calls through the Conn that package threads
// registers: with KeyHeader the key travels in that header only, Header
// adds the end user's token, and a 4xx comes back as a *threads.Problem
// without the Bearer hint (which is about the spec's routes).
func TestConnDoKeyHeaderAndProblem(t *testing.T) {
	t.Parallel()
	c, requests := connServer(t, http.StatusForbidden, `{"statusCode":403,"message":"Forbidden resource","error":"Forbidden"}`)
	conn, err := core.ConnOf[threads.RequestOption](c)
	require.NoError(t, err)

	call := core.Call{
		Route:     route.Route{Method: http.MethodGet, Template: "/v1/threads/{threadId}", Values: map[string]string{"threadId": "thr_1"}},
		KeyHeader: "X-Api-Key",
		Header:    http.Header{"Authorization": {"Bearer user-token"}},
	}
	ans, err := conn.Do(context.Background(), nil, call)
	assert.Nil(t, ans)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, http.StatusForbidden, p.Status)
	assert.True(t, errors.Is(err, threads.ErrForbidden))
	assert.NotContains(t, err.Error(), "WithAPIKeyHeader", "no Bearer hint on a call whose key header is fixed")
	assert.NotContains(t, err.Error(), connKey)

	reqs := requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/v1/threads/thr_1", reqs[0].URL.Path)
	assert.Equal(t, connKey, reqs[0].Header.Get("X-Api-Key"))
	assert.Equal(t, "Bearer user-token", reqs[0].Header.Get("Authorization"), "the key never goes in Authorization")
}

// A 2xx answer is decoded within the call's limits; per-call options apply.
func TestConnDoDecodeJSON(t *testing.T) {
	t.Parallel()
	c, requests := connServer(t, http.StatusOK, `{"id":"thr_1","name":"n"}`)
	conn, err := core.ConnOf[threads.RequestOption](c)
	require.NoError(t, err)
	call := core.Call{Route: route.Route{Method: http.MethodGet, Template: "/v1/threads"}, KeyHeader: "X-Api-Key"}
	ans, err := conn.Do(context.Background(), []threads.RequestOption{threads.WithHeader("X-Trace", "t1"), threads.WithMaxResponseSize(1 << 10)}, call)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<10), ans.Limits.MaxResponseSize)
	var out struct{ ID, Name string }
	require.NoError(t, conn.DecodeJSON(ans, call, &out))
	assert.Equal(t, "thr_1", out.ID)
	assert.Equal(t, "t1", requests()[0].Header.Get("X-Trace"))
	assert.Equal(t, "x [REDACTED] y", ans.Redact("x "+connKey+" y"))
	assert.Equal(t, "[REDACTED]", conn.Redact("tok", "tok"))

}

// NoMigrate returns a 410 ENDPOINT_DEPRECATED as it is, without following
// its advice.
func TestConnDoNoMigrate(t *testing.T) {
	t.Parallel()
	c, requests := connServer(t, http.StatusGone, `{"type":"about:blank","title":"Gone","status":410,"code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"GET /v1/other"}}`)
	conn, err := core.ConnOf[threads.RequestOption](c)
	require.NoError(t, err)
	_, err = conn.Do(context.Background(), nil, core.Call{Route: route.Route{Method: http.MethodGet, Template: "/v1/old"}, NoMigrate: true})
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, http.StatusGone, p.Status)
	assert.Len(t, requests(), 1)
}

// Only a *threads.Client made by NewClient has a Conn, and only with
// threads' own option type: the link is typed, so a call with other
// options does not compile, and a look-up with another type finds nothing.
func TestConnOfRefusesOtherClients(t *testing.T) {
	t.Parallel()
	for _, c := range []*threads.Client{nil, {}} {
		conn, err := core.ConnOf[threads.RequestOption](c)
		assert.Nil(t, conn)
		assert.Error(t, err, "%#v", c)
	}
	c, _ := connServer(t, http.StatusOK, `{}`)
	conn, err := core.ConnOf[threads.ClientOption](c)
	assert.Nil(t, conn)
	assert.ErrorContains(t, err, "no Conn registered for *threads.Client with options []threads.ClientOption")
}

// Only the packages that serve calls on the request path import
// internal/core, the typed link to it: threads (which implements it),
// runs, and the stream reader both share. The proxy and the command line
// reach the request path through the public API.
func TestOnlyTheRequestPathImportsCore(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{".": true, "runs": true, "internal/core": true, "internal/stream": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || allowed[path] {
			return err
		}
		if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range file.Imports {
				assert.NotEqual(t, `"github.com/threadsapi/threads-go/internal/core"`, imp.Path.Value, "%s imports internal/core", f)
			}
		}
		return nil
	})
	require.NoError(t, err)
}
