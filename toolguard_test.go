package threads_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
)

type refundArgs struct {
	Order  string  `json:"order" description:"The order to refund"`
	Amount float64 `json:"amount" description:"The sum to refund, in euros"`
}

// refundTool refunds orders, counting each refund in n; a refund above
// 20 euros needs a person's approval.
func refundTool(n *atomic.Int32) threads.Tool {
	t := threads.NewTool("refund", "Refund an order", func(_ context.Context, a refundArgs) (string, error) {
		n.Add(1)
		return "refunded " + a.Order, nil
	})
	t.NeedsApproval = func(call threads.ToolCall) bool {
		amount, _ := call.Arguments["amount"].(float64)
		return amount > 20
	}
	return t
}

// guardedRun runs a RunStream of the scripted calls against the fake with
// tools and the guards, and returns the tool messages the fake received,
// in order.
func guardedRun(t *testing.T, calls []threadstest.ScriptedToolCall, tools []threads.Tool, g threads.ToolGuards, opts ...threads.ClientOption) []threadstest.SentMessage {
	t.Helper()
	srv := threadstest.NewServer(t)
	c := srv.Client(opts...)
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: calls})
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("go")}, tools,
		threads.WithToolGuards(g))
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)
	var out []threadstest.SentMessage
	for _, r := range advances(t, srv)[1:] {
		out = append(out, *r.MessageToAppend)
	}
	return out
}

// A refund of 10 runs without asking; one of 50 is asked about: refused,
// it does not run and the model reads the person's reason; approved, it
// runs. The observer hears each decision.
func TestRunStreamApproval(t *testing.T) {
	t.Parallel()
	calls := []threadstest.ScriptedToolCall{
		{Name: "refund", Arguments: map[string]any{"order": "A1", "amount": 10}},
		{Name: "refund", Arguments: map[string]any{"order": "B2", "amount": 50}},
	}
	for _, approve := range []bool{false, true} {
		var n atomic.Int32
		var asked []threads.ApprovalRequest
		obs := &logObserver{}
		approver := func(_ context.Context, req threads.ApprovalRequest) (threads.Approval, error) {
			asked = append(asked, req)
			return threads.Approval{Approved: approve, Reason: "over the agent's limit", DecidedBy: "carol"}, nil
		}
		sent := guardedRun(t, calls, []threads.Tool{refundTool(&n)}, threads.ToolGuards{Approver: approver}, threads.WithObserver(obs))
		require.Len(t, sent, 2)
		assert.Equal(t, "refunded A1", sent[0].Text(), "a small refund needs no approval")
		require.Len(t, asked, 1, "only the big refund is asked about")
		assert.Equal(t, "B2", asked[0].Call.Arguments["order"])
		assert.NotEmpty(t, asked[0].ThreadID)
		if approve {
			assert.Equal(t, int32(2), n.Load())
			assert.Equal(t, "refunded B2", sent[1].Text())
			assert.Contains(t, obs.lines, "tool approval refund true timeout=false by=carol", "the observer hears who decided")
		} else {
			assert.Equal(t, int32(1), n.Load(), "a refused call does not run")
			assert.Equal(t, "the call was not approved: over the agent's limit", sent[1].Error)
			assert.Contains(t, obs.lines, "tool approval refund false timeout=false by=carol")
		}
	}
}

// An approver that does not answer in time, or fails, is a refusal that
// says so; a tool that needs approval with no approver is refused too.
func TestRunStreamApprovalTimeoutAndFailure(t *testing.T) {
	t.Parallel()
	calls := []threadstest.ScriptedToolCall{{Name: "refund", Arguments: map[string]any{"order": "B2", "amount": 50}}}
	var n atomic.Int32
	waits := func(ctx context.Context, _ threads.ApprovalRequest) (threads.Approval, error) {
		<-ctx.Done() // a person who never answers
		return threads.Approval{}, ctx.Err()
	}
	sent := guardedRun(t, calls, []threads.Tool{refundTool(&n)}, threads.ToolGuards{Approver: waits, ApprovalTimeout: time.Millisecond})
	assert.Equal(t, "the call was not run: no one approved it within 1ms", sent[0].Error)

	fails := func(context.Context, threads.ApprovalRequest) (threads.Approval, error) {
		return threads.Approval{}, errors.New("approval service down")
	}
	sent = guardedRun(t, calls, []threads.Tool{refundTool(&n)}, threads.ToolGuards{Approver: fails})
	assert.Equal(t, "the call was not run: asking for its approval failed: approval service down", sent[0].Error)

	sent = guardedRun(t, calls, []threads.Tool{refundTool(&n)}, threads.ToolGuards{})
	assert.Equal(t, "the call was not approved: no approver was given", sent[0].Error)
	assert.Zero(t, n.Load())
}

// A tool past its deadline has its context cancelled and is answered with
// a timeout the model reads; the run goes on with the next call. A tool
// that ignores its context is left to return by itself.
func TestRunStreamToolDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release) // the abandoned call returns before the test ends
	stuck := threads.NewTool("stuck", "ignores its context", func(context.Context, weatherArgs) (string, error) {
		<-release
		return "too late", nil
	})
	stuck.Timeout = time.Millisecond
	polite := threads.NewTool("polite", "returns when its context ends", func(ctx context.Context, _ weatherArgs) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	// The tool that answers has a deadline of its own, an hour: under the
	// guards' 1ms a loaded machine could leave it unscheduled past it.
	weather := weatherTool()
	weather.Timeout = time.Hour
	calls := []threadstest.ScriptedToolCall{
		{Name: "stuck", Arguments: map[string]any{"city": "Paris"}},
		{Name: "polite", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
	}
	sent := guardedRun(t, calls, []threads.Tool{stuck, polite, weather}, threads.ToolGuards{Timeout: time.Millisecond})
	require.Len(t, sent, 3)
	assert.Equal(t, "the call timed out: it did not return within 1ms", sent[0].Error)
	assert.Equal(t, "the call timed out: it did not return within 1ms", sent[1].Error)
	assert.Empty(t, sent[2].Error)
	assert.True(t, strings.HasPrefix(sent[2].Text(), `{"city":"Paris"`), sent[2].Text())
}

// A call the service asks for twice (the same tool_call_id) runs once: the
// repeat is answered with the result sent the first time.
func TestRunStreamCallRunsOnce(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	calls := []threadstest.ScriptedToolCall{{Name: "refund", Arguments: map[string]any{"order": "A1", "amount": 10}, Twice: true}}
	sent := guardedRun(t, calls, []threads.Tool{refundTool(&n)}, threads.ToolGuards{})
	require.Len(t, sent, 2)
	assert.Equal(t, sent[0].ToolCallID, sent[1].ToolCallID, "the fake asked for the same call twice")
	assert.Equal(t, "refunded A1", sent[0].Text())
	assert.Equal(t, "refunded A1", sent[1].Text())
	assert.Equal(t, int32(1), n.Load(), "the refund ran once")
}

// The proxy's Store is a ToolCallRecord as it is: several instances share
// their runners' records through it, with no method of its own.
var _ threads.ToolCallRecord = proxy.Store(nil)
