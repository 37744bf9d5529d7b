package threads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// perProjectServer lists like the live deployment: GET /threads is 404
// ("Cannot GET /threads"), GET /projects names the key's project, and
// GET /threads/project/{id} pages n threads of that project.
type perProjectServer struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
}

func newPerProjectServer(t *testing.T, n int, envelope bool) *perProjectServer {
	t.Helper()
	s := &perProjectServer{counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.counts[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch r.URL.Path {
		case "/projects":
			_, _ = w.Write([]byte(`{"id":"p_live.1","name":"Live"}`))
		case "/threads/project/p_live.1":
			offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
			if err != nil {
				limit = 10
			}
			items := []map[string]any{}
			for i := offset; i < n && i < offset+limit; i++ {
				items = append(items, map[string]any{"id": fmt.Sprintf("thr_%d.a", i), "projectId": "p_live.1",
					"createdAt": "2026-11-21T23:57:44.826Z", "updatedAt": "2026-11-21T23:57:44.826Z"})
			}
			var body any = items
			if envelope {
				body = map[string]any{"items": items, "total": n, "offset": offset, "limit": limit, "count": len(items)}
			}
			_ = json.NewEncoder(w).Encode(body)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprintf(w, `{"message":"Cannot %s %s","error":"Not Found","statusCode":404}`, r.Method, r.URL.Path)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *perProjectServer) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	s.counts = map[string]int{}
	return c
}

func (s *perProjectServer) client(t *testing.T) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(s.URL),
		threads.WithAPIKey("sk-live-123456"), threads.WithAPIKeyHeader("x-api-key"))
	require.NoError(t, err)
	return c
}

// TestListFallsBackPerProject: against a deployment that lists per project,
// the first List costs one GET /threads, one GET /projects and one page;
// later calls cost one page.
func TestListFallsBackPerProject(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 3, true)
	c := srv.client(t)
	ctx := context.Background()

	page, err := c.Threads.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Items, 3)
	assert.Equal(t, map[string]int{"GET /threads": 1, "GET /projects": 1, "GET /threads/project/p_live.1": 1}, srv.take())

	_, err = c.Threads.List(ctx, &threads.ListParams{Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"GET /threads/project/p_live.1": 1}, srv.take())

	var ids []string
	for th, err := range c.Threads.All(ctx, &threads.ListParams{Limit: 2}) {
		require.NoError(t, err)
		ids = append(ids, th.ID)
	}
	assert.Equal(t, []string{"thr_0.a", "thr_1.a", "thr_2.a"}, ids)
	assert.Equal(t, map[string]int{"GET /threads/project/p_live.1": 2}, srv.take())
}

// TestListWithProjectIDGoesStraightThere: an explicit project never tries
// the spec's route.
func TestListWithProjectIDGoesStraightThere(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 1, true)
	c := srv.client(t)
	page, err := c.Threads.List(context.Background(), &threads.ListParams{ProjectID: "p_live.1"})
	require.NoError(t, err)
	assert.Len(t, page.Items, 1)
	assert.Equal(t, map[string]int{"GET /threads/project/p_live.1": 1}, srv.take())
}

// TestListFallbackConcurrentFirstCalls: 50 first calls at once cost one
// GET /threads and one GET /projects between them.
func TestListFallbackConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 2, true)
	c := srv.client(t)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			page, err := c.Threads.List(context.Background(), nil)
			if err == nil && len(page.Items) != 2 {
				err = fmt.Errorf("got %d threads", len(page.Items))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, map[string]int{"GET /threads": 1, "GET /projects": 1, "GET /threads/project/p_live.1": 50}, srv.take())
}

// TestAllPagesWithoutTotal: a bare array (no total) is paged until an
// empty page, not stopped after the first.
func TestAllPagesWithoutTotal(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 5, false)
	c := srv.client(t)
	n := 0
	for _, err := range c.Threads.All(context.Background(), &threads.ListParams{ProjectID: "p_live.1", Limit: 2}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n)
}

// TestListSpecRouteIsKept: a deployment with GET /threads is never asked
// for its project.
func TestListSpecRouteIsKept(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[],"total":0,"offset":0,"limit":10,"count":0}`))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk-live-123456"))
	require.NoError(t, err)
	for range 3 {
		_, err = c.Threads.List(context.Background(), nil)
		require.NoError(t, err)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{"/threads": 3}, paths)
}

// TestAttackListTurnHonoursContext: a caller waiting for another caller's
// slow first List leaves when its own context ends.
func TestAttackListTurnHonoursContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var arrived atomic.Bool
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads" && arrived.CompareAndSwap(false, true) {
			close(first)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[],"total":0}`)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	done := make(chan error, 1)
	go func() {
		_, err := c.Threads.List(context.Background(), nil) // holds the turn on the server
		done <- err
	}()
	<-first
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Threads.List(ctx, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the second caller leaves with its own deadline")
	close(release)
	require.NoError(t, <-done)
}

// TestAttackProjectIDDots: "." and ".." never become path steps, whether
// the caller or the server names the project.
func TestAttackProjectIDDots(t *testing.T) {
	t.Parallel()
	var paths atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/threads":
			w.WriteHeader(404)
			io.WriteString(w, `{"statusCode":404,"message":"Cannot GET /threads","error":"Not Found"}`)
		case "/projects":
			io.WriteString(w, `{"id":"..","name":"p"}`)
		default:
			paths.Add(1)
			io.WriteString(w, `{"items":[],"total":0}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	_, err := c.Threads.List(context.Background(), &threads.ListParams{ProjectID: "."})
	assert.ErrorContains(t, err, "dot segment")
	_, err = c.Threads.List(context.Background(), nil)
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.Zero(t, paths.Load(), "no per-project request was sent")
}
