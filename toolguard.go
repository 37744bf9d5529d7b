package threads

import (
	"context"
	"errors"
	"time"

	"github.com/threadsapi/threads-go/internal/toolcore"
)

// Approver decides whether a tool call may run: the runner asks it, with
// the call, before it runs a call whose tool needs approval
// ([Tool].NeedsApproval). It may wait for a person, within ctx (which ends
// after [ToolGuards].ApprovalTimeout, or when the run stops). A refusal's
// Reason reaches the model, which reads the call's result as
// "the call was not approved: " and the reason; an error, or ctx ending
// first, is a refusal that says so. It is called from the runner's
// goroutines: several calls of one pause may ask at once.
type Approver func(ctx context.Context, req ApprovalRequest) (Approval, error)

// ApprovalRequest is what an [Approver] is asked: the call as its tool
// would get it, and where it comes from. RunID is the /v1 run that paused
// for the call (package runs), empty on the spec's routes.
type ApprovalRequest struct {
	Call            ToolCall
	ThreadID, RunID string
}

// Approval is an [Approver]'s answer: Approved, or refused with Reason
// (what the model reads). DecidedBy names who decided (a person's name or
// id, never a secret), for the observer ([CallEvent].DecidedBy); "" when
// the approver does not say.
type Approval struct {
	Approved  bool
	Reason    string
	DecidedBy string
}

// Always is a [Tool].NeedsApproval rule for a tool every call of which
// needs approval.
func Always(ToolCall) bool { return true }

// ToolGuards are what a tool runner checks around each call, on both API
// generations ([WithToolGuards] for [ThreadsService.RunStream], package
// runs' ToolRunner.Guards): approval, deadlines and once per call. The
// zero value asks no one (a tool that needs approval is then refused),
// sets no deadline and records calls in memory, for the one run.
type ToolGuards struct {
	// Approver is asked about each call whose tool needs approval.
	Approver Approver
	// ApprovalTimeout bounds the wait for an approver's answer; 0 means
	// 5 minutes.
	ApprovalTimeout time.Duration
	// Timeout is the deadline of each call whose tool sets none
	// ([Tool].Timeout); 0: none. A call past its deadline has its context
	// cancelled and is answered with an error result that says it timed
	// out; the other calls of its pause are answered as usual. A tool
	// that ignores its context is left to return by itself: see
	// MaxAbandoned.
	Timeout time.Duration
	// MaxAbandoned bounds the calls of one run past their deadline whose
	// tool has not returned yet (each holds a goroutine until it does);
	// once that many are, the runner refuses new calls (error results)
	// until one returns. 0 means 8.
	MaxAbandoned int
	// Calls records the calls run, so that a call runs at most once: a
	// call already recorded is answered with its recorded result, and one
	// still running (in another process sharing Calls) is waited for, up
	// to 30 seconds, then refused. A call is keyed by its thread and tool
	// call id on the spec's routes, by its thread, run and tool call id on
	// /v1; a record is kept 24 hours. Nil: a record in memory, for the
	// one run. A record that fails refuses the call rather than risk
	// running it twice.
	Calls ToolCallRecord
}

// ToolCallRecord is where a tool runner records the calls it runs
// ([ToolGuards].Calls), so that a call runs once also across runners
// that share it (several instances of a backend). Its three methods are
// those of package proxy's Store (set if absent with a TTL, a value with
// a TTL, a read), which implements it as it is. Keys and values are the
// runner's; an implementation must be safe for concurrent use, and of
// several SetNX calls for one key only one may report true.
type ToolCallRecord interface {
	// SetNX stores value under key until ttl has passed, only if key
	// holds nothing (or what it held has expired), and reports whether it
	// stored it.
	SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// Set stores value under key until ttl has passed.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns key's value and true, or false when there is none.
	Get(ctx context.Context, key string) ([]byte, bool, error)
}

// NewMemoryToolCallRecord returns a [ToolCallRecord] in memory, safe for
// concurrent use, for runners of one process to share. It keeps at most
// 4,096 records; expired ones go first.
func NewMemoryToolCallRecord() ToolCallRecord { return toolcore.NewMemoryRecord() }

// ErrToolRefused matches the error of a tool call that was not approved:
// refused, or the approver failed or ran out of time. The tool did not
// run; the model read why.
var ErrToolRefused = toolcore.ErrRefused

// ErrToolTimeout matches the error of a tool call past its deadline.
var ErrToolTimeout = toolcore.ErrTimedOut

// ErrToolNotRun matches the error of a tool call that the runner did not
// run: too many calls past their deadline have not returned, the
// [ToolCallRecord] failed, or the call still runs elsewhere.
var ErrToolNotRun = toolcore.ErrNotRun

// WithToolGuards makes [ThreadsService.RunStream] (and CreateAndRunStream)
// check g around each tool call: approval, deadlines, once per call (see
// [ToolGuards]). Other calls ignore it.
func WithToolGuards(g ToolGuards) RequestOption {
	return newRequestOption("WithToolGuards", func(c *config) error {
		if g.ApprovalTimeout < 0 || g.Timeout < 0 || g.MaxAbandoned < 0 {
			return errors.New("threads: WithToolGuards: a negative duration or bound")
		}
		c.toolGuards = g
		return nil
	})
}

// guard is RunStream's tool core guard for g: a call is keyed by its
// thread and tool call id, and the approver is asked with the thread.
func (r *toolRunner) guard(g ToolGuards) toolcore.Guard[*Tool] {
	var approve func(context.Context, toolcore.Call) (bool, string, string, error)
	if g.Approver != nil {
		approve = func(ctx context.Context, c toolcore.Call) (bool, string, string, error) {
			a, err := g.Approver(ctx, ApprovalRequest{Call: toolCallOf(c), ThreadID: r.id})
			return a.Approved, a.Reason, a.DecidedBy, err
		}
	}
	cfg := toolcore.GuardConfig{ApprovalTimeout: g.ApprovalTimeout, Timeout: g.Timeout, MaxAbandoned: g.MaxAbandoned, Record: g.Calls, Approve: approve}
	return toolcore.NewGuard(cfg, func(t *Tool, c toolcore.Call) bool { return t.NeedsApproval != nil && t.NeedsApproval(toolCallOf(c)) },
		func(t *Tool) time.Duration { return t.Timeout },
		func(c toolcore.Call) string { return toolcore.RecordKey("threads", r.id, c.ID) })
}

func init() {
	// Package runs ends a /v1 tool stream with this package's
	// ToolRoundsError (one type for the idea on both API generations),
	// whose cleaned text it writes.
	toolcore.RoundsError = func(max int, threadID, runID string, calls []toolcore.Call, text string) error {
		e := &ToolRoundsError{Max: max, ThreadID: threadID, RunID: runID, text: text}
		for _, c := range calls {
			e.Calls = append(e.Calls, toolCallOf(c))
		}
		if len(e.Calls) > 0 {
			e.Call = e.Calls[0]
		}
		return e
	}
}

// toolCallOf is the core's call as a tool gets it.
func toolCallOf(c toolcore.Call) ToolCall {
	return ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args, StatusMessage: c.Status.Message, CompletionStatusMessage: c.Status.Completion}
}
