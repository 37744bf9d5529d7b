package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
)

// Redis stops mid-run and comes back: a run whose slot cannot be taken is
// refused 503 and nothing reaches the service (unless slots are open), a
// continuation whose server results cannot be taken is refused 503 and
// nothing is sent, a cancel still reaches the service, and a run whose
// lease cannot be renewed goes on to its end. Once Redis is back (empty:
// the test's server keeps nothing on disk), runs and continuations
// succeed again.
func TestRedisDownAndBack(t *testing.T) {
	t.Parallel()
	srv := ownServer(t)
	c := newCluster(t, srv, 2, proxy.WithTools(lookupTool()), proxy.WithMaxRunsPerUser(2), proxy.WithLeaseTTL(300*time.Millisecond))
	hold1, hold2 := make(chan struct{}), make(chan struct{})
	c.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_b", Name: "get_location"}, {ID: "call_s", Name: "lookup", Arguments: map[string]any{"q": "tea"}},
	}})
	c.fake.PushRunScript(threadstest.RunScript{Text: "the first long answer", Hold: hold1, HoldAfter: 1})
	c.fake.PushRunScript(threadstest.RunScript{Text: "the second long answer", Hold: hold2, HoldAfter: 1})
	hi := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`

	pause := c.post(t, "alice", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`) // A
	require.Equal(t, http.StatusCreated, pause.status)
	threadID := pause.header.Get("X-Thread-Id")
	cont := `{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}]},"previousRunId":"` +
		lastRunID(t, pause.rest(t)) + `","tools":[` + browserTool + `]}`
	renewFailed := c.instances[1].logs.wait("cannot renew a run slot's lease")
	r1 := c.post(t, "alice", "/v1/threads/runs", hi) // B
	require.Equal(t, http.StatusCreated, r1.status)
	r2 := c.post(t, "alice", "/v1/threads/runs", hi) // A
	require.Equal(t, http.StatusCreated, r2.status)

	srv.stop()
	sent := len(c.fake.Requests())
	w := c.post(t, "bob", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusServiceUnavailable, w.status, "slots fail closed")
	w.rest(t)

	// An instance whose slots open on a store error starts the run; its
	// continuation of the pause cannot take the server results: 503.
	open, err := proxy.New(c.fake.Client(), userByHeader, proxy.WithStore(c.redis), proxy.WithTools(lookupTool()),
		proxy.WithMaxRunsPerUser(2), proxy.WithRunSlotsOpenOnStoreError(), proxy.WithStoreKeyPrefix(keyPrefixOf(t, c)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = open.Shutdown(canceled()) })
	rec := serve(open, "alice", "/v1/threads/"+threadID+"/runs", cont)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "the server results cannot be taken: %s", rec.Body.String())
	assert.Len(t, c.fake.Requests(), sent, "nothing was sent while Redis was down")
	c.fake.PushRunScript(threadstest.RunScript{Text: "ok"})
	rec = serve(open, "carol", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusCreated, rec.Code, "slots open on a store error")

	// A cancel does not need the store.
	runID := r2.header.Get("X-Run-Id")
	req, err := http.NewRequest("DELETE", c.front.URL+"/v1/threads/"+r2.header.Get("X-Thread-Id")+"/runs/"+runID, nil)
	require.NoError(t, err)
	req.Header.Set("X-User", "alice")
	resp, err := c.front.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the cancel reached the service")
	assert.Equal(t, 1, c.fake.Count("DELETE", "/v1/threads/"+r2.header.Get("X-Thread-Id")+"/runs/"+runID))

	// The run whose lease cannot be renewed goes on to its end.
	select {
	case <-renewFailed:
	case <-time.After(time.Minute): // a bound for a hung test, not a wait for time to pass
		t.Fatal("no renewal failed while Redis was down")
	}
	close(hold1)
	assert.Contains(t, r1.rest(t), "RUN_FINISHED", "a run whose lease cannot be renewed is not abandoned")
	close(hold2)
	r2.rest(t)

	srv.restart(t)
	// Connections the pool holds from before the outage are dead: the
	// store answers again once go-redis has dropped them and dialled anew.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(30 * time.Second); ; <-tick.C {
		_, _, err := c.redis.Get(context.Background(), "probe")
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "Redis did not answer again: %v", err)
	}
	c.fake.PushRunScript(threadstest.RunScript{Text: "back"})
	again := c.post(t, "bob", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusCreated, again.status, "runs start again once Redis is back")
	assert.Contains(t, again.rest(t), "RUN_FINISHED")
	contAgain := c.post(t, "alice", "/v1/threads/"+threadID+"/runs", cont)
	assert.Equal(t, http.StatusCreated, contAgain.status, "the continuation goes on; the server results Redis lost are answered as error results")
	contAgain.rest(t)
	assert.Contains(t, lastResults(t, c.fake)["call_s"], "not kept")
}

// keyPrefixOf returns the key prefix the cluster's instances use.
func keyPrefixOf(t *testing.T, c *cluster) string {
	t.Helper()
	leases := c.instances[1].store.leases()
	require.NotEmpty(t, leases)
	return strings.SplitN(leases[0], ":", 2)[0]
}

// serve sends one request as user straight to h.
func serve(h http.Handler, user, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-User", user)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Shutdown cancels the run in flight once its context is done, refuses
// new runs, frees the slot in Redis, and leaves no goroutine (TestMain's
// goleak check covers the package).
func TestShutdownFreesSlots(t *testing.T) {
	t.Parallel()
	c := newCluster(t, sharedServer(t), 2, proxy.WithMaxRunsPerUser(1))
	hold := make(chan struct{})
	defer close(hold)
	c.fake.PushRunScript(threadstest.RunScript{Text: "a long answer", Hold: hold, HoldAfter: 1})
	hi := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
	r := c.post(t, "alice", "/v1/threads/runs", hi) // A
	require.Equal(t, http.StatusCreated, r.status)
	a := c.instances[0]
	leases := a.store.leases()
	require.Len(t, leases, 1)

	// A deadline already passed: the run in flight is cancelled at once.
	assert.ErrorIs(t, a.h.Shutdown(canceled()), context.Canceled)
	r.rest(t)
	refused := serve(a.h, "bob", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusServiceUnavailable, refused.Code, "no new run once shut down")
	_, held, err := c.redis.Get(context.Background(), leases[0])
	require.NoError(t, err)
	assert.False(t, held, "the slot was released")
	c.fake.PushRunScript(threadstest.RunScript{Text: "ok"})
	w := c.post(t, "alice", "/v1/threads/runs", hi) // B
	assert.Equal(t, http.StatusCreated, w.status, "her slot is free on the other instance")
	w.rest(t)
}
