package threads

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"

	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/stream"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// Tool is a client-side tool: a function of this process that the model may
// call while it writes a reply. Give tools to [ThreadsService.RunStream],
// which declares them to the service (clientTools) and runs them when the
// model asks, or to package runs' tool runner (the same value serves both
// API generations). Build one with [NewTool], [NewJSONTool] or
// [NewPartsTool], or fill in the fields yourself. On /v1, runs.DefineTool
// makes its wire definition (runs.ToolDefinition), which is not a Tool.
type Tool struct {
	// Name names the tool; the model calls it by this name. It must be
	// unique among the call's tools and ClientTools.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters describes the arguments, as sent in clientTools[].parameters.
	Parameters []ToolParameter
	// InputSchema, in the place of Parameters (set one of them), is the
	// tool's arguments as one whole JSON Schema object, such as an MCP
	// tool's inputSchema: any value that encoding/json encodes as a JSON
	// object (a map[string]any, a [json.RawMessage], a schema type). On
	// /v1 (package runs) it is sent as the tool's inputSchema as it is. On
	// the spec's routes it is mapped to Parameters, one per property in
	// the order the schema encodes them (a map's keys encode sorted), each carrying its property's schema as it is
	// (the service hands the model that schema) and required when the
	// schema says so; a schema that parameters cannot express (anyOf,
	// oneOf, allOf, $ref, a type other than object, a schema for
	// additionalProperties...) is refused by RunStream before anything is
	// sent, with an error that names the keyword. The runners check no
	// arguments against it: Call gets the arguments as the model sent
	// them (the service's status arguments aside).
	InputSchema any
	// MaxCalls asks the service to allow at most this many calls of the
	// tool in one generation; 0 sends no limit.
	MaxCalls int
	// Call runs the tool. It runs on the goroutine that reads the stream
	// (inside Stream.Next), with the stream's context: it should return
	// when ctx is done. The string is the result the model reads; an error
	// is reported to the model as the tool's failure (see RunStream).
	Call func(ctx context.Context, call ToolCall) (string, error)
	// CallParts, when set, runs the tool instead of Call, for a result
	// that is more than one text: content parts, each a text part
	// ([TextPart]) or a resource part ([ResourcePart], [BlobPart]): inline
	// text, a base64 blob (an image, a PDF) or a URI, with its MIME type.
	// On /v1 (package runs) the parts are the tool_result's content as
	// they are; on the spec's routes, which carry text only, they are
	// flattened to one text by [ToolResultText]. A part of another type
	// (an image_url, input_audio or unknown part) is reported to the
	// model as the tool's failure. It runs as Call does; its error too.
	// A Tool may set both (NewPartsTool does, its Call returning the
	// flattened text, for a caller that calls Call itself).
	CallParts func(ctx context.Context, call ToolCall) ([]ContentPart, error)

	err error // set by NewTool when Args cannot be a tool's arguments
}

// TextPart returns a text [ContentPart], for a message or a tool's result
// ([Tool.CallParts]).
func TextPart(text string) ContentPart { return ContentPart{Type: ContentPartTypeText, Text: text} }

// ResourcePart returns a resource [ContentPart] (its text, its base64
// blob or its URI, with its MIME type), for a message or a tool's result
// ([Tool.CallParts]). Its /v1 counterpart is runs.ResourceContent.
func ResourcePart(r Resource) ContentPart {
	return ContentPart{Type: ContentPartTypeResource, Resource: &r}
}

// BlobPart returns a resource [ContentPart] holding data, base64-encoded,
// with its MIME type (such as image/png) and a URI naming it (may be
// empty). It is how a tool's result carries an image: the /v1 tool_result
// takes text and resource parts only.
func BlobPart(uri, mimeType string, data []byte) ContentPart {
	return ResourcePart(Resource{URI: uri, MIMEType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)})
}

// ToolResultText returns a tool's result parts ([Tool.CallParts]) as the
// one text that the spec's routes send in the tool message (they carry
// text only), and that package runs reports as a result's text. The rule,
// part by part, joined with newlines:
//
//   - a text part: its text;
//   - a resource with text: <resource uri="…" mimeType="…">its text</resource>,
//     as the service itself shows the model a resource on /v1;
//   - a resource with a blob: <resource uri="…" mimeType="…" bytes="N"/>,
//     N its decoded size: the data itself is left out;
//   - a resource with only a URI: <resource uri="…"/>.
//
// An attribute is left out when empty; a quote, <, > and & in it are
// escaped as in XML. It fails for a part that is neither text nor a
// resource, or a resource part without its Resource, naming the part.
func ToolResultText(parts []ContentPart) (string, error) {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch p.Type {
		case ContentPartTypeText:
			b.WriteString(p.Text)
		case ContentPartTypeResource:
			r := p.Resource
			if r == nil {
				return "", toolcore.NoResourceError(i)
			}
			b.WriteString("<resource")
			attr(&b, "uri", r.URI)
			attr(&b, "mimeType", r.MIMEType)
			switch {
			case r.Text != "":
				b.WriteString(">")
				b.WriteString(r.Text)
				b.WriteString("</resource>")
			case r.Blob != "":
				attr(&b, "bytes", strconv.Itoa(blobSize(r.Blob)))
				b.WriteString("/>")
			default:
				b.WriteString("/>")
			}
		default:
			return "", toolcore.PartError(i, string(p.Type))
		}
	}
	return b.String(), nil
}

// attr writes name="value" when value is not empty.
func attr(b *strings.Builder, name, value string) {
	if value == "" {
		return
	}
	b.WriteString(" " + name + `="`)
	xml.EscapeText(b, []byte(value)) //nolint:errcheck // a strings.Builder does not fail
	b.WriteString(`"`)
}

// blobSize is the decoded size of base64 text (padding and line breaks
// aside), without decoding it.
func blobSize(blob string) int {
	n := 0
	for i := 0; i < len(blob); i++ {
		switch blob[i] {
		case '=', '\n', '\r', ' ':
		default:
			n++
		}
	}
	return n * 3 / 4
}

// ToolCall is one call of a [Tool] that the model asked for, as the tool's
// Call receives it in both API generations. Package runs' record of a
// call in a run's stream, its arguments as JSON text, is
// runs.StreamedToolCall.
type ToolCall struct {
	// ID is the call's tool_call_id, echoed in the tool message that answers it.
	ID string
	// Name is the tool's name (toolCallRequest.toolName).
	Name string
	// Arguments maps each parameterName to its parameterValue, a JSON value
	// decoded as encoding/json decodes into an any. It never holds the
	// service's own status arguments (below).
	Arguments map[string]any
	// StatusMessage and CompletionStatusMessage are the call's status
	// lines, written by the model: what to show while the tool runs and
	// once it is done ("Looking up the weather in Paris…"). The service
	// asks the model for them with every tool call: on /v1 they come as
	// the arguments _tambo_statusMessage and
	// _tambo_completionStatusMessage, which the tool runners take out of
	// Arguments; on the spec's routes the service has taken them out
	// itself (the message's component). Empty when the model sent none.
	StatusMessage, CompletionStatusMessage string
}

// ErrToolArguments matches the error a [NewTool] tool returns when a
// call's arguments do not fit its Args (a missing required argument, a
// value outside its enum, an unknown name, a wrong type, arguments that
// are not a JSON object): the tool did not run, and the model reads the
// error as its result. Package runs' tool stream reports a run whose
// every call failed so (runs.ToolArgumentsError).
var ErrToolArguments = toolcore.ErrArguments

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
	r := &toolRunner{svc: s, op: op, id: id, opts: opts, logger: cfg.logger, max: cfg.maxToolRounds, secret: cfg.apiKey.get()}
	if r.max == 0 {
		r.max = defaultMaxToolRounds
	}
	if err := r.setup(&params, tools); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
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
	r.st = st
	st.eng.Continue(r)
	return st, nil
}

// toolRunner is RunStream's tool rounds: the Continuation of its stream
// (internal/stream), which knows nothing of tools.
type toolRunner struct {
	st *Stream // the stream it continues

	svc    *ThreadsService
	op     string // RunStream or CreateAndRunStream, for errors
	id     string // the thread; "" until a created thread's first snapshot
	opts   []RequestOption
	logger *slog.Logger
	max    int
	cancel context.CancelFunc
	secret string // the call's API key, kept out of error strings

	params   AdvanceParams    // the next request's, Message aside
	tools    map[string]*Tool // by name
	external map[string]bool  // tools the caller answers itself
	rounds   int              // tool calls answered
}

// setup checks the tools and adds them to p.ClientTools.
func (r *toolRunner) setup(p *AdvanceParams, tools []Tool) error {
	r.tools = make(map[string]*Tool, len(tools))
	r.external = make(map[string]bool, len(p.ClientTools))
	for _, t := range p.ClientTools {
		r.external[t.Name] = true
	}
	for _, c := range p.AvailableComponents {
		for _, t := range c.ContextTools {
			r.external[t.Name] = true
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
		case r.tools[t.Name] != nil || slices.ContainsFunc(p.ClientTools, func(c ClientTool) bool { return c.Name == t.Name }):
			return fmt.Errorf("threads: %s: tool %q is declared twice", r.op, t.Name)
		}
		r.tools[t.Name] = t
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

// Continue answers the tool call that ended a round, if any (the round's
// last snapshot asks for it), and returns the body of the reply to it; nil
// when the run is over. It runs from the stream's Next, at the round's
// "data: DONE".
func (r *toolRunner) Continue(ctx context.Context) (*stream.Source, error) {
	// A round without snapshots has no "last" one: the one before it is
	// not asked again.
	last := r.st.cur.AdvanceResponse
	r.st.cur = StreamEvent{}
	next, err := r.next(ctx, last)
	if next == nil || err != nil {
		return nil, err
	}
	return next.eng.Detach(), nil // its body is r.st's now
}

// Stop cancels the context a tool and the next round's request run under:
// the stream ended or was closed.
func (r *toolRunner) Stop() { r.cancel() }

func (r *toolRunner) next(ctx context.Context, last AdvanceResponse) (*Stream, error) {
	m := last.Message
	if last.GenerationStage != GenerationStageFetchingContext || m.ToolCallRequest == nil || m.ToolCallID == "" {
		return nil, nil // a completed (or cancelled) reply: the run is over
	}
	call := callOf(m)
	if r.id == "" {
		// CreateAndRunStream: the thread the first request created.
		if err := checkID("thread", m.ThreadID); err != nil {
			return nil, fmt.Errorf("%w: %s: the service's tool call names no usable thread: %w", ErrStreamFailed, r.op, err)
		}
		r.id = m.ThreadID
	}
	tool := r.tools[call.Name]
	if tool == nil && r.external[call.Name] {
		return nil, nil // the caller's own tool: it answers the call
	}
	if r.rounds >= r.max {
		return nil, &ToolRoundsError{Max: r.max, Call: call, secret: r.secret}
	}
	if len(call.ID) > echolib.MaxCallID {
		// The id must be echoed whole (a cut one answers no call), so a
		// huge one is refused rather than sent back.
		return nil, fmt.Errorf("%w: %s: the service's tool call id is %d bytes, more than the %d a tool message echoes; the call is unanswered",
			ErrStreamFailed, r.op, len(call.ID), echolib.MaxCallID)
	}
	r.rounds++
	result, err := r.call(ctx, tool, call)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	msg := ToolResult(call.ID, result)
	if err != nil {
		text := r.errorText(err)
		msg = ToolResult(call.ID, "Error: "+text)
		msg.Error = text
	}
	if tool != nil {
		// Only the caller's own tools are counted: a name the service
		// made up would otherwise be re-sent with every later round.
		r.params.ToolCallCounts[call.Name]++
	}
	r.params.Message = msg
	return r.svc.advanceStream(ctx, r.op, r.id, r.params, r.opts)
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

// call runs the tool through the tool core: an unknown tool and a panic
// (logged with its stack) become errors. A tool's parts are flattened to
// the tool message's text (ToolResultText); a part that no tool result
// carries is the tool's failure.
func (r *toolRunner) call(ctx context.Context, tool *Tool, call ToolCall) (result string, err error) {
	if tool == nil {
		return "", toolcore.UnknownTool(call.Name, r.tools, r.external)
	}
	return toolcore.Invoke(ctx, r.logger, call.Name, func(ctx context.Context) (string, error) {
		if tool.CallParts == nil {
			return tool.Call(ctx, call)
		}
		parts, err := tool.CallParts(ctx, call)
		if err != nil {
			return "", err
		}
		return ToolResultText(parts)
	})
}

// parameters are the clientTools[].parameters the spec's routes declare
// for t: its Parameters, or its InputSchema mapped to them (the tool
// core's rule). Never nil: the service requires the list.
func (t *Tool) parameters() ([]ToolParameter, error) {
	if t.InputSchema == nil {
		if t.Parameters == nil {
			return []ToolParameter{}, nil
		}
		return t.Parameters, nil
	}
	if len(t.Parameters) > 0 {
		return nil, errors.New("it sets both Parameters and InputSchema; set one")
	}
	core, err := toolcore.ParamsFromSchema(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("the spec's routes cannot declare it: %w", err)
	}
	params := make([]ToolParameter, 0, len(core))
	for _, c := range core {
		params = append(params, toolParameter(c))
	}
	return params, nil
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

// NewTool makes a [Tool] from a Go function whose arguments are the
// exported fields of the struct Args (or *Args).
//
// Each field is one parameter, named as encoding/json names it (the json
// tag; "-" leaves it out; embedded structs are flattened), described by
// its `description:"..."` tag, and required unless it is a pointer or its
// json tag says omitempty or omitzero. Go types map to the service's type
// names: string (also time.Time and []byte), integer (ints and uints),
// number (floats), boolean, array (slices and arrays, with Items telling
// the elements' type), object (structs and maps; an interface field as
// well, as any JSON value can come). An `enum:"a,b,c"` tag sets EnumValues.
// A parameter that is an object, or an array of objects or arrays, also
// gets a JSON Schema (Schema) describing its inside the same way.
//
// Each call's arguments are checked and decoded into an Args (through
// encoding/json, so custom UnmarshalJSON methods apply): a missing
// required argument, an unknown name or a value of the wrong type does not
// reach fn; the model gets an error that names the problem and the
// parameters instead (it matches [ErrToolArguments]). The service's own
// status arguments (see [ToolCall].StatusMessage) are never Args'
// arguments: they are neither checked nor decoded, even when a caller
// passes them in Arguments.
//
// When Args is not a struct (or pointer to one), NewTool does not panic:
// the Tool it returns is refused by RunStream, before anything is sent,
// with an error that says why, and its Call returns that error.
func NewTool[Args any](name, description string, fn func(ctx context.Context, args Args) (string, error)) Tool {
	t, decode := newArgsTool[Args]("NewTool", name, description, fn == nil)
	if t.err != nil {
		return t
	}
	t.Call = func(ctx context.Context, call ToolCall) (string, error) {
		v, err := decode(call)
		if err != nil {
			return "", err
		}
		return fn(ctx, v)
	}
	return t
}

// NewPartsTool is [NewTool] for a function whose result is content parts
// (see [Tool.CallParts]): text parts ([TextPart]) and resource parts
// ([ResourcePart], and [BlobPart] for an image or other binary data).
// Arguments, parameters and their checks are NewTool's. On /v1 the parts
// are the tool_result's content; on the spec's routes they are flattened
// to one text ([ToolResultText]). The Tool's Call returns that text too.
func NewPartsTool[Args any](name, description string, fn func(ctx context.Context, args Args) ([]ContentPart, error)) Tool {
	t, decode := newArgsTool[Args]("NewPartsTool", name, description, fn == nil)
	if t.err != nil {
		return t
	}
	t.CallParts = func(ctx context.Context, call ToolCall) ([]ContentPart, error) {
		v, err := decode(call)
		if err != nil {
			return nil, err
		}
		return fn(ctx, v)
	}
	t.Call = func(ctx context.Context, call ToolCall) (string, error) {
		parts, err := t.CallParts(ctx, call)
		if err != nil {
			return "", err
		}
		return ToolResultText(parts)
	}
	return t
}

// newArgsTool is the Tool of NewTool and NewPartsTool without its Call:
// the parameters of Args, and the function that checks and decodes a
// call's arguments into an Args. A Tool that could not be made has err
// set and a Call that returns it.
func newArgsTool[Args any](ctor, name, description string, noFunc bool) (Tool, func(ToolCall) (Args, error)) {
	t := Tool{Name: name, Description: description}
	args, err := toolcore.NewArgs(reflect.TypeFor[Args]())
	switch {
	case err != nil:
		t.err = fmt.Errorf("%s: %w", ctor, err)
	case noFunc:
		t.err = fmt.Errorf("%s: nil function", ctor)
	}
	if t.err != nil {
		err := t.err
		t.Call = func(context.Context, ToolCall) (string, error) { return "", err }
		return t, nil
	}
	params := args.Params()
	t.Parameters = make([]ToolParameter, 0, len(params))
	for _, p := range params {
		t.Parameters = append(t.Parameters, toolParameter(p))
	}
	return t, func(call ToolCall) (Args, error) {
		v, err := args.Decode(call.Name, call.Arguments)
		if err != nil {
			var zero Args
			return zero, err
		}
		return v.Interface().(Args), nil
	}
}

// NewJSONTool is [NewTool] for a function whose result is any value that
// encoding/json can encode: a struct, a map, a slice, a number. Arguments,
// parameters and their checks are NewTool's.
//
// How the result reaches the model: it is encoded with encoding/json, and
// that JSON text is the tool's result on both API generations: on the
// spec's routes the text of the tool message ([ToolResult]), on /v1 the
// text part of the tool_result (package runs). A string Result is
// therefore sent quoted, as the JSON string it is (use NewTool for plain
// text); a [json.RawMessage] is sent as it is; a nil pointer, map or slice
// is sent as null. A Result that does not encode (a channel, a func, a
// MarshalJSON that fails) is reported to the model as the tool's failure,
// as an error from fn is.
func NewJSONTool[Args, Result any](name, description string, fn func(ctx context.Context, args Args) (Result, error)) Tool {
	if fn == nil {
		return NewTool[Args](name, description, nil)
	}
	return NewTool(name, description, func(ctx context.Context, args Args) (string, error) {
		res, err := fn(ctx, args)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return "", fmt.Errorf("tool %q: its result does not encode as JSON: %w", name, err)
		}
		return string(b), nil
	})
}

// Err returns why [NewTool] (or [NewJSONTool], [NewPartsTool]) could not make t: Args is
// not a struct or a pointer to one, or the function is nil. It is nil for
// every usable tool, and for a Tool built by hand. The tool runners
// ([ThreadsService.RunStream], and package runs') refuse such a tool with
// this error before anything is sent.
func (t Tool) Err() error { return t.err }

// MarshalJSON sends p with a JSON Schema ("schema") that carries its type,
// description and enum values. The service hands the model only a
// parameter's schema, as it is, or else its type: it copies EnumValues
// only when Type is "enum", and never a Description. When Schema is nil,
// one is made from Type, Items, Description and EnumValues; when it is
// set but lacks "description" or "enum", those are added (to a copy: p is
// not changed). The other members are sent as well, as the spec has them.
func (p ToolParameter) MarshalJSON() ([]byte, error) {
	type plain ToolParameter // without this method
	q := plain(p)
	q.Schema = p.modelSchema()
	return json.Marshal(q)
}

// modelSchema is the schema MarshalJSON sends for p (the tool core's
// rule, shared with package runs' inputSchema).
func (p ToolParameter) modelSchema() map[string]any { return p.core().ModelSchema() }

// core is p as the tool core holds a parameter.
func (p ToolParameter) core() toolcore.Param {
	c := toolcore.Param{Name: p.Name, Type: p.Type, Description: p.Description, Required: p.IsRequired, Enum: p.EnumValues, Schema: p.Schema}
	if p.Items != nil {
		c.Items = p.Items.Type
	}
	return c
}

// toolParameter is the tool core's parameter as the spec declares it.
func toolParameter(c toolcore.Param) ToolParameter {
	p := ToolParameter{Name: c.Name, Type: c.Type, Description: c.Description, IsRequired: c.Required, EnumValues: c.Enum, Schema: c.Schema}
	if c.Items != "" {
		p.Items = &ToolParameterItems{Type: c.Items}
	}
	return p
}
