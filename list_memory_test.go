package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// listScript is a server whose answers per route follow a script: the
// handler for a path gets how many times that path was asked before.
type listScript struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
}

func newListScript(t *testing.T, answer func(path string, n int) (int, string)) *listScript {
	t.Helper()
	s := &listScript{counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := s.counts[r.URL.Path]
		s.counts[r.URL.Path]++
		s.mu.Unlock()
		status, body := answer(r.URL.Path, n)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *listScript) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

func (s *listScript) client(t *testing.T) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(s.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	return c
}

const (
	notFound  = `{"message":"Cannot GET","error":"Not Found","statusCode":404}`
	forbidden = `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`
	onePage   = `{"items":[{"id":"thr_1.a"}],"total":1,"offset":0,"limit":10,"count":1}`
)

// One 404 from GET /threads (a deploy in progress, a proxy) must not pin
// per-project listing for the client's life: the switch is remembered only
// once the per-project route answered 2xx. Here it never does, and
// GET /threads recovers: every later List succeeds through it.
func TestListOne404DoesNotPinPerProject(t *testing.T) {
	t.Parallel()
	srv := newListScript(t, func(path string, n int) (int, string) {
		switch path {
		case "/threads":
			if n == 0 {
				return 404, notFound
			}
			return 200, onePage
		case "/projects":
			return 200, `{"id":"p_1.a"}`
		}
		return 404, notFound // no per-project route on this deployment
	})
	c := srv.client(t)
	ctx := context.Background()
	_, err := c.Threads.List(ctx, nil)
	require.Error(t, err)
	failed := 0
	for range 20 {
		if _, err := c.Threads.List(ctx, nil); err != nil {
			failed++
		}
	}
	assert.Equal(t, 0, failed, "later Lists that failed")
	assert.Equal(t, 21, srv.count("/threads"), "GET /threads asked again")
}

// A wrong project id from GET /projects must not pin 403s: the id is
// remembered only once the per-project route answered 2xx with it, and a
// later refusal of the route forgets it (and the route), so the next call
// asks again.
func TestListWrongProjectIsNotRemembered(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	project := "p_wrong.a"
	srv := newListScript(t, func(path string, n int) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		switch path {
		case "/threads":
			return 404, notFound
		case "/projects":
			if n == 0 {
				return 200, `{"id":"p_wrong.a"}`
			}
			return 200, `{"id":"` + project + `"}`
		case "/threads/project/p_right.a":
			if project == "p_right.a" {
				return 200, onePage
			}
		}
		return 403, forbidden
	})
	c := srv.client(t)
	ctx := context.Background()
	_, err := c.Threads.List(ctx, nil)
	require.ErrorIs(t, err, threads.ErrForbidden)

	mu.Lock()
	project = "p_right.a"
	mu.Unlock()
	failed := 0
	for range 10 {
		if _, err := c.Threads.List(ctx, nil); err != nil {
			failed++
		}
	}
	assert.Equal(t, 0, failed, "later Lists that failed")
	assert.Equal(t, 2, srv.count("/projects"), "asked again after the 403, then remembered after the 2xx")

	// The project moves: one refusal forgets it, the next List asks again.
	mu.Lock()
	project = "p_moved.a"
	mu.Unlock()
	_, err = c.Threads.List(ctx, nil)
	require.ErrorIs(t, err, threads.ErrForbidden)
	mu.Lock()
	project = "p_right.a"
	mu.Unlock()
	_, err = c.Threads.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, srv.count("/projects"), "asked again after the later refusal")
}
