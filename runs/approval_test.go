package runs_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

// An approver's question goes out as AG-UI's interrupt and its answer
// comes back from a resume entry: approved, refused with a reason,
// cancelled; an answer that cannot be read is an error, never an approval.
func TestApprovalInterruptAndResume(t *testing.T) {
	t.Parallel()
	req := threads.ApprovalRequest{Call: threads.ToolCall{ID: "call_7", Name: "refund", Arguments: map[string]any{"amount": 480}},
		ThreadID: "thr_1", RunID: "run_2"}
	in := runs.ApprovalInterrupt(req, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	assert.Equal(t, "approval:call_7", in.ID)
	assert.Equal(t, "call_7", in.ToolCallID)
	assert.Equal(t, "tool_call", in.Reason)
	assert.Equal(t, "2026-12-01T12:00:00.000Z", in.ExpiresAt)
	assert.Equal(t, "Approve the call of refund?", in.Message)
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"responseSchema":{"properties":{"approved":{"type":"boolean"}`)

	var entries []runs.ResumeEntry
	require.NoError(t, json.Unmarshal([]byte(`[
		{"interruptId":"approval:call_7","status":"resolved","payload":{"approved":true}},
		{"interruptId":"approval:call_7","status":"resolved","payload":{"approved":false,"reason":"too much"}},
		{"interruptId":"approval:call_7","status":"cancelled"},
		{"interruptId":"approval:call_7","status":"resolved","payload":{"ok":true}},
		{"interruptId":"approval:call_7","status":"pending"}]`), &entries))
	a, err := runs.ApprovalOf(entries[0])
	require.NoError(t, err)
	assert.Equal(t, threads.Approval{Approved: true}, a)
	a, err = runs.ApprovalOf(entries[1])
	require.NoError(t, err)
	assert.Equal(t, threads.Approval{Reason: "too much"}, a)
	a, err = runs.ApprovalOf(entries[2])
	require.NoError(t, err)
	assert.False(t, a.Approved)
	for _, e := range entries[3:] {
		_, err := runs.ApprovalOf(e)
		assert.Error(t, err, "an answer that cannot be read is not an approval")
	}
}
