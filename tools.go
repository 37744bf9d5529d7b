package threads

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

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
	// the spec's routes it is mapped to Parameters, one per property, and
	// a schema they cannot express (anyOf, $ref...) is refused by
	// RunStream before anything is sent (the package doc's "Tools from Go
	// functions"). The runners check no arguments against it.
	InputSchema any
	// MaxCalls asks the service to allow at most this many calls of the
	// tool in one generation; 0 sends no limit.
	MaxCalls int
	// Call runs the tool, with the stream's context: it should return when
	// ctx is done. It may run on another goroutine than the one that reads
	// the stream, and concurrently with itself: under a deadline (Timeout)
	// each call runs on a goroutine of its own, and one past its deadline
	// may still run while later calls do; on /v1 (package runs) up to
	// ToolRunner.Concurrency calls of a pause run at once. So Call must be
	// safe for concurrent use. The string is the result the model reads;
	// an error is reported to the model as the tool's failure (see
	// RunStream).
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
	// NeedsApproval, when set, says whether a call must be approved before
	// it runs: the runner asks its approver ([ToolGuards].Approver) and
	// runs the call only if it approves; a refusal is the call's error
	// result, which the model reads with the reason. [Always] asks for
	// every call; a function of the call can ask for some (a refund above
	// a sum). Nil: no call needs approval. Package proxy's Handler reads it
	// too, and parks such a call until a person decides
	// (proxy.WithApprovals).
	NeedsApproval func(call ToolCall) bool
	// Timeout is a call's deadline; 0: the runner's
	// ([ToolGuards].Timeout). Past it, ctx is cancelled and the call's
	// result is an error that says it timed out.
	Timeout time.Duration

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

// NewTool makes a [Tool] from a Go function whose arguments are the
// exported fields of the struct Args (or *Args): each field is one
// parameter, named as encoding/json names it, described by its
// `description:"..."` tag, with an `enum:"a,b,c"` tag for its values, and
// required unless it is a pointer or omitempty/omitzero (the package doc's
// "Tools from Go functions" maps every Go type).
//
// Each call's arguments are checked and decoded into an Args: a missing
// required argument, an unknown name or a value of the wrong type does not
// reach fn; the model gets an error that names the problem and the
// parameters instead (it matches [ErrToolArguments]).
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
