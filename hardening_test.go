package threads_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

const hardKey = "sk_hard/9f8e+7d6c5b4a"

// hardServer serves every request with h and counts the requests.
func hardServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func hardClient(t *testing.T, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url), threads.WithAPIKey(hardKey),
		threads.WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// TestHardenNoRetryOf2xxOr410: x-should-retry overrides the status rule
// for failures only. A 2xx has acted: retrying it created three threads.
// A 410 is final too.
func TestHardenNoRetryOf2xxOr410(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
	}{
		{201, `{"id":"thr_1","projectId":"p_1","name":"x"}`},
		{200, `{"id":"thr_1","projectId":"p_1","name":"x"}`},
		{410, `{"title":"Gone","code":"SOMETHING_ELSE"}`},
		{410, `{"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"nonsense"}}`},
	} {
		srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Should-Retry", "true")
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		})
		c := hardClient(t, srv.URL, threads.WithMaxRetries(2))
		_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1", Name: "x"})
		if tc.status < 300 {
			require.NoError(t, err)
		} else {
			require.Error(t, err)
		}
		require.EqualValues(t, 1, n.Load(), "status %d with x-should-retry: true was sent %d times", tc.status, n.Load())
	}
	// The override still works for a failure.
	srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(500)
	})
	c := hardClient(t, srv.URL, threads.WithMaxRetries(2))
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"})
	require.ErrorIs(t, err, threads.ErrServer)
	require.EqualValues(t, 3, n.Load())
}

// migrationServer answers POST /threads/{id}/advance with a 410 (or
// deprecatedStatus) advising advice, and everything else with other.
type migrationServer struct {
	mu   sync.Mutex
	seen []string // "METHOD /path?query" of every request
}

func (m *migrationServer) log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.seen...)
}

func newMigrationServer(t *testing.T, deprecatedStatus int, advice string, other func(w http.ResponseWriter, r *http.Request)) (*migrationServer, string) {
	t.Helper()
	m := &migrationServer{}
	srv, _ := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, r.Method+" "+r.URL.RequestURI())
		m.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/advance") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(deprecatedStatus)
			fmt.Fprintf(w, `{"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":%q}}`, advice)
			return
		}
		other(w, r)
	})
	return m, srv.URL
}

func sseFinal(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"responseMessageDto\":{\"id\":\"m1\",\"threadId\":\"thr_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},\"generationStage\":\"COMPLETE\"}\n\ndata: DONE\n\n")
}

// TestHardenMigrationRefusals: advice that switches the method, climbs
// with encoded dot segments or drops the thread id is refused: nothing
// but the one deprecated call is sent.
func TestHardenMigrationRefusals(t *testing.T) {
	t.Parallel()
	for _, advice := range []string{
		"DELETE /threads/:id", "GET /:id", "PUT /:id/advancestream",
		"POST /:id/%2e%2e/%2E%2E/admin", "POST /%2E./x/:id", "POST /.%2e/:id/x",
		"POST /advancestream", "POST /threads/advancestream?x=1",
		"POST /advancestream?project=:projectId",
	} {
		m, url := newMigrationServer(t, http.StatusGone, advice, sseFinal)
		c := hardClient(t, url)
		_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
		require.ErrorIs(t, err, threads.ErrEndpointDeprecated, advice)
		require.Equal(t, []string{"POST /threads/thr_1/advance"}, m.log(), "advice %q", advice)
		require.Contains(t, err.Error(), "migration not followed", advice)
	}
}

// TestHardenMigrationQueryPlaceholder: a placeholder in the advice's query
// is filled like one in its path.
func TestHardenMigrationQueryPlaceholder(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusGone, "POST /advancestream2?thread=:id", sseFinal)
	c := hardClient(t, url)
	got, err := c.Threads.Advance(context.Background(), "thr 1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	require.Equal(t, "hi", got.Message.Text())
	require.Equal(t, []string{"POST /threads/thr%201/advance", "POST /threads/advancestream2?thread=thr+1"}, m.log())
}

// TestHardenMigrationOnly410 : a 500 that carries ENDPOINT_DEPRECATED is
// a server error, not advice.
func TestHardenMigrationOnly410(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusInternalServerError, "POST /:id/advancestream", sseFinal)
	c := hardClient(t, url, threads.WithMaxRetries(0))
	_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.ErrorIs(t, err, threads.ErrServer)
	require.Equal(t, []string{"POST /threads/thr_1/advance"}, m.log())
}

// TestHardenMigrationRememberedOnly2xx: a replacement that answers 404 is
// not remembered: the next call asks the deprecated route again (and is
// migrated once the replacement works).
func TestHardenMigrationRememberedOnly2xx(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	broken.Store(true)
	var moves atomic.Int64
	m, url := newMigrationServer(t, http.StatusGone, "POST /:id/advancestream", func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.NotFound(w, r)
			return
		}
		sseFinal(w, r)
	})
	c := hardClient(t, url, threads.WithDeprecationHandler(func(threads.Deprecation) { moves.Add(1) }))
	adv := func() error {
		_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
		return err
	}
	require.ErrorIs(t, adv(), threads.ErrNotFound)
	require.ErrorIs(t, adv(), threads.ErrNotFound)
	require.EqualValues(t, 0, moves.Load())
	broken.Store(false)
	require.NoError(t, adv())
	require.NoError(t, adv())
	require.EqualValues(t, 1, moves.Load())
	require.Equal(t, []string{
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advancestream",
	}, m.log())
}

// TestHardenMigrationCreateAdvance: the live create-and-advance advice
// (no placeholder on either side) is still followed.
func TestHardenMigrationCreateAdvance(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusGone, "POST /advancestream", sseFinal)
	c := hardClient(t, url)
	got, err := c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	require.Equal(t, "hi", got.Message.Text())
	require.Equal(t, []string{"POST /threads/advance", "POST /threads/advancestream"}, m.log())
}

var _ = errors.New

// trickle writes the headers and then one byte of body every gap, until
// the client goes away.
func trickle(status int, contentType string, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// callWithin runs fn and fails the test when it has not returned within
// limit (the goroutine is then left behind: the old code never returned).
func callWithin(t *testing.T, limit time.Duration, fn func() error) (error, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err, time.Since(start)
	case <-time.After(limit):
		t.Fatalf("the call did not return within %v", limit)
		return nil, 0
	}
}

// TestHardenTricklingBodiesEnd: WithRequestTimeout covers a JSON call's
// whole answer: a 2xx body, an error body, and the drain of a 503 that is
// retried, all trickling, end within 2x the timeout per attempt under
// context.Background().
func TestHardenTricklingBodiesEnd(t *testing.T) {
	t.Parallel()
	const d = 400 * time.Millisecond
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		retries int
		call    func(c *threads.Client) error
	}{
		{"json 200", trickle(200, "application/json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
		{"error 400 on a POST", trickle(400, "application/problem+json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p"})
			return err
		}},
		{"error 400 on a stream", trickle(400, "application/problem+json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.AdvanceStream(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
			return err
		}},
		{"503 drained between attempts", trickle(503, "application/json", 50*time.Millisecond), 1, func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := hardServer(t, tc.h)
			c := hardClient(t, srv.URL, threads.WithRequestTimeout(d), threads.WithMaxRetries(tc.retries))
			attempts := time.Duration(1)
			if strings.HasPrefix(tc.name, "503") {
				attempts = time.Duration(tc.retries + 1)
			}
			err, took := callWithin(t, attempts*2*d+time.Second, func() error { return tc.call(c) })
			require.Error(t, err)
			t.Logf("%s: %v after %v", tc.name, err, took)
			require.Less(t, took, attempts*2*d, "took %v", took)
			if tc.name == "json 200" {
				require.ErrorIs(t, err, context.DeadlineExceeded)
			}
		})
	}
}

// TestHardenStreamOutlivesRequestTimeout: a stream whose headers arrived in
// time is not cut by WithRequestTimeout.
func TestHardenStreamOutlivesRequestTimeout(t *testing.T) {
	t.Parallel()
	const d = 200 * time.Millisecond
	srv, _ := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, text := range []string{"a", "ab", "abc"} {
			if i > 0 {
				time.Sleep(2 * d)
			}
			fmt.Fprintf(w, "data: {\"responseMessageDto\":{\"id\":\"m1\",\"threadId\":\"thr_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":%q}]},\"generationStage\":\"STREAMING_RESPONSE\"}\n\n", text)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: DONE\n\n")
	})
	c := hardClient(t, srv.URL, threads.WithRequestTimeout(d))
	s, err := c.Threads.AdvanceStream(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	defer s.Close()
	start := time.Now()
	var last string
	for s.Next() {
		last = s.Current().Message.Text()
	}
	require.NoError(t, s.Err())
	require.Greater(t, time.Since(start), 3*d)
	require.Equal(t, "abc", last)
}
