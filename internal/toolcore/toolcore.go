// Package toolcore is the one tool core under both tool runners (package
// threads' RunStream on the spec's routes, package runs' RunTools on /v1):
// a Go struct's fields as a tool's parameters and their JSON Schemas, the
// checks and decoding of a call's arguments with errors written for the
// model, the service's own status arguments taken out of a call, and the
// invocation of a tool with its panic recovered and logged.
//
// What a runner sends back of the server's words follows internal/echo's
// bounds; this package quotes server text only through it.
//
// It cannot import package threads (threads imports it), so it speaks in
// reflect types, maps and its own small types; each runner converts at
// its edge.
package toolcore

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

	"github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// The service's own arguments (captures-turn4 01-03): on /v1 the service
// adds these two required string members to every client tool's schema
// and forwards the model's values in the call. They are the call's status
// lines (what the official UI shows while the tool runs and once it is
// done), never the tool's arguments. The spec's routes take them out
// themselves (as component.statusMessage and completionStatusMessage).
const (
	StatusMessageArg           = "_tambo_statusMessage"
	CompletionStatusMessageArg = "_tambo_completionStatusMessage"
)

// Status is a call's two status lines.
type Status struct {
	Message, Completion string
}

// TakeStatus removes the service's status arguments from args and returns
// their values. A value that is not a string reads as "" (it is removed
// all the same: it is never the tool's).
func TakeStatus(args map[string]any) Status {
	var st Status
	if v, ok := args[StatusMessageArg]; ok {
		st.Message, _ = v.(string)
		delete(args, StatusMessageArg)
	}
	if v, ok := args[CompletionStatusMessageArg]; ok {
		st.Completion, _ = v.(string)
		delete(args, CompletionStatusMessageArg)
	}
	return st
}

// isStatusArg reports whether name is one of the service's own arguments.
func isStatusArg(name string) bool {
	return name == StatusMessageArg || name == CompletionStatusMessageArg
}

// ErrArguments matches an [*ArgumentsError]; package threads exports it as
// ErrToolArguments.
var ErrArguments = errors.New("threads: a tool call's arguments do not fit the tool")

// ArgumentsError is a call whose arguments failed the tool's checks: the
// tool did not run. Its text is written for the model, which reads it as
// the tool's result.
type ArgumentsError struct{ text string }

// Error is the text the model reads.
func (e *ArgumentsError) Error() string { return e.text }

// Is matches [ErrArguments].
func (e *ArgumentsError) Is(target error) bool { return target == ErrArguments }

// NotAnObject is the error for arguments that are not a JSON object.
func NotAnObject(tool string) error {
	return &ArgumentsError{fmt.Sprintf("the arguments of tool %s are not a JSON object", echo.Quote(tool))}
}

// maxArgProblems bounds the problems an arguments error lists; the rest
// are counted (the server chooses how many arguments it sends).
const maxArgProblems = 8

// UnknownTool is the error for a call of a tool that is neither among
// tools nor among external (the caller's own), listing both.
func UnknownTool[T any](name string, tools map[string]T, external map[string]bool) error {
	names := make([]string, 0, len(tools)+len(external))
	for n := range tools {
		names = append(names, n)
	}
	for n := range external {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Errorf("there is no tool named %s; the tools are: %s", echo.Quote(name), strings.Join(names, ", "))
}

// Invoke runs fn for the tool name with ctx. A panic becomes the error
// "tool %q failed: panic: …" (with a zero result) and is logged on logger
// (when not nil) at error level with its stack: the same on both API
// generations, for a text result and for content parts alike.
func Invoke[R any](ctx context.Context, logger *slog.Logger, name string, fn func(context.Context) (R, error)) (result R, err error) {
	defer func() {
		if v := recover(); v != nil {
			if logger != nil {
				logger.Error("threads: a tool panicked", "tool", name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
			var zero R
			result, err = zero, fmt.Errorf("tool %q failed: panic: %v", name, v)
		}
	}()
	return fn(ctx)
}

// PartError is the error for part i (from 0) of a tool's result whose type
// neither API generation carries in a tool result. A tool result holds
// text and resource parts: the /v1 tool_result's content is text or
// resource blocks (the service fails a run on any other block type), and
// the spec's routes take text.
func PartError(i int, typ string) error {
	return fmt.Errorf("part %d of the tool's result is a %s part; a tool result holds text and resource parts (an image is a resource part with a base64 blob and its MIME type)",
		i+1, echo.Quote(typ))
}

// NoResourceError is the error for resource part i (from 0) without its
// resource.
func NoResourceError(i int) error {
	return fmt.Errorf("part %d of the tool's result is a resource part without a resource", i+1)
}

// Param is a tool parameter as both API generations declare it (package
// threads' ToolParameter, field for field).
type Param struct {
	Name, Type, Description string
	Required                bool
	Items                   string // the elements' type of an array
	Enum                    []string
	Schema                  map[string]any
}

// ModelSchema is the JSON Schema the model is given for p: Schema (copied)
// with Description and Enum added where it lacks them; without Schema, one
// made from Type ("enum" is the service's name for a string with Enum),
// Items, Description and Enum. Nil when there is nothing to say (any JSON
// value).
func (p Param) ModelSchema() map[string]any {
	s := make(map[string]any, len(p.Schema)+3)
	for k, v := range p.Schema {
		s[k] = v
	}
	if p.Schema == nil {
		typ := p.Type
		if typ == "enum" {
			typ = "string"
		}
		if typ != "" {
			s["type"] = typ
		}
		if typ == "array" && p.Items != "" {
			s["items"] = map[string]any{"type": p.Items}
		}
	}
	if _, ok := s["description"]; !ok && p.Description != "" {
		s["description"] = p.Description
	}
	if _, ok := s["enum"]; !ok && len(p.Enum) > 0 {
		s["enum"] = enumValues(p.Enum, s["type"])
	}
	if len(s) == 0 {
		return nil
	}
	return s
}

// ObjectSchema is one JSON Schema object of params: "properties" holds
// each parameter's ModelSchema ({} for any value), "required" the
// required names (left out when none). It fails for a parameter without a
// name or a name given twice.
func ObjectSchema(params []Param) (map[string]any, error) {
	props := make(map[string]any, len(params))
	var required []string
	for _, p := range params {
		if p.Name == "" {
			return nil, errors.New("a parameter has no name")
		}
		if _, dup := props[p.Name]; dup {
			return nil, fmt.Errorf("parameter %q is declared twice", p.Name)
		}
		s := p.ModelSchema()
		if s == nil {
			s = map[string]any{}
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s, nil
}

// Args is a struct type whose exported fields are a tool's parameters.
type Args struct {
	typ    reflect.Type // the struct
	ptr    bool         // the tool takes *struct
	fields []field
}

// NewArgs checks that t is a struct or a pointer to one, and lists its
// fields as encoding/json sees them.
func NewArgs(t reflect.Type) (*Args, error) {
	a := &Args{typ: t}
	if t != nil && t.Kind() == reflect.Pointer {
		a.typ, a.ptr = t.Elem(), true
	}
	if a.typ == nil || a.typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("Args must be a struct or a pointer to one, not %v", t)
	}
	a.fields = structFields(a.typ)
	return a, nil
}

// Params lists the parameters: each field's name, type, description,
// requiredness, enum values and JSON Schema.
func (a *Args) Params() []Param {
	out := make([]Param, 0, len(a.fields))
	for _, f := range a.fields {
		out = append(out, f.param())
	}
	return out
}

// Schema is the struct's JSON Schema object, as [ObjectSchema] makes it
// of [Args.Params].
func (a *Args) Schema() map[string]any {
	s, _ := ObjectSchema(a.Params()) // field names are unique and not empty
	return s
}

// Decode checks a call of tool with args against the fields and decodes
// them into a new value of the Args type (the pointer when the tool takes
// one). The service's status arguments are not arguments: they are
// neither checked nor decoded. Errors are [*ArgumentsError]s written for
// the model: a missing required argument, a value outside its enum, an
// unknown name, a value of the wrong type; at most a few are listed, with
// the parameters.
func (a *Args) Decode(tool string, args map[string]any) (reflect.Value, error) {
	if hasStatus(args) {
		args = withoutStatus(args) // a copy: args is the caller's
	}
	v := reflect.New(a.typ)
	if err := a.decode(tool, args, v.Interface()); err != nil {
		return reflect.Value{}, err
	}
	if a.ptr {
		return v, nil
	}
	return v.Elem(), nil
}

func hasStatus(args map[string]any) bool {
	_, a := args[StatusMessageArg]
	_, b := args[CompletionStatusMessageArg]
	return a || b
}

func withoutStatus(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		if !isStatusArg(k) {
			out[k] = v
		}
	}
	return out
}

func (a *Args) decode(tool string, args map[string]any, dst any) error {
	var problems []string
	known := make(map[string]bool, len(a.fields))
	for _, f := range a.fields {
		known[f.name] = true
		v, ok := args[f.name]
		if f.required && (!ok || v == nil) {
			problems = append(problems, fmt.Sprintf("the required argument %q is missing", f.name))
		}
		if ok && v != nil && len(f.enum) > 0 && !slices.Contains(f.enum, fmt.Sprint(v)) {
			problems = append(problems, fmt.Sprintf("argument %q is %s, want one of: %s", f.name, echoValue(v), strings.Join(f.enum, ", ")))
		}
	}
	var unknown []string
	for name := range args {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		problems = append(problems, fmt.Sprintf("there is no parameter %s", echo.Quote(name)))
	}
	if len(problems) == 0 {
		b, err := json.Marshal(args)
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
		problems = append(problems[:maxArgProblems], fmt.Sprintf("and %d more", n-maxArgProblems))
	}
	sig := make([]string, 0, len(a.fields))
	for _, f := range a.fields {
		s := f.name + " (" + jsonType(f.typ)
		if !f.required {
			s += ", optional"
		}
		sig = append(sig, s+")")
	}
	return &ArgumentsError{fmt.Sprintf("invalid arguments for tool %s: %s; the parameters are: %s",
		echo.Quote(tool), strings.Join(problems, "; "), strings.Join(sig, ", "))}
}

// echoValue shows an argument's value in an error for the model: a string
// as it is, anything else as fmt prints it, on one line and cut short
// (the value came from the server).
func echoValue(v any) string {
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	return termtext.OneLine(s, echo.MaxRunes)
}

// argError words a decoding error for the model, on one line and cut
// short: encoding/json's messages quote the server's names and values.
func argError(err error) string {
	return termtext.OneLine(argErrorText(err), 4*echo.MaxRunes)
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

// field is one parameter of an Args struct.
type field struct {
	name, description string
	typ               reflect.Type
	required          bool
	enum              []string
}

func (f field) param() Param {
	p := Param{Name: f.name, Type: jsonType(f.typ), Description: f.description, Required: f.required, Enum: f.enum}
	if p.Type == "array" {
		p.Items = jsonType(deref(f.typ).Elem())
	}
	// Every parameter gets its JSON Schema: it is the only member the
	// service hands to the model as it is.
	p.Schema = f.schema(0)
	return p
}

// schema is the field's JSON Schema: its type's, with its description and
// enum values.
func (f field) schema(depth int) map[string]any {
	s := schemaOf(f.typ, depth)
	if f.description != "" {
		s["description"] = f.description
	}
	if len(f.enum) > 0 {
		s["enum"] = enumValues(f.enum, s["type"])
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
func structFields(t reflect.Type) []field {
	var out []field
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
		f := field{name: name, description: sf.Tag.Get("description"), typ: sf.Type, required: !optional}
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
