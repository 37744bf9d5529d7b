package runs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	threads "github.com/threadsapi/threads-go"
	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// ToolRunner is the set of client tools that this process runs for a run
// ([Client.RunTools], [Client.CreateAndRunTools]), and the bounds of the
// loop that answers them.
//
// A tool is a [threads.Tool], the same value the spec's routes take
// ([threads.ThreadsService.RunStream]): make it with [threads.NewTool] or
// [threads.NewJSONTool], so that one definition serves both API
// generations. On /v1 its Parameters are sent as one JSON Schema object
// (the tool's inputSchema: see [DefineTool]); its MaxCalls as maxCalls.
type ToolRunner struct {
	// Tools are the tools this process runs. Names must be unique, also
	// among RunParams.ToolDefinitions (the tools the caller answers
	// itself).
	Tools []threads.Tool
	// MaxRounds bounds how many pauses the runner answers (each pause has
	// one or more calls); 0 means 10. One more pause ends the stream with
	// a [*ToolRoundsError] (errors.Is [threads.ErrToolRounds]).
	MaxRounds int
	// MaxRepeats stops a model that makes the same call (the same tool
	// with the same arguments, as JSON values) in MaxRepeats pauses in a
	// row: that last pause is not answered and the stream ends with a
	// [*ToolRepeatError] (errors.Is [ErrToolRepeated]). 0 means 3; a
	// negative value turns the check off; 1 is refused (every call would
	// stop the run).
	MaxRepeats int
	// Concurrency bounds how many calls of one pause run at once; 0 means 4.
	Concurrency int
}

// The ToolRunner defaults (documented on its fields).
const (
	defaultToolRounds      = 10
	defaultToolRepeats     = 3
	defaultToolConcurrency = 4
)

// Events that the tool runner adds to the run's own: a [ToolStream]
// delivers one [ToolRunStart] before a call runs and one [ToolRunResult]
// with what was sent back. The service sends neither.
const (
	EventToolRunStart  = "CLIENT_TOOL_RUN_START"
	EventToolRunResult = "CLIENT_TOOL_RUN_RESULT"
)

// ToolRunStart says that this process is about to run a pending call (a
// UI can show StatusMessage, or "calling get_weather…"). The calls of one
// pause all get their ToolRunStart before any runs.
type ToolRunStart struct {
	// Round counts the pauses answered, from 1.
	Round int
	// ToolCallID, ToolName and Arguments (the model's JSON text) are the
	// pending call as the service sent it: Arguments holds the service's
	// own status members too (see StatusMessage), which the tool is not
	// given.
	ToolCallID, ToolName, Arguments string
	// StatusMessage and CompletionStatusMessage are the call's status
	// lines, as the model wrote them: what the official UI shows while the
	// tool runs and once it is done. The service adds two required
	// arguments to every tool's schema for them, _tambo_statusMessage and
	// _tambo_completionStatusMessage, and forwards them with the call's
	// arguments; the runner takes them out before the tool's arguments are
	// checked and decoded, and gives them here and in the tool's
	// [threads.ToolCall]. Empty when the model sent none.
	StatusMessage, CompletionStatusMessage string
}

// ToolRunResult is the result of one call, as it is sent in the next
// run's tool_result.
type ToolRunResult struct {
	Round                int
	ToolCallID, ToolName string
	// Text is the tool_result's text: the tool's result, or for a failure
	// a short message (see [Client.RunTools]). For a tool that returned
	// content parts ([threads.Tool].CallParts), it is their text by
	// [threads.ToolResultText].
	Text    string
	IsError bool
	// Err is the tool's error (or panic, unknown tool, bad arguments),
	// nil on success. Arguments that failed the tool's checks (the tool
	// did not run) match [threads.ErrToolArguments].
	Err error
	// CompletionStatusMessage is the call's status line for once it is
	// done, as its [ToolRunStart] has it.
	CompletionStatusMessage string

	content *[]Content // the parts sent (Content); a pointer keeps the struct comparable
}

// Content returns the tool_result's content as it was sent when the tool
// returned content parts ([threads.Tool].CallParts): its text and resource
// parts, as they were. It is nil when the result is Text alone (a text
// result, or a failure).
func (r ToolRunResult) Content() []Content {
	if r.content == nil {
		return nil
	}
	return slices.Clone(*r.content)
}

// EventType returns [EventToolRunStart]: an event of this process, not of
// the service.
func (ToolRunStart) EventType() string { return EventToolRunStart }

// EventType returns [EventToolRunResult]: an event of this process, not of
// the service.
func (ToolRunResult) EventType() string { return EventToolRunResult }

func (ToolRunStart) isEvent()  {}
func (ToolRunResult) isEvent() {}

// ToolRoundsError ends a [ToolStream] whose model paused for tools once
// more after [ToolRunner.MaxRounds] answered pauses. That pause is not
// answered: the thread keeps its pending calls, which the caller may still
// answer with [Client.Run] ([ToolResult] parts, PreviousRunID RunID) or
// leave. It matches [threads.ErrToolRounds]. Its counterpart on the
// spec's routes is [threads.ToolRoundsError].
type ToolRoundsError struct {
	Max             int
	ThreadID, RunID string
	// Pending are the unanswered calls, as the service sent them.
	Pending []PendingToolCall
	names   string // cleaned, for Error
	run     string // RunID cleaned, for Error
}

// Error names the bound and the unanswered tools (server text: one line,
// cut short, the key redacted).
func (e *ToolRoundsError) Error() string {
	return fmt.Sprintf("runs: the model asked for tools (%s) after %d tool rounds (ToolRunner.MaxRounds); run %s awaits their results",
		e.names, e.Max, e.run)
}

// Format prints [ToolRoundsError.Error] whatever the verb (%q quotes
// it): the fields hold the service's text as it was sent (the pending
// calls' arguments may echo the key), which %#v or %+v would print.
func (e ToolRoundsError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error()) }

func formatError(f fmt.State, verb rune, text string) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", text)
		return
	}
	fmt.Fprint(f, text)
}

// Is matches [threads.ErrToolRounds].
func (e *ToolRoundsError) Is(target error) bool { return target == threads.ErrToolRounds }

// ErrToolRepeated matches a [*ToolRepeatError].
var ErrToolRepeated = errors.New("runs: the model repeats a tool call")

// ToolRepeatError ends a [ToolStream] whose model made the same call in
// [ToolRunner.MaxRepeats] pauses in a row. The last pause is not answered
// (as for [ToolRoundsError]).
type ToolRepeatError struct {
	Times           int
	ThreadID, RunID string
	// ToolName is the repeated tool, Arguments its arguments (JSON text),
	// as the service sent them.
	ToolName, Arguments string
	Pending             []PendingToolCall
	name                string // cleaned, for Error
	run                 string // RunID cleaned, for Error
}

// Error names the tool (one line, cut short, the key redacted).
func (e *ToolRepeatError) Error() string {
	return fmt.Sprintf("runs: the model called tool %s with the same arguments %d times in a row (ToolRunner.MaxRepeats); run %s awaits its result",
		e.name, e.Times, e.run)
}

// Format prints [ToolRepeatError.Error] whatever the verb (see
// [ToolRoundsError.Format]).
func (e ToolRepeatError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error()) }

// Is matches [ErrToolRepeated].
func (e *ToolRepeatError) Is(target error) bool { return target == ErrToolRepeated }

// ToolArgumentsError ends a [ToolStream] (from Err and Collect) whose last
// run finished after every call the runner answered had failed the
// tool's argument checks: no tool ran, although the run reads as
// finished (the model was told each problem and gave up). It is what a
// schema the model cannot meet looks like, so it is not left silent. The
// [ToolRunResult] of each call has the problem; Collect's Result holds
// what the runs produced. It matches [threads.ErrToolArguments].
type ToolArgumentsError struct {
	// Calls is how many calls were answered, all with an arguments error.
	Calls           int
	ThreadID, RunID string
	// Last is the last call's arguments error as the model read it (one
	// line, cut short, without the API key or the end user's token).
	Last string
	run  string // RunID cleaned, for Error
}

// Error says that no tool ran, and why the last call did not.
func (e *ToolArgumentsError) Error() string {
	return fmt.Sprintf("runs: every tool call (%d) failed its argument checks, so no tool ran; run %s finished without them; the last: %s",
		e.Calls, e.run, e.Last)
}

// Format prints [ToolArgumentsError.Error] whatever the verb (see
// [ToolRoundsError.Format]).
func (e ToolArgumentsError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error()) }

// Is matches [threads.ErrToolArguments].
func (e *ToolArgumentsError) Is(target error) bool { return target == threads.ErrToolArguments }

// DefineTool returns t as /v1 declares a client tool: its name,
// description, maxCalls, and an inputSchema that is one JSON Schema
// object. A tool with an InputSchema ([threads.Tool].InputSchema, such as
// an MCP tool's) is sent with it as it is. Otherwise the schema is made of
// its Parameters: "properties" holds each parameter's schema (package
// threads' [threads.ToolParameter] schema, which carries its type,
// description and enum values, so that a [threads.NewTool] struct's
// `description` and `enum` tags reach the model), "required" the required
// parameters' names. It fails for a [threads.NewTool] that could not be
// made ([threads.Tool.Err]), a tool without a name, and a tool that sets both
// Parameters and InputSchema or whose InputSchema is not a JSON object.
func DefineTool(t threads.Tool) (ToolDefinition, error) {
	if strings.TrimSpace(t.Name) == "" {
		return ToolDefinition{}, errors.New("runs: a tool has no Name")
	}
	if err := t.Err(); err != nil {
		return ToolDefinition{}, fmt.Errorf("runs: tool %q: %w", t.Name, err)
	}
	if t.InputSchema != nil {
		if len(t.Parameters) > 0 {
			return ToolDefinition{}, fmt.Errorf("runs: tool %q sets both Parameters and InputSchema; set one", t.Name)
		}
		if _, err := toolcore.InputSchemaJSON(t.InputSchema); err != nil {
			return ToolDefinition{}, fmt.Errorf("runs: tool %q: %w", t.Name, err)
		}
		return ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, MaxCalls: t.MaxCalls}, nil
	}
	schema, err := objectSchema(t.Parameters)
	if err != nil {
		return ToolDefinition{}, fmt.Errorf("runs: tool %q: %w", t.Name, err)
	}
	return ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: schema, MaxCalls: t.MaxCalls}, nil
}

// objectSchema makes one JSON Schema object of params, each parameter's
// schema as package threads sends it (the tool core's rule, one for both
// API generations).
func objectSchema(params []threads.ToolParameter) (map[string]any, error) {
	core := make([]toolcore.Param, len(params))
	for i, p := range params {
		core[i] = toolcore.Param{Name: p.Name, Type: p.Type, Description: p.Description, Required: p.IsRequired, Enum: p.EnumValues, Schema: p.Schema}
		if p.Items != nil {
			core[i].Items = p.Items.Type
		}
	}
	return toolcore.ObjectSchema(core)
}

// RunTools is [Client.Run] that runs the tools of r: each time the run
// pauses for client tools (OutcomeAwaitingTools), the stream runs the
// pending calls (several at once, at most r.Concurrency), sends one
// tool_result per call in a new run on the thread (PreviousRunID the
// paused run, the same ToolDefinitions with r's tools declared beside
// them, AvailableComponents, Model, MaxTokens, Temperature and
// RunMetadata; ToolChoice, MessageMetadata and
// AdditionalContext with the first run only), and goes on with that run's
// events, until a run ends without a pause. The events of every run, and
// a [ToolRunStart] and [ToolRunResult] per call, arrive on the one
// [ToolStream], in order.
//
// A tool's result is its text (Call), sent as one text part, or its
// content parts (a [threads.Tool] with CallParts, such as
// [threads.NewPartsTool]'s or an MCP tool's): text and resource parts,
// sent as they are in the tool_result's content ([ToolRunResult.Content]) (an image is a resource
// part with a base64 blob and its MIME type: the service accepts no other
// part in a tool_result). A tool with an InputSchema is declared with it
// as it is ([DefineTool]).
//
// r.Tools are declared beside params.ToolDefinitions. A pause that
// includes a call of a params.ToolDefinitions tool (one the caller answers
// itself) is not answered: the stream ends cleanly there, with
// [OutcomeAwaitingTools] and the calls in Result.PendingToolCalls, for the
// caller to answer all of them in one run (the service refuses a
// continuation that answers only some).
//
// What the model reads when a call goes wrong, instead of a crash or a
// stream error: a tool that returns an error or panics, a call of a tool
// that is not among the tools, arguments that are not a JSON object or,
// for a [threads.NewTool] tool, do not fit its Args: each is answered
// with isError true and a short text (the error, at most 4 KiB, without
// the API key; a tool name or argument from the server quoted at most 64
// runes long). A call id longer than 1 KiB (it must be echoed whole) is
// not answered: the stream ends with an error matching
// [threads.ErrStreamFailed].
//
// Several calls in one pause: every call gets its result, in the order of
// the pause, all in one message (the service refuses a continuation that
// lacks one). The service, as observed, keeps only the last of a turn's
// calls: it stores only that call's tool_use and hands the model only its
// result (v1-api.md, captures 129-135, captures-turn5 07-09), so the model
// does not see the other results. A model that calls two tools at once
// should get their answers from one tool, or one call at a time; the fake
// copies the habit with threadstest.WithLastToolCallOnly.
//
// The service's own arguments: on /v1 the service adds two required string
// arguments, _tambo_statusMessage and _tambo_completionStatusMessage, to
// every tool's schema, and forwards the model's values with the call's
// arguments. They are the call's status lines, not the tool's arguments:
// the runner takes them out before the tool sees the call (a
// [threads.NewTool] tool never checks or decodes them), and gives them in
// [ToolRunStart], [ToolRunResult] and [threads.ToolCall] (StatusMessage,
// CompletionStatusMessage). For the calls the caller answers itself,
// [PendingToolCall.StatusMessages] reads them.
//
// A stream whose every answered call failed the tools' argument checks
// (none ran) and whose last run finished does not end in silence: Err and
// Collect return a [*ToolArgumentsError] (errors.Is
// [threads.ErrToolArguments]), with the Result of the runs.
//
// Bounds: r.MaxRounds answered pauses (then a [*ToolRoundsError]) and the
// same call in r.MaxRepeats pauses in a row (then a [*ToolRepeatError]);
// either leaves the last pause unanswered. The tools are checked before
// anything is sent.
//
// Tools run inside ToolStream.Next, with a context that Close cancels;
// Next returns after all the calls of a pause have returned, so no tool
// runs once Close has returned and Next is not running, and no call
// starts once Close has returned (the calls of the pause that had not
// started are not run). A tool's panic is logged with its stack on the
// client's [threads.WithLogger], as on the spec's routes. Closing the
// stream while a run streams cancels that run (as [Stream.Close]); while
// the tools run, the thread keeps waiting for their results.
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
	ts := &ToolStream{c: c, mu: new(sync.Mutex), opts: opts, threadID: threadID, maxRounds: r.MaxRounds, maxRepeats: r.MaxRepeats, conc: r.Concurrency,
		logger: c.conn.Logger(opts)}
	if err := ts.setup(op, &params.RunParams, r); err != nil {
		return nil, err
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
	if ts.threadID == "" {
		ts.threadID = st.ThreadID()
	}
	next := params.RunParams
	next.ToolChoice, next.MessageMetadata, next.AdditionalContext = nil, nil, nil
	ts.params = next
	ts.st = st
	return ts, nil
}

// setup checks the tools and declares them in p.ToolDefinitions.
func (ts *ToolStream) setup(op string, p *RunParams, r ToolRunner) error {
	switch {
	case ts.maxRounds < 0:
		return fmt.Errorf("%s: ToolRunner.MaxRounds is %d; want at least 1 (0: the default)", op, ts.maxRounds)
	case ts.maxRepeats == 1:
		return fmt.Errorf("%s: ToolRunner.MaxRepeats is 1, which stops every call; want at least 2 (0: the default, negative: off)", op)
	case ts.conc < 0:
		return fmt.Errorf("%s: ToolRunner.Concurrency is %d; want at least 1 (0: the default)", op, ts.conc)
	}
	if ts.maxRounds == 0 {
		ts.maxRounds = defaultToolRounds
	}
	if ts.maxRepeats == 0 {
		ts.maxRepeats = defaultToolRepeats
	}
	if ts.conc == 0 {
		ts.conc = defaultToolConcurrency
	}
	ts.tools = make(map[string]*threads.Tool, len(r.Tools))
	ts.external = make(map[string]bool, len(p.ToolDefinitions))
	for _, t := range p.ToolDefinitions {
		ts.external[t.Name] = true
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
		case ts.tools[t.Name] != nil || ts.external[t.Name]:
			return fmt.Errorf("%s: tool %q is declared twice", op, t.Name)
		}
		ts.tools[t.Name] = t
		declared = append(declared, def)
	}
	p.ToolDefinitions = declared
	return nil
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
	c        *Client
	ctx      context.Context
	cancel   context.CancelFunc
	opts     []threads.RequestOption
	params   RunParams // the next run's, Content aside
	tools    map[string]*threads.Tool
	external map[string]bool

	maxRounds, maxRepeats, conc int

	// st reads the runs, one after another: each run's body in turn, on
	// the one stream engine (Stream.nextRun), which knows nothing of tools.
	st       *Stream
	mu       *sync.Mutex // guards threadID and closing for Close, ThreadID
	threadID string

	queue   []Event           // runner events to deliver
	calls   []PendingToolCall // the pause to answer, once its starts are delivered
	answer  []Content         // the results to send, once they are delivered
	prevRun string            // the paused run
	event   Event
	err     error
	done    bool
	rounds  int
	repeats map[[32]byte]int // the last pause's calls: how many pauses in a row
	res     Result           // what every run produced
	closing bool             // Close was called

	logger   *slog.Logger // for a tool's panic
	kept     int64        // bytes of s.res's messages and tool calls, within maxRetained
	answered int          // calls answered
	badArgs  int          // of them, refused on the tool's argument checks
	lastBad  string       // the last such call's text
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
	for _, p := range pending {
		if s.external[p.ToolName] {
			s.finish(nil) // the caller's own tool: it answers the pause
			return
		}
	}
	for _, p := range pending {
		if len(p.ToolCallID) > echolib.MaxCallID {
			s.finish(fmt.Errorf("%w: runs: the service's tool call id is %d bytes, more than the %d a tool result echoes; run %s's calls are unanswered",
				threads.ErrStreamFailed, len(p.ToolCallID), echolib.MaxCallID, shownID(st, r.RunID)))
			return
		}
	}
	if s.rounds >= s.maxRounds {
		s.finish(&ToolRoundsError{Max: s.maxRounds, ThreadID: s.threadID, RunID: r.RunID, Pending: pending, names: s.names(st, pending), run: shownID(st, r.RunID)})
		return
	}
	if err := s.repeated(st, r.RunID, pending); err != nil {
		s.finish(err)
		return
	}
	if len(pending) == 0 {
		s.finish(nil)
		return
	}
	s.rounds++
	s.prevRun = r.RunID
	s.calls = pending
	for _, p := range pending {
		s.queue = append(s.queue, toolRunStart(s.rounds, p))
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

// repeated counts, per call (tool and arguments), the pauses in a row
// that made it, and stops at maxRepeats.
func (s *ToolStream) repeated(st *Stream, runID string, pending []PendingToolCall) error {
	if s.maxRepeats < 0 {
		return nil
	}
	now := make(map[[32]byte]int, len(pending))
	for _, p := range pending {
		k := callKey(p)
		if _, seen := now[k]; seen {
			continue // twice in one pause counts once
		}
		n := s.repeats[k] + 1
		now[k] = n
		if n >= s.maxRepeats {
			return &ToolRepeatError{Times: n, ThreadID: s.threadID, RunID: runID, ToolName: p.ToolName, Arguments: p.Arguments,
				Pending: pending, name: echo(st.redact(echolib.Cut(p.ToolName, 4*echolib.MaxRunes))), run: shownID(st, runID)}
		}
	}
	s.repeats = now
	return nil
}

// callKey identifies a call by its tool and its arguments as a JSON value
// (spacing and member order aside, the service's status arguments left
// out: a model that words its status otherwise makes the same call),
// hashed so that the runner keeps a constant per call.
func callKey(p PendingToolCall) [32]byte {
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(len(p.ToolName))))
	h.Write([]byte{0})
	h.Write([]byte(p.ToolName))
	h.Write(canonicalArgs(p.Arguments))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// canonicalArgs is a call's arguments as one spelling of their JSON
// value, without the service's status arguments; text that is not a JSON
// object is kept compacted, or as it is.
func canonicalArgs(args string) []byte {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber() // numbers as written: no rounding makes two calls one
	var m map[string]any
	if dec.Decode(&m) == nil && m != nil && !dec.More() {
		toolcore.TakeStatus(m)
		if b, err := json.Marshal(m); err == nil {
			return b
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(args)) == nil {
		return b.Bytes()
	}
	return []byte(args)
}

// runCalls runs the pause's calls, at most conc at once, and queues their
// results in the pause's order.
func (s *ToolStream) runCalls() {
	calls := s.calls
	s.calls = nil
	results := make([]ToolRunResult, len(calls))
	sem := make(chan struct{}, s.conc)
	var wg sync.WaitGroup
spawn:
	for i, p := range calls {
		select {
		case sem <- struct{}{}:
		case <-s.ctx.Done():
			break spawn // Close or the context: the rest do not start
		}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = s.call(p)
		})
	}
	wg.Wait()
	if err := s.ctx.Err(); err != nil {
		s.finish(s.closedErr(err))
		return
	}
	s.answer = make([]Content, 0, len(calls))
	for _, r := range results {
		r.Round = s.rounds
		part := ToolResult(r.ToolCallID, r.Text)
		part.IsError = r.IsError
		if r.content != nil {
			part.Content = *r.content
		}
		s.answer = append(s.answer, part)
		s.queue = append(s.queue, r)
		s.answered++
		if errors.Is(r.Err, threads.ErrToolArguments) {
			s.badArgs++
			s.lastBad = r.Text
		}
	}
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

// toolRunStart is the ToolRunStart of pending call p in round.
func toolRunStart(round int, p PendingToolCall) ToolRunStart {
	status, completion := p.StatusMessages()
	return ToolRunStart{Round: round, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Arguments: p.Arguments,
		StatusMessage: status, CompletionStatusMessage: completion}
}

// call runs one pending call and words its result for the model.
func (s *ToolStream) call(p PendingToolCall) ToolRunResult {
	res := ToolRunResult{ToolCallID: p.ToolCallID, ToolName: p.ToolName}
	out, st, err := s.invoke(p)
	res.CompletionStatusMessage = st.Completion
	if err == nil && out.parts != nil {
		var content []Content
		if res.Text, content, err = partsContent(out.parts); err == nil {
			res.content = &content
		}
	}
	if err != nil {
		res.Err, res.IsError, res.Text = err, true, s.errorText(err)
		return res
	}
	if out.parts == nil {
		res.Text = out.text
	}
	return res
}

// toolOutput is what a tool returned: its text (Call), or its parts
// (CallParts; never nil then).
type toolOutput struct {
	text  string
	parts []threads.ContentPart
}

// invoke runs the tool through the tool core: an unknown tool, arguments
// that are not an object and a panic (logged with its stack) become
// errors. The service's status arguments are taken out first.
func (s *ToolStream) invoke(p PendingToolCall) (out toolOutput, st toolcore.Status, err error) {
	args, err := callArgs(p)
	if err == nil {
		st = toolcore.TakeStatus(args)
	}
	tool := s.tools[p.ToolName]
	if tool == nil {
		return out, st, toolcore.UnknownTool(p.ToolName, s.tools, s.external)
	}
	if err != nil {
		return out, st, err
	}
	if err := s.mayStart(); err != nil {
		return out, st, err
	}
	call := threads.ToolCall{ID: p.ToolCallID, Name: p.ToolName, Arguments: args, StatusMessage: st.Message, CompletionStatusMessage: st.Completion}
	out, err = toolcore.Invoke(s.ctx, s.logger, p.ToolName, func(ctx context.Context) (toolOutput, error) {
		if tool.CallParts == nil {
			text, err := tool.Call(ctx, call)
			return toolOutput{text: text}, err
		}
		parts, err := tool.CallParts(ctx, call)
		if parts == nil {
			parts = []threads.ContentPart{}
		}
		return toolOutput{parts: parts}, err
	})
	return out, st, err
}

// partsContent is a tool's parts as the tool_result's content: text parts
// and resource parts as they are (an empty result is one empty text part,
// as an empty text result is), with their text by
// [threads.ToolResultText], which also refuses a part that no tool result
// carries.
func partsContent(parts []threads.ContentPart) (string, []Content, error) {
	text, err := threads.ToolResultText(parts)
	if err != nil {
		return "", nil, err
	}
	if len(parts) == 0 {
		return "", []Content{Text("")}, nil
	}
	out := make([]Content, 0, len(parts))
	for _, p := range parts {
		if p.Type == threads.ContentPartTypeText {
			out = append(out, Text(p.Text))
			continue
		}
		r := p.Resource // ToolResultText checked it
		out = append(out, ResourceContent(Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType,
			Text: r.Text, Blob: r.Blob, Annotations: annotations(r.Annotations)}))
	}
	return text, out, nil
}

// annotations reads package threads' resource annotations (a JSON object)
// as /v1 declares them: audience (a list of roles) and priority.
func annotations(m map[string]any) *ResourceAnnotations {
	if len(m) == 0 {
		return nil
	}
	var a ResourceAnnotations
	switch aud := m["audience"].(type) {
	case []string:
		a.Audience = slices.Clone(aud)
	case []any:
		for _, v := range aud {
			if s, ok := v.(string); ok {
				a.Audience = append(a.Audience, s)
			}
		}
	}
	switch pr := m["priority"].(type) {
	case float64:
		a.Priority = pr
	case json.Number:
		a.Priority, _ = pr.Float64()
	case int:
		a.Priority = float64(pr)
	}
	if a.Audience == nil && a.Priority == 0 {
		return nil
	}
	return &a
}

// callArgs decodes a pending call's arguments: a JSON object (empty text
// is none), or an arguments error for the model.
func callArgs(p PendingToolCall) (map[string]any, error) {
	args := map[string]any{}
	if strings.TrimSpace(p.Arguments) != "" {
		if err := json.Unmarshal([]byte(p.Arguments), &args); err != nil || args == nil {
			return nil, toolcore.NotAnObject(p.ToolName)
		}
	}
	return args, nil
}

// StatusMessages returns the call's status lines, as the model wrote them
// in the service's own arguments _tambo_statusMessage and
// _tambo_completionStatusMessage (see [Client.RunTools]); empty when the
// arguments hold none. Arguments keeps them: a caller that answers the
// call itself leaves them out of the tool's arguments.
func (p PendingToolCall) StatusMessages() (status, completion string) {
	args, err := callArgs(p)
	if err != nil {
		return "", ""
	}
	st := toolcore.TakeStatus(args)
	return st.Message, st.Completion
}

// errorText is the tool_result text for err: without the API key or the
// end user's token, at most echolib.MaxErrorText bytes (cut on a rune
// boundary, "…" added). Only a bounded prefix is looked at, and it is
// redacted before it is cut.
func (s *ToolStream) errorText(err error) string {
	return echolib.ErrorText(err, echolib.MaxErrorText, func(t string) string { return s.redact(t) })
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
	next.eng.Observation().ToolRound(s.rounds) // this run carries the round's results
	s.st.nextRun(next, s.kept)                 // the new run's stream starts with what s keeps: one budget
}

// merge adds a run's result to the stream's. What the stream keeps of all
// its runs shares one budget, as one run's stream does: maxItems messages
// and as many tool calls, maxRetained bytes in all. Past it the rest is
// left out and Incomplete is set.
func (s *ToolStream) merge(r *Result) {
	a := &s.res
	if a.ThreadID == "" {
		a.ThreadID = r.ThreadID
	}
	a.RunID, a.Outcome, a.PendingToolCalls, a.Failure = r.RunID, r.Outcome, r.PendingToolCalls, r.Failure
	a.Incomplete = a.Incomplete || r.Incomplete
	var dropped bool
	a.Usage, dropped = sumUsage(a.Usage, r.Usage)
	a.Incomplete = a.Incomplete || dropped
	for _, m := range r.Messages {
		if len(a.Messages) >= maxItems || !s.keep(messageCost(m)) {
			a.Incomplete = true
			break
		}
		a.Messages = append(a.Messages, m)
	}
	for _, c := range r.ToolCalls {
		if len(a.ToolCalls) >= maxItems || !s.keep(int64(len(c.ID)+len(c.Name)+len(c.Arguments)+len(c.ParentMessageID)+64)) {
			a.Incomplete = true
			break
		}
		a.ToolCalls = append(a.ToolCalls, c)
	}
}

// keep spends n bytes of the stream's budget, if it has them.
func (s *ToolStream) keep(n int64) bool {
	if s.kept+n > maxRetained {
		return false
	}
	s.kept += n
	return true
}

// messageCost is what a run's message costs the budget: its text, its
// components' ids, names and props, and a constant per part.
func messageCost(m Message) int64 {
	n := int64(len(m.ID) + len(m.Role) + 64)
	for _, c := range m.Content {
		n += int64(len(c.Text)+len(c.ID)+len(c.Name)+64) + valueCost(c.Props)
	}
	return n
}

func (s *ToolStream) finish(err error) {
	s.done, s.err = true, err
	s.calls, s.answer = nil, nil
	s.st.Close()
	s.cancel()
}

// Current returns the event the last successful Next read: a run's
// [Event], a [ToolRunStart] or a [ToolRunResult].
func (s *ToolStream) Current() Event {
	if s == nil {
		return nil
	}
	return s.event
}

// Err returns why the stream ended: nil when the last run finished (also
// when it paused for a tool the caller answers itself) or was cancelled,
// and after Close; a [*RunFailedError] when a run failed; a
// [*ToolRoundsError] or [*ToolRepeatError] when a bound stopped the loop;
// a [*ToolArgumentsError] when the last run finished but every call
// answered had failed its tool's argument checks;
// the error of a continuation run that could not start (a
// *threads.Problem); the context's error; or a run stream's error (see
// [Stream.Err]).
func (s *ToolStream) Err() error {
	if s == nil || s.c == nil {
		return errZeroStream
	}
	if s.err == nil && s.done && s.answered > 0 && s.badArgs == s.answered && s.res.Outcome == OutcomeFinished {
		return &ToolArgumentsError{Calls: s.answered, ThreadID: s.res.ThreadID, RunID: s.res.RunID,
			Last: termtext.OneLine(s.lastBad, 4*echolib.MaxRunes), run: shownWith(s.redact, s.res.RunID)}
	}
	return s.err
}

// redact removes the API key and the end user's token from server text.
func (s *ToolStream) redact(t string, extra ...string) string {
	return s.c.conn.Redact(t, s.c.secrets(extra...)...)
}

// Close ends the stream: the context the tools see is cancelled, and a
// run that is streaming is closed (which cancels it on the service).
// Idempotent, safe from any goroutine, nil on a nil *ToolStream.
func (s *ToolStream) Close() error {
	if s == nil || s.c == nil {
		return nil
	}
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	s.st.Close()
	return nil
}

// ThreadID returns the thread the runs are on (for CreateAndRunTools, the
// one the first run created). Safe from any goroutine.
func (s *ToolStream) ThreadID() string {
	if s == nil || s.c == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threadID
}

// RunID returns the run being read, or the last one. Safe from any
// goroutine.
func (s *ToolStream) RunID() string {
	if s == nil || s.c == nil {
		return ""
	}
	return s.st.RunID()
}

// Outcome returns how the run being read, or the last one, ended, as
// [Stream.Outcome] does for one run: [OutcomeUnknown] until the stream
// knows; [OutcomeCancelled] also for a run cancelled from elsewhere. A tool
// stream that ends at a pause the runner leaves unanswered (MaxRounds, a
// call it has no tool for) reports that run's [OutcomeAwaitingTools]. Safe
// from any goroutine.
func (s *ToolStream) Outcome() Outcome {
	if s == nil || s.c == nil {
		return OutcomeUnknown
	}
	return s.st.Outcome()
}

// Format prints "runs.ToolStream{rounds:N done:B}" whatever the verb, for
// the stream and its value alike: its fields hold the runs' events and
// results as the service sent them (which may echo the API key or an end
// user's token), which a plain %v, %+v or %#v would print.
func (s ToolStream) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "runs.ToolStream{rounds:%d done:%t}", s.rounds, s.done || s.c == nil)
}

// Rounds returns how many pauses the stream has answered.
func (s *ToolStream) Rounds() int {
	if s == nil {
		return 0
	}
	return s.rounds
}

// All returns an iterator over the events; a failure is yielded last with
// a nil Event. Breaking out closes the stream.
func (s *ToolStream) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		defer s.Close()
		for s.Next() {
			if !yield(s.Current(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Collect reads the stream to its end, closes it and returns what the
// runs produced: the messages and tool calls of every run in order; the
// thread; the last run's RunID, Outcome, PendingToolCalls (for a stream
// that stopped at a pause) and Failure. The Result is never nil.
func (s *ToolStream) Collect() (*Result, error) {
	if s == nil || s.c == nil {
		return &Result{}, errZeroStream
	}
	for s.Next() {
	}
	s.Close()
	r := s.res
	r.Messages = slices.Clone(r.Messages)
	r.ToolCalls = slices.Clone(r.ToolCalls)
	r.PendingToolCalls = slices.Clone(r.PendingToolCalls)
	return &r, s.Err()
}

// ComponentProps returns the props of component id: as the current run's
// events built them, else as an earlier run ended them.
func (s *ToolStream) ComponentProps(id string) (map[string]any, bool) {
	if s == nil {
		return nil, false
	}
	if st := s.current(); st != nil {
		if p, ok := st.ComponentProps(id); ok {
			return p, true
		}
	}
	for _, m := range s.res.Messages {
		for _, c := range m.Content {
			if c.Type == ContentComponent && c.ID == id {
				p, _ := cloneValue(c.Props).(map[string]any)
				if p == nil {
					p = map[string]any{}
				}
				return p, true
			}
		}
	}
	return nil, false
}

// componentName returns the name of component id, as ComponentStart gave it.
func (s *ToolStream) componentName(id string) (string, bool) {
	if st := s.current(); st != nil {
		if n, ok := st.componentName(id); ok {
			return n, true
		}
	}
	for _, m := range s.res.Messages {
		for _, c := range m.Content {
			if c.Type == ContentComponent && c.ID == id {
				return c.Name, true
			}
		}
	}
	return "", false
}

// shownID is an id the service sent (a run id) as an error shows it: one
// printable line, cut short, the key redacted.
func shownID(st *Stream, id string) string { return shownWith(st.redact, id) }

func shownWith(redact func(string, ...string) string, id string) string {
	return termtext.OneLine(redact(echolib.Cut(id, 4*echolib.MaxRunes)), echolib.MaxRunes)
}

// echo quotes server text for a message to the model (internal/echo).
func echo(s string) string { return echolib.Quote(s) }
