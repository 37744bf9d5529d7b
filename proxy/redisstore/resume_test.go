package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/proxy/redisstore"
	"github.com/threadsapi/threads-go/threadstest"
)

// sseEvent is one event a page's EventSource gets.
type sseEvent struct{ ID, Data string }

// readEvents reads up to n events (n < 0: to the end) of an SSE body.
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

func typeOf(t *testing.T, e sseEvent) (typ, code string) {
	t.Helper()
	var v struct{ Type, Code string }
	require.NoError(t, json.Unmarshal([]byte(e.Data), &v), e.Data)
	return v.Type, v.Code
}

const hiRun = `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`

func detachedCluster(t *testing.T) *cluster {
	return newCluster(t, sharedServer(t), 3, proxy.WithDetachedRuns(time.Minute), proxy.WithKeepAlive(50*time.Millisecond))
}

// A page reads 5 events of a run from instance A and leaves (a reload);
// it resumes on B with Last-Event-ID and gets every later event of the
// run once, in order; the run was not cancelled on the service.
func TestResumeOnAnotherInstance(t *testing.T) {
	t.Parallel()
	c := detachedCluster(t)
	hold := make(chan struct{})
	c.fake.PushRunScript(threadstest.RunScript{Text: "one two three four five six seven eight", Hold: hold, HoldAfter: 6})
	onA := c.post(t, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, onA.status)
	threadID, runID := onA.header.Get("X-Thread-Id"), onA.header.Get("X-Run-Id")
	first := readEvents(t, onA.body, 5)
	require.Len(t, first, 5)
	onA.close()
	close(hold)

	onB := c.get(t, "alice", "/v1/threads/"+threadID+"/runs/"+runID+"/events", "Last-Event-ID", first[4].ID)
	require.Equal(t, http.StatusOK, onB.status)
	rest := readEvents(t, onB.body, -1)
	require.NotEmpty(t, rest)
	typ, _ := typeOf(t, rest[len(rest)-1])
	assert.Equal(t, "RUN_FINISHED", typ)

	whole := c.get(t, "alice", "/v1/threads/"+threadID+"/runs/"+runID+"/events")
	assert.Equal(t, readEvents(t, whole.body, -1), append(first, rest...), "every event once, in order")
	assert.Zero(t, c.fake.Count("DELETE", "/v1/threads/"+threadID+"/runs/"+runID), "not cancelled")
	other := c.get(t, "bob", "/v1/threads/"+threadID+"/runs/"+runID+"/events")
	assert.Equal(t, http.StatusNotFound, other.status, "another user's run")
}

// A backend relays its own run with proxy.Relay on instance A, detached
// by A's Handler (Handler.Detach); the page reads 5 events and leaves,
// and resumes on B through B's Handler: every later event once, in
// order; the run was not cancelled; another user's page gets 404.
func TestRelayDetachedResumesOnAnotherInstance(t *testing.T) {
	t.Parallel()
	c := detachedCluster(t)
	hold := make(chan struct{})
	c.fake.PushRunScript(threadstest.RunScript{Text: "one two three four five six seven eight", Hold: hold, HoldAfter: 6})
	onA := c.post(t, "alice", "/chat", "")
	require.Equal(t, http.StatusOK, onA.status)
	threadID, runID := onA.header.Get("X-Thread-Id"), onA.header.Get("X-Run-Id")
	first := readEvents(t, onA.body, 5)
	require.Len(t, first, 5)
	for _, e := range first {
		require.NotEmpty(t, e.ID, "each event has its log id")
	}
	onA.close()
	close(hold)

	events := "/v1/threads/" + threadID + "/runs/" + runID + "/events"
	onB := c.get(t, "alice", events, "Last-Event-ID", first[4].ID)
	require.Equal(t, http.StatusOK, onB.status)
	rest := readEvents(t, onB.body, -1)
	require.NotEmpty(t, rest)
	typ, _ := typeOf(t, rest[len(rest)-1])
	assert.Equal(t, "RUN_FINISHED", typ)

	whole := c.get(t, "alice", events) // C
	assert.Equal(t, readEvents(t, whole.body, -1), append(first, rest...), "every event once, in order")
	assert.Zero(t, c.fake.Count("DELETE", "/v1/threads/"+threadID+"/runs/"+runID), "not cancelled")
	other := c.get(t, "bob", events)
	assert.Equal(t, http.StatusNotFound, other.status, "another user's run")
}

// Instance A dies mid-run (nothing of it reaches Redis any more, its
// server closes, its run's context ends, and with it the upstream
// connection, so the service cancels the run). A page resuming on another
// instance gets every event the log held, then, once A's owner lease has
// lapsed, the run's state as the service stored it in AG-UI's snapshot
// form: RUN_STARTED, MESSAGES_SNAPSHOT, RUN_ERROR CANCELLED.
func TestResumeAfterOwnerDied(t *testing.T) {
	t.Parallel()
	c := detachedCluster(t)
	hold := make(chan struct{})
	defer close(hold)
	c.fake.PushRunScript(threadstest.RunScript{Text: "one two three four five six seven eight", Hold: hold, HoldAfter: 6})
	onA := c.post(t, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, onA.status)
	threadID, runID := onA.header.Get("X-Thread-Id"), onA.header.Get("X-Run-Id")
	first := readEvents(t, onA.body, 6)
	require.Len(t, first, 6, "the events before the hold are in the log")

	a := c.instances[0]
	c.kill(0)
	require.ErrorIs(t, a.h.Shutdown(canceled()), context.Canceled, "its run's context ends")
	for _, k := range a.store.leases() {
		require.NoError(t, c.redis.ExpireNow(context.Background(), k)) // its owner lease lapses
	}

	onB := c.get(t, "alice", "/v1/threads/"+threadID+"/runs/"+runID+"/events", "Last-Event-ID", first[2].ID)
	require.Equal(t, http.StatusOK, onB.status)
	rest := readEvents(t, onB.body, -1)
	require.GreaterOrEqual(t, len(rest), 6, "the log's events after the third, then the snapshot form: %v", rest)
	assert.Equal(t, first[3:], rest[:3], "the events the page had not read yet")
	state := rest[len(rest)-3:]
	for i, e := range rest[:len(rest)-3] {
		assert.NotEmpty(t, e.ID, "event %d is the log's", i)
	}
	var types []string
	for _, e := range state {
		typ, _ := typeOf(t, e)
		types = append(types, typ)
		assert.Empty(t, e.ID, "the run's state is the service's, not the log's")
	}
	assert.Equal(t, []string{"RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_ERROR"}, types)
	_, code := typeOf(t, state[2])
	assert.Equal(t, "CANCELLED", code, "the service cancelled the run when its connection closed: %s", state[2].Data)
	assert.Contains(t, state[1].Data, `"role":"assistant"`, "the reply as far as the service kept it")
}

// A Redis call of A's that fails while it logs a run's third event (and
// the next ones succeed) leaves no silent gap: the log is marked broken
// after the second, and a page resuming on B gets the two events, then
// AG-UI's snapshot form with the whole reply as the service stored it.
func TestResumeAfterLogBrokenByStoreFailure(t *testing.T) {
	t.Parallel()
	c := detachedCluster(t)
	c.instances[0].store.failEvent.Store(3)
	c.fake.PushRunScript(threadstest.RunScript{Text: "one two three four five six"})
	onA := c.post(t, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, onA.status)
	threadID, runID := onA.header.Get("X-Thread-Id"), onA.header.Get("X-Run-Id")
	live := readEvents(t, onA.body, -1)
	onB := c.get(t, "alice", "/v1/threads/"+threadID+"/runs/"+runID+"/events")
	require.Equal(t, http.StatusOK, onB.status)
	resumed := readEvents(t, onB.body, -1)
	assert.Equal(t, live, resumed, "the same on every instance")
	require.Len(t, resumed, 5, "%v", resumed)
	var types []string
	for i, e := range resumed {
		typ, _ := typeOf(t, e)
		types = append(types, typ)
		assert.Equal(t, i < 2, e.ID != "", "the log's events have ids, the state has none")
	}
	assert.Equal(t, []string{"RUN_STARTED", "TEXT_MESSAGE_START", "RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"}, types)
	assert.Contains(t, resumed[3].Data, `"content":"one two three four five six"`)
}

// A page resuming after the run's log expired (by the store's hook) gets
// AG-UI's own form: RUN_STARTED, MESSAGES_SNAPSHOT, the stored end.
func TestResumeAfterLogExpired(t *testing.T) {
	t.Parallel()
	c := detachedCluster(t)
	c.fake.PushRunScript(threadstest.RunScript{Text: "all done"})
	onA := c.post(t, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, onA.status)
	threadID, runID := onA.header.Get("X-Thread-Id"), onA.header.Get("X-Run-Id")
	evs := readEvents(t, onA.body, -1)
	require.NotEmpty(t, evs)
	for _, k := range c.instances[0].store.logKeys() {
		require.NoError(t, c.redis.ExpireNow(context.Background(), k))
	}
	onB := c.get(t, "alice", "/v1/threads/"+threadID+"/runs/"+runID+"/events", "Last-Event-ID", evs[1].ID)
	require.Equal(t, http.StatusOK, onB.status)
	snap := readEvents(t, onB.body, -1)
	var types []string
	for _, e := range snap {
		typ, _ := typeOf(t, e)
		types = append(types, typ)
	}
	require.Equal(t, []string{"RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"}, types)
	assert.Contains(t, snap[1].Data, `"content":"all done"`)
}

// A page's cancel sent to B while A, which owns the detached run, runs a
// server-side tool between two runs (the service has no run to cancel
// then): A hears it through the store and stops; no next run is sent.
func TestCancelReachesOwnerBetweenRuns(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	slow := threads.Tool{Name: "slow", Description: "Takes its time", Call: func(ctx context.Context, _ threads.ToolCall) (string, error) {
		close(started)
		<-ctx.Done() // only the cancel ends it
		return "", ctx.Err()
	}}
	c := newCluster(t, sharedServer(t), 3, proxy.WithDetachedRuns(time.Minute), proxy.WithKeepAlive(50*time.Millisecond),
		proxy.WithLeaseTTL(150*time.Millisecond), proxy.WithTools(slow))
	c.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_s", Name: "slow"}}})
	onA := c.post(t, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, onA.status)
	threadID, runID := onA.header.Get("X-Thread-Id"), onA.header.Get("X-Run-Id")
	<-started

	req, err := http.NewRequest("DELETE", c.front.URL+"/v1/threads/"+threadID+"/runs/"+runID, nil) // B
	require.NoError(t, err)
	req.Header.Set("X-User", "alice")
	resp, err := c.front.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	evs := readEvents(t, onA.body, -1) // ends: the owner stopped
	require.NotEmpty(t, evs)
	runs := 0
	for _, r := range c.fake.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/runs") {
			runs++
		}
	}
	assert.Equal(t, 1, runs, "no run after the cancel: the tool's result was never sent")
}

// readsInFlight is a store that counts the log reads in flight: each
// holds one connection of the pool while it waits.
type readsInFlight struct {
	proxy.Store
	mu      sync.Mutex
	n       int
	changed chan struct{}
}

func (s *readsInFlight) add(d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n += d
	close(s.changed)
	s.changed = make(chan struct{})
}

// until returns once k reads are in flight.
func (s *readsInFlight) until(k int) {
	for {
		s.mu.Lock()
		n, ch := s.n, s.changed
		s.mu.Unlock()
		if n >= k {
			return
		}
		<-ch
	}
}

func (s *readsInFlight) ReadLog(ctx context.Context, key, after string, n int, wait time.Duration) ([]proxy.LogEntry, bool, error) {
	s.add(1)
	defer s.add(-1)
	return s.Store.ReadLog(ctx, key, after, n, wait)
}

// One user's pages resuming a run, however many, leave the store's
// connections to the other users' requests: past twice
// WithMaxRunsPerUser streams, alice's resumes are refused 429, and bob's
// run starts while hers wait in XREAD.
func TestManyResumesOfOneUserLeaveTheStoreToOthers(t *testing.T) {
	t.Parallel()
	srv := sharedServer(t)
	opt, err := redis.ParseURL(srv.url)
	require.NoError(t, err)
	opt.PoolSize, opt.PoolTimeout = 16, 200*time.Millisecond
	rc := redis.NewClient(opt)
	t.Cleanup(func() { _ = rc.Close() })
	store, err := redisstore.New(rc)
	require.NoError(t, err)
	w := &readsInFlight{Store: store, changed: make(chan struct{})}
	fake := threadstest.NewServer(t)
	h, err := proxy.New(fake.Client(), userByHeader, proxy.WithStore(w), proxy.WithStoreKeyPrefix(keyPrefix(t)),
		proxy.WithDetachedRuns(time.Minute), proxy.WithMaxRunsPerUser(2), proxy.WithKeepAlive(10*time.Second))
	require.NoError(t, err)
	front := httptest.NewServer(h)
	t.Cleanup(func() {
		front.CloseClientConnections()
		_ = h.Shutdown(canceled())
		front.Close()
	})
	do := func(user, method, path, body string, hdr ...string) *http.Response {
		req, err := http.NewRequest(method, front.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-User", user)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := front.Client().Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	hold := make(chan struct{})
	defer close(hold)
	fake.PushRunScript(threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
	run := do("alice", "POST", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, run.StatusCode)
	first := readEvents(t, bufio.NewReader(run.Body), 2)
	require.Len(t, first, 2)
	events := "/v1/threads/" + run.Header.Get("X-Thread-Id") + "/runs/" + run.Header.Get("X-Run-Id") + "/events"
	open := 1 // her run's own stream
	for range 15 {
		resp := do("alice", "GET", events, "", "Last-Event-ID", first[1].ID)
		switch resp.StatusCode {
		case http.StatusOK:
			open++
		default:
			assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		}
	}
	assert.Equal(t, 4, open, "twice WithMaxRunsPerUser")
	w.until(open) // each open stream waits in XREAD, holding a connection

	fake.PushRunScript(threadstest.RunScript{Text: "bob's"})
	bob := do("bob", "POST", "/v1/threads/runs", hiRun)
	assert.Equal(t, http.StatusCreated, bob.StatusCode)
}
