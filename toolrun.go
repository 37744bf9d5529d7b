package threads

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// ToolRunResult is what [ThreadsService.RunStream] sent for one tool call,
// as the model reads it. With [WithToolRunResults] it arrives on the
// stream as [StreamEvent].ToolRunResult, once the request that carried it
// was sent and before the reply to it. Its /v1 counterpart, with the same names, is
// runs.ToolRunResult.
//
// Round counts the calls answered, from 1; ToolCallID and ToolName are the
// call's as the service sent them; CompletionStatusMessage is the call's
// ([ToolCall].CompletionStatusMessage). Text is the tool message's text:
// the tool's result (content parts flattened by [ToolResultText]), or, with
// IsError, "Error: " and the error as the model reads it (see RunStream).
// Err is then the error itself (the tool's, a panic, an unknown tool, or
// arguments that failed the tool's checks, which match
// [ErrToolArguments] and did not run the tool).
type ToolRunResult struct {
	Round                   int
	ToolCallID, ToolName    string
	Text                    string
	IsError                 bool
	Err                     error
	CompletionStatusMessage string
}

// ErrToolRounds matches a [*ToolRoundsError] with errors.Is.
var ErrToolRounds = errors.New("threads: too many tool rounds")

// ToolRoundsError ends a tool run when the model asks for tools once more
// after the run has answered as many rounds as allowed: on the spec's
// routes ([ThreadsService.RunStream], from Stream.Err) past
// [WithMaxToolRounds]; on /v1 (package runs' ToolStream) past
// runs.ToolRunner.MaxRounds pauses. The last request is left unanswered:
// the thread waits for its results, which the caller may still send
// (AdvanceStream with [ToolResult]; on /v1 a run with PreviousRunID RunID
// and one tool result per call) or leave.
type ToolRoundsError struct {
	// Max is the bound that was reached.
	Max int
	// Call is the call the run did not answer (on /v1, the pause's first),
	// and Calls every call it did not answer (a /v1 pause may hold several),
	// as the service sent them.
	Call  ToolCall
	Calls []ToolCall
	// ThreadID and RunID are the /v1 thread and the run that paused;
	// empty on the spec's routes.
	ThreadID, RunID string

	secret string // redacted from Error, which shows server text
	text   string // Error's text, as package runs made it (cleaned); "" on the spec's routes
}

// Error says which bound was reached and which call was left unanswered.
// The call's name and id come from the server: they are shown on one line,
// cut short, and without the API key (or, on /v1, the end user's token).
func (e *ToolRoundsError) Error() string {
	if e.text != "" {
		return e.text
	}
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

// WithToolRunResults makes [ThreadsService.RunStream] (and
// CreateAndRunStream) show what it sent for each tool call: an event of
// the runner's own per call, whose [StreamEvent].ToolRunResult is set
// (nil on every snapshot the service sent), after the round's snapshots
// and once the tool message was sent. Its snapshot is the message that
// asked for the tool again, with no TextDelta: a program that reads every
// event's Message sees that message once more. Off by default, so that a
// stream's events are the service's. Other calls ignore it.
func WithToolRunResults() RequestOption {
	return newRequestOption("WithToolRunResults", func(c *config) error {
		c.toolRunResults = true
		return nil
	})
}

// RunStream is [ThreadsService.AdvanceStream] that runs the tools. It adds
// tools to params.ClientTools (beside any already there) and streams the
// reply. When a reply ends asking for one of tools (stage
// FETCHING_CONTEXT), the stream calls the tool, sends its result as the
// tool message and goes on with the reply to it: the events of every round
// arrive on the one Stream until a reply completes. Messages, Collect and
// the text deltas work across rounds.
//
// A failing tool, an unknown tool or arguments that do not fit are
// answered to the model as an error, never a crash; a call of a tool the
// caller declared itself ends the stream cleanly for the caller to answer.
// The run answers at most 10 tool calls ([WithMaxToolRounds]), then ends
// with a [*ToolRoundsError]. What each round sends, what is bounded, and
// when tools run: the package doc's "Tool runs on the spec's routes".
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
	r := &toolRunner{svc: s, op: op, id: id, opts: opts, secret: cfg.apiKey.get(), show: cfg.toolRunResults}
	r.policy = toolcore.Policy[*Tool, string]{Concurrency: 1, MaxRounds: cmp.Or(cfg.maxToolRounds, defaultMaxToolRounds), MaxRepeats: -1,
		Logger: cfg.logger, Invoke: invoke, ErrorText: r.errorText}
	r.policy.Guard = r.guard(cfg.toolGuards)
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
	r.obs = st.eng.Observation()
	st.tools = r
	return st, nil
}
