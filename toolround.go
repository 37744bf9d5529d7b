package threads

import (
	"context"
	"fmt"
	"github.com/threadsapi/threads-go/internal/core"
	"slices"
	"strings"

	"cmp"
	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// toolRunner is RunStream's tool rounds, on the tool core's pause policy:
// what it keeps is the spec's wire (a round's last snapshot read as the
// call, the tool message and toolCallCounts sent). Its stream's Next
// continues the stream engine at each round's end (see [Stream.Next]); the
// engine knows nothing of tools.
type toolRunner struct {
	svc    *ThreadsService
	op     string // RunStream or CreateAndRunStream, for errors
	id     string // the thread; "" until a created thread's first snapshot
	opts   []RequestOption
	ctx    context.Context // the run's: a tool's and each round's request's
	cancel context.CancelFunc
	secret string // the call's API key, kept out of error strings
	show   bool   // a result event per call (WithToolRunResults)
	obs    core.Observation

	params AdvanceParams // the next request's, Message aside
	policy toolcore.Policy[*Tool, string]
}

// setup checks the tools and adds them to p.ClientTools.
func (r *toolRunner) setup(p *AdvanceParams, tools []Tool) error {
	r.policy.Tools = make(map[string]*Tool, len(tools))
	r.policy.External = make(map[string]bool, len(p.ClientTools))
	for _, t := range p.ClientTools {
		r.policy.External[t.Name] = true
	}
	for _, c := range p.AvailableComponents {
		for _, t := range c.ContextTools {
			r.policy.External[t.Name] = true
		}
	}
	declared := append([]ClientTool(nil), p.ClientTools...)
	for i := range tools {
		t := &tools[i]
		switch {
		case strings.TrimSpace(t.Name) == "":
			return fmt.Errorf("threads: %s: tools[%d] has no Name", r.op, i)
		case t.err != nil:
			return fmt.Errorf("threads: %s: tool %q: %w", r.op, t.Name, t.err)
		case t.Call == nil && t.CallParts == nil:
			return fmt.Errorf("threads: %s: tool %q has no Call", r.op, t.Name)
		case slices.ContainsFunc(p.ClientTools, func(c ClientTool) bool { return c.Name == t.Name }):
			return fmt.Errorf("threads: %s: tool %q is declared twice", r.op, t.Name)
		}
		if err := r.policy.Add(t.Name, t); err != nil {
			return fmt.Errorf("threads: %s: tool %q %w", r.op, t.Name, err)
		}
		params, err := t.parameters()
		if err != nil {
			return fmt.Errorf("threads: %s: tool %q: %w", r.op, t.Name, err)
		}
		declared = append(declared, ClientTool{Name: t.Name, Description: t.Description, Parameters: params, MaxCalls: t.MaxCalls})
	}
	p.ClientTools = declared
	counts := make(map[string]int, len(p.ToolCallCounts)+1)
	for k, v := range p.ToolCallCounts {
		counts[k] = v
	}
	p.ToolCallCounts = counts
	return nil
}

// stop cancels the context a tool and the next round's request run under:
// the stream ended or was closed. Safe from any goroutine.
func (r *toolRunner) stop() {
	if r != nil {
		r.cancel()
	}
}

// next answers the tool call that ended a round, if any (last, the round's
// last snapshot, asks for it), and returns the stream of the reply to it
// with the result it sent; nil when the run is over.
func (r *toolRunner) next(last AdvanceResponse) (*Stream, *ToolRunResult, error) {
	m := last.Message
	if last.GenerationStage != GenerationStageFetchingContext || m.ToolCallRequest == nil || m.ToolCallID == "" {
		return nil, nil, nil // a completed (or cancelled) reply: the run is over
	}
	call := callOf(m)
	if r.id == "" {
		// CreateAndRunStream: the thread the first request created.
		if err := checkID("thread", m.ThreadID); err != nil {
			return nil, nil, fmt.Errorf("%w: %s: the service's tool call names no usable thread: %w", ErrStreamFailed, r.op, err)
		}
		r.id = m.ThreadID
	}
	pause := []toolcore.Call{{ID: call.ID, Name: call.Name, Args: call.Arguments,
		Status: toolcore.Status{Message: call.StatusMessage, Completion: call.CompletionStatusMessage}}}
	switch v := r.policy.Admit(pause); v.Stop {
	case toolcore.External:
		return nil, nil, nil // the caller's own tool: it answers the call
	case toolcore.Rounds:
		return nil, nil, &ToolRoundsError{Max: r.policy.MaxRounds, Call: call, Calls: []ToolCall{call}, secret: r.secret}
	case toolcore.LongID:
		// The id must be echoed whole (a cut one answers no call), so a
		// huge one is refused rather than sent back.
		return nil, nil, fmt.Errorf("%w: %s: the service's tool call id is %d bytes, more than the %d a tool message echoes; the call is unanswered",
			ErrStreamFailed, r.op, len(call.ID), echolib.MaxCallID)
	}
	a := r.policy.Run(r.ctx, pause)[0]
	if d := a.Decision; d != nil {
		r.obs.ToolApproval(call.Name, d.Approved, d.TimedOut, d.DecidedBy)
	}
	if err := r.ctx.Err(); err != nil {
		return nil, nil, err
	}
	res := &ToolRunResult{Round: r.policy.Rounds(), ToolCallID: call.ID, ToolName: call.Name, Text: a.Out,
		CompletionStatusMessage: call.CompletionStatusMessage}
	msg := ToolResult(call.ID, a.Out)
	if a.Err != nil {
		res.Text, res.IsError, res.Err = "Error: "+a.Text, true, a.Err
		msg = ToolResult(call.ID, res.Text)
		msg.Error = a.Text
	}
	if _, ours := r.policy.Tools[call.Name]; ours {
		// Only the caller's own tools are counted: a name the service
		// made up would otherwise be re-sent with every later round.
		r.params.ToolCallCounts[call.Name]++
	}
	r.params.Message = msg
	next, err := r.svc.advanceStream(r.ctx, r.op, r.id, r.params, r.opts)
	if err != nil {
		return nil, nil, err
	}
	return next, res, nil
}

// What a tool message sends back of the server's own words follows
// internal/echo's rule (names and values quoted through echo, the error
// text cut at echo.MaxErrorText bytes although it goes out twice, as the
// text and as the error member, a call id refused past echo.MaxCallID).
// Beyond it, only the caller's own tools are counted in toolCallCounts, and
// an arguments error lists a few problems (internal/toolcore).

// errorText is the text a tool message carries for err: without the API
// key, at most echolib.MaxErrorText bytes (cut on a rune boundary, "…" added).
// Only a bounded prefix is looked at, and it is redacted before it is cut.
func (r *toolRunner) errorText(err error) string {
	return echolib.ErrorText(err, len(r.secret), func(t string) string { return redact.String(t, r.secret) })
}

// invoke runs a tool for the tool core's call. A tool's parts are
// flattened to the tool message's text (ToolResultText); a part that no
// tool result carries is the tool's failure.
func invoke(ctx context.Context, tool *Tool, c toolcore.Call) (string, error) {
	call := toolCallOf(c)
	if tool.CallParts == nil {
		return tool.Call(ctx, call)
	}
	parts, err := tool.CallParts(ctx, call)
	if err != nil {
		return "", err
	}
	return ToolResultText(parts)
}

// callOf is the call that m (a reply that ends asking for a tool) asks
// for: its arguments, and the status lines the service took out of them
// (m.Component's).
func callOf(m Message) ToolCall {
	call := ToolCall{ID: m.ToolCallID, Name: m.ToolCallRequest.ToolName, Arguments: make(map[string]any, len(m.ToolCallRequest.Parameters))}
	for _, p := range m.ToolCallRequest.Parameters {
		call.Arguments[p.ParameterName] = p.ParameterValue
	}
	st := toolcore.TakeStatus(call.Arguments) // in case a deployment leaves them in
	if c := m.Component; c != nil {
		st.Message = cmp.Or(c.StatusMessage, st.Message)
		st.Completion = cmp.Or(c.CompletionStatusMessage, st.Completion)
	}
	call.StatusMessage, call.CompletionStatusMessage = st.Message, st.Completion
	return call
}
