package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// sseEvent is one event a page's EventSource would get.
type sseEvent struct{ ID, Data string }

// readEvents reads up to n events (n < 0: to the end) from an SSE body.
func readEvents(t *testing.T, r *bufio.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	for n < 0 || len(out) < n {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if cur.Data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.ID = line[4:]
		case strings.HasPrefix(line, "data: "):
			cur.Data += line[6:]
		}
	}
	return out
}

func eventType(t *testing.T, e sseEvent) string {
	t.Helper()
	var v struct{ Type string }
	require.NoError(t, json.Unmarshal([]byte(e.Data), &v), e.Data)
	return v.Type
}

// logKeys is a MemoryStore that records the keys of the logs written.
type logKeys struct {
	*proxy.MemoryStore
	mu   sync.Mutex
	logs map[string]bool
	// appended gets each event appended; read each id a ReadLog reads
	// after (when not nil).
	appended, read chan string
	// fail, when set, is asked before each append whether the store
	// fails it (a store outage): n counts the events (JSON values) tried
	// so far, end is the run's end entry, other any other entry.
	fail   func(n int, kind string) bool
	events int
	// maxWait, when set, bounds how long a ReadLog waits; idle gets a
	// value (when there is room) for each ReadLog that found nothing.
	maxWait time.Duration
	idle    chan struct{}
}

func (s *logKeys) ReadLog(ctx context.Context, key, after string, n int, wait time.Duration) ([]proxy.LogEntry, bool, error) {
	if s.read != nil {
		s.read <- after
	}
	if s.maxWait > 0 {
		wait = min(wait, s.maxWait)
	}
	es, whole, err := s.MemoryStore.ReadLog(ctx, key, after, n, wait)
	if len(es) == 0 && s.idle != nil {
		select {
		case s.idle <- struct{}{}:
		default:
		}
	}
	return es, whole, err
}

func (s *logKeys) Append(ctx context.Context, key string, value []byte, maxLen int, ttl time.Duration) (string, error) {
	s.mu.Lock()
	s.logs[key] = true
	kind := "other"
	switch {
	case len(value) == 0:
		kind = "end"
	case value[0] == '{':
		kind = "event"
		s.events++
	}
	failed := s.fail != nil && s.fail(s.events, kind)
	s.mu.Unlock()
	if failed {
		return "", errors.New("the store cannot be reached")
	}
	id, err := s.MemoryStore.Append(ctx, key, value, maxLen, ttl)
	if s.appended != nil && len(value) > 0 {
		s.appended <- id + " " + string(value)
	}
	return id, err
}

func (s *logKeys) keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.logs {
		out = append(out, k)
	}
	return out
}

// detached is one Handler with detached runs on its own server.
type detached struct {
	fake  *threadstest.Server
	srv   *httptest.Server
	store *logKeys
	h     *proxy.Handler
}

func newDetached(t *testing.T, opts ...proxy.Option) *detached {
	t.Helper()
	fake := threadstest.NewServer(t)
	store := &logKeys{MemoryStore: proxy.NewMemoryStore(0, 0), logs: map[string]bool{}}
	h, err := proxy.New(fake.Client(), userBySession, append([]proxy.Option{proxy.WithStore(store), proxy.WithDetachedRuns(time.Minute)}, opts...)...)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		require.NoError(t, h.Shutdown(context.Background()), "detached runs end with their run")
		srv.CloseClientConnections()
		srv.Close()
	})
	return &detached{fake: fake, srv: srv, store: store, h: h}
}

func (d *detached) request(t *testing.T, session, method, path, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, d.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.AddCookie(&http.Cookie{Name: "session", Value: session})
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := d.srv.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// startRun has the model answer the next run with script and starts that
// run (hiRun) as session's user, requiring 201; the caller reads the body.
func (d *detached) startRun(t *testing.T, session string, script threadstest.RunScript) *http.Response {
	t.Helper()
	d.fake.PushRunScript(script)
	resp := d.request(t, session, "POST", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	return resp
}

// runOf returns the thread and run a started run's response names.
func runOf(resp *http.Response) (threadID, runID string) {
	return resp.Header.Get("X-Thread-Id"), resp.Header.Get("X-Run-Id")
}

// eventsPath is the route a page resumes a run's events from.
func eventsPath(threadID, runID string) string {
	return "/v1/threads/" + threadID + "/runs/" + runID + "/events"
}

// WithKeepAlive(0) means no keep-alive comments for a detached run's
// stream too, which is served from its log (it got one each time its
// reader found nothing new).
func TestDetachedRunWithoutKeepAliveWritesNoComment(t *testing.T) {
	t.Parallel()
	d := newDetached(t, proxy.WithKeepAlive(0))
	d.store.maxWait, d.store.idle = time.Millisecond, make(chan struct{}, 1)
	hold := make(chan struct{})
	resp := d.startRun(t, "s-alice", threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
	for range 3 { // the page's reader found nothing new, three times
		<-d.store.idle
	}
	close(hold)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), "RUN_FINISHED")
	assert.NotContains(t, string(body), ": keep-alive", "WithKeepAlive(0): none")
}

// A page reads 5 events of a detached run and leaves (a reload); the run
// is not cancelled, and the page resumes with Last-Event-ID: it gets
// every event after those once, in order, to the run's end.
func TestDetachedRunResumesAfterReload(t *testing.T) {
	t.Parallel()
	d := newDetached(t)
	hold := make(chan struct{})
	resp := d.startRun(t, "s-alice", threadstest.RunScript{Text: "one two three four five six seven eight", Hold: hold, HoldAfter: 6})
	threadID, runID := runOf(resp)
	first := readEvents(t, bufio.NewReader(resp.Body), 5)
	require.Len(t, first, 5)
	for _, e := range first {
		require.NotEmpty(t, e.ID, "each event has an id")
	}
	resp.Body.Close() // the page reloads
	close(hold)

	again := d.request(t, "s-alice", "GET", eventsPath(threadID, runID), "", "Last-Event-ID", first[4].ID)
	require.Equal(t, http.StatusOK, again.StatusCode)
	assert.Equal(t, "text/event-stream", again.Header.Get("Content-Type"))
	rest := readEvents(t, bufio.NewReader(again.Body), -1)
	require.NotEmpty(t, rest)
	assert.Equal(t, "RUN_FINISHED", eventType(t, rest[len(rest)-1]), "the run went on to its end")

	whole := d.request(t, "s-alice", "GET", eventsPath(threadID, runID), "")
	all := readEvents(t, bufio.NewReader(whole.Body), -1)
	assert.Equal(t, all, append(first, rest...), "every event once, in order")
	assert.Zero(t, d.fake.Count("DELETE", "/v1/threads/"+threadID+"/runs/"+runID), "the run was not cancelled")

	// Another user's page cannot read it.
	other := d.request(t, "s-bob", "GET", eventsPath(threadID, runID), "")
	assert.Equal(t, http.StatusNotFound, other.StatusCode)
}

// A page resuming after the run's log expired gets AG-UI's own form of
// the run's state: RUN_STARTED, a MESSAGES_SNAPSHOT of the thread's
// messages, and the run's end as the service stored it.
func TestDetachedRunResumeAfterLogExpired(t *testing.T) {
	t.Parallel()
	d := newDetached(t)
	resp := d.startRun(t, "s-alice", threadstest.RunScript{Text: "all done"})
	threadID, runID := runOf(resp)
	evs := readEvents(t, bufio.NewReader(resp.Body), -1)
	require.NotEmpty(t, evs)
	for _, k := range d.store.keys() {
		require.NoError(t, d.store.ExpireNow(context.Background(), k))
	}

	again := d.request(t, "s-alice", "GET", eventsPath(threadID, runID), "", "Last-Event-ID", evs[1].ID)
	require.Equal(t, http.StatusOK, again.StatusCode)
	snap := readEvents(t, bufio.NewReader(again.Body), -1)
	var types []string
	for _, e := range snap {
		types = append(types, eventType(t, e))
		assert.Empty(t, e.ID, "the snapshot form has no log ids")
	}
	require.Equal(t, []string{"RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"}, types)
	var ms struct {
		Messages []struct{ Role, Content string }
	}
	require.NoError(t, json.Unmarshal([]byte(snap[1].Data), &ms))
	require.Len(t, ms.Messages, 2)
	assert.Equal(t, "user", ms.Messages[0].Role)
	assert.Equal(t, "hi", ms.Messages[0].Content)
	assert.Equal(t, "assistant", ms.Messages[1].Role)
	assert.Equal(t, "all done", ms.Messages[1].Content)
}

// A detached run's pause (tambo.run.awaiting_input) reaches the browser
// only with the run's end, as the relay holds it: with the service's
// pause window open, the page has read up to the pause's id in the log
// and waits for the next entry, yet has not been sent the pause.
func TestDetachedRunHoldsPauseUntilRunEnd(t *testing.T) {
	t.Parallel()
	d := newDetached(t)
	d.store.appended = make(chan string, 64)
	window := make(chan struct{})
	d.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_b", Name: "get_location"}}, PauseWindow: window})
	r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`))
	r.Header.Set("Content-Type", "application/json")
	r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
	w := newRecorder()
	d.store.read = make(chan string, 1024)
	served := make(chan struct{})
	go func() {
		defer close(served)
		d.h.ServeHTTP(w, r)
	}()
	var pauseID string
	for pauseID == "" {
		if e := <-d.store.appended; strings.Contains(e, "tambo.run.awaiting_input") {
			pauseID, _, _ = strings.Cut(e, " ")
		}
	}
	for after := range d.store.read {
		if after == pauseID {
			break // the page's loop has had the pause, and waits for more
		}
	}
	assert.NotContains(t, w.Body(), "tambo.run.awaiting_input", "the pause is held while the service's window is open")
	close(window)
	<-served
	body := w.Body()
	pause, end := strings.Index(body, "tambo.run.awaiting_input"), strings.Index(body, "RUN_FINISHED")
	require.True(t, pause >= 0 && end > pause, body)
}

// relayingBackend is a backend that starts and relays its own runs with
// proxy.Relay on POST /chat, detached by its Handler h, which serves the
// /v1 routes (the resume route among them) on the same server.
type relayingBackend struct {
	*detached
	// relayed gets each Relay's result and error.
	relayed chan relayed
}

type relayed struct {
	res proxy.RelayResult
	err error
}

func newRelayingBackend(t *testing.T, opts ...proxy.Option) *relayingBackend {
	t.Helper()
	fake := threadstest.NewServer(t)
	store := &logKeys{MemoryStore: proxy.NewMemoryStore(0, 0), logs: map[string]bool{}}
	h, err := proxy.New(fake.Client(), userBySession, append([]proxy.Option{proxy.WithStore(store), proxy.WithDetachedRuns(time.Minute)}, opts...)...)
	require.NoError(t, err)
	rc := runs.New(fake.Client())
	b := &relayingBackend{relayed: make(chan relayed, 4)}
	mux := http.NewServeMux()
	mux.Handle("/v1/", h)
	mux.HandleFunc("POST /chat", func(w http.ResponseWriter, r *http.Request) {
		u, err := userBySession(r)
		if err != nil {
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		ctx, detach := h.Detach(r, u)
		if r.Header.Get("X-Start-With") == "request" {
			ctx = r.Context() // the trap Detach's context avoids
		}
		s, err := rc.ForUser(u.Key).CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		res, err := proxy.Relay(w, r, s, detach)
		b.relayed <- relayed{res, err}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		if err := h.Shutdown(context.Background()); !errors.Is(err, proxy.ErrShutdown) { // a test's own
			require.NoError(t, err, "detached runs end with their run")
		}
		srv.CloseClientConnections()
		srv.Close()
	})
	b.detached = &detached{fake: fake, srv: srv, store: store, h: h}
	return b
}

// A backend relays its own run with Relay under Handler.Detach; its page
// reads 5 events and leaves. The run is not cancelled, and the page
// resumes it through the Handler's resume route: every event once, in
// order, to the run's end; another user's page gets 404.
func TestRelayDetachedResumesThroughHandler(t *testing.T) {
	t.Parallel()
	b := newRelayingBackend(t)
	hold := make(chan struct{})
	b.fake.PushRunScript(threadstest.RunScript{Text: "one two three four five six seven eight", Hold: hold, HoldAfter: 6})
	resp := b.request(t, "s-alice", "POST", "/chat", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	threadID, runID := runOf(resp)
	require.NotEmpty(t, threadID)
	require.NotEmpty(t, runID)
	first := readEvents(t, bufio.NewReader(resp.Body), 5)
	require.Len(t, first, 5)
	for _, e := range first {
		require.NotEmpty(t, e.ID, "each event has an id")
	}
	resp.Body.Close() // the page reloads
	left := <-b.relayed
	assert.True(t, left.res.Left, "Relay returned when the browser left")
	assert.NoError(t, left.err)
	close(hold)

	events := "/v1/threads/" + threadID + "/runs/" + runID + "/events"
	again := b.request(t, "s-alice", "GET", events, "", "Last-Event-ID", first[4].ID)
	require.Equal(t, http.StatusOK, again.StatusCode)
	rest := readEvents(t, bufio.NewReader(again.Body), -1)
	require.NotEmpty(t, rest)
	assert.Equal(t, "RUN_FINISHED", eventType(t, rest[len(rest)-1]), "the run went on to its end")

	whole := b.request(t, "s-alice", "GET", events, "")
	all := readEvents(t, bufio.NewReader(whole.Body), -1)
	assert.Equal(t, all, append(first, rest...), "every event once, in order")
	var text strings.Builder
	for _, e := range all {
		var ev struct{ Type, Delta string }
		require.NoError(t, json.Unmarshal([]byte(e.Data), &ev))
		text.WriteString(ev.Delta)
	}
	assert.Equal(t, "one two three four five six seven eight", text.String(), "the run's whole text")
	assert.Zero(t, b.fake.Count("DELETE", "/v1/threads/"+threadID+"/runs/"+runID), "the run was not cancelled")
	th, err := runs.New(b.fake.Client()).ForUser("alice").GetThread(context.Background(), threadID)
	require.NoError(t, err)
	assert.False(t, th.LastRunCancelled, "nor cancelled by its connection closing")

	other := b.request(t, "s-bob", "GET", events, "")
	assert.Equal(t, http.StatusNotFound, other.StatusCode, "another user's run")
}

// A browser that stays reads a detached Relay to its end: Relay returns
// the run's own result, every event with its id.
func TestRelayDetachedToItsEnd(t *testing.T) {
	t.Parallel()
	b := newRelayingBackend(t)
	b.fake.PushRunScript(threadstest.RunScript{Text: "all done"})
	resp := b.request(t, "s-alice", "POST", "/chat", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	evs := readEvents(t, bufio.NewReader(resp.Body), -1)
	require.NotEmpty(t, evs)
	assert.Equal(t, "RUN_FINISHED", eventType(t, evs[len(evs)-1]))
	got := <-b.relayed
	require.NoError(t, got.err)
	assert.False(t, got.res.Left)
	assert.Equal(t, len(evs), got.res.Events)
}

// Detach refuses what cannot be detached: a Handler without
// WithDetachedRuns (its resume route is off) or a user that is not
// exactly one of a key and a token. Relay then closes the stream and
// writes nothing.
func TestRelayDetachRefusedWithoutDetachedRuns(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	plain, err := proxy.New(fake.Client(), userBySession)
	require.NoError(t, err)
	detaching, err := proxy.New(fake.Client(), userBySession, proxy.WithDetachedRuns(time.Minute))
	require.NoError(t, err)
	rc := runs.New(fake.Client()).ForUser("alice")
	for name, c := range map[string]struct {
		h    *proxy.Handler
		user proxy.User
	}{
		"no WithDetachedRuns": {plain, proxy.User{Key: "alice"}},
		"no user":             {detaching, proxy.User{}},
	} {
		fake.PushRunScript(threadstest.RunScript{Text: "never read"})
		r := httptest.NewRequest("POST", "/chat", nil)
		ctx, detach := c.h.Detach(r, c.user)
		s, err := rc.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)
		w := newRecorder()
		_, err = proxy.Relay(w, r, s, detach)
		assert.Error(t, err, name)
		assert.Empty(t, w.Body(), name)
		assert.Error(t, ctx.Err(), "%s: its context ended", name)
	}
	_, err = proxy.New(fake.Client(), userBySession, func() proxy.Option {
		_, o := detaching.Detach(httptest.NewRequest("GET", "/", nil), proxy.User{Key: "alice"})
		return o
	}())
	assert.Error(t, err, "Detach's option is Relay's, not New's")
	require.NoError(t, detaching.Shutdown(context.Background()))
}

// A run started with the request's context, not Detach's, ends with its
// browser whatever Relay does: the Handler says so, at error level,
// naming the fix.
func TestRelayDetachedStartedWithRequestContextIsLogged(t *testing.T) {
	t.Parallel()
	l, logger := newLogs(t)
	b := newRelayingBackend(t, proxy.WithLogger(logger))
	hold := make(chan struct{})
	defer close(hold)
	b.fake.PushRunScript(threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
	resp := b.request(t, "s-alice", "POST", "/chat", "", "X-Start-With", "request")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, readEvents(t, bufio.NewReader(resp.Body), 2), 2)
	resp.Body.Close()
	<-b.relayed
	require.NoError(t, b.h.Shutdown(context.Background()), "the run ended with its request")
	assert.Contains(t, strings.Join(l.failures(), "\n"), "start it with the context Handler.Detach returns")
}

// Under detached runs a page's cancel is also recorded for the run's
// owner, and answered 200 when the service has no run to cancel; another
// user's cancel of alice's run still gets the service's refusal (403), not
// a 200 that says it was cancelled, and alice's run goes on.
func TestDetachedCancelOfAnotherUsersRunIsRefused(t *testing.T) {
	t.Parallel()
	d := newDetached(t)
	hold := make(chan struct{})
	resp := d.startRun(t, "s-alice", threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 3})
	threadID, runID := runOf(resp)
	require.Len(t, readEvents(t, bufio.NewReader(resp.Body), 2), 2)

	other := d.request(t, "s-bob", "DELETE", "/v1/threads/"+threadID+"/runs/"+runID, "")
	body, _ := io.ReadAll(other.Body)
	assert.Equal(t, http.StatusForbidden, other.StatusCode, "%s", body)
	assert.NotContains(t, string(body), `"cancelled"`)
	close(hold)
	rest := readEvents(t, bufio.NewReader(resp.Body), -1)
	require.NotEmpty(t, rest)
	assert.Equal(t, "RUN_FINISHED", eventType(t, rest[len(rest)-1]), "alice's run went on")
}

// A store that fails an append of a detached run's events leaves no
// silent gap: the page gets the log's events up to the failure, then
// AG-UI's snapshot form (RUN_STARTED, the thread's MESSAGES_SNAPSHOT, the
// stored end), live and on a resume alike; whether the store answers
// again at once (the log is marked broken, then ended) or only after the
// run (no mark, no end: the owner is gone).
func TestDetachedRunLogBrokenByStoreGivesSnapshot(t *testing.T) {
	t.Parallel()
	for name, fail := range map[string]func(n int, kind string) bool{
		"one append fails":         func(n int, kind string) bool { return n == 3 && kind == "event" },
		"the store stays down":     func(n int, kind string) bool { return n >= 3 },
		"only the events go, then": func(n int, kind string) bool { return n >= 3 && kind == "event" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDetached(t, proxy.WithKeepAlive(20*time.Millisecond)) // a reader checks its owner at each
			d.store.fail = fail
			resp := d.startRun(t, "s-alice", threadstest.RunScript{Text: "one two three four five six"})
			threadID, runID := runOf(resp)
			live := readEvents(t, bufio.NewReader(resp.Body), -1)
			resumed := readEvents(t, bufio.NewReader(d.request(t, "s-alice", "GET", eventsPath(threadID, runID), "").Body), -1)
			for name, evs := range map[string][]sseEvent{"live": live, "resumed": resumed} {
				require.Len(t, evs, 5, "%s: two of the log's events, then the snapshot form: %v", name, evs)
				for _, e := range evs[:2] {
					assert.NotEmpty(t, e.ID, name)
				}
				var types []string
				for _, e := range evs[2:] {
					types = append(types, eventType(t, e))
					assert.Empty(t, e.ID, "%s: the snapshot form has no log ids", name)
				}
				require.Equal(t, []string{"RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"}, types, name)
				assert.Contains(t, evs[3].Data, `"content":"one two three four five six"`, "%s: the reply as the service stored it", name)
			}
		})
	}
}

// leaseKeys is a MemoryStore that records the leases taken.
type leaseKeys struct {
	*proxy.MemoryStore
	mu     sync.Mutex
	leased map[string]bool
}

func (s *leaseKeys) Lease(ctx context.Context, key, holder string, ttl time.Duration) (bool, error) {
	ok, err := s.MemoryStore.Lease(ctx, key, holder, ttl)
	if ok && !strings.Contains(holder, ":probe:") { // a reader's look, not an owner
		s.mu.Lock()
		s.leased[key] = true
		s.mu.Unlock()
	}
	return ok, err
}

// free requires every lease ever taken to be free now.
func (s *leaseKeys) free(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.leased)
	for k := range s.leased {
		ok, err := s.MemoryStore.Lease(context.Background(), k, "another instance", time.Minute)
		require.NoError(t, err)
		assert.True(t, ok, "lease %s released", k)
	}
}

// detachedLeft starts a detached run as alice whose browser then leaves,
// in a synctest bubble, and returns its thread and run ids.
func detachedLeft(t *testing.T, e *env) (threadID, runID string) {
	t.Helper()
	ctx, leave := context.WithCancel(context.Background())
	r := httptest.NewRequestWithContext(ctx, "POST", "/v1/threads/runs", strings.NewReader(hiRun))
	r.Header.Set("Content-Type", "application/json")
	r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
	w := newRecorder()
	served := make(chan struct{})
	go func() {
		defer close(served)
		e.h.ServeHTTP(w, r)
	}()
	synctest.Wait()
	require.Equal(t, http.StatusCreated, w.Status())
	require.NotEmpty(t, events(w.Body()), "the run streams")
	leave()
	<-served
	return w.Header().Get("X-Thread-Id"), w.Header().Get("X-Run-Id")
}

// Shutdown waits for a detached run whose browser left, reads it to its
// end into its log (a page resuming after the deploy gets all of it),
// refuses new runs meanwhile, and releases the run's leases.
func TestShutdownReadsDetachedRunsToTheirEnd(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		store := &leaseKeys{MemoryStore: proxy.NewMemoryStore(0, 0), leased: map[string]bool{}}
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithDetachedRuns(time.Minute), proxy.WithStore(store), proxy.WithMaxRunsPerUser(1))
		hold := make(chan struct{})
		e.fake.PushRunScript(threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
		threadID, runID := detachedLeft(t, e)

		shut := make(chan error)
		go func() { shut <- e.h.Shutdown(context.Background()) }()
		synctest.Wait()
		select {
		case <-shut:
			t.Fatal("Shutdown returned with a detached run in flight")
		default:
		}
		assert.Equal(t, http.StatusServiceUnavailable, e.do(t, "s-bob", "POST", "/v1/threads/runs", hiRun).Code)
		close(hold)
		require.NoError(t, <-shut)
		store.free(t)

		w := e.do(t, "s-alice", "GET", eventsPath(threadID, runID), "")
		evs := readEvents(t, bufio.NewReader(strings.NewReader(w.Body.String())), -1)
		require.NotEmpty(t, evs)
		for _, ev := range evs {
			assert.NotEmpty(t, ev.ID, "every event is the log's")
		}
		assert.Equal(t, "RUN_FINISHED", eventType(t, evs[len(evs)-1]), "read to its end")
	})
}

// At Shutdown's deadline a detached run still going is cancelled (its
// upstream stream closed: the service cancels it), its leases are
// released, and a page resuming it gets the log's events, then the run's
// state as the service stored it: RUN_STARTED, MESSAGES_SNAPSHOT,
// RUN_ERROR CANCELLED, never a stream that stops without an end.
func TestShutdownDeadlineEndsDetachedRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		store := &leaseKeys{MemoryStore: proxy.NewMemoryStore(0, 0), leased: map[string]bool{}}
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithDetachedRuns(time.Minute), proxy.WithStore(store), proxy.WithMaxRunsPerUser(1))
		hold := make(chan struct{})
		defer close(hold)
		e.fake.PushRunScript(threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
		threadID, runID := detachedLeft(t, e)

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.ErrorIs(t, e.h.Shutdown(ctx), context.DeadlineExceeded)
		synctest.Wait()
		store.free(t)

		w := e.do(t, "s-alice", "GET", eventsPath(threadID, runID), "")
		evs := readEvents(t, bufio.NewReader(strings.NewReader(w.Body.String())), -1)
		require.Len(t, evs, 6, "%v", evs)
		var types []string
		for i, ev := range evs {
			assert.Equal(t, i < 3, ev.ID != "", "the log's events have ids, the state has none")
			types = append(types, eventType(t, ev))
		}
		assert.Equal(t, []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_ERROR"}, types)
		assert.Contains(t, evs[4].Data, `"content":"one "`, "the reply as the service kept it")
		assert.Contains(t, evs[5].Data, `"code":"CANCELLED"`)
	})
}

// Until Relay has the run, Detach's context ends with the browser's
// request (a backend whose run did not start leaves nothing behind);
// once Relay has it, the request ending does not end it.
func TestDetachContextEndsWithRequestUntilRelay(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	h, err := proxy.New(fake.Client(), userBySession, proxy.WithDetachedRuns(time.Minute))
	require.NoError(t, err)
	reqCtx, leave := context.WithCancel(context.Background())
	ctx, _ := h.Detach(httptest.NewRequestWithContext(reqCtx, "POST", "/chat", nil), proxy.User{Key: "alice"})
	u, ok := proxy.UserFrom(ctx)
	assert.True(t, ok)
	assert.Equal(t, "alice", u.Key, "the run's user")
	require.NoError(t, ctx.Err())
	leave()
	<-ctx.Done()

	hold := make(chan struct{})
	fake.PushRunScript(threadstest.RunScript{Text: "one two three", Hold: hold, HoldAfter: 2})
	reqCtx, leave = context.WithCancel(context.Background())
	defer leave()
	r := httptest.NewRequestWithContext(reqCtx, "POST", "/chat", nil)
	ctx, detach := h.Detach(r, proxy.User{Key: "alice"})
	s, err := runs.New(fake.Client()).ForUser("alice").CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	relayed := make(chan proxy.RelayResult)
	w := &headed{recorder: newRecorder(), head: make(chan struct{})}
	go func() {
		res, _ := proxy.Relay(w, r, s, detach)
		relayed <- res
	}()
	<-w.head // Relay has the run: it answers
	leave()
	assert.True(t, (<-relayed).Left)
	assert.NoError(t, ctx.Err(), "the run goes on")
	close(hold)
	require.NoError(t, h.Shutdown(context.Background()))
	assert.Error(t, ctx.Err(), "its context ended with the run")
}

// headed is a recorder that says when the answer's head is written.
type headed struct {
	*recorder
	once sync.Once
	head chan struct{}
}

func (w *headed) WriteHeader(status int) {
	w.recorder.WriteHeader(status)
	w.once.Do(func() { close(w.head) })
}

// A stream without its thread and run ids cannot name a log, nor be
// resumed: Relay relays it as it is (every event, no id: lines), and the
// Handler says why.
func TestRelayDetachWithoutRunIDsRelaysPlainly(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	l, logger := newLogs(t)
	h, err := proxy.New(fake.Client(), userBySession, proxy.WithDetachedRuns(time.Minute), proxy.WithLogger(logger))
	require.NoError(t, err)
	r := httptest.NewRequest("GET", "/stream", nil)
	_, detach := h.Detach(r, proxy.User{Key: "alice"})
	w := newRecorder()
	res, err := proxy.Relay(w, r, &batchStream{n: 20}, detach)
	require.NoError(t, err)
	assert.Equal(t, 20, res.Events)
	assert.Len(t, events(w.Body()), 20)
	assert.NotContains(t, w.Body(), "id: ")
	assert.Contains(t, strings.Join(l.failures(), "\n"), "cannot be detached")
	require.NoError(t, h.Shutdown(context.Background()))
}

// A page's cancel is recorded for the run's owner in a bounded value,
// whatever run id the page names: a cancel of a run id of 200 KB does not
// write 200 KB to the shared store (before the service has said whose
// thread it is).
func TestDetachedCancelRecordIsBounded(t *testing.T) {
	t.Parallel()
	store := &sizeStore{MemoryStore: proxy.NewMemoryStore(0, 0)}
	e := newEnv(t, nil, proxy.WithDetachedRuns(time.Minute), proxy.WithStore(store))
	w := e.do(t, "s-alice", "DELETE", "/v1/threads/thr_x/runs/"+strings.Repeat("r", 200<<10), "")
	assert.NotEqual(t, http.StatusOK, w.Code, "%.200s", w.Body.String())
	assert.LessOrEqual(t, store.max, 256, "the largest value written")
}

// One user's pages may hold only so many streams of their runs' logs on
// an instance (twice WithMaxRunsPerUser): each waits on a blocking store
// read. Past that, a resume is refused 429 with Retry-After, before the
// store is asked; another user's resume is served.
func TestDetachedResumesPerUserAreBounded(t *testing.T) {
	t.Parallel()
	d := newDetached(t, proxy.WithMaxRunsPerUser(2))
	start := func(session string) (events string, hold chan struct{}, last string) {
		hold = make(chan struct{})
		resp := d.startRun(t, session, threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
		first := readEvents(t, bufio.NewReader(resp.Body), 2)
		require.Len(t, first, 2)
		return "/v1/threads/" + resp.Header.Get("X-Thread-Id") + "/runs/" + resp.Header.Get("X-Run-Id") + "/events", hold, first[1].ID
	}
	alice, aliceHold, aliceLast := start("s-alice")
	defer close(aliceHold)
	// Her run's own stream is open: one of her four.
	for i := range 3 {
		resp := d.request(t, "s-alice", "GET", alice, "", "Last-Event-ID", aliceLast)
		require.Equal(t, http.StatusOK, resp.StatusCode, "resume %d", i)
	}
	over := d.request(t, "s-alice", "GET", alice, "", "Last-Event-ID", aliceLast)
	assert.Equal(t, http.StatusTooManyRequests, over.StatusCode)
	assert.NotEmpty(t, over.Header.Get("Retry-After"))
	var body struct {
		StatusCode int    `json:"statusCode"`
		Message    string `json:"message"`
	}
	require.NoError(t, json.NewDecoder(over.Body).Decode(&body))
	assert.Equal(t, http.StatusTooManyRequests, body.StatusCode)
	assert.NotEmpty(t, body.Message)

	bob, bobHold, bobLast := start("s-bob")
	defer close(bobHold)
	resp := d.request(t, "s-bob", "GET", bob, "", "Last-Event-ID", bobLast)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "another user's resume is served")
}

// Without WithMaxRunsPerUser, one user's streams of run logs on an
// instance are bounded to 4 (each waits holding a store connection), her
// run's own stream among them: past the bound a page is answered 429 with
// Retry-After, and another user's page is not.
func TestResumesOfOneUserAreBounded(t *testing.T) {
	t.Parallel()
	d := newDetached(t)
	hold := make(chan struct{})
	defer close(hold)
	alice := d.startRun(t, "s-alice", threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
	bob := d.startRun(t, "s-bob", threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
	events := func(r *http.Response) string {
		return "/v1/threads/" + r.Header.Get("X-Thread-Id") + "/runs/" + r.Header.Get("X-Run-Id") + "/events"
	}
	var statuses []int
	for range 5 {
		statuses = append(statuses, d.request(t, "s-alice", "GET", events(alice), "").StatusCode)
	}
	assert.Equal(t, []int{200, 200, 200, 429, 429}, statuses)
	refused := d.request(t, "s-alice", "GET", events(alice), "")
	assert.NotEmpty(t, refused.Header.Get("Retry-After"))
	assert.Equal(t, http.StatusOK, d.request(t, "s-bob", "GET", events(bob), "").StatusCode, "bob's pages are his own")
}

// A backend that starts its own run and relays it with Relay, detached
// through its Handler: the page that leaves does not end the run, and
// resumes it from the Handler's resume route, on any instance, from the
// SSE id of the last event it read.
func ExampleHandler_Detach() {
	srv := threadstest.Start() // the service; in production threads.NewClient()
	defer srv.Close()
	alice := proxy.User{Key: "alice"} // the backend's decision: here one user
	h, err := proxy.New(srv.Client(), func(*http.Request) (proxy.User, error) { return alice, nil },
		proxy.WithDetachedRuns(10*time.Minute))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Shutdown(context.Background()) // waits for the detached run
	base := runs.New(srv.Client())

	mux := http.NewServeMux()
	mux.Handle("/api/tambo/", http.StripPrefix("/api/tambo", h)) // its resume route too
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		ctx, detach := h.Detach(r, alice) // start the run with ctx, not r.Context()
		s, err := base.ForUser(alice.Key).CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
			Content: []runs.Content{runs.Text(r.FormValue("q"))},
		}})
		if err != nil {
			http.Error(w, "the run did not start", http.StatusBadGateway)
			return
		}
		if _, err := proxy.Relay(w, r, s, detach); err != nil {
			fmt.Println("the run failed:", err)
		}
	})
	backend := httptest.NewServer(mux)
	defer backend.Close()

	// The page reads three events, then leaves (a reload).
	resp, err := backend.Client().Get(backend.URL + "/stream?q=hello")
	if err != nil {
		fmt.Println(err)
		return
	}
	events := bufio.NewScanner(resp.Body)
	run := resp.Header.Get("X-Thread-Id") + "/runs/" + resp.Header.Get("X-Run-Id")
	last := printEvents(events, 3)
	resp.Body.Close()

	// The reloaded page resumes after the last event it showed.
	req, _ := http.NewRequest("GET", backend.URL+"/api/tambo/v1/threads/"+run+"/events", nil)
	req.Header.Set("Last-Event-ID", last)
	resp, err = backend.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	printEvents(bufio.NewScanner(resp.Body), -1)
	// Output:
	// 1 RUN_STARTED
	// 2 TEXT_MESSAGE_START
	// 3 TEXT_MESSAGE_CONTENT
	// 4 TEXT_MESSAGE_CONTENT
	// 5 TEXT_MESSAGE_CONTENT
	// 6 TEXT_MESSAGE_END
	// 7 RUN_FINISHED
}

// printEvents prints up to n events (n < 0: all) of an SSE stream, each
// with its id, and returns the last id.
func printEvents(sc *bufio.Scanner, n int) (id string) {
	for n != 0 && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			id = v
		}
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev struct{ Type string }
			_ = json.Unmarshal([]byte(data), &ev)
			fmt.Println(id, ev.Type)
			n--
		}
	}
	return id
}
