package threads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// logObserver writes what it hears as lines, one call after another.
type logObserver struct {
	mu    sync.Mutex
	lines []string
	ends  []threads.CallEnd
}

type logCall struct {
	o    *logObserver
	name string
}

func (l *logObserver) StartCall(ctx context.Context, ci threads.CallInfo) (context.Context, threads.CallObserver) {
	l.add(fmt.Sprintf("start %s %s stream=%t", ci.Method, ci.Route, ci.Stream))
	return ctx, &logCall{o: l, name: ci.Route}
}

func (l *logObserver) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func (c *logCall) Observe(ev threads.CallEvent) {
	switch ev.Kind {
	case threads.EventAttempt:
		c.o.add(fmt.Sprintf("attempt %d %s %d", ev.Attempt, ev.Method, ev.Status))
	case threads.EventMigrated:
		c.o.add("migrated " + ev.From + " -> " + ev.To)
	case threads.EventFirstEvent:
		c.o.add("first event")
	case threads.EventToolRound:
		c.o.add(fmt.Sprintf("tool round %d", ev.Round))
	case threads.EventToolApproval:
		c.o.add(fmt.Sprintf("tool approval %s %t timeout=%t by=%s", ev.ToolName, ev.Approved, ev.Err != nil, ev.DecidedBy))
	}
}

func (c *logCall) End(e threads.CallEnd) {
	c.o.mu.Lock()
	c.o.ends = append(c.o.ends, e)
	c.o.mu.Unlock()
	c.o.add(fmt.Sprintf("end %s status=%d err=%t events=%d rounds=%d left=%t", c.name, e.Status, e.Err != nil, e.Events, e.ToolRounds, e.Left))
}

func TestObserverJSONCallWithRetry(t *testing.T) {
	t.Parallel()
	obs := &logObserver{}
	c, srv := setup(t, threads.WithObserver(obs))
	srv.Inject(threadstest.Fault{Method: http.MethodGet, Path: "/projects", Status: http.StatusServiceUnavailable})
	_, err := c.Projects.Current(context.Background())
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_missing")
	require.Error(t, err)
	assert.Equal(t, []string{
		"start GET /projects stream=false",
		"attempt 0 GET 503",
		"attempt 1 GET 200",
		"end /projects status=200 err=false events=0 rounds=0 left=false",
		"start GET /threads/{id} stream=false",
		"attempt 0 GET 403",
		"end /threads/{id} status=403 err=true events=0 rounds=0 left=false",
	}, obs.lines)
}

func TestObserverStreamAndMigration(t *testing.T) {
	t.Parallel()
	obs := &logObserver{}
	c, srv := setup(t, threads.WithObserver(obs))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	n := 0
	for s.Next() {
		n++
	}
	require.NoError(t, s.Err())
	require.Positive(t, n)
	_, err = c.Threads.Advance(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("again")})
	require.NoError(t, err)
	got := strings.Join(obs.lines, "\n")
	assert.Contains(t, got, "start POST /threads/{id}/advancestream stream=true\nattempt 0 POST 201\nfirst event\n")
	assert.Contains(t, got, fmt.Sprintf("end /threads/{id}/advancestream status=201 err=false events=%d rounds=0 left=false", n))
	assert.Contains(t, got, "start POST /threads/{id}/advance stream=false\nattempt 0 POST 410\nmigrated POST /threads/{id}/advance -> POST /threads/:id/advancestream\nattempt 0 POST 201\nfirst event\n")
	for _, e := range obs.ends {
		assert.GreaterOrEqual(t, e.Duration, e.FirstEvent)
	}
}

func TestObserverNeverSeesTheKey(t *testing.T) {
	t.Parallel()
	obs := &logObserver{}
	c, srv := setup(t, threads.WithObserver(obs))
	srv.Inject(threadstest.Fault{Path: "/projects", Status: http.StatusBadRequest, Body: `{"message":"bad key ` + testKey + `","statusCode":400}`})
	_, err := c.Projects.Current(context.Background())
	require.Error(t, err)
	require.Len(t, obs.ends, 1)
	assert.NotContains(t, fmt.Sprint(obs.lines), testKey)
	assert.NotContains(t, obs.ends[0].Err.Error(), testKey)
}

// closingObserver closes the stream it is given when it hears a tool
// round: an observer that stops a run after a budget of rounds.
type closingObserver struct {
	st atomic.Pointer[threads.Stream]
}

func (o *closingObserver) StartCall(ctx context.Context, _ threads.CallInfo) (context.Context, threads.CallObserver) {
	return ctx, o
}

func (o *closingObserver) Observe(ev threads.CallEvent) {
	if st := o.st.Load(); ev.Kind == threads.EventToolRound && st != nil {
		st.Close()
	}
}

func (o *closingObserver) End(threads.CallEnd) {}

// The observer hears a tool round outside the stream's lock: closing the
// stream from it ends the stream instead of deadlocking it.
func TestObserverMayCloseTheStreamOnAToolRound(t *testing.T) {
	t.Parallel()
	srv := newToolServer(t,
		callTool("msg_A.1", "call_1", "get_weather", "city", "Paris"),
		func(req advanceRequest) string { return textReply("msg_B.2", "done") },
	)
	obs := &closingObserver{}
	c := srv.client(t, threads.WithObserver(obs))
	st, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("weather?")}, []threads.Tool{weatherTool()})
	require.NoError(t, err)
	obs.st.Store(st)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for st.Next() {
		}
	}()
	// No clock of its own: a deadlock is reported shortly before the test
	// binary's -timeout instead of as a bare timeout panic.
	var watchdog <-chan time.Time
	if deadline, ok := t.Deadline(); ok {
		watchdog = time.After(time.Until(deadline) * 9 / 10)
	}
	select {
	case <-done:
	case <-watchdog:
		t.Fatal("the stream deadlocked when its observer closed it on a tool round")
	}
	assert.NoError(t, st.Err())
}

// attemptObserver keeps the path and the error of every attempt it hears.
type attemptObserver struct {
	mu    sync.Mutex
	paths []string
	errs  []string
}

func (o *attemptObserver) StartCall(ctx context.Context, _ threads.CallInfo) (context.Context, threads.CallObserver) {
	return ctx, o
}

func (o *attemptObserver) Observe(ev threads.CallEvent) {
	if ev.Kind != threads.EventAttempt {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.paths = append(o.paths, ev.Path)
	if ev.Err != nil {
		o.errs = append(o.errs, ev.Err.Error())
	}
}

func (o *attemptObserver) End(threads.CallEnd) {}

// An attempt's transport error can quote the server's bytes (a malformed
// header line, key and all): the observer hears it as the caller does,
// one bounded line without the key.
func TestObserverAttemptErrorHasNoKey(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; note="+testKey+"\x1b[31m\u202e"+strings.Repeat("b", 64<<10))
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	obs := &attemptObserver{}
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0), threads.WithObserver(obs))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.Error(t, err)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.NotEmpty(t, obs.errs)
	for _, e := range obs.errs {
		assert.NotContains(t, e, testKey)
		assert.NotContains(t, e, "\x1b")
		assert.Less(t, len(e), 2048)
	}
}

func TestCallEventKindString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "attempt first-event migrated tool-round CallEventKind(0)",
		fmt.Sprint(threads.EventAttempt, " ", threads.EventFirstEvent, " ", threads.EventMigrated, " ", threads.EventToolRound, " ", threads.CallEventKind(0)))
}

// An attempt's path may hold ids a server sent (a project id that spells
// the key): the observer hears it as errors and logs show it, without
// the key.
func TestObserverAttemptPathHasNoKey(t *testing.T) {
	t.Parallel()
	srv := keyInPathServer(t)
	obs := &attemptObserver{}
	c := atkClient(t, srv.URL, threads.WithMaxRetries(0), threads.WithObserver(obs))
	_, err := c.Threads.List(context.Background(), nil)
	require.Error(t, err)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.NotEmpty(t, obs.paths)
	for _, p := range obs.paths {
		assert.NotContains(t, p, "ATTACKkey", "path %s", p)
	}
}

// CallEnd.Left says the caller left the stream before its end (Close or
// its context), with or without WithCancelOnClose; a stream that failed
// on its own (truncated) was not left.
func TestObserverLeftWithoutCancelOnClose(t *testing.T) {
	t.Parallel()
	for _, cancelOnClose := range []bool{false, true} {
		obs := &logObserver{}
		srv := threadstest.NewServer(t, threadstest.WithAPIKey(testKey), threadstest.WithThrottle(time.Hour))
		c := srv.Client(threads.WithObserver(obs))
		th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
		require.NoError(t, err)
		var opts []threads.RequestOption
		if cancelOnClose {
			opts = append(opts, threads.WithCancelOnClose())
		}
		s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")}, opts...)
		require.NoError(t, err)
		require.True(t, s.Next())
		require.NoError(t, s.Close())
		obs.mu.Lock()
		var stream []threads.CallEnd
		for _, e := range obs.ends {
			if e.Events > 0 {
				stream = append(stream, e)
			}
		}
		obs.mu.Unlock()
		require.Len(t, stream, 1, "cancelOnClose=%t", cancelOnClose)
		assert.True(t, stream[0].Left, "cancelOnClose=%t: closed after one event, before DONE", cancelOnClose)
	}
}

// A stream that the server cut short (no DONE) was not left by the
// caller, also when WithCancelOnClose sends a Cancel for it.
func TestObserverTruncatedStreamIsNotLeft(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/advancestream") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"responseMessageDto":{"id":"m","threadId":"t","role":"assistant","content":[]},"generationStage":"STREAMING_RESPONSE"}`+"\n\n")
	}))
	t.Cleanup(srv.Close)
	obs := &logObserver{}
	c := atkClient(t, srv.URL, threads.WithObserver(obs), threads.WithMaxRetries(0))
	s, err := c.Threads.AdvanceStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithCancelOnClose())
	require.NoError(t, err)
	_, err = s.Collect()
	require.ErrorIs(t, err, threads.ErrStreamTruncated)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	var found bool
	for _, e := range obs.ends {
		if e.Events > 0 {
			found = true
			assert.False(t, e.Left, "the server cut the stream; the caller did not leave it")
			assert.ErrorIs(t, e.Err, threads.ErrStreamTruncated)
		}
	}
	assert.True(t, found)
}

// panicObserver panics when it hears an attempt.
type panicObserver struct{}

func (panicObserver) StartCall(ctx context.Context, _ threads.CallInfo) (context.Context, threads.CallObserver) {
	return ctx, panicObserver{}
}
func (panicObserver) Observe(ev threads.CallEvent) {
	if ev.Kind == threads.EventAttempt {
		panic("observer bug")
	}
}
func (panicObserver) End(threads.CallEnd) {}

// closeTracker is a transport that notes whether the answer's body it
// handed out was closed.
type closeTracker struct {
	next   http.RoundTripper
	closed atomic.Bool
}

type trackedBody struct {
	io.ReadCloser
	closed *atomic.Bool
}

func (b trackedBody) Close() error { b.closed.Store(true); return b.ReadCloser.Close() }

func (c *closeTracker) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if resp != nil {
		resp.Body = trackedBody{resp.Body, &c.closed}
	}
	return resp, err
}

// An observer that panics on an attempt panics the caller (its own bug),
// but the answer it was told about is closed first: a caller that
// recovers does not leak the connection and its goroutines.
func TestObserverPanicClosesTheAnswer(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(testKey))
	tr := &closeTracker{next: srv.Transport()}
	c := srv.Client(threads.WithObserver(panicObserver{}), threads.WithHTTPClient(&http.Client{Transport: tr}))
	func() {
		defer func() {
			assert.Equal(t, "observer bug", recover())
		}()
		_, _ = c.Projects.Current(context.Background())
		t.Fatal("no panic")
	}()
	assert.True(t, tr.closed.Load(), "the answer's body was left open")
}

// CallEnd names the thread and run a call was about: the route's ids,
// else the answer's X-Thread-Id and X-Run-Id; an id that is not one (too
// long, with other characters, or holding the key) is left empty.
func TestObserverCallEndIDs(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Thread-Id", r.Header.Get("X-Test-Thread"))
		w.Header().Set("X-Run-Id", r.Header.Get("X-Test-Run"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"thr_1","projectId":"p_1"}`)
	}))
	t.Cleanup(srv.Close)
	obs := &logObserver{}
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithObserver(obs))
	require.NoError(t, err)
	ctx := context.Background()
	long := "thr_" + strings.Repeat("x", 124) // 128 bytes: the bound
	for _, tc := range []struct {
		path, hThread, hRun string // the thread id in the path ("" for /projects), the headers
		thread, run         string // CallEnd's
	}{
		{"thr_aB3dE9xZ.1f2e3d", "", "", "thr_aB3dE9xZ.1f2e3d", ""},
		{"thr_path.1", "thr_header.2", "run_r.3", "thr_path.1", "run_r.3"}, // the path's thread wins
		{"", "thr_header.2", "run_r.3", "thr_header.2", "run_r.3"},
		{"", "oauth:user:idp.example.com:alice", "", "oauth:user:idp.example.com:alice", ""},
		{"thr_" + testKey, "", "run_" + testKey, "", ""},
		{"", "thr with space", "run_r/3", "", ""},
		{"", "thr_ünï", "run_é", "", ""},
		{long, "", "", long, ""},
		{long + "x", long + "x", "", "", ""},
	} {
		obs.mu.Lock()
		obs.ends = nil
		obs.mu.Unlock()
		opts := []threads.RequestOption{threads.WithHeader("X-Test-Thread", tc.hThread), threads.WithHeader("X-Test-Run", tc.hRun)}
		if tc.path != "" {
			_, err = c.Threads.Get(ctx, tc.path, opts...)
		} else {
			_, err = c.Projects.Current(ctx, opts...)
		}
		require.NoError(t, err)
		obs.mu.Lock()
		require.Len(t, obs.ends, 1)
		assert.Equal(t, tc.thread, obs.ends[0].ThreadID, "%+v", tc)
		assert.Equal(t, tc.run, obs.ends[0].RunID, "%+v", tc)
		obs.mu.Unlock()
	}
}

// Do names a route the SDK does not model by its template: the one
// WithRouteTemplate gives, else its path with the id-like segments as
// {id}; a route the SDK has keeps its template, and a typed method keeps
// its own whatever WithRouteTemplate says. A template of another method
// is refused before sending.
func TestDoRouteNames(t *testing.T) {
	t.Parallel()
	obs := &logObserver{}
	c, srv := setup(t, threads.WithObserver(obs))
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	var raw json.RawMessage
	_ = c.Do(ctx, "GET", "/threads/"+th.ID+"/usage", nil, &raw)
	_ = c.Do(ctx, "GET", "/threads/"+th.ID+"/usage", nil, &raw, threads.WithRouteTemplate("GET /threads/{threadId}/usage"))
	_ = c.Do(ctx, "GET", "/threads/"+th.ID, nil, &raw)
	_, _ = c.Threads.Get(ctx, th.ID, threads.WithRouteTemplate("/ignored/{x}"))
	err = c.Do(ctx, "GET", "/threads/"+th.ID, nil, &raw, threads.WithRouteTemplate("POST /threads/{id}"))
	assert.ErrorContains(t, err, "WithRouteTemplate names a POST route; the call is a GET")
	assert.Error(t, c.Do(ctx, "GET", "/x", nil, nil, threads.WithRouteTemplate("/x?y=1")))
	var starts []string
	for _, l := range obs.lines {
		if strings.HasPrefix(l, "start ") {
			starts = append(starts, l)
		}
	}
	assert.Equal(t, []string{
		"start POST /threads stream=false",
		"start GET /threads/{id}/usage stream=false",
		"start GET /threads/{threadId}/usage stream=false",
		"start GET /threads/{id} stream=false",
		"start GET /threads/{id} stream=false",
	}, starts)
}
