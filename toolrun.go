package threads

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// ToolRunResult is what [ThreadsService.RunStream] sent for one tool call:
// the tool message's text, as the model reads it. It arrives on the
// stream as [StreamEvent].ToolRunResult, after the request that carried it
// was sent and before the reply to it. Its /v1 counterpart, with the same
// names, is runs.ToolRunResult.
type ToolRunResult struct {
	// Round counts the tool calls answered, from 1.
	Round int
	// ToolCallID and ToolName are the call's, as the service sent them.
	ToolCallID, ToolName string
	// Text is the tool message's text: the tool's result (a tool's
	// content parts flattened by [ToolResultText]), or for a failure
	// "Error: " and the error as the model reads it (see RunStream).
	Text    string
	IsError bool
	// Err is the tool's error (or panic, unknown tool, bad arguments),
	// nil on success. Arguments that failed the tool's checks (the tool
	// did not run) match [ErrToolArguments].
	Err error
	// CompletionStatusMessage is the call's status line for once it is
	// done ([ToolCall].CompletionStatusMessage).
	CompletionStatusMessage string
}

// ErrToolRounds matches a [*ToolRoundsError] with errors.Is.
var ErrToolRounds = errors.New("threads: too many tool rounds")

// ToolRoundsError ends a [ThreadsService.RunStream] stream (from Stream.Err)
// when the model asks for another tool call after the run has answered as
// many as [WithMaxToolRounds] allows. That last call is left unanswered:
// the thread waits in FETCHING_CONTEXT for its result, which the caller may
// still send (AdvanceStream with [ToolResult]) or leave. Its /v1
// counterpart is runs.ToolRoundsError.
type ToolRoundsError struct {
	// Max is the bound that was reached.
	Max int
	// Call is the call the run did not answer, as the service sent it.
	Call ToolCall

	secret string // redacted from Error, which shows server text
}

// Error says which bound was reached and which call was left unanswered.
// The call's name and id come from the server: they are shown on one line,
// cut short, and without the API key.
func (e *ToolRoundsError) Error() string {
	show := func(s string) string { return termtext.OneLine(redact.String(s, e.secret), maxErrorPart) }
	return fmt.Sprintf("threads: the model asked for tool %q after %d tool rounds (WithMaxToolRounds); the call %q is unanswered",
		show(e.Call.Name), e.Max, show(e.Call.ID))
}

// Is matches [ErrToolRounds].
func (e *ToolRoundsError) Is(target error) bool { return target == ErrToolRounds }

// defaultMaxToolRounds is how many tool calls one RunStream answers unless
// [WithMaxToolRounds] says otherwise (unexported, like options.go's
// defaults: the documentation states it).
const defaultMaxToolRounds = 10

// Format prints [ToolRoundsError.Error] whatever the verb (%q quotes it),
// for the error and its value alike: the fields hold server text and the
// key, which a plain %#v or %+v would print as they are.
func (e ToolRoundsError) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", e.Error())
		return
	}
	fmt.Fprint(f, e.Error())
}

// WithMaxToolRounds bounds how many tool calls one [ThreadsService.RunStream]
// answers (default 10); one more request for a tool
// ends the stream with a [*ToolRoundsError]. n must be at least 1. Other
// calls ignore it.
func WithMaxToolRounds(n int) RequestOption {
	return newRequestOption("WithMaxToolRounds", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("threads: WithMaxToolRounds(%d): must be at least 1", n)
		}
		c.maxToolRounds = n
		return nil
	})
}

// RunStream is [ThreadsService.AdvanceStream] that runs the tools. It adds
// tools to params.ClientTools (beside any already there) and streams the
// reply. When a reply ends asking for one of tools (its last snapshot has
// stage FETCHING_CONTEXT, a ToolCallRequest and a ToolCallID), the stream
// calls the tool, sends its result as the tool message (the tool_call_id
// echoed; the same ContextKey, AvailableComponents and ClientTools; the
// ToolCallCounts with that tool's count raised) and goes on with the
// reply to it: the events of every round arrive on the one Stream until a
// reply completes. Messages, Collect and the text deltas work across
// rounds; each round's messages have their own ids. ForceToolChoice is
// sent with the first request only, so that a forced tool is not forced
// again with every result.
//
// A tool that returns content parts ([Tool].CallParts) is answered with
// their text by [ToolResultText]: the tool message carries text only. A
// tool with an InputSchema is declared with the parameters it maps to
// (see [Tool].InputSchema).
//
// What the model reads when things go wrong, instead of a crash or a
// stream error: a tool that returns an error, or panics, is answered with
// a tool message whose Error field holds the error and whose text is
// "Error: " and the error. So is a call of a tool that is not among tools
// or params.ClientTools, and, for a [NewTool] tool, arguments that do not
// fit its Args. The model can then try again or explain.
//
// Nothing the server sent is multiplied on its way back: a tool message
// quotes a tool, parameter or argument from the call at most 64 runes
// long, once; its error text is cut at 4 KiB (and holds no API key); a
// call of a tool that is not among tools is not counted in
// ToolCallCounts (which is re-sent with every round); and a call whose
// tool_call_id is longer than 1 KiB (which must be echoed whole) is not
// answered: the stream ends with an error matching [ErrStreamFailed]. So
// each round's request is at most a constant larger than the first.
//
// A call of a tool that the caller declared itself, in params.ClientTools
// or as a context tool of params.AvailableComponents, is not answered: the
// stream ends cleanly at that FETCHING_CONTEXT snapshot, so that the caller
// can answer it with AdvanceStream and [ToolResult] (or RunStream again).
//
// The run answers at most 10 tool calls (change it
// with [WithMaxToolRounds]); one more call ends the stream with a
// [*ToolRoundsError]. The tools are checked before anything is sent: an
// empty or repeated name, a nil Call, or a [NewTool] with unusable Args is
// an error here.
//
// A tool runs inside Stream.Next, with ctx (cancelled as well when the
// stream is closed). [WithStreamIdleTimeout] counts the server's silence
// only: its clock stops while a tool runs and the next request is sent
// (whose wait for headers [WithRequestTimeout] bounds, as for the first
// request), and starts again for the next round's events. If it fired
// before the tool ran, the stream ends with [ErrStreamIdle] and no tool
// runs. Cancelling ctx or closing the stream stops the run:
// no further request is sent. Neither stops a generation that the service
// has already started: call [ThreadsService.Cancel] for that when you stop
// early, otherwise the thread goes on, or waits in FETCHING_CONTEXT for a
// tool result that never comes (a later advance with a user message
// continues it).
func (s *ThreadsService) RunStream(ctx context.Context, id string, params AdvanceParams, tools []Tool, opts ...RequestOption) (*Stream, error) {
	cfg, err := s.c().begin(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := checkID("thread", id); err != nil {
		return nil, fmt.Errorf("threads: RunStream: %w", err)
	}
	return s.runStream(ctx, cfg, "RunStream", id, params, tools, opts)
}

// CreateAndRunStream is [ThreadsService.RunStream] on a new thread: the
// first request is [ThreadsService.CreateAndAdvanceStream]'s (with
// params.InitialMessages, if any), and every tool result goes to the
// thread it created (the first snapshot's Message.ThreadID). Everything
// else (tools, bounds, errors, what the model reads) is as RunStream's.
func (s *ThreadsService) CreateAndRunStream(ctx context.Context, params AdvanceParams, tools []Tool, opts ...RequestOption) (*Stream, error) {
	cfg, err := s.c().begin(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s.runStream(ctx, cfg, "CreateAndRunStream", "", params, tools, opts)
}

// runStream starts a tool run on thread id, or on a new thread when id is
// empty.
func (s *ThreadsService) runStream(ctx context.Context, cfg *config, op, id string, params AdvanceParams, tools []Tool, opts []RequestOption) (*Stream, error) {
	r := &toolRunner{svc: s, op: op, id: id, opts: opts, secret: cfg.apiKey.get()}
	r.policy = toolcore.Policy[*Tool, string]{Concurrency: 1, MaxRounds: cmp.Or(cfg.maxToolRounds, defaultMaxToolRounds), MaxRepeats: -1,
		Logger: cfg.logger, Invoke: invoke, ErrorText: r.errorText}
	if err := r.setup(&params, tools); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	r.ctx, r.cancel = ctx, cancel
	var st *Stream
	var err error
	if id == "" {
		st, err = s.CreateAndAdvanceStream(ctx, params, opts...)
	} else {
		st, err = s.advanceStream(ctx, op, id, params, opts)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	params.ForceToolChoice = ""
	params.InitialMessages = nil // sent once, with the thread's creation
	r.params = params
	st.tools = r
	return st, nil
}

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
		return nil, nil, &ToolRoundsError{Max: r.policy.MaxRounds, Call: call, secret: r.secret}
	case toolcore.LongID:
		// The id must be echoed whole (a cut one answers no call), so a
		// huge one is refused rather than sent back.
		return nil, nil, fmt.Errorf("%w: %s: the service's tool call id is %d bytes, more than the %d a tool message echoes; the call is unanswered",
			ErrStreamFailed, r.op, len(call.ID), echolib.MaxCallID)
	}
	a := r.policy.Run(r.ctx, pause)[0]
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
	call := ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args, StatusMessage: c.Status.Message, CompletionStatusMessage: c.Status.Completion}
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
