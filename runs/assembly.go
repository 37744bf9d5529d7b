package runs

import "time"

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
	props    any
	cost     int64
	dropped  bool // over the budget: no longer kept
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
	c := &compState{id: id, props: map[string]any{}}
	a.byComp[id] = len(a.comps)
	a.comps = append(a.comps, c)
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

func (a *assembly) patch(id string, ops []PatchOp) {
	_, c := a.comp(id)
	if c == nil || c.dropped {
		return
	}
	props, delta, _ := applyPatch(c.props, ops)
	c.props = props
	a.charge(c, delta)
}

func (a *assembly) final(id string, props map[string]any) {
	_, c := a.comp(id)
	if c == nil {
		return
	}
	// The final props replace what the patches built, and their share of
	// the budget (a dropped component's share was given back already).
	a.retained -= c.cost
	c.cost, c.dropped = 0, false
	c.props = cloneValue(props)
	if props == nil {
		c.props = map[string]any{}
	}
	a.charge(c, valueCost(c.props))
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
