package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
)

// refunds is a server-side tool every call of which needs approval; it
// records whose run each call served, on whichever instance it ran.
type refunds struct {
	mu    sync.Mutex
	users []string
}

func (f *refunds) tool() threads.Tool {
	return threads.Tool{
		Name: "refund", Description: "Refunds an order",
		Parameters:    []threads.ToolParameter{{Name: "amount", Type: "number", IsRequired: true}},
		NeedsApproval: threads.Always,
		Call: func(ctx context.Context, c threads.ToolCall) (string, error) {
			u, _ := proxy.UserFrom(ctx)
			f.mu.Lock()
			defer f.mu.Unlock()
			f.users = append(f.users, u.Key)
			return fmt.Sprintf("refunded %v", c.Arguments["amount"]), nil
		},
	}
}

func (f *refunds) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.users...)
}

// approvalCluster is three instances whose refund calls wait for a
// manager (X-Role) to decide.
// These browsers read each response to its end before deciding (hold:
// -1), but TestHeldResponseAcrossInstances's.
func approvalCluster(t *testing.T, f *refunds, hold time.Duration) *cluster {
	return newCluster(t, sharedServer(t), 3, proxy.WithDetachedRuns(time.Minute), proxy.WithTools(f.tool()),
		proxy.WithApprovals(proxy.Approvals{
			MayDecide: func(r *http.Request, _ proxy.PendingApproval) (bool, error) {
				return r.Header.Get("X-Role") == "manager", nil
			},
			DecidedBy: func(r *http.Request) string { return r.Header.Get("X-Person") },
			Hold:      hold,
		}))
}

// postTo sends a run request as user straight to instance i.
func (c *cluster) postTo(t *testing.T, i int, user, path, body string) *run {
	t.Helper()
	req, err := http.NewRequest("POST", c.instances[i].srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User", user)
	resp, err := c.instances[i].srv.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return &run{status: resp.StatusCode, header: resp.Header, body: bufio.NewReader(resp.Body), close: func() { _ = resp.Body.Close() }}
}

// getFrom sends a GET as user straight to instance i.
func (c *cluster) getFrom(t *testing.T, i int, user, path string) *run {
	t.Helper()
	req, err := http.NewRequest("GET", c.instances[i].srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-User", user)
	resp, err := c.instances[i].srv.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return &run{status: resp.StatusCode, header: resp.Header, body: bufio.NewReader(resp.Body), close: func() { _ = resp.Body.Close() }}
}

// decide posts a decision to instance i's approval API.
func (c *cluster) decide(t *testing.T, i int, id string, approved bool, reason string, hdr ...string) (int, proxy.ApprovalDecision) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"approved": approved, "reason": reason})
	r := httptest.NewRequest("POST", "/"+id, strings.NewReader(string(b)))
	r.Header.Set("Content-Type", "application/json")
	for k := 0; k+1 < len(hdr); k += 2 {
		r.Header.Set(hdr[k], hdr[k+1])
	}
	w := httptest.NewRecorder()
	c.instances[i].h.ApprovalAPI().ServeHTTP(w, r)
	var d proxy.ApprovalDecision
	if w.Code == http.StatusOK {
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &d), w.Body.String())
	}
	return w.Code, d
}

// parkOn starts a run on instance i that parks one refund call, reads
// it to its end, and returns the thread, the paused run and the call's
// approval id (from the CUSTOM event).
func parkOn(t *testing.T, c *cluster, i int, amount int) (threadID, runID, id string) {
	t.Helper()
	c.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_r", Name: "refund", Arguments: map[string]any{"amount": amount}}}})
	r := c.postTo(t, i, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, r.status)
	var interrupt string
	for _, e := range readEvents(t, r.body, -1) {
		var ev struct {
			Type, Name string
			Value      struct{ Approvals []proxy.PendingApproval }
			Outcome    struct{ Interrupts []struct{ ID string } }
		}
		require.NoError(t, json.Unmarshal([]byte(e.Data), &ev))
		if ev.Name == proxy.ApprovalEventName {
			require.Len(t, ev.Value.Approvals, 1)
			id = ev.Value.Approvals[0].ID
		}
		if ev.Type == "RUN_FINISHED" && len(ev.Outcome.Interrupts) == 1 {
			interrupt = ev.Outcome.Interrupts[0].ID
		}
	}
	require.NotEmpty(t, id)
	require.Equal(t, id, interrupt, "RUN_FINISHED's interrupt names the parked call")
	return r.header.Get("X-Thread-Id"), r.header.Get("X-Run-Id"), id
}

// A call parked on A is approved through B after A was stopped: the tool
// runs once (on B, as the run's user), the run continues, and a page
// resuming on C reads its events. A decision by someone the backend's
// rule refuses is 403, and a second decision gets the stored result.
func TestApprovalAcrossInstances(t *testing.T) {
	t.Parallel()
	var f refunds
	c := approvalCluster(t, &f, -1)
	threadID, pausedRun, id := parkOn(t, c, 0, 80)
	c.kill(0)

	status, _ := c.decide(t, 1, id, true, "", "X-Person", "mallory")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Empty(t, f.calls())

	status, d := c.decide(t, 1, id, true, "", "X-Role", "manager", "X-Person", "carol")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, proxy.ApprovalApproved, d.Status)
	assert.Equal(t, "carol", d.DecidedBy)
	assert.Equal(t, "refunded 80", d.Result)
	require.NotEmpty(t, d.RunID, "the decision continued the run")
	assert.Equal(t, []string{"alice"}, f.calls(), "the tool ran once, as the run's user")

	page := c.getFrom(t, 2, "alice", "/v1/threads/"+threadID+"/runs/"+d.RunID+"/events")
	require.Equal(t, http.StatusOK, page.status)
	evs := readEvents(t, page.body, -1)
	require.NotEmpty(t, evs)
	first, _ := typeOf(t, evs[0])
	last, _ := typeOf(t, evs[len(evs)-1])
	assert.Equal(t, "RUN_STARTED", first)
	assert.Equal(t, "RUN_FINISHED", last)
	assert.Equal(t, map[string]string{"call_r": "refunded 80"}, lastResults(t, c.fake))
	req, err := c.fake.Requests()[len(c.fake.Requests())-1].Run()
	if err == nil {
		assert.Equal(t, pausedRun, req.PreviousRunID)
	}

	status, again := c.decide(t, 2, id, false, "no", "X-Role", "manager")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, proxy.ApprovalApproved, again.Status, "a second decision gets the stored result")
	assert.Equal(t, "refunded 80", again.Result)
	assert.Equal(t, []string{"alice"}, f.calls())
}

// A refusal through another instance reaches the model as the call's
// error result, with its reason.
func TestRefusalAcrossInstances(t *testing.T) {
	t.Parallel()
	var f refunds
	c := approvalCluster(t, &f, -1)
	_, _, id := parkOn(t, c, 0, 500)
	status, d := c.decide(t, 1, id, false, "over the limit", "X-Role", "manager")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, proxy.ApprovalRefused, d.Status)
	assert.Equal(t, map[string]string{"call_r": "the call was not approved: over the limit"}, lastResults(t, c.fake))
	assert.Empty(t, f.calls())
}

// A parked call whose record lapsed in Redis is answered "approval
// expired" at the next request on its thread (the user's continuation,
// on another instance), and the thread goes on.
func TestExpiredApprovalAcrossInstances(t *testing.T) {
	t.Parallel()
	var f refunds
	c := approvalCluster(t, &f, -1)
	threadID, pausedRun, _ := parkOn(t, c, 0, 80)
	next := `{"message":{"role":"user","content":[{"type":"text","text":"well?"}]},"previousRunId":"` + pausedRun + `"}`

	waiting := c.postTo(t, 1, "alice", "/v1/threads/"+threadID+"/runs", next)
	assert.Equal(t, http.StatusConflict, waiting.status)
	assert.Contains(t, waiting.rest(t), "waiting for approval")

	// What the TTL does to a call nobody decided.
	rdb := sharedServer(t).client(t)
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "test-*-"+t.Name()+":*:approval:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.NoError(t, rdb.Del(ctx, keys...).Err())

	cont := c.postTo(t, 2, "alice", "/v1/threads/"+threadID+"/runs", next)
	require.Equal(t, http.StatusCreated, cont.status)
	cont.rest(t)
	assert.Equal(t, map[string]string{"call_r": "approval expired"}, lastResults(t, c.fake))
	assert.Empty(t, f.calls())
}

// A browser still connected to A when its run parked a call gets the
// decision's run, started on B, in the same response.
func TestHeldResponseAcrossInstances(t *testing.T) {
	t.Parallel()
	var f refunds
	c := approvalCluster(t, &f, time.Minute)
	c.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_r", Name: "refund", Arguments: map[string]any{"amount": 80}}}})
	onA := c.postTo(t, 0, "alice", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, onA.status)
	var id string
	for id == "" {
		e := readEvents(t, onA.body, 1)
		require.Len(t, e, 1)
		var ev struct {
			Name  string
			Value struct{ Approvals []proxy.PendingApproval }
		}
		require.NoError(t, json.Unmarshal([]byte(e[0].Data), &ev))
		if ev.Name == proxy.ApprovalEventName {
			id = ev.Value.Approvals[0].ID
		}
	}
	status, d := c.decide(t, 1, id, true, "", "X-Role", "manager")
	require.Equal(t, http.StatusOK, status)
	var runs []string
	for _, e := range readEvents(t, onA.body, -1) {
		if typ, _ := typeOf(t, e); typ == "RUN_STARTED" {
			var ev struct{ RunID string }
			require.NoError(t, json.Unmarshal([]byte(e.Data), &ev))
			runs = append(runs, ev.RunID)
		}
	}
	assert.Equal(t, []string{d.RunID}, runs, "the decision's run followed in A's response")
	assert.Equal(t, []string{"alice"}, f.calls())
}
