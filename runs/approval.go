package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	threads "github.com/threadsapi/threads-go"
)

// ApprovalInterrupt is req, a [threads.Approver]'s question, as AG-UI's
// interrupt ([Interrupt]), for a caller that surfaces the question to a
// front end speaking AG-UI: an interrupt outcome of RUN_FINISHED, answered
// by a [ResumeEntry] of the next run, which [ApprovalOf] reads back. Its
// ID is "approval:" and the call's id; Reason "tool_call"; ToolCallID the
// call's; ResponseSchema the answer's shape, {"approved": boolean,
// "reason": string}; Metadata the tool and its arguments; ExpiresAt
// expires (left empty when zero). Package proxy's approvals send its
// shape, with the parked call's own ID. The runner itself does not send
// it: the service knows no approvals.
func ApprovalInterrupt(req threads.ApprovalRequest, expires time.Time) Interrupt {
	in := Interrupt{
		ID:         "approval:" + req.Call.ID,
		Reason:     "tool_call",
		Message:    "Approve the call of " + req.Call.Name + "?",
		ToolCallID: req.Call.ID,
		ResponseSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"approved": map[string]any{"type": "boolean"},
				"reason":   map[string]any{"type": "string", "description": "Why, when the call is refused"},
			},
			"required": []any{"approved"},
		},
		Metadata: map[string]any{"tool": req.Call.Name, "arguments": req.Call.Arguments},
	}
	if !expires.IsZero() {
		in.ExpiresAt = expires.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return in
}

// ApprovalOf reads e, the answer to an [ApprovalInterrupt], as a
// [threads.Approval]: a resolved entry's payload {"approved": true} approves,
// {"approved": false, "reason": "…"} refuses with the reason; a cancelled
// entry refuses ("the approval was cancelled"). It fails for another
// status, or a payload without a boolean approved, so that an answer it
// cannot read is never an approval.
func ApprovalOf(e ResumeEntry) (threads.Approval, error) {
	switch e.Status {
	case ResumeCancelled:
		return threads.Approval{Reason: "the approval was cancelled"}, nil
	case ResumeResolved:
	default:
		return threads.Approval{}, fmt.Errorf("runs: ApprovalOf: resume entry status %s, want %q or %q", echo(e.Status), ResumeResolved, ResumeCancelled)
	}
	b, err := json.Marshal(e.Payload)
	if err != nil {
		return threads.Approval{}, fmt.Errorf("runs: ApprovalOf: %w", err)
	}
	var p struct {
		Approved *bool  `json:"approved"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Approved == nil {
		return threads.Approval{}, errors.New("runs: ApprovalOf: the payload has no boolean \"approved\"")
	}
	return threads.Approval{Approved: *p.Approved, Reason: p.Reason}, nil
}
