package runs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	threads "github.com/threadsapi/threads-go"
	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// toolPolicy is the tool core's per-pause policy (internal/toolcore) as
// RunTools and AnswerTools use it: which pauses are answered, how many
// calls run at once, how a call runs and how its failure is worded. What
// this file keeps is /v1's side of it: a pending call read into the
// core's call, and a call's answer as the tool_result that is sent.
type toolPolicy = toolcore.Policy[*threads.Tool, toolOutput]

// toolOutput is what a tool returned, as the tool_result sends it: its
// text, and for a tool that returned content parts (CallParts) those parts
// as the tool_result's content (never nil then).
type toolOutput struct {
	Text    string    `json:"text"`
	Content []Content `json:"content,omitempty"` // recorded as sent (ToolGuards.Calls)
}

// setup checks r and its tools, declares them in p.ToolDefinitions, and
// makes the stream's pause policy.
func (ts *ToolStream) setup(op string, p *RunParams, r ToolRunner) error {
	switch {
	case r.MaxRounds < 0:
		return fmt.Errorf("%s: ToolRunner.MaxRounds is %d; want at least 1 (0: the default)", op, r.MaxRounds)
	case r.MaxRepeats == 1:
		return fmt.Errorf("%s: ToolRunner.MaxRepeats is 1, which stops every call; want at least 2 (0: the default, negative: off)", op)
	case r.Concurrency < 0:
		return fmt.Errorf("%s: ToolRunner.Concurrency is %d; want at least 1 (0: the default)", op, r.Concurrency)
	}
	ts.policy = toolPolicy{
		Tools:       make(map[string]*threads.Tool, len(r.Tools)),
		External:    make(map[string]bool, len(p.ToolDefinitions)),
		Concurrency: cmp.Or(r.Concurrency, defaultToolConcurrency),
		MaxRounds:   cmp.Or(r.MaxRounds, defaultToolRounds),
		MaxRepeats:  cmp.Or(r.MaxRepeats, defaultToolRepeats),
		Logger:      ts.logger,
		Invoke:      invoke,
		ErrorText:   ts.errorText,
		MayStart:    ts.mayStart,
	}
	ts.policy.Guard = ts.guard(r.Guards)
	for _, t := range p.ToolDefinitions {
		ts.policy.External[t.Name] = true
	}
	declared := slices.Clone(p.ToolDefinitions)
	for i := range r.Tools {
		t := &r.Tools[i]
		def, err := DefineTool(*t)
		switch {
		case err != nil:
			return fmt.Errorf("%s: tools[%d]: %w", op, i, err)
		case t.Call == nil && t.CallParts == nil:
			return fmt.Errorf("%s: tool %q has no Call", op, t.Name)
		}
		if err := ts.policy.Add(t.Name, t); err != nil {
			return fmt.Errorf("%s: tool %q %w", op, t.Name, err)
		}
		declared = append(declared, def)
	}
	p.ToolDefinitions = declared
	return nil
}

// pauseCalls reads a pause's pending calls as the tool core's calls: their
// arguments decoded (or an arguments error for the model), the service's
// status arguments taken out.
func pauseCalls(pending []PendingToolCall) []toolcore.Call {
	calls := make([]toolcore.Call, len(pending))
	for i, p := range pending {
		calls[i] = toolcore.ReadCall(p.ToolCallID, p.ToolName, p.Arguments)
	}
	return calls
}

// runCalls runs the pause's calls through the policy (at most its
// Concurrency at once) and queues their results in the pause's order.
func (s *ToolStream) runCalls() {
	calls := s.calls
	s.calls = nil
	answers := s.policy.Run(s.ctx, calls)
	if err := s.ctx.Err(); err != nil {
		s.finish(s.closedErr(err)) // Close or the context: the rest did not start
		return
	}
	s.answer = make([]Content, 0, len(calls))
	for _, a := range answers {
		if d := a.Decision; d != nil {
			s.decisions = append(s.decisions, decision{a.Call.Name, *d})
		}
		r := toolRunResult(s.policy.Rounds(), a)
		s.answer = append(s.answer, r.sent())
		s.queue = append(s.queue, r)
	}
}

// toolRunResult is a call's answer as the runner reports it.
func toolRunResult(round int, a toolcore.Answer[toolOutput]) ToolRunResult {
	r := ToolRunResult{ToolRunResult: threads.ToolRunResult{Round: round, ToolCallID: a.Call.ID, ToolName: a.Call.Name,
		CompletionStatusMessage: a.Call.Status.Completion}}
	if a.Err != nil {
		r.Err, r.IsError, r.Text = a.Err, true, a.Text
		return r
	}
	r.Text = a.Out.Text
	if a.Out.Content != nil {
		r.content = &a.Out.Content
	}
	return r
}

// sent is the tool_result that carries r.
func (r ToolRunResult) sent() Content {
	part := ToolResult(r.ToolCallID, r.Text)
	part.IsError = r.IsError
	if r.content != nil {
		part.Content = *r.content
	}
	return part
}

// decision is an approver's decision, for the observer of the run that
// carries the results.
type decision struct {
	tool string
	toolcore.Decision
}

// guard is the tool core's guard for g: a call is keyed by its thread,
// the run that paused and its tool call id; the approver is asked with
// the thread and that run.
func (s *ToolStream) guard(g threads.ToolGuards) toolcore.Guard[*threads.Tool] {
	var approve func(context.Context, toolcore.Call) (bool, string, string, error)
	if g.Approver != nil {
		approve = func(ctx context.Context, c toolcore.Call) (bool, string, string, error) {
			a, err := g.Approver(ctx, threads.ApprovalRequest{Call: toolCall(c), ThreadID: s.ThreadID(), RunID: s.prevRun})
			return a.Approved, a.Reason, a.DecidedBy, err
		}
	}
	cfg := toolcore.GuardConfig{ApprovalTimeout: g.ApprovalTimeout, Timeout: g.Timeout, MaxAbandoned: g.MaxAbandoned, Record: g.Calls, Approve: approve}
	needs := func(t *threads.Tool, c toolcore.Call) bool {
		return t.NeedsApproval != nil && t.NeedsApproval(toolCall(c))
	}
	key := func(c toolcore.Call) string { return toolcore.RecordKey("runs", s.ThreadID(), s.prevRun, c.ID) }
	return toolcore.NewGuard(cfg, needs, func(t *threads.Tool) time.Duration { return t.Timeout }, key)
}

// toolCall is the core's call as a tool gets it.
func toolCall(c toolcore.Call) threads.ToolCall {
	return threads.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args, StatusMessage: c.Status.Message, CompletionStatusMessage: c.Status.Completion}
}

// mayStart reports whether a call may start: not once Close has begun
// (it sets closing under s.mu before it returns), nor once the context
// has ended.
func (s *ToolStream) mayStart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return context.Canceled
	}
	return s.ctx.Err()
}

// invoke runs tool for the core's call c (the policy's Invoke). A tool's
// parts are the tool_result's content ([partsContent]), which refuses a
// part that no tool result carries.
func invoke(ctx context.Context, tool *threads.Tool, c toolcore.Call) (toolOutput, error) {
	call := toolCall(c)
	if tool.CallParts == nil {
		text, err := tool.Call(ctx, call)
		return toolOutput{Text: text}, err
	}
	parts, err := tool.CallParts(ctx, call)
	if err != nil {
		return toolOutput{}, err
	}
	text, content, err := partsContent(parts)
	return toolOutput{Text: text, Content: content}, err
}

// StatusMessages returns the call's status lines, as the model wrote them
// in the service's own arguments _tambo_statusMessage and
// _tambo_completionStatusMessage (see [Client.RunTools]); empty when the
// arguments hold none. Arguments keeps them: a caller that answers the
// call itself leaves them out of the tool's arguments.
func (p PendingToolCall) StatusMessages() (status, completion string) {
	st := toolcore.ReadCall(p.ToolCallID, p.ToolName, p.Arguments).Status
	return st.Message, st.Completion
}

// errorText is the tool_result text for err: without the API key or the
// end user's token, at most echolib.MaxErrorText bytes (cut on a rune
// boundary, "…" added). Only a bounded prefix is looked at, and it is
// redacted before it is cut.
func (s *ToolStream) errorText(err error) string {
	return echolib.ErrorText(err, echolib.MaxErrorText, func(t string) string { return s.redact(t) })
}
