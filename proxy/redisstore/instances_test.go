package redisstore_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
)

// lastRunID is the run id a page sends next as previousRunId: the last
// RUN_STARTED's of a relayed run.
func lastRunID(t *testing.T, body string) string {
	t.Helper()
	var id string
	for _, block := range strings.Split(body, "\n\n") {
		d, ok := strings.CutPrefix(block, "data: ")
		if !ok {
			continue
		}
		var ev struct{ Type, RunID string }
		require.NoError(t, json.Unmarshal([]byte(d), &ev))
		if ev.Type == "RUN_STARTED" {
			id = ev.RunID
		}
	}
	require.NotEmpty(t, id, body)
	return id
}

// A mixed pause served by instance A is continued by the browser on B:
// B's run carries the server result A kept in Redis, and a second
// continuation (on C) finds none: the result was taken once.
func TestMixedPauseContinuedOnAnotherInstance(t *testing.T) {
	t.Parallel()
	c := newCluster(t, sharedServer(t), 3, proxy.WithTools(lookupTool()))
	c.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_b", Name: "get_location"}, {ID: "call_s", Name: "lookup", Arguments: map[string]any{"q": "tea"}},
	}})
	pause := c.post(t, "alice", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, pause.status)
	body := pause.rest(t)
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, "tambo.run.awaiting_input") {
			assert.NotContains(t, line, `"call_s"`, "the browser's pause holds only its own call")
		}
	}
	threadID := pause.header.Get("X-Thread-Id")
	cont := `{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}]},"previousRunId":"` +
		lastRunID(t, body) + `","tools":[` + browserTool + `]}`

	onB := c.post(t, "alice", "/v1/threads/"+threadID+"/runs", cont)
	require.Equal(t, http.StatusCreated, onB.status)
	onB.rest(t)
	results := lastResults(t, c.fake)
	assert.Equal(t, map[string]string{"call_s": "found tea", "call_b": "Lisbon"}, results, "B sent A's server result")

	sent := len(c.fake.Requests())
	onC := c.post(t, "alice", "/v1/threads/"+threadID+"/runs", cont)
	onC.rest(t)
	for _, r := range c.fake.Requests()[sent:] {
		assert.NotContains(t, string(r.Body), "found tea", "a second continuation does not carry the server's result again")
	}
}

// A mixed pause delivered twice (the service answers the first
// continuation with the same pause) is served on A, continued on B, and
// its repeat continued on C: the server's call runs once, and the
// repeat's continuation carries its recorded result from Redis (the call
// record, keyed by thread, run and tool call id).
func TestMixedPauseDeliveredTwiceRunsOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	counted := threads.NewTool("lookup", "Looks a word up in the backend's database",
		func(_ context.Context, a struct {
			Q string `json:"q"`
		}) (string, error) {
			ran.Add(1)
			return "found " + a.Q, nil
		})
	c := newCluster(t, sharedServer(t), 3, proxy.WithTools(counted))
	c.fake.PushRunScript(threadstest.RunScript{PauseTwice: true, ToolCalls: []threadstest.RunToolCall{
		{ID: "call_b", Name: "get_location"}, {ID: "call_s", Name: "lookup", Arguments: map[string]any{"q": "tea"}},
	}})
	pause := c.postTo(t, 0, "alice", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, pause.status)
	body := pause.rest(t)
	threadID := pause.header.Get("X-Thread-Id")
	cont := func(prev string) string {
		return `{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}]},"previousRunId":"` +
			prev + `","tools":[` + browserTool + `]}`
	}
	onB := c.postTo(t, 1, "alice", "/v1/threads/"+threadID+"/runs", cont(lastRunID(t, body)))
	require.Equal(t, http.StatusCreated, onB.status)
	again := onB.rest(t)
	assert.Equal(t, map[string]string{"call_s": "found tea", "call_b": "Lisbon"}, lastResults(t, c.fake))
	assert.Equal(t, lastRunID(t, body), lastRunID(t, again), "the same pause again")

	onC := c.postTo(t, 2, "alice", "/v1/threads/"+threadID+"/runs", cont(lastRunID(t, again)))
	require.Equal(t, http.StatusCreated, onC.status)
	onC.rest(t)
	assert.Equal(t, map[string]string{"call_s": "found tea", "call_b": "Lisbon"}, lastResults(t, c.fake), "the recorded result")
	assert.Equal(t, int32(1), ran.Load(), "the server's call ran once across instances")
}

// lastResults returns the tool results of the last run request the fake
// got, by call id.
func lastResults(t *testing.T, fake *threadstest.Server) map[string]string {
	t.Helper()
	reqs := fake.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method != "POST" || !strings.HasSuffix(reqs[i].Path, "/runs") {
			continue
		}
		run, err := reqs[i].Run()
		require.NoError(t, err)
		out := map[string]string{}
		for _, c := range run.Message.Content {
			if c.Type == "tool_result" && len(c.Content) > 0 {
				out[c.ToolUseID] = c.Content[0].Text
			}
		}
		return out
	}
	t.Fatal("no run request")
	return nil
}

// A per-user limit of 2 holds across three instances: the third
// concurrent run, on any instance, is 429. When an instance holding one
// of her runs dies, her slot stays taken until its lease lapses (here:
// the store's expire hook), then a new run starts.
func TestRunLimitAcrossInstances(t *testing.T) {
	t.Parallel()
	c := newCluster(t, sharedServer(t), 3, proxy.WithMaxRunsPerUser(2))
	hold := make(chan struct{})
	defer close(hold)
	for range 2 {
		c.fake.PushRunScript(threadstest.RunScript{Text: "a long answer", Hold: hold, HoldAfter: 1})
	}
	hi := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
	onA := c.post(t, "alice", "/v1/threads/runs", hi)
	require.Equal(t, http.StatusCreated, onA.status)
	onB := c.post(t, "alice", "/v1/threads/runs", hi)
	require.Equal(t, http.StatusCreated, onB.status)
	for i := range 3 {
		third := c.post(t, "alice", "/v1/threads/runs", hi)
		assert.Equal(t, http.StatusTooManyRequests, third.status, "a third run, try %d (instance %c)", i, 'A'+(i+2)%3)
	}
	other := c.post(t, "bob", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusCreated, other.status, "another user has his own slots")
	other.rest(t)

	c.kill(0) // A dies holding one of her slots
	after := c.post(t, "alice", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusTooManyRequests, after.status, "a dead instance's slot stays taken until its lease lapses")

	leases := c.instances[0].store.leases()
	require.NotEmpty(t, leases)
	for _, k := range leases {
		require.NoError(t, c.redis.ExpireNow(t.Context(), k))
	}
	again := c.post(t, "alice", "/v1/threads/runs", hi)
	assert.Equal(t, http.StatusCreated, again.status, "the lapsed slot is free again")
	again.rest(t)
}
