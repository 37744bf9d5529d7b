package threads_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestRetryStatuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status       int
		getTries     int // attempts for GET with 2 retries
		postTries    int
		finalProblem bool
	}{
		{408, 3, 1, true}, {429, 3, 3, true}, {500, 3, 1, true}, {501, 1, 1, true},
		{502, 3, 1, true}, {503, 3, 3, true}, {504, 3, 1, true}, {400, 1, 1, true},
		{404, 1, 1, true}, {409, 1, 1, true}, {410, 1, 1, true},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			t.Parallel()
			c, srv := setup(t)
			// GET /projects: a 404 on GET /threads would switch the client
			// to per-project listing instead.
			srv.Inject(threadstest.Fault{Method: "GET", Path: "/projects", Times: -1, Status: tt.status,
				Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"statusCode":` + fmt.Sprint(tt.status) + `,"message":"injected"}`})
			srv.Inject(threadstest.Fault{Method: "POST", Path: "/threads", Times: -1, Status: tt.status, Body: "injected"})
			_, err := c.Projects.Current(context.Background())
			var p *threads.Problem
			require.ErrorAs(t, err, &p)
			assert.Equal(t, tt.status, p.Status)
			assert.Equal(t, "injected", p.Detail)
			assert.Equal(t, tt.getTries, srv.Count("GET", "/projects"), "GET attempts")

			_, err = c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
			require.ErrorAs(t, err, &p)
			assert.Equal(t, tt.status, p.Status)
			assert.Equal(t, tt.postTries, srv.Count("POST", "/threads"), "POST attempts")
		})
	}
}

func TestRetryRecovers(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	srv.Inject(threadstest.Fault{Method: "POST", Path: "/threads", Times: 2, Status: 503})
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	assert.NotEmpty(t, th.ID)
	assert.Equal(t, 1, len(srv.ThreadIDs()))
	var counts []string
	for _, r := range srv.Requests() {
		counts = append(counts, r.Header.Get("X-Retry-Count"))
	}
	assert.Equal(t, []string{"", "1", "2"}, counts)
	// Every attempt carries the same body and credentials.
	reqs := srv.Requests()
	for _, r := range reqs[1:] {
		assert.Equal(t, reqs[0].Body, r.Body)
		assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	}
}

func TestRetryShouldRetryHeader(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	srv.Inject(threadstest.Fault{Method: "POST", Path: "/threads", Status: 500, Header: http.Header{"X-Should-Retry": {"true"}}})
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count("POST", "/threads"))

	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Status: 503, Header: http.Header{"X-Should-Retry": {"false"}}})
	_, err = c.Threads.List(context.Background(), nil)
	assert.ErrorIs(t, err, threads.ErrServer)
	assert.Equal(t, 1, srv.Count("GET", "/threads"))
}

func TestRetryResetAfterWrite(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	srv.Inject(threadstest.Fault{Method: "POST", Path: "/threads", Reset: true})
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.Error(t, err)
	var ue *url.Error
	assert.ErrorAs(t, err, &ue)
	assert.Equal(t, 1, srv.Count("POST", "/threads"), "a POST that reached the server is not re-sent")

	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Reset: true})
	_, err = c.Threads.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count("GET", "/threads"), "a GET is re-sent")
}

// refusingTransport fails every dial, counting the attempts.
func refusingTransport(dials *atomic.Int32) *http.Transport {
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
	}}
}

func TestRetryDialFailurePOST(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://threads.invalid"), threads.WithAPIKey(testKey),
		threads.WithHTTPClient(&http.Client{Transport: refusingTransport(&dials)}), threads.WithRetryWait(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p"})
	require.Error(t, err)
	assert.Equal(t, int32(3), dials.Load(), "a POST that never left is retried")
	var ue *url.Error
	assert.ErrorAs(t, err, &ue)
	assert.NotContains(t, err.Error(), "giving up")
	assert.Contains(t, err.Error(), "connection refused")
}

// recordLogs collects log records.
type recordLogs struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *recordLogs) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordLogs) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	return nil
}
func (h *recordLogs) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordLogs) WithGroup(string) slog.Handler      { return h }

func (h *recordLogs) waits() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []time.Duration
	for _, r := range h.recs {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "wait" {
				out = append(out, a.Value.Duration())
			}
			return true
		})
	}
	return out
}

func TestRetryAfterHeaders(t *testing.T) {
	t.Parallel()
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, tt := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"ms", http.Header{"Retry-After-Ms": {"3"}}, 3 * time.Millisecond},
		{"seconds capped", http.Header{"Retry-After": {"2"}}, 10 * time.Millisecond},
		{"fraction", http.Header{"Retry-After": {"0.004"}}, 4 * time.Millisecond},
		{"date capped", http.Header{"Retry-After": {date}}, 10 * time.Millisecond},
		{"ms wins", http.Header{"Retry-After-Ms": {"1"}, "Retry-After": {"9"}}, time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &recordLogs{}
			c, srv := setup(t, threads.WithRetryWait(time.Millisecond, 10*time.Millisecond), threads.WithLogger(slog.New(logs)))
			srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Status: 429, Header: tt.h})
			_, err := c.Threads.List(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, []time.Duration{tt.want}, logs.waits())
		})
	}
}

func TestRetryPerCallOptions(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Times: -1, Status: 503})
	_, err := c.Threads.List(context.Background(), nil, threads.WithMaxRetries(0))
	assert.ErrorIs(t, err, threads.ErrServer)
	assert.Equal(t, 1, srv.Count("GET", "/threads"))
	_, err = c.Threads.List(context.Background(), nil, threads.WithMaxRetries(4))
	assert.ErrorIs(t, err, threads.ErrServer)
	assert.Equal(t, 6, srv.Count("GET", "/threads"))
}

// TestRetryContextCancelDuringWait: a cancel during a 30 s Retry-After wait
// returns at once: in a synctest bubble with the in-memory fake, no fake
// time passes at all.
func TestRetryContextCancelDuringWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKey(testKey))
		c := srv.Client(threads.WithRetryWait(time.Minute, time.Minute))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Status: 503, Header: http.Header{"Retry-After": {"30"}}})
		logs := &cancelOnLog{cancel: cancel}
		start := time.Now()
		_, err := c.Threads.List(ctx, nil, threads.WithLogger(slog.New(logs)))
		elapsed := time.Since(start)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, elapsed, "returned after %v of fake time", elapsed)
		assert.Equal(t, 1, srv.Count("GET", "/threads"))
	})
}

// cancelOnLog cancels a context when the first attempt is logged, that is
// just before the client starts to wait.
type cancelOnLog struct {
	recordLogs
	cancel context.CancelFunc
}

func (h *cancelOnLog) Handle(ctx context.Context, r slog.Record) error {
	h.cancel()
	return nil
}

// TestRequestTimeoutStreamNotResent: a stream request that times out
// before its headers is not sent again (the service may have started the
// generation); a GET is retried. In a synctest bubble over the in-memory
// fake: the 100ms timeout is fake time, so the retried GET cannot run out
// of it on a busy machine.
func TestRequestTimeoutStreamNotResent(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, srv := setupInMemory(t, threads.WithRequestTimeout(100*time.Millisecond))
		stall := make(chan struct{})
		defer close(stall)
		srv.Inject(threadstest.Fault{Method: "POST", Path: "/threads/advancestream", Stall: stall})
		_, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout())
		assert.Equal(t, 1, srv.Count("POST", "/threads/advancestream"))

		// A GET that times out before its headers is retried.
		srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Stall: stall})
		start := time.Now()
		_, err = c.Threads.List(context.Background(), nil)
		require.NoError(t, err)
		assert.Equal(t, 2, srv.Count("GET", "/threads"))
		assert.Less(t, time.Since(start), 200*time.Millisecond, "one timeout and one short retry wait, on the fake clock")
	})
}

func TestLoggingRedacts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, srv := setup(t, threads.WithLogger(logger))
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Status: 502})
	_, err := c.Threads.List(context.Background(), &threads.ListParams{ContextKey: "user-1"}, threads.WithHeader("X-Token", "tok"))
	require.NoError(t, err)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	assert.Contains(t, out, "status=502")
	assert.Contains(t, out, "attempt=2")
	assert.Contains(t, out, "contextKey=%5BREDACTED%5D")
	assert.NotContains(t, out, testKey)
	assert.NotContains(t, out, "user-1")
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestNoDuplicateCreatesUnderFaultStorm sends 200 creates through random
// resets (before and after the server acted), 500s and 503s with
// Retry-After: every call either returns a thread that exists or fails, and
// no name is created twice.
func TestNoDuplicateCreatesUnderFaultStorm(t *testing.T) {
	t.Parallel()
	c, srv := setup(t, threads.WithRetryWait(0, time.Millisecond), threads.WithMaxRetries(3))
	rng := rand.New(rand.NewPCG(7, 11))
	for range 400 {
		f := threadstest.Fault{Method: "POST", Path: "/threads"}
		switch rng.IntN(6) {
		case 0:
			f.Reset = true
		case 1:
			f.ActThenReset = true
		case 2:
			f.Status = 500
		case 3:
			f.Status, f.Header = 503, http.Header{"Retry-After-Ms": {"1"}}
		default:
			// No answer set: the request passes through to the handler.
		}
		srv.Inject(f)
	}
	type result struct {
		name string
		th   *threads.Thread
		err  error
	}
	results := make(chan result, 200)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 200; i += 8 {
				name := fmt.Sprint("storm-", i)
				th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: name})
				results <- result{name, th, err}
			}
		}()
	}
	wg.Wait()
	close(results)

	names := map[string]int{}
	page, err := c.Threads.List(context.Background(), &threads.ListParams{Limit: 1000})
	require.NoError(t, err)
	existing := map[string]bool{}
	for _, th := range page.Items {
		names[th.Name]++
		existing[th.ID] = true
	}
	ok, failed := 0, 0
	for r := range results {
		if r.err != nil {
			failed++
			continue
		}
		ok++
		assert.True(t, existing[r.th.ID], "returned thread %s exists", r.th.ID)
		assert.Equal(t, r.name, r.th.Name)
	}
	for name, n := range names {
		assert.Equal(t, 1, n, "%s created %d times", name, n)
	}
	assert.Equal(t, 200, ok+failed)
	assert.Positive(t, failed)
	assert.Positive(t, ok)
	t.Logf("fault storm: %d created, %d failed, %d threads on the server", ok, failed, len(page.Items))
}

// TestRedirectOfWriteIsFinalDespiteShouldRetry: a 3xx to a write carrying
// x-should-retry is final: the write may have acted.
func TestRedirectOfWriteIsFinalDespiteShouldRetry(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(http.StatusNotModified)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p"})
	assert.Error(t, err)
	assert.Equal(t, int32(1), n.Load(), "sent once")
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}

// TestShouldRetryNeverRetries2xxOr410: x-should-retry overrides the status rule
// for failures only. A 2xx has acted: retrying it created three threads.
// A 410 is final too.
func TestShouldRetryNeverRetries2xxOr410(t *testing.T) {
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
