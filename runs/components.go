package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	threads "github.com/threadsapi/threads-go"
	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

type componentStateBody struct {
	UserKey string         `json:"userKey,omitzero"`
	State   map[string]any `json:"state,omitzero"`
	Patch   []PatchOp      `json:"patch,omitzero"`
}

type componentStateAnswer struct {
	State map[string]any `json:"state"`
}

// SetComponentState replaces the state of a component shown in the thread
// and returns the new state (POST
// /v1/threads/{threadId}/components/{componentId}/state, 201). componentID
// is the component part's ID ([Content].ID, a "message-..." id). state must
// not be nil.
//
// Errors: while a run is active on the thread, a 409 problem that matches
// [ErrRunActive]; an unknown component, 404 (threads.ErrNotFound).
// Retried as a POST is: only when it provably did not act.
func (c *Client) SetComponentState(ctx context.Context, threadID, componentID string, state map[string]any, opts ...threads.RequestOption) (map[string]any, error) {
	if state == nil {
		return nil, fmt.Errorf("runs: SetComponentState: state is nil; send an empty map to clear it")
	}
	return c.componentState(ctx, threadID, componentID, &componentStateBody{State: state}, opts)
}

// PatchComponentState applies RFC 6902 JSON Patch operations to a
// component's state, in order and all or nothing, and returns the new
// state (same route as [Client.SetComponentState]). patch must not be
// empty. A patch that does not apply (a path that does not resolve, a
// failing test operation) is a 400 problem that matches
// [ErrInvalidJSONPatch].
func (c *Client) PatchComponentState(ctx context.Context, threadID, componentID string, patch []PatchOp, opts ...threads.RequestOption) (map[string]any, error) {
	if len(patch) == 0 {
		return nil, fmt.Errorf("runs: PatchComponentState: the patch is empty")
	}
	return c.componentState(ctx, threadID, componentID, &componentStateBody{Patch: patch}, opts)
}

func (c *Client) componentState(ctx context.Context, threadID, componentID string, body *componentStateBody, opts []threads.RequestOption) (map[string]any, error) {
	k := call{ep: epComponentState, ids: []string{threadID, componentID},
		body: body, setKey: func(key string) { body.UserKey = key }}
	var out componentStateAnswer
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return out.State, nil
}

// Component is a UI component offered to the model, whose props are the
// Go struct Props. Make one with [NewComponent]; offer it in
// RunParams.AvailableComponents with [Component.Available]; read what the
// model renders with [Component.Decode].
type Component[Props any] struct {
	// Name is the component's name: the model picks it by this name, and
	// ComponentStart carries it.
	Name        string
	Description string
	// PropsSchema is the JSON Schema of Props (NewComponent derives it).
	PropsSchema map[string]any
	// StateSchema, when set, is sent as the component's stateSchema (see
	// [SchemaFor]).
	StateSchema map[string]any

	err error
}

// NewComponent makes a [Component] whose props schema is derived from the
// struct Props (or *Props) by the rules of [threads.NewTool]: each
// exported field is a prop named as encoding/json names it, described by
// its `description` tag, limited by its `enum` tag, required unless it is
// a pointer or omitempty/omitzero. It does not panic: when Props is not a
// struct, [Component.Err] says why, and [Component.Available] offers an
// object schema without properties.
func NewComponent[Props any](name, description string) Component[Props] {
	c := Component[Props]{Name: name, Description: description}
	c.PropsSchema, c.err = schemaFor[Props]()
	return c
}

// Err returns why NewComponent could not derive the props schema (Props
// is not a struct or a pointer to one); nil otherwise.
func (c Component[Props]) Err() error { return c.err }

// Available returns the component as RunParams.AvailableComponents takes
// it: name, description, propsSchema and (when set) stateSchema.
func (c Component[Props]) Available() AvailableComponent {
	a := AvailableComponent{Name: c.Name, Description: c.Description, PropsSchema: c.PropsSchema}
	if c.PropsSchema == nil {
		a.PropsSchema = map[string]any{"type": "object"}
	}
	if c.StateSchema != nil {
		a.StateSchema = c.StateSchema
	}
	return a
}

// SchemaFor returns the JSON Schema object of the struct T (or *T) as
// [NewComponent] derives a props schema; use it for a component's
// StateSchema. It fails when T is not a struct or a pointer to one.
func SchemaFor[T any]() (map[string]any, error) { return schemaFor[T]() }

func schemaFor[T any]() (map[string]any, error) {
	// The tool core derives a struct's schema for tools and components
	// alike.
	args, err := toolcore.NewArgs(reflect.TypeFor[T]())
	if err != nil {
		return nil, fmt.Errorf("runs: %v is not a struct or a pointer to one", reflect.TypeFor[T]())
	}
	return args.Schema(), nil
}

// ComponentEvent is a component event of the stream decoded for a
// [Component]: the props so far (or, with Final, the final props)
// unmarshalled into Props.
type ComponentEvent[Props any] struct {
	ComponentID, MessageID, Name string
	// Props is the props so far: zero at the start, the JSON Patches
	// applied after each props_delta, the final props at the end. A prop
	// that is still streaming holds its partial value.
	Props Props
	// Final is set for the component's end (tambo.component.end).
	Final bool
	// Err is set when the props do not unmarshal into Props (encoding/json's
	// error, on one line, cut short): Props then holds what did.
	Err error
}

// ComponentSource is a stream that keeps component props: a [*Stream] or
// a [*ToolStream].
type ComponentSource interface {
	ComponentProps(id string) (map[string]any, bool)
	componentName(id string) (string, bool)
}

// Decode returns ev as an event of component c, read from s (the stream
// ev came from): for a [ComponentStart], [ComponentPropsDelta] or
// [ComponentEnd] of a component named c.Name, the event with the props so
// far, and true; false for any other event.
//
// Each call copies and re-decodes the whole props (its cost is the props'
// size, not the delta's): a caller that only needs the result decodes the
// ComponentEnd alone, and one that renders as props stream in may skip
// deltas when it falls behind. The stream bounds what it keeps (64 MiB).
func (c Component[Props]) Decode(s ComponentSource, ev Event) (ComponentEvent[Props], bool) {
	var out ComponentEvent[Props]
	var props map[string]any
	if s == nil {
		return out, false
	}
	switch e := ev.(type) {
	case ComponentStart:
		if e.ComponentName != c.Name {
			return out, false
		}
		out.ComponentID, out.MessageID, out.Name = e.ComponentID, e.MessageID, e.ComponentName
		return out, true
	case ComponentPropsDelta:
		out.ComponentID = e.ComponentID
		props, _ = s.ComponentProps(e.ComponentID)
	case ComponentEnd:
		out.ComponentID, out.Final = e.ComponentID, true
		props = e.FinalProps
	default:
		return out, false
	}
	name, ok := s.componentName(out.ComponentID)
	if !ok || name != c.Name {
		return out, false
	}
	out.Name = name
	if b, err := json.Marshal(props); err != nil {
		out.Err = err
	} else if err := json.Unmarshal(b, &out.Props); err != nil {
		out.Err = fmt.Errorf("runs: component %s: props do not fit %T: %s", echo(name), out.Props, termtext.OneLine(err.Error(), 4*echolib.MaxRunes))
	}
	return out, true
}

// componentName returns the name ComponentStart gave component id.
func (s *Stream) componentName(id string) (string, bool) {
	if s == nil {
		return "", false
	}
	i, ok := s.acc.byComp[id]
	if !ok {
		return "", false
	}
	return s.acc.comps[i].name, true
}

// SetComponentStateOf is [Client.SetComponentState] with a Go value: state
// is encoded with encoding/json (it must encode as a JSON object) and the
// service's answer is decoded into a new State.
func SetComponentStateOf[State any](ctx context.Context, c *Client, threadID, componentID string, state State, opts ...threads.RequestOption) (State, error) {
	var zero State
	b, err := json.Marshal(state)
	if err != nil {
		return zero, fmt.Errorf("runs: SetComponentStateOf: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return zero, fmt.Errorf("runs: SetComponentStateOf: %T does not encode as a JSON object", state)
	}
	got, err := c.SetComponentState(ctx, threadID, componentID, m, opts...)
	if err != nil {
		return zero, err
	}
	var out State
	b, _ = json.Marshal(got)
	if err := json.Unmarshal(b, &out); err != nil {
		return zero, fmt.Errorf("%w: runs: SetComponentStateOf: the new state does not fit %T: %s", threads.ErrUnexpectedResponse, out, termtext.OneLine(err.Error(), 4*echolib.MaxRunes))
	}
	return out, nil
}
