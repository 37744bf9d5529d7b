package runs

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	threads "github.com/threadsapi/threads-go"
	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// RunTools is [Client.Run] that runs the tools of r: each time the run
// pauses for client tools (OutcomeAwaitingTools), the stream runs the
// pending calls (at most r.Concurrency at once), sends one tool_result per
// call in a new run on the thread, and goes on with that run's events,
// until a run ends without a pause. The events of every run, and a
// [ToolRunStart] and [ToolRunResult] per call, arrive on the one
// [ToolStream], in order.
//
// A pause that includes a call the caller answers itself (a
// params.ToolDefinitions tool) ends the stream cleanly there. A failing
// tool, an unknown tool or bad arguments get an isError result. Bounds:
// r.MaxRounds answered pauses (then a [*threads.ToolRoundsError]) and the
// same call in r.MaxRepeats pauses in a row (then a [*ToolRepeatError]). What each run sends, tool results,
// the service's own arguments, and when tools run: the package doc's
// "Tool runs".
func (c *Client) RunTools(ctx context.Context, threadID string, params RunParams, r ToolRunner, opts ...threads.RequestOption) (*ToolStream, error) {
	return c.runTools(ctx, threadID, &CreateRunParams{RunParams: params}, r, opts, false)
}

// CreateAndRunTools is [Client.RunTools] on a new thread: the first run is
// [Client.CreateAndRun]'s (ThreadMetadata, InitialMessages), the next ones
// run on the thread it created ([ToolStream.ThreadID]).
func (c *Client) CreateAndRunTools(ctx context.Context, params CreateRunParams, r ToolRunner, opts ...threads.RequestOption) (*ToolStream, error) {
	return c.runTools(ctx, "", &params, r, opts, true)
}

func (c *Client) runTools(ctx context.Context, threadID string, params *CreateRunParams, r ToolRunner, opts []threads.RequestOption, create bool) (*ToolStream, error) {
	op := "runs: RunTools"
	if create {
		op = "runs: CreateAndRunTools"
	}
	ts := &ToolStream{c: c, mu: new(sync.Mutex), opts: opts, threadID: threadID, logger: c.conn.Logger(opts)}
	if err := ts.setup(op, &params.RunParams, r); err != nil {
		return nil, err
	}
	// Package proxy parks the calls that need approval (a mark only it
	// sets); the mark stops here, its tools do not inherit it.
	if ts.policy.Deferred = toolcore.DeferredApprovals(ctx); ts.policy.Deferred {
		ctx = toolcore.WithDeferredApprovals(ctx, false)
	}
	// Decisions the proxy took on the pause this run continues: this run
	// carries their results, so its observer hears of them.
	reported := toolcore.ReportedOf(ctx)
	if reported != nil {
		ctx = toolcore.WithReported(ctx, nil)
	}
	ts.ctx, ts.cancel = context.WithCancel(ctx)
	var st *Stream
	var err error
	if create {
		st, err = c.CreateAndRun(ts.ctx, *params, opts...)
	} else {
		st, err = c.Run(ts.ctx, threadID, params.RunParams, opts...)
	}
	if err != nil {
		ts.cancel()
		return nil, err
	}
	if len(reported) > 0 {
		obs := st.eng.Observation()
		for _, d := range reported {
			obs.ToolApproval(d.Tool, d.Approved, d.TimedOut, d.DecidedBy)
		}
	}
	if ts.threadID == "" {
		ts.threadID = st.ThreadID()
	}
	next := params.RunParams
	next.ToolChoice, next.MessageMetadata, next.AdditionalContext = nil, nil, nil
	ts.params = next
	ts.st = st
	return ts, nil
}

// ToolStream is the event stream of [Client.RunTools]: the events of each
// run in turn, the runner's [ToolRunStart] and [ToolRunResult] between
// them. Iterate with Next and Current and check Err, range over All, or
// Collect. It ends when a run ends without a pause (Err nil), fails (Err
// a [*RunFailedError]), is cancelled, or when a bound stops the loop.
//
// A ToolStream is not safe for concurrent use, except Close, ThreadID
// and RunID.
type ToolStream struct {
	c      *Client
	ctx    context.Context
	cancel context.CancelFunc
	opts   []threads.RequestOption
	params RunParams // the next run's, Content aside
	policy toolPolicy

	// st reads the runs, one after another: each run's body in turn, on
	// the one stream engine (Stream.nextRun), which knows nothing of tools.
	st       *Stream
	mu       *sync.Mutex // guards threadID and closing for Close, ThreadID
	threadID string

	queue   []Event         // runner events to deliver
	calls   []toolcore.Call // the pause to answer, once its starts are delivered
	answer  []Content       // the results to send, once they are delivered
	prevRun string          // the paused run
	event   Event
	err     error
	done    bool
	res     Result // what every run produced
	closing bool   // Close was called

	decisions []decision   // approvals of the pause, for the run that answers it
	logger    *slog.Logger // for a tool's panic
	kept      int64        // bytes of s.res's messages and tool calls, within maxRetained
}

// Next reads the next event (a run's, or the runner's); false at the
// end, then see Err.
func (s *ToolStream) Next() bool {
	if s == nil || s.c == nil {
		return false
	}
	for {
		if len(s.queue) > 0 {
			s.event, s.queue = s.queue[0], s.queue[1:]
			return true
		}
		s.event = nil
		if s.done {
			return false
		}
		if err := s.ctx.Err(); err != nil {
			s.finish(s.closedErr(err))
			return false
		}
		switch {
		case s.calls != nil:
			s.runCalls()
			continue
		case s.answer != nil:
			s.continueRun()
			continue
		}
		if s.st.Next() {
			s.event = s.st.Current()
			return true
		}
		// The run ended (the Next that said so read what followed its
		// end, so that the connection can be reused), or failed.
		s.afterRun(s.st)
	}
}

// Buffered reports whether Next will return without waiting: for the
// network, or for a pause's tools to run. As [Stream.Buffered].
func (s *ToolStream) Buffered() bool {
	if s == nil || s.c == nil || len(s.queue) > 0 || s.done {
		return true
	}
	// A run that ended may be followed by tools that run and by the
	// next run: not buffered.
	return s.calls == nil && s.answer == nil && !s.st.eng.Done() && s.st.Buffered()
}

// current returns the stream of the runs; nil for a zero ToolStream.
func (s *ToolStream) current() *Stream {
	if s == nil {
		return nil
	}
	return s.st
}

// closedErr is the error for a context that ended: nil when Close ended it.
func (s *ToolStream) closedErr(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil
	}
	return err
}

// afterRun takes stock of a run that ended: the end, or a pause to answer.
func (s *ToolStream) afterRun(st *Stream) {
	r := st.result()
	s.merge(r)
	s.mu.Lock() // ThreadID reads it from any goroutine
	if s.threadID == "" {
		s.threadID = r.ThreadID
	}
	s.mu.Unlock()
	if err := st.Err(); err != nil {
		s.finish(s.closedErr(err))
		return
	}
	if r.Outcome != OutcomeAwaitingTools {
		s.finish(nil)
		return
	}
	pending := r.PendingToolCalls
	if r.Incomplete && len(pending) >= maxItems {
		s.finish(fmt.Errorf("%w: runs: run %s paused for more than %d tool calls; they are unanswered", threads.ErrStreamFailed, shownID(st, r.RunID), maxItems))
		return
	}
	calls := pauseCalls(pending)
	switch v := s.policy.Admit(calls); v.Stop {
	case toolcore.External, toolcore.Empty:
		s.finish(nil) // the caller's own tool (it answers the pause), or no call
		return
	case toolcore.LongID:
		s.finish(fmt.Errorf("%w: runs: the service's tool call id is %d bytes, more than the %d a tool result echoes; run %s's calls are unanswered",
			threads.ErrStreamFailed, len(pending[v.Call].ToolCallID), echolib.MaxCallID, shownID(st, r.RunID)))
		return
	case toolcore.Rounds:
		s.finish(toolcore.RoundsError(s.policy.MaxRounds, s.threadID, r.RunID, calls,
			fmt.Sprintf("runs: the model asked for tools (%s) after %d tool rounds (ToolRunner.MaxRounds); run %s awaits their results",
				s.names(st, pending), s.policy.MaxRounds, shownID(st, r.RunID))))
		return
	case toolcore.Repeated:
		p := pending[v.Call]
		s.finish(&ToolRepeatError{Times: v.Times, ThreadID: s.threadID, RunID: r.RunID, ToolName: p.ToolName, Arguments: p.Arguments,
			Pending: pending, name: echo(st.redact(echolib.Cut(p.ToolName, 4*echolib.MaxRunes))), run: shownID(st, r.RunID)})
		return
	}
	s.prevRun = r.RunID
	s.calls = calls
	for _, p := range pending {
		s.queue = append(s.queue, toolRunStart(s.policy.Rounds(), p))
	}
}

// names lists the pending tools for an error: cleaned, a few at most.
func (s *ToolStream) names(st *Stream, pending []PendingToolCall) string {
	var out []string
	for i, p := range pending {
		if i == 4 {
			out = append(out, fmt.Sprintf("and %d more", len(pending)-i))
			break
		}
		out = append(out, echo(st.redact(echolib.Cut(p.ToolName, 4*echolib.MaxRunes))))
	}
	return strings.Join(out, ", ")
}

// continueRun sends the results in a new run, whose events then follow
// on s.st. Close, from another goroutine, cancels s.ctx (the request
// returns) or, once the run has started, closes it (s.st.nextRun refuses
// it, which cancels it on the service); the next Next then ends s.
func (s *ToolStream) continueRun() {
	p := s.params
	p.Content, p.PreviousRunID, p.AfterLastRun = s.answer, s.prevRun, false
	s.answer = nil
	next, err := s.c.Run(s.ctx, s.ThreadID(), p, s.opts...)
	if err != nil {
		s.finish(s.closedErr(err))
		return
	}
	obs := next.eng.Observation()
	for _, d := range s.decisions {
		obs.ToolApproval(d.tool, d.Approved, d.TimedOut, d.DecidedBy)
	}
	s.decisions = nil
	obs.ToolRound(s.policy.Rounds()) // this run carries the round's results
	s.st.nextRun(next, s.kept)       // the new run's stream starts with what s keeps: one budget
}

// finish ends the stream with err.
func (s *ToolStream) finish(err error) {
	s.done, s.err = true, err
	s.calls, s.answer = nil, nil
	s.st.Close()
	s.cancel()
}
