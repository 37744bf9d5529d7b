package runs

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	threads "github.com/threadsapi/threads-go"
	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/internal/toolcore"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// componentStateBody is the route's body, as package proxy takes it too.
type componentStateBody = v1wire.ComponentStateBody[PatchOp]

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
	k := call{ep: v1wire.ComponentState, ids: []string{threadID, componentID},
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
	//
	// The Props of one component's successive events share what did not
	// change between them (the slices, maps and pointers of the fields
	// whose props did not change): treat it as read-only, and copy what
	// you change.
	Props Props
	// Final is set for the component's end (tambo.component.end).
	Final bool
	// State, with Final, is the component's final state as the end
	// sent it ([ComponentEnd].FinalState, the same map), nil when it sent
	// none (the service sends none today). [ComponentEvent.DecodeState]
	// decodes it into a Go value.
	State map[string]any
	// Err is set when the props do not unmarshal into Props (encoding/json's
	// error, on one line, cut short): Props then holds what did. It is
	// also set, with Props as last decoded, when the server changed the
	// props by far more than it sent (see [Component.Decode]).
	Err error
}

// ComponentSource is a stream that keeps component props: a [*Stream] or
// a [*ToolStream].
type ComponentSource interface {
	ComponentProps(id string) (map[string]any, bool)
	component(id string) (*compState, bool)
}

// Decode returns ev as an event of component c, read from s (the stream
// ev came from): for a [ComponentStart], [ComponentPropsDelta] or
// [ComponentEnd] of a component named c.Name, the event with the props so
// far, and true; false for any other event. Call it from the goroutine
// that reads s. Following the props on every delta costs what the deltas
// changed, not the props' size each time, and is bounded by what the
// server sent: a server that makes it re-read far more finds Decode
// behind, with Err set (the package doc's "Streams").
func (c Component[Props]) Decode(s ComponentSource, ev Event) (ComponentEvent[Props], bool) {
	var out ComponentEvent[Props]
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
		cs, ok := s.component(e.ComponentID)
		if !ok || cs.name != c.Name {
			return out, false
		}
		out.ComponentID, out.Name = e.ComponentID, cs.name
		out.Props, out.Err = decodeProps[Props](cs)
		return out, true
	case ComponentEnd:
		cs, ok := s.component(e.ComponentID)
		if !ok || cs.name != c.Name {
			return out, false
		}
		out.ComponentID, out.Name, out.Final = e.ComponentID, cs.name, true
		var props any
		if e.FinalProps != nil {
			props = e.FinalProps
		}
		out.Props, out.Err = decodeWhole[Props](cs.name, props)
		out.State = e.FinalState
		return out, true
	}
	return out, false
}

// DecodeState decodes the component's final state (e.State) into dst, a
// pointer, with encoding/json, and reports whether there was one: false,
// with dst untouched, for every event but the end, and for an end that
// sent no state. Give it a value of the struct whose schema is the
// component's StateSchema ([SchemaFor]). A state that does not fit dst
// is an error that says so (dst then holds what did).
func (e ComponentEvent[Props]) DecodeState(dst any) (bool, error) {
	if e.State == nil {
		return false, nil
	}
	b, err := json.Marshal(e.State)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	return true, fitError(e.Name, "state does", dst, err)
}

// component returns the props the stream keeps for component id, and
// what Decode keeps with them.
func (s *Stream) component(id string) (*compState, bool) {
	if s == nil {
		return nil, false
	}
	i, ok := s.acc.byComp[id]
	if !ok {
		return nil, false
	}
	return s.acc.comps[i], true
}

// componentName returns the name ComponentStart gave component id.
func (s *Stream) componentName(id string) (string, bool) {
	c, ok := s.component(id)
	if !ok {
		return "", false
	}
	return c.name, true
}

// component returns component id: as the current run's stream keeps it,
// else as an earlier run ended it (nothing is kept between Decodes then:
// those props no longer change).
func (s *ToolStream) component(id string) (*compState, bool) {
	if s == nil {
		return nil, false
	}
	if st := s.current(); st != nil {
		if c, ok := st.component(id); ok {
			return c, true
		}
	}
	name, ok := s.componentName(id)
	if !ok {
		return nil, false
	}
	props, _ := s.ComponentProps(id)
	return &compState{id: id, name: name, patchDoc: patchDoc{props: props}, dec: decodeTrack{static: true}}, true
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

// errPropsBehind is Decode's Err when the server changed the props by far
// more than it sent.
var errPropsBehind = errors.New("props not decoded: the server changed them by far more than it sent; Props holds them as last decoded, and the component's end decodes its final props")

// decodeProps decodes component cs's props into a P: only what changed
// since the last call when it can (propsCache), within what the stream
// paid for.
func decodeProps[P any](cs *compState) (P, error) {
	if cs.dropped {
		var zero P // not kept: as the zero props decode
		return zero, nil
	}
	t := &cs.dec
	if t.static {
		return decodeWhole[P](cs.name, cs.props)
	}
	pc, ok := t.cache.(*propsCache[P])
	if !ok {
		pc = &propsCache[P]{plan: planFor(reflect.TypeFor[P]())}
		t.cache = pc
		t.changeAll()
	}
	if !t.all && len(t.changed) == 0 && pc.made {
		return pc.val, pc.err
	}
	if pc.plan == nil {
		if !t.spend(cs.cost) {
			return pc.val, behind(cs.name)
		}
		pc.val, pc.err = decodeWhole[P](cs.name, cs.props)
		pc.made = true
		t.settled()
		return pc.val, pc.err
	}
	return pc.update(cs)
}

// behind is errPropsBehind for component name.
func behind(name string) error {
	return fmt.Errorf("runs: component %s: %w", echo(name), errPropsBehind)
}

// decodeWhole decodes props (a decoded JSON value) into a P with
// encoding/json, as Decode always has.
func decodeWhole[P any](name string, props any) (P, error) {
	var out P
	b, err := json.Marshal(props)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, propsError(name, out, err)
}

// propsError words encoding/json's err for component name's props.
func propsError[P any](name string, out P, err error) error {
	return fitError(name, "props do", out, err)
}

// fitError words encoding/json's err for what of component name that
// does not fit out (nil for no err).
func fitError(name, what string, out any, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("runs: component %s: %s not fit %T: %s", echo(name), what, out, termtext.OneLine(err.Error(), 4*echolib.MaxRunes))
}

// propsCache is what Decode keeps of one component for one Props type P:
// the props it decoded last, and, per field, the members that name it
// and the error its decoding gave.
type propsCache[P any] struct {
	plan *fieldPlan // nil: P is decoded whole
	made bool       // val and err are made
	val  P
	err  error
	// obj is set when val was decoded from an object (its members)
	// rather than from another kind of JSON value.
	obj bool
	// names are, per field, the props members that name it: encoding/json
	// decodes each of them into the field, in byte order.
	names map[int]map[string]struct{}
	// errs are, per field, the first error its members gave, with the
	// member it came from: Err is the one of the first member in byte
	// order, as encoding/json's decode of the whole props reports.
	errs map[int]memberErr
	// stopped is set when a member's error stopped encoding/json's decode
	// of the whole props there (an UnmarshalJSON's error, a misused
	// ",string"): the members after it are not decoded, and val is
	// decoded whole again until no member stops it.
	stopped bool
}

type memberErr struct {
	name string
	err  error
}

// update decodes the members that changed into a copy of the last
// props; or every member, after a change of the root or an error that
// stops a decode.
func (pc *propsCache[P]) update(cs *compState) (P, error) {
	t := &cs.dec
	m, isObj := cs.props.(map[string]any)
	if !isObj {
		// null, or not an object: encoding/json gives the zero P, or an
		// error that names the JSON kind only. A small value of the same
		// kind gives the same without reading the props.
		pc.val, pc.err = decodeWhole[P](cs.name, standIn(cs.props))
		pc.made, pc.obj, pc.stopped = true, false, false
		pc.names, pc.errs = nil, nil
		t.settled()
		return pc.val, pc.err
	}
	last := pc.val
	if !t.all && pc.obj && !pc.stopped {
		fields := pc.changed(m, t.changed)
		if !pc.afford(t, m, fields) {
			return last, behind(cs.name)
		}
		pc.fresh(true)
		stopped := false
		for f := range fields {
			if stopped = pc.decodeField(m, f); stopped {
				break
			}
		}
		if !stopped {
			pc.finish(cs.name, nil)
			t.settled()
			return pc.val, pc.err
		}
		// The members after the one that stopped the decode are left as
		// they were: decoded whole below.
	}
	if !t.spend(cs.cost) {
		pc.val = last
		return last, behind(cs.name)
	}
	pc.rebuild(cs.name, m)
	t.settled()
	return pc.val, pc.err
}

// changed updates the members naming each field that the changed names
// map to, and returns those fields.
func (pc *propsCache[P]) changed(m map[string]any, names map[string]struct{}) map[int]bool {
	fields := make(map[int]bool, len(names))
	for k := range names {
		f := pc.plan.field(k)
		if f < 0 {
			continue // encoding/json ignores a member that names no field
		}
		if _, ok := m[k]; ok {
			pc.addName(f, k)
		} else {
			delete(pc.names[f], k)
		}
		fields[f] = true
	}
	return fields
}

// afford spends the work of decoding fields again (their members'
// cost), measured within the allowance (a walk never goes further than
// it). After a walk finds the allowance short, the next waits until the
// allowance has doubled, so that the walks of a server that keeps Decode
// behind cost no more than twice the allowance it paid for.
func (pc *propsCache[P]) afford(t *decodeTrack, m map[string]any, fields map[int]bool) bool {
	if t.allowance < t.need {
		return false
	}
	var work int64
	for f := range fields {
		for k := range pc.names[f] {
			c, ok := costWithin(m[k], t.allowance-work)
			if work += entryCost(k) + c; !ok || work > t.allowance {
				t.need = 2*t.allowance + 1
				return false
			}
		}
	}
	t.spend(work)
	t.need = 0
	return true
}

// rebuild decodes every member, in byte order, into the zero props: what
// encoding/json's decode of the whole props does.
func (pc *propsCache[P]) rebuild(name string, m map[string]any) {
	pc.names, pc.errs = map[int]map[string]struct{}{}, map[int]memberErr{}
	pc.fresh(false)
	keys := make([]string, 0, len(m))
	for k := range m {
		if pc.plan.field(k) >= 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var stop error
	for _, k := range keys {
		f := pc.plan.field(k)
		pc.addName(f, k)
		if stop != nil {
			continue
		}
		if err, stopped := pc.decodeMember(m, k); stopped {
			stop = err
		} else if _, seen := pc.errs[f]; err != nil && !seen {
			pc.errs[f] = memberErr{k, err}
		}
	}
	pc.obj, pc.stopped = true, stop != nil
	pc.finish(name, stop)
}

// finish sets pc.err: stop, else the error of the first member in byte
// order.
func (pc *propsCache[P]) finish(name string, stop error) {
	pc.made = true
	err := stop
	if err == nil {
		var first string
		for _, e := range pc.errs {
			if err == nil || e.name < first {
				first, err = e.name, e.err
			}
		}
	}
	pc.err = propsError(name, pc.val, err)
}

// fresh makes pc.val the props to decode fields into: with keep, a
// copy of the last props (shallow: what is not decoded again is shared
// with the events that have them), else the zero props (for a *T, a
// new T, as encoding/json makes of an object).
func (pc *propsCache[P]) fresh(keep bool) {
	if !pc.plan.ptr {
		if !keep {
			var zero P
			pc.val = zero
		} // else pc.val is a struct: the caller's events hold copies
		return
	}
	v := reflect.ValueOf(&pc.val).Elem()
	nv := reflect.New(pc.plan.t)
	if keep && !v.IsNil() {
		nv.Elem().Set(v.Elem())
	}
	v.Set(nv)
}

func (pc *propsCache[P]) addName(f int, k string) {
	if pc.names[f] == nil {
		pc.names[f] = make(map[string]struct{}, 1)
	}
	pc.names[f][k] = struct{}{}
}

// decodeField decodes field f of pc.val again from its members, in byte
// order, from the zero value: what encoding/json's decode of the whole
// props makes of that field. It reports whether a member's error stops
// that decode.
func (pc *propsCache[P]) decodeField(m map[string]any, f int) bool {
	v := reflect.ValueOf(&pc.val).Elem()
	if pc.plan.ptr {
		v = v.Elem()
	}
	v.Field(f).SetZero()
	delete(pc.errs, f)
	names := make([]string, 0, len(pc.names[f]))
	for k := range pc.names[f] {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		err, stopped := pc.decodeMember(m, k)
		if stopped {
			return true
		}
		if _, seen := pc.errs[f]; err != nil && !seen {
			pc.errs[f] = memberErr{k, err}
		}
	}
	return false
}

// decodeMember decodes member k of m into pc.val (into its field alone).
// On an error it reports whether encoding/json's decode of the whole
// props would stop there: most errors are noted and the decode goes on,
// but an UnmarshalJSON's error and some of ",string" stop it.
func (pc *propsCache[P]) decodeMember(m map[string]any, k string) (error, bool) {
	kb, _ := json.Marshal(k)
	vb, err := json.Marshal(m[k])
	if err != nil {
		return err, true
	}
	b := make([]byte, 0, len(kb)+len(vb)+2)
	b = append(append(append(append(append(b, '{'), kb...), ':'), vb...), '}')
	if err = json.Unmarshal(b, &pc.val); err == nil {
		return nil, false
	}
	// Whether it goes on is seen on a member after it.
	var probe struct {
		X P    `json:"x"`
		S bool `json:"s"`
	}
	w := make([]byte, 0, len(b)+16)
	w = append(append(append(w, `{"x":`...), b...), `,"s":true}`...)
	_ = json.Unmarshal(w, &probe)
	return err, !probe.S
}

// standIn is a small JSON value of v's kind (v is not an object).
func standIn(v any) any {
	switch v.(type) {
	case []any:
		return []any{}
	case string:
		return ""
	}
	return v // null, a boolean or a number
}

// costWithin is valueCost(v), walked no further than limit; ok is false
// when the cost is over it.
func costWithin(v any, limit int64) (int64, bool) {
	switch v := v.(type) {
	case map[string]any:
		n := int64(48)
		for k, x := range v {
			c, ok := costWithin(x, limit-n-entryCost(k))
			if n += entryCost(k) + c; !ok || n > limit {
				return n, false
			}
		}
		return n, n <= limit
	case []any:
		n := int64(24)
		for _, x := range v {
			c, ok := costWithin(x, limit-n)
			if n += c; !ok || n > limit {
				return n, false
			}
		}
		return n, n <= limit
	}
	n := valueCost(v)
	return n, n <= limit
}

// fieldPlan is how encoding/json decodes an object's members into the
// struct T, the Props of a Component (or *T): which field each member
// names. Only a struct whose fields encoding/json finds without
// promotion has one: members then map to fields one to one, and a field
// can be decoded again on its own.
type fieldPlan struct {
	t      reflect.Type // the struct
	ptr    bool         // Props is *T
	exact  map[string]int
	folded map[string]int
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planFor returns the fieldPlan of Props type p, or nil when its members
// cannot be decoded one by one.
func planFor(p reflect.Type) *fieldPlan {
	pl := &fieldPlan{t: p}
	if p.Kind() == reflect.Pointer {
		pl.t, pl.ptr = p.Elem(), true
	}
	t := pl.t
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, u := range []reflect.Type{jsonUnmarshaler, textUnmarshaler} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return nil // decodes itself whole
		}
	}
	pl.exact, pl.folded = map[string]int{}, map[string]int{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // promoted fields: encoding/json's rules of dominance
		}
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if !validTagName(name) {
			name = sf.Name
		}
		if _, dup := pl.exact[name]; dup {
			return nil // encoding/json drops both
		}
		pl.exact[name] = i
		fold := string(foldName(name))
		if _, ok := pl.folded[fold]; !ok {
			pl.folded[fold] = i // the first field, as encoding/json's byFoldedName
		}
	}
	return pl
}

// field returns the index of the field member k names, or -1: the field
// of that exact name, else the first whose name equals k in Unicode case
// folding (encoding/json's rule).
func (pl *fieldPlan) field(k string) int {
	if i, ok := pl.exact[k]; ok {
		return i
	}
	if i, ok := pl.folded[string(foldName(k))]; ok {
		return i
	}
	return -1
}

// validTagName is encoding/json's isValidTag: a tag name it uses rather
// than the field's name.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// foldName is encoding/json's: a form of name equal for names equal
// under Unicode case folding (ASCII letters upper-cased, other runes the
// smallest of their fold orbit).
func foldName(name string) []byte {
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}
