package threads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/stream"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// Tool is a client-side tool: a function of this process that the model may
// call while it writes a reply. Give tools to [ThreadsService.RunStream],
// which declares them to the service (clientTools) and runs them when the
// model asks. Build one with [NewTool], or fill in the fields yourself.
type Tool struct {
	// Name names the tool; the model calls it by this name. It must be
	// unique among the call's tools and ClientTools.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters describes the arguments, as sent in clientTools[].parameters.
	Parameters []ToolParameter
	// MaxCalls asks the service to allow at most this many calls of the
	// tool in one generation; 0 sends no limit.
	MaxCalls int
	// Call runs the tool. It runs on the goroutine that reads the stream
	// (inside Stream.Next), with the stream's context: it should return
	// when ctx is done. The string is the result the model reads; an error
	// is reported to the model as the tool's failure (see RunStream).
	Call func(ctx context.Context, call ToolCall) (string, error)

	err error // set by NewTool when Args cannot be a tool's arguments
}

// ToolCall is one call of a [Tool] that the model asked for.
type ToolCall struct {
	// ID is the call's tool_call_id, echoed in the tool message that answers it.
	ID string
	// Name is the tool's name (toolCallRequest.toolName).
	Name string
	// Arguments maps each parameterName to its parameterValue, a JSON value
	// decoded as encoding/json decodes into an any.
	Arguments map[string]any
}

// ErrToolRounds matches a [*ToolRoundsError] with errors.Is.
var ErrToolRounds = errors.New("threads: too many tool rounds")

// ToolRoundsError ends a [ThreadsService.RunStream] stream (from Stream.Err)
// when the model asks for another tool call after the run has answered as
// many as [WithMaxToolRounds] allows. That last call is left unanswered:
// the thread waits in FETCHING_CONTEXT for its result, which the caller may
// still send (AdvanceStream with [ToolResult]) or leave.
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
		case t.Call == nil:
			return fmt.Errorf("threads: %s: tool %q has no Call", r.op, t.Name)
		case r.tools[t.Name] != nil || slices.ContainsFunc(p.ClientTools, func(c ClientTool) bool { return c.Name == t.Name }):
			return fmt.Errorf("threads: %s: tool %q is declared twice", r.op, t.Name)
		}
		r.tools[t.Name] = t
		params := t.Parameters
		if params == nil {
			params = []ToolParameter{} // the service requires the list
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
	call := ToolCall{ID: m.ToolCallID, Name: m.ToolCallRequest.ToolName, Arguments: make(map[string]any, len(m.ToolCallRequest.Parameters))}
	for _, p := range m.ToolCallRequest.Parameters {
		call.Arguments[p.ParameterName] = p.ParameterValue
	}
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
// an arguments error lists at most maxArgProblems problems.
const maxArgProblems = 8 // problems listed in an arguments error; the rest are counted

// echo quotes server text for a message to the model (internal/echo).
func echo(s string) string { return echolib.Quote(s) }

// errorText is the text a tool message carries for err: without the API
// key, at most echolib.MaxErrorText bytes (cut on a rune boundary, "…" added).
// Only a bounded prefix is looked at, and it is redacted before it is cut.
func (r *toolRunner) errorText(err error) string {
	return echolib.ErrorText(err, len(r.secret), func(t string) string { return redact.String(t, r.secret) })
}

// call runs the tool, turning a panic into an error.
func (r *toolRunner) call(ctx context.Context, tool *Tool, call ToolCall) (result string, err error) {
	if tool == nil {
		names := make([]string, 0, len(r.tools)+len(r.external))
		for n := range r.tools {
			names = append(names, n)
		}
		for n := range r.external {
			names = append(names, n)
		}
		slices.Sort(names)
		return "", fmt.Errorf("there is no tool named %s; the tools are: %s", echo(call.Name), strings.Join(names, ", "))
	}
	defer func() {
		if v := recover(); v != nil {
			if r.logger != nil {
				r.logger.Error("threads: a tool panicked", "tool", call.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
			result, err = "", fmt.Errorf("tool %q failed: panic: %v", call.Name, v)
		}
	}()
	return tool.Call(ctx, call)
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
// parameters instead.
//
// When Args is not a struct (or pointer to one), NewTool does not panic:
// the Tool it returns is refused by RunStream, before anything is sent,
// with an error that says why, and its Call returns that error.
func NewTool[Args any](name, description string, fn func(ctx context.Context, args Args) (string, error)) Tool {
	t := Tool{Name: name, Description: description}
	typ := reflect.TypeFor[Args]()
	ptr := typ.Kind() == reflect.Pointer
	if ptr {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		t.err = fmt.Errorf("NewTool: Args must be a struct or a pointer to one, not %v", reflect.TypeFor[Args]())
	} else if fn == nil {
		t.err = errors.New("NewTool: nil function")
	}
	if t.err != nil {
		err := t.err
		t.Call = func(context.Context, ToolCall) (string, error) { return "", err }
		return t
	}
	fields := structFields(typ)
	t.Parameters = make([]ToolParameter, 0, len(fields))
	for _, f := range fields {
		t.Parameters = append(t.Parameters, f.param())
	}
	t.Call = func(ctx context.Context, call ToolCall) (string, error) {
		v := reflect.New(typ)
		if err := decodeArgs(call, fields, v.Interface()); err != nil {
			return "", err
		}
		if ptr {
			return fn(ctx, v.Interface().(Args))
		}
		return fn(ctx, v.Elem().Interface().(Args))
	}
	return t
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

// Err returns why [NewTool] (or [NewJSONTool]) could not make t: Args is
// not a struct or a pointer to one, or the function is nil. It is nil for
// every usable tool, and for a Tool built by hand. The tool runners
// ([ThreadsService.RunStream], and package runs') refuse such a tool with
// this error before anything is sent.
func (t Tool) Err() error { return t.err }

// argField is one parameter of a NewTool struct.
type argField struct {
	name, description string
	typ               reflect.Type
	required          bool
	enum              []string
}

func (f argField) param() ToolParameter {
	p := ToolParameter{Name: f.name, Type: jsonType(f.typ), Description: f.description, IsRequired: f.required, EnumValues: f.enum}
	if p.Type == "array" {
		p.Items = &ToolParameterItems{Type: jsonType(deref(f.typ).Elem())}
	}
	// Every parameter gets its JSON Schema: it is the only member the
	// service hands to the model as it is (see ToolParameter.MarshalJSON).
	p.Schema = f.schema(0)
	return p
}

// schema is the field's JSON Schema: its type's, with its description and
// enum values.
func (f argField) schema(depth int) map[string]any {
	s := schemaOf(f.typ, depth)
	if f.description != "" {
		s["description"] = f.description
	}
	if len(f.enum) > 0 {
		s["enum"] = enumValues(f.enum, s["type"])
	}
	return s
}

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

// modelSchema is the schema MarshalJSON sends for p.
func (p ToolParameter) modelSchema() map[string]any {
	s := make(map[string]any, len(p.Schema)+3)
	for k, v := range p.Schema {
		s[k] = v
	}
	if p.Schema == nil {
		typ := p.Type
		if typ == "enum" {
			typ = "string" // the service's name for a string with EnumValues
		}
		if typ != "" {
			s["type"] = typ
		}
		if typ == "array" && p.Items != nil && p.Items.Type != "" {
			s["items"] = map[string]any{"type": p.Items.Type}
		}
	}
	if _, ok := s["description"]; !ok && p.Description != "" {
		s["description"] = p.Description
	}
	if _, ok := s["enum"]; !ok && len(p.EnumValues) > 0 {
		s["enum"] = enumValues(p.EnumValues, s["type"])
	}
	if len(s) == 0 {
		return nil // nothing to say: any JSON value
	}
	return s
}

// textMarshaler is implemented by time.Time and other values that JSON
// holds as strings.
var textMarshaler = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonType names t's JSON type as the service (and JSON Schema) does.
func jsonType(t reflect.Type) string {
	t = deref(t)
	if t.Kind() == reflect.Struct && (t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return "string" // time.Time and other text-marshalled values
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // []byte is base64 text in JSON
		}
		return "array"
	}
	return "object" // structs, maps, interfaces
}

// structFields lists t's parameters as encoding/json sees its fields.
func structFields(t reflect.Type) []argField {
	var out []argField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && deref(sf.Type).Kind() == reflect.Struct {
			out = append(out, structFields(deref(sf.Type))...) // promoted, as encoding/json does
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		optional := sf.Type.Kind() == reflect.Pointer || strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		f := argField{name: name, description: sf.Tag.Get("description"), typ: sf.Type, required: !optional}
		if e := sf.Tag.Get("enum"); e != "" {
			for _, v := range strings.Split(e, ",") {
				f.enum = append(f.enum, strings.TrimSpace(v))
			}
		}
		out = append(out, f)
	}
	return out
}

// schemaOf returns a JSON Schema for t; depth stops recursive types.
func schemaOf(t reflect.Type, depth int) map[string]any {
	t = deref(t)
	typ := jsonType(t)
	s := map[string]any{}
	if t.Kind() == reflect.Interface {
		return s // any JSON value
	}
	s["type"] = typ
	if depth > 8 {
		return s
	}
	switch {
	case typ == "array":
		s["items"] = schemaOf(t.Elem(), depth+1)
	case typ == "object" && t.Kind() == reflect.Map:
		s["additionalProperties"] = schemaOf(t.Elem(), depth+1)
	case typ == "object" && t.Kind() == reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for _, f := range structFields(t) {
			props[f.name] = f.schema(depth + 1)
			if f.required {
				required = append(required, f.name)
			}
		}
		s["properties"] = props
		s["required"] = required
		s["additionalProperties"] = false
	}
	return s
}

// enumValues types an enum tag's values as JSON Schema wants them: numbers
// for a number or integer, booleans for a boolean.
func enumValues(vals []string, typ any) []any {
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		var x any = v
		if typ != "string" {
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				x = v
			}
		}
		out = append(out, x)
	}
	return out
}

// decodeArgs checks call's arguments against fields and decodes them into
// dst (a pointer to the Args struct). Its errors are written for the model.
func decodeArgs(call ToolCall, fields []argField, dst any) error {
	var problems []string
	known := make(map[string]bool, len(fields))
	for _, f := range fields {
		known[f.name] = true
		if v, ok := call.Arguments[f.name]; f.required && (!ok || v == nil) {
			problems = append(problems, fmt.Sprintf("the required argument %q is missing", f.name))
		}
		if v, ok := call.Arguments[f.name]; ok && v != nil && len(f.enum) > 0 && !slices.Contains(f.enum, fmt.Sprint(v)) {
			problems = append(problems, fmt.Sprintf("argument %q is %s, want one of: %s", f.name, echoValue(v), strings.Join(f.enum, ", ")))
		}
	}
	var unknown []string
	for name := range call.Arguments {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		problems = append(problems, fmt.Sprintf("there is no parameter %s", echo(name)))
	}
	if len(problems) == 0 {
		b, err := json.Marshal(call.Arguments)
		if err == nil {
			dec := json.NewDecoder(strings.NewReader(string(b)))
			dec.DisallowUnknownFields()
			err = dec.Decode(dst)
		}
		if err != nil {
			problems = append(problems, argError(err))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	if n := len(problems); n > maxArgProblems {
		// The server chooses how many arguments it sends: list a few.
		problems = append(problems[:maxArgProblems], fmt.Sprintf("and %d more", n-maxArgProblems))
	}
	var sig []string
	for _, f := range fields {
		p := f.param()
		s := f.name + " (" + p.Type
		if !f.required {
			s += ", optional"
		}
		sig = append(sig, s+")")
	}
	return fmt.Errorf("invalid arguments for tool %s: %s; the parameters are: %s", echo(call.Name), strings.Join(problems, "; "), strings.Join(sig, ", "))
}

// echoValue shows an argument's value in an error for the model: a string
// as it is, anything else as fmt prints it, on one line and cut short
// (the value came from the server).
func echoValue(v any) string {
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	return termtext.OneLine(s, echolib.MaxRunes)
}

// argError words a decoding error for the model, on one line and cut
// short: encoding/json's messages quote the server's names and values.
func argError(err error) string {
	return termtext.OneLine(argErrorText(err), 4*echolib.MaxRunes)
}

func argErrorText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the arguments"
		}
		return fmt.Sprintf("argument %q is a JSON %s, want %s", field, te.Value, jsonType(te.Type))
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		return "there is no field " + strings.TrimPrefix(msg, "json: unknown field ")
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
