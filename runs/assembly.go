package runs

import (
	"errors"
	"time"
)

// assembly is what the stream keeps of the run for Collect, Text and
// ComponentProps, within maxItems per kind and maxRetained bytes.
type assembly struct {
	msgs       []*msgState
	byMsg      map[string]int
	calls      []*callState
	byCall     map[string]int
	comps      []*compState
	byComp     map[string]int
	pending    []PendingToolCall
	retained   int64
	incomplete bool
}

type msgState struct {
	id, role string
	created  time.Time
	text     []byte
	comps    []int
}

type callState struct {
	id, name, parent string
	args             []byte
}

type compState struct {
	id, name string
	patchDoc
	cost    int64
	dropped bool // over the budget: no longer kept
	dec     decodeTrack
	// state is the final state of tambo.component.end (a map, or nil
	// when the service sent none), charged apart from the props.
	state     any
	stateCost int64
}

// content is the component part of a Result's message: copies of the
// props and the final state.
func (c *compState) content() Content {
	props, _ := cloneValue(c.props).(map[string]any)
	state, _ := cloneValue(c.state).(map[string]any)
	return Content{Type: ContentComponent, ID: c.id, Name: c.name, Props: props, State: state}
}

// decodeTrack is what [Component.Decode] keeps of a component between
// its calls: the props it decoded last (cache, a *propsCache of its
// Props type), the top-level members changed since, and how much
// decoding the stream has paid for. Following props costs what the
// operations changed, not the props' size on every delta.
type decodeTrack struct {
	cache any
	// changed are the top-level members that operations named since the
	// cache was made; all is set when any member may have changed (an
	// operation on the root, the final props, or more names than the
	// props themselves weigh).
	changed     map[string]struct{}
	changedCost int64
	all         bool
	// allowance is the decoding work (in valueCost units) the operations
	// have paid for and Decode not spent: decodePerPaid per unit of the
	// operations' weight, and decodeFloor to start with. A server whose
	// operations make Decode re-read far more than they weigh (moving a
	// large member back and forth, or changing one deep inside it) runs
	// it out, and Decode then says it is behind instead of working
	// without bound.
	allowance int64
	need      int64 // Decode waits for this allowance before it walks again
	// static is set for props no stream changes any more (a ToolStream's
	// ended runs): nothing is kept between calls.
	static bool
}

const (
	decodePerPaid = 4
	decodeFloor   = 64 << 10
)

// ops records that ops (applied in order) changed the props.
func (t *decodeTrack) ops(ops []PatchOp, weight int64) {
	if t.cache == nil || t.all {
		return
	}
	for _, op := range ops {
		t.member(op.Path, weight)
		if op.Op == "move" {
			t.member(op.From, weight)
		}
	}
}

// member records that pointer p changed the props.
func (t *decodeTrack) member(p string, weight int64) {
	if t.all || checkPointer(p) != nil {
		return
	}
	if p == "" {
		t.changeAll()
		return
	}
	tok, _ := nextToken(p)
	k := unescape(tok)
	if _, ok := t.changed[k]; ok {
		return
	}
	// A set of names larger than the props it names costs more to keep
	// than re-reading every member.
	t.changedCost += entryCost(k) + 16
	if t.changedCost > weight+decodeFloor {
		t.changeAll()
		return
	}
	if t.changed == nil {
		t.changed = make(map[string]struct{}, 4)
	}
	t.changed[k] = struct{}{}
}

func (t *decodeTrack) changeAll() {
	t.all, t.changed, t.changedCost = true, nil, 0
}

// settled records that Decode has read every change.
func (t *decodeTrack) settled() {
	t.all, t.changedCost = false, 0
	clear(t.changed)
}

// spend takes work from the allowance; false when it does not cover it.
func (t *decodeTrack) spend(work int64) bool {
	if work > t.allowance {
		return false
	}
	t.allowance -= work
	return true
}

// spend reserves n bytes of the budget, or marks the assembly incomplete.
func (a *assembly) spend(n int64) bool {
	if a.retained+n > maxRetained {
		a.incomplete = true
		return false
	}
	a.retained += n
	return true
}

func (a *assembly) msg(id, role string) *msgState {
	if i, ok := a.byMsg[id]; ok {
		return a.msgs[i]
	}
	if len(a.msgs) >= maxItems || !a.spend(int64(len(id)+len(role)+64)) {
		a.incomplete = true
		return nil
	}
	if a.byMsg == nil {
		a.byMsg = make(map[string]int, 2)
	}
	m := &msgState{id: id, role: role}
	a.byMsg[id] = len(a.msgs)
	a.msgs = append(a.msgs, m)
	return m
}

func (a *assembly) message(id, role string, at time.Time) {
	if m := a.msg(id, role); m != nil {
		if m.role == "" {
			m.role = role
		}
		if m.created.IsZero() {
			m.created = at
		}
	}
}

func (a *assembly) text(id, delta string) {
	m := a.msg(id, string(RoleAssistant))
	if m == nil || !a.spend(int64(len(delta))) {
		return
	}
	m.text = append(m.text, delta...)
}

func (a *assembly) toolCall(id string) *callState {
	if i, ok := a.byCall[id]; ok {
		return a.calls[i]
	}
	if len(a.calls) >= maxItems || !a.spend(int64(len(id)+64)) {
		a.incomplete = true
		return nil
	}
	if a.byCall == nil {
		a.byCall = make(map[string]int, 2)
	}
	c := &callState{id: id}
	a.byCall[id] = len(a.calls)
	a.calls = append(a.calls, c)
	return c
}

func (a *assembly) call(id, name, parent string) {
	c := a.toolCall(id)
	if c == nil || !a.spend(int64(len(name)+len(parent))) {
		return
	}
	c.name, c.parent = name, parent
}

func (a *assembly) args(id, delta string) {
	c := a.toolCall(id)
	if c == nil || !a.spend(int64(len(delta))) {
		return
	}
	c.args = append(c.args, delta...)
}

func (a *assembly) comp(id string) (int, *compState) {
	if i, ok := a.byComp[id]; ok {
		return i, a.comps[i]
	}
	if len(a.comps) >= maxItems || !a.spend(int64(len(id)+64)) {
		a.incomplete = true
		return -1, nil
	}
	if a.byComp == nil {
		a.byComp = make(map[string]int, 2)
	}
	c := &compState{id: id, patchDoc: patchDoc{props: map[string]any{}, depth: 1}, dec: decodeTrack{allowance: decodeFloor}}
	a.byComp[id] = len(a.comps)
	a.comps = append(a.comps, c)
	a.charge(c, docCost(c.props))
	return len(a.comps) - 1, c
}

func (a *assembly) component(id, name, msgID string) {
	i, c := a.comp(id)
	if c == nil || !a.spend(int64(len(name))) {
		return
	}
	c.name = name
	if m := a.msg(msgID, string(RoleAssistant)); m != nil && len(m.comps) < maxItems {
		m.comps = append(m.comps, i)
	}
}

// patch applies a props_delta's operations. One that does not apply
// stops the event's operations there (see [Stream.ComponentProps]); one
// refused because the props would nest too deep also marks the assembly
// incomplete, since the stream then keeps less than the server sent.
func (a *assembly) patch(id string, ops []PatchOp) {
	_, c := a.comp(id)
	if c == nil || c.dropped {
		return
	}
	r, err := c.apply(ops)
	if errors.Is(err, errPatchDepth) {
		a.incomplete = true
	}
	c.dec.allowance += decodePerPaid * r.paid
	c.dec.ops(ops[:r.applied], c.cost)
	a.charge(c, r.delta)
}

func (a *assembly) final(id string, props, state map[string]any) {
	_, c := a.comp(id)
	if c == nil {
		return
	}
	// The final props replace what the patches built, and their share of
	// the budget (a dropped component's share was given back already).
	a.retained -= c.cost + c.stateCost
	c.cost, c.dropped, c.state, c.stateCost = 0, false, nil, 0
	c.dec.changeAll()
	if state != nil {
		if v, cost, _, ok := cloneBounded(state, maxPropsDepth); !ok {
			a.incomplete = true
		} else if a.spend(cost) {
			c.state, c.stateCost = v, cost
		}
	}
	var v any = map[string]any{}
	if props != nil {
		v = props
	}
	v, cost, depth, ok := cloneBounded(v, maxPropsDepth)
	if !ok {
		// Deeper than any props the stream keeps: not kept, like props
		// over the budget.
		c.props, c.dropped = nil, true
		a.incomplete = true
		return
	}
	c.props, c.depth = v, depth
	c.dec.allowance += decodePerPaid * cost
	a.charge(c, cost)
}

// charge adds delta to c's share of the budget; past the budget, c's
// props are dropped and their share given back.
func (a *assembly) charge(c *compState, delta int64) {
	c.cost += delta
	a.retained += delta
	if a.retained > maxRetained {
		a.retained -= c.cost
		c.cost, c.props, c.dropped = 0, nil, true
		a.incomplete = true
	}
}
