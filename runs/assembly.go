package runs

import (
	"errors"
	"strings"
	"time"
)

// assembly is what the stream keeps of the run for Collect, Text and
// ComponentProps, within maxItems per kind and maxRetained bytes.
type assembly struct {
	// base is what the caller already held when this assembly began (a
	// tool stream's earlier runs), charged to retained from the start.
	base       int64
	msgs       []*msgState
	byMsg      map[string]int
	calls      []*callState
	byCall     map[string]int
	comps      []*compState
	byComp     map[string]int
	pending    []PendingToolCall
	retained   int64
	incomplete bool

	// reasons is the run's reasoning, kept apart from the messages' text:
	// one entry per message id, in the order the first of its reasoning
	// came. The service's THINKING_* events name no message: their
	// reasoning goes to the assistant message open at the time (openMsg,
	// between TEXT_MESSAGE_START and _END), else waits in pendReason for
	// the next message the run starts, which claims it (the order the
	// service sends them in: a model reasons, then writes).
	reasons    []*reasonState
	byReason   map[string]*reasonState
	pendReason *reasonState
	curReason  *reasonState // the block unnamed reasoning text goes to
	chunking   bool         // the last event was a REASONING_MESSAGE_CHUNK
	openMsg    string

	// chunkMsg and chunkCall are the message or tool call that a run of
	// TEXT_MESSAGE_CHUNKs or TOOL_CALL_CHUNKs is building ("" when none):
	// at most one of them is set (see chunk).
	chunkMsg, chunkCall string

	// usage is the run's token usage, summed per provider and model.
	usage []TokenUsage
}

type msgState struct {
	id, role string
	created  time.Time
	text     []byte
	comps    []int
	parent   string // tambo.message.parent's
}

// reasonState is the reasoning of one message: its blocks' text.
type reasonState struct {
	msgID string
	parts [][]byte
	open  bool // the last block has not ended
}

// Reasoning is the model's reasoning for one message of a run, as its
// reasoning events streamed it ([ReasoningMessageStart] and the rest). It
// is never part of the message's text.
type Reasoning struct {
	// MessageID is the message the reasoning belongs to. The service's
	// THINKING_* events name none: the stream gives their reasoning to
	// the assistant message being written when it came, else to the next
	// message the run starts (the service sends a message's reasoning
	// before its text); it is "" for reasoning no message followed (a
	// model that reasoned, then only called a tool). REASONING_* events
	// name theirs (in AG-UI, the reasoning's own id).
	MessageID string
	// Parts are the blocks of reasoning text (a start's deltas joined, or
	// a run of chunks'), in order: a model may reason more than once.
	Parts []string
}

// Text returns the reasoning's parts joined by blank lines.
func (r Reasoning) Text() string { return strings.Join(r.Parts, "\n\n") }

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
	a.openMsg = id
	a.claimReasoning(id)
}

// other records what the events say that stream's apply has no case for:
// the reasoning, the end of a message and a message's parent. It sees
// every event, since any but a chunk ends a run of
// REASONING_MESSAGE_CHUNKs (as AG-UI's client reads them).
func (a *assembly) other(e Event) {
	chunking := a.chunking
	a.chunking = false
	switch e := e.(type) {
	case ReasoningMessageStart:
		a.reasonPart(a.reasonFor(e.MessageID))
	case ReasoningMessageContent:
		r := a.curReason
		if e.Type == EventReasoningMessageChunk {
			// A chunk continues the run of chunks it follows, unless it
			// names another message; else it opens a block.
			a.chunking = true
			if !chunking || r == nil || (e.MessageID != "" && e.MessageID != r.msgID) {
				r = a.reasonFor(e.MessageID)
				a.reasonPart(r)
			}
		} else {
			if e.MessageID != "" || r == nil {
				r = a.reasonFor(e.MessageID)
			}
			// Text after a block's end (or with none started) opens one.
			if r != nil && (len(r.parts) == 0 || !r.open) {
				a.reasonPart(r)
			}
		}
		if r != nil {
			a.curReason = r
		}
		a.reasonText(r, e.Delta)
	case ReasoningMessageEnd:
		if r := a.curReason; r != nil {
			r.open = false
		}
		a.curReason = nil
	case TextMessageEnd:
		if a.openMsg == e.MessageID {
			a.openMsg = ""
		}
	case MessageParent:
		if e.MessageID == "" {
			return
		}
		if m := a.msg(e.MessageID, string(RoleAssistant)); m != nil && m.parent != e.ParentMessageID && a.spend(int64(len(e.ParentMessageID))) {
			m.parent = e.ParentMessageID
		}
	}
}

// reasonFor returns the reasoning of message id; for "", of the message
// open now, else the reasoning that waits for the next message. nil when
// over the bounds.
func (a *assembly) reasonFor(id string) *reasonState {
	if id == "" {
		if a.openMsg == "" {
			if a.pendReason == nil {
				a.pendReason = a.newReason("")
			}
			return a.pendReason
		}
		id = a.openMsg
	}
	if r, ok := a.byReason[id]; ok {
		return r
	}
	r := a.newReason(id)
	if r != nil {
		if a.byReason == nil {
			a.byReason = make(map[string]*reasonState, 2)
		}
		a.byReason[id] = r
	}
	return r
}

func (a *assembly) newReason(id string) *reasonState {
	if len(a.reasons) >= maxItems || !a.spend(int64(len(id)+64)) {
		a.incomplete = true
		return nil
	}
	r := &reasonState{msgID: id}
	a.reasons = append(a.reasons, r)
	return r
}

// reasonPart opens a block of r and makes it the current one.
func (a *assembly) reasonPart(r *reasonState) {
	if r == nil {
		a.curReason = nil
		return
	}
	if len(r.parts) >= maxItems || !a.spend(24) {
		a.incomplete = true
		a.curReason = nil
		return
	}
	r.parts = append(r.parts, nil)
	r.open = true
	a.curReason = r
}

func (a *assembly) reasonText(r *reasonState, delta string) {
	if r == nil || len(r.parts) == 0 || !a.spend(int64(len(delta))) {
		return
	}
	last := &r.parts[len(r.parts)-1]
	*last = append(*last, delta...)
}

// claimReasoning gives the reasoning that waits for a message to message
// id, which the run starts now.
func (a *assembly) claimReasoning(id string) {
	p := a.pendReason
	if p == nil || id == "" {
		return
	}
	a.pendReason = nil
	r, ok := a.byReason[id]
	if !ok {
		p.msgID = id
		if a.byReason == nil {
			a.byReason = make(map[string]*reasonState, 2)
		}
		a.byReason[id] = p
		return
	}
	// The message has reasoning already (its text resumed after a
	// provider's tool): the blocks join it, and p stays empty.
	for _, part := range p.parts {
		if len(r.parts) >= maxItems {
			a.incomplete = true
			break
		}
		r.parts = append(r.parts, part)
	}
	r.open = p.open
	p.parts = nil
	if a.curReason == p {
		a.curReason = r
	}
}

// reasoning returns copies of the run's reasoning for a Result.
func (a *assembly) reasoning() []Reasoning {
	var out []Reasoning
	for _, r := range a.reasons {
		if len(r.parts) == 0 {
			continue
		}
		parts := make([]string, len(r.parts))
		for i, p := range r.parts {
			parts[i] = string(p)
		}
		out = append(out, Reasoning{MessageID: r.msgID, Parts: parts})
	}
	return out
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
	a.claimReasoning(msgID)
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

// chunk assembles AG-UI's chunk events as AG-UI's own client does (its
// transformChunks): a TEXT_MESSAGE_CHUNK or TOOL_CALL_CHUNK naming a new
// message or call (or following any other event) closes the one open and
// opens its own, which the chunks after it that name it or nothing
// continue; any other event closes it, except those AG-UI lets pass (RAW,
// the activity events, REASONING_ENCRYPTED_VALUE). A chunk that opens
// nothing and names nothing, which AG-UI's client refuses, is delivered
// but adds nothing to the Result.
func (a *assembly) chunk(e Event) {
	switch e := e.(type) {
	case TextMessageChunk:
		if a.chunkMsg == "" || (e.MessageID != "" && e.MessageID != a.chunkMsg) {
			a.closeChunks()
			if e.MessageID == "" {
				return
			}
			role := e.Role
			if role == "" {
				role = string(RoleAssistant)
			}
			a.message(e.MessageID, role, e.Timestamp)
			a.chunkMsg = e.MessageID
		}
		a.text(a.chunkMsg, e.Delta)
	case ToolCallChunk:
		if a.chunkCall == "" || (e.ToolCallID != "" && e.ToolCallID != a.chunkCall) {
			a.closeChunks()
			if e.ToolCallID == "" {
				return
			}
			a.call(e.ToolCallID, e.ToolCallName, e.ParentMessageID)
			a.chunkCall = e.ToolCallID
		}
		a.args(a.chunkCall, e.Delta)
	case RawEvent, ActivitySnapshot, ActivityDelta, ReasoningEncryptedValue:
	default:
		a.closeChunks()
	}
}

// closeChunks ends the message or call a run of chunks was building.
func (a *assembly) closeChunks() {
	if a.chunkMsg != "" && a.openMsg == a.chunkMsg {
		a.openMsg = ""
	}
	a.chunkMsg, a.chunkCall = "", ""
}

// addUsage adds the usage of a RUN_FINISHED or RUN_ERROR.
func (a *assembly) addUsage(u []TokenUsage) {
	var dropped bool
	a.usage, dropped = sumUsage(a.usage, u)
	a.incomplete = a.incomplete || dropped
}

// sumUsage adds add to into, one entry per provider and model, in the
// order each first came; dropped is set when a new model was left out
// (more than maxItems of them).
func sumUsage(into, add []TokenUsage) (_ []TokenUsage, dropped bool) {
next:
	for _, u := range add {
		for i := range into {
			if t := &into[i]; t.Provider == u.Provider && t.Model == u.Model {
				t.InputTokens += u.InputTokens
				t.OutputTokens += u.OutputTokens
				t.TotalTokens += u.TotalTokens
				t.ReasoningTokens += u.ReasoningTokens
				t.CachedInputTokens += u.CachedInputTokens
				t.CacheWriteInputTokens += u.CacheWriteInputTokens
				continue next
			}
		}
		if len(into) >= maxItems {
			dropped = true
			continue
		}
		into = append(into, u)
	}
	return into, dropped
}
