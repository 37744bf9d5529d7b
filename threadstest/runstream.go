package threadstest

// The player of a /v1 run: what a run streams (planned when it starts)
// and how its events are written, with its script's faults and pacing.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// runPlan is what a run streams, decided when it starts.
type runPlan struct {
	text      []string // the deltas of the reply
	textFirst bool     // the text comes before the tool calls, in one turn
	calls     []plannedCall
	component *RunComponent
}

// plannedCall is a tool call of a run, with its arguments as sent.
type plannedCall struct {
	id, name string
	args     []byte // the call's arguments, JSON, as the model writes them
}

// planRun decides a run's events from its script and request; s.mu held.
// lastCall is the last call of the pause that the run answers, if any.
func (s *Server) planRun(sc RunScript, in *RunRequest, lastCall string) runPlan {
	var p runPlan
	userText := in.Message.Text()
	switch {
	case len(sc.Deltas) > 0:
		p.text = sc.Deltas
	case sc.Text != "":
		p.text = words(sc.Text)
	}
	service := s.cfg.serviceArgs && !sc.WithoutServiceArguments
	for _, c := range sc.ToolCalls {
		p.calls = append(p.calls, s.planCallLocked(c, service, userText))
	}
	if sc.Component != nil {
		comp := *sc.Component
		if comp.Props == nil {
			for _, oc := range in.AvailableComponents {
				if oc.Name == comp.Name {
					comp.Props = argumentsFor(oc.PropsSchema, userText)
				}
			}
		}
		p.component = &comp
		if p.text == nil {
			p.text = words("The tool said: Component was rendered.")
		}
	}
	resultIDs, results := toolResults(in.Message)
	switch {
	case p.text != nil || len(p.calls) > 0 || p.component != nil: // scripted
		p.textFirst = len(p.calls) > 0 && p.text != nil
	case len(resultIDs) > 0:
		if s.cfg.lastCallOnly && slices.Contains(resultIDs, lastCall) {
			// The model was handed the kept call's result alone (08).
			resultIDs = []string{lastCall}
		}
		var rs []string
		for _, id := range resultIDs {
			rs = append(rs, results[id])
		}
		p.text = words("The tool said: " + strings.Join(rs, "; ") + ".")
	case len(in.Tools) > 0 && userText != "":
		tl := in.Tools[0]
		c := RunToolCall{Name: tl.Name, Arguments: argumentsFor(tl.InputSchema, userText)}
		p.calls = []plannedCall{s.planCallLocked(c, service, userText)}
	default:
		p.text = words("You said: " + userText)
	}
	return p
}

// planCallLocked gives a call its id ("call_1", "call_2"...) when it has
// none, and its arguments as sent: with the service's two first when
// service is set or the call sets their values. s.mu is held.
func (s *Server) planCallLocked(c RunToolCall, service bool, userText string) plannedCall {
	if c.ID == "" {
		s.toolCalls++
		c.ID = fmt.Sprintf("call_%d", s.toolCalls)
	}
	p := plannedCall{id: c.ID, name: c.Name}
	if !service && c.StatusMessage == "" && c.CompletionStatusMessage == "" {
		p.args = []byte("{}")
		if c.Arguments != nil {
			p.args, _ = json.Marshal(c.Arguments)
		}
		return p
	}
	// The service's two arguments first, as its schema lists them (01),
	// each as the model filled it: the call's value, else the user's
	// text (a string, as the default model fills any).
	status, done := c.StatusMessage, c.CompletionStatusMessage
	if status == "" {
		status = userText
	}
	if done == "" {
		done = userText
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{%q:%s,%q:%s`, statusArg, jsonOf(status), completionArg, jsonOf(done))
	names := make([]string, 0, len(c.Arguments))
	for k := range c.Arguments {
		if k != statusArg && k != completionArg {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&b, `,%s:%s`, jsonOf(k), jsonOf(c.Arguments[k]))
	}
	b.WriteByte('}')
	p.args = b.Bytes()
	return p
}

// The two arguments the service adds to every client tool's schema.
const (
	statusArg     = "_tambo_statusMessage"
	completionArg = "_tambo_completionStatusMessage"
)

// ModelSchema returns the JSON Schema of a call's arguments that the
// service hands the model for t: its inputSchema with the service's two
// required string properties, "_tambo_statusMessage" (the line a UI shows
// while the tool runs) and "_tambo_completionStatusMessage" (the line
// after), added to its properties and to its required list, as the
// service does for every client tool (captures 01-03). A model that
// fills every required property, as strict mode makes it, sends them
// back; the fake does so with [WithServiceToolArguments]. The two
// descriptions are the fake's words. An inputSchema that is not a JSON
// object comes back as nil.
func (t RunToolDefinition) ModelSchema() map[string]any {
	var sch map[string]any
	if json.Unmarshal(t.InputSchema, &sch) != nil || sch == nil {
		return nil
	}
	props, _ := sch["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props[statusArg] = map[string]any{"type": "string", "description": "A short message shown while the tool runs"}
	props[completionArg] = map[string]any{"type": "string", "description": "A short message shown once the tool has run"}
	sch["properties"] = props
	req, _ := sch["required"].([]any)
	sch["required"] = append([]any{statusArg, completionArg}, req...)
	return sch
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// argumentsFor sets each property of a JSON Schema object to a value of
// its type, as the default model does.
func argumentsFor(schema json.RawMessage, text string) map[string]any {
	var sch struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &sch)
	args := map[string]any{}
	for name, ps := range sch.Properties {
		args[name] = defaultArgument(OfferedParameter{Name: name, Schema: ps}, text)
	}
	return args
}

// words splits text into the deltas of a reply: one per word, each with
// its trailing space.
func words(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// runEvent is one AG-UI event, its fields in the wire's order.
type runEvent struct {
	Type            string `json:"type"`
	ThreadID        string `json:"threadId,omitempty"`
	RunID           string `json:"runId,omitempty"`
	MessageID       string `json:"messageId,omitempty"`
	Role            string `json:"role,omitempty"`
	ToolCallID      string `json:"toolCallId,omitempty"`
	ToolCallName    string `json:"toolCallName,omitempty"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
	Delta           string `json:"delta,omitempty"`
	Name            string `json:"name,omitempty"`
	Value           any    `json:"value,omitempty"`
	Message         string `json:"message,omitempty"`
	Code            string `json:"code,omitempty"`
	Category        string `json:"category,omitempty"`
	IsRetryable     *bool  `json:"isRetryable,omitempty"`
	Status          int    `json:"status,omitempty"`
	Subtype         string `json:"subtype,omitempty"`        // REASONING_ENCRYPTED_VALUE's
	EntityID        string `json:"entityId,omitempty"`       // REASONING_ENCRYPTED_VALUE's
	EncryptedValue  string `json:"encryptedValue,omitempty"` // REASONING_ENCRYPTED_VALUE's
	// Usage is AG-UI 1.0's, on RUN_FINISHED and RUN_ERROR (RunScript.Usage).
	Usage []TokenUsage `json:"usage,omitempty"`
	// Outcome is AG-UI 1.0's, on RUN_FINISHED (RunScript.Interrupts).
	Outcome   *runOutcome `json:"outcome,omitempty"`
	Timestamp int64       `json:"timestamp"`
}

// runOutcome is RUN_FINISHED's interrupt outcome.
type runOutcome struct {
	Type       string         `json:"type"`
	Interrupts []RunInterrupt `json:"interrupts"`
}

// interrupted returns the outcome of a run whose script ends it with
// interrupts, their defaults filled in; nil for none.
func interrupted(sc RunScript) *runOutcome {
	if len(sc.Interrupts) == 0 {
		return nil
	}
	o := &runOutcome{Type: "interrupt", Interrupts: slices.Clone(sc.Interrupts)}
	for i := range o.Interrupts {
		in := &o.Interrupts[i]
		if in.ID == "" {
			in.ID = "int_" + strconv.Itoa(i+1)
		}
		if in.Reason == "" {
			in.Reason = "input_required"
		}
	}
	return o
}

// runStream writes one run's events with its script's faults and pacing.
type runStream struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	t    *v1Thread
	run  *v1Run
	sc   RunScript
	plan runPlan
	pace time.Duration
	sent int  // events sent after RUN_STARTED
	done bool // the stream has ended (its last event written, or cut)
}

// play streams the plan and ends the run.
func (rs *runStream) play() {
	p, t, run := rs.plan, rs.t, rs.run
	if !rs.emit(runEvent{Type: "RUN_STARTED", ThreadID: t.ID, RunID: run.id}, false) {
		return
	}
	// The reply message is stored from the start, with its " " text.
	replyID := rs.newReply()
	if r := rs.sc.Reasoning; r != nil && !rs.reasoning(replyID, *r) { // reasoning.go
		return
	}
	if p.component != nil {
		if !rs.component(replyID, *p.component) {
			return
		}
		// The text after a component is the model's second answer, a new
		// message (87, 88).
		replyID = rs.newReply()
	}
	textOpen := p.text != nil && (p.textFirst || len(p.calls) == 0)
	if textOpen && !rs.streamText(replyID, p.text) {
		return
	}
	pending, ok := rs.streamCalls(p.calls, textOpen)
	if !ok {
		return
	}
	if textOpen && !rs.emit(runEvent{Type: "TEXT_MESSAGE_END", MessageID: replyID}, true) {
		return
	}
	window := len(pending) > 0 && rs.sc.PauseWindow != nil
	if window {
		// Open before the event goes out: a client may answer the
		// moment it arrives.
		rs.s.mu.Lock()
		run.window = true
		rs.s.mu.Unlock()
	}
	if len(pending) > 0 && !rs.emit(awaitingInput(pending), true) {
		return
	}
	if window {
		rs.pauseWindow()
	}
	// The end: recorded first, so that a GET after the last event sees it.
	e := runEnd{kind: endFinished}
	if len(pending) > 0 {
		e = runEnd{kind: endAwaiting, pending: pending}
	}
	if !rs.check() {
		return
	}
	rs.s.mu.Lock()
	ended := rs.s.endRunLocked(t, run, e)
	rs.s.mu.Unlock()
	if !ended {
		rs.stopped()
		return
	}
	rs.write(runEvent{Type: "RUN_FINISHED", ThreadID: t.ID, RunID: run.id, Usage: rs.sc.Usage, Outcome: interrupted(rs.sc)})
}

// pauseWindow (the window open, run.window set) holds the run between its
// pause and its completion until
// the script's PauseWindow is closed, the run is ended from outside or
// the client leaves (the check that follows ends it then).
func (rs *runStream) pauseWindow() {
	s, run := rs.s, rs.run
	if rs.sc.OnPauseWindow != nil {
		rs.sc.OnPauseWindow()
	}
	select {
	case <-rs.sc.PauseWindow:
	case <-run.stop:
	case <-rs.r.Context().Done():
	}
	s.mu.Lock()
	run.window = false
	s.mu.Unlock()
}

// newReply stores a new assistant message with its " " text as the run's
// reply (unless the run has ended) and returns its id ("" then).
func (rs *runStream) newReply() string {
	s, run := rs.s, rs.run
	s.mu.Lock()
	defer s.mu.Unlock()
	if run.end == nil {
		run.reply = &v1Message{ID: s.newID("msg_"), Role: "assistant", Content: []block{{"type": "text", "text": " "}}, CreatedAt: now(), ParentMessageID: rs.sc.ParentMessageID}
		run.deltas = nil
		rs.t.messages = append(rs.t.messages, run.reply)
	}
	if run.reply == nil {
		return ""
	}
	return run.reply.ID
}

// streamText opens the reply's text message and streams its deltas.
func (rs *runStream) streamText(replyID string, deltas []string) bool {
	if !rs.emit(runEvent{Type: "TEXT_MESSAGE_START", MessageID: replyID, Role: "assistant"}, true) {
		return false
	}
	for _, d := range deltas {
		if !rs.emit(runEvent{Type: "TEXT_MESSAGE_CONTENT", MessageID: replyID, Delta: d}, true) {
			return false
		}
	}
	return true
}

// streamCalls streams the run's tool calls, one after another, and
// returns them as pending calls.
func (rs *runStream) streamCalls(calls []plannedCall, textOpen bool) ([]v1PendingCall, bool) {
	s, run := rs.s, rs.run
	parent := ""
	if textOpen && len(calls) > 0 {
		parent = s.tempID() // a temporary id, not the msg_ id (52)
	}
	var pending []v1PendingCall
	for _, c := range calls {
		if !rs.emit(runEvent{Type: "TOOL_CALL_START", ToolCallID: c.id, ToolCallName: c.name, ParentMessageID: parent}, true) {
			return nil, false
		}
		for _, piece := range pieces(string(c.args), 4) {
			if !rs.emit(runEvent{Type: "TOOL_CALL_ARGS", ToolCallID: c.id, Delta: piece}, true) {
				return nil, false
			}
		}
		if !rs.emit(runEvent{Type: "TOOL_CALL_END", ToolCallID: c.id}, true) {
			return nil, false
		}
		pending = append(pending, v1PendingCall{id: c.id, name: c.name, args: string(c.args)})
		s.mu.Lock()
		if run.end == nil {
			var input any
			json.Unmarshal(c.args, &input)
			use := block{"type": "tool_use", "id": c.id, "name": c.name, "input": input}
			if s.cfg.lastCallOnly {
				// The stored message keeps only the last call's tool_use
				// block, as live (130, 135; turn 5's 09).
				run.reply.Content = []block{run.reply.Content[0], use}
			} else {
				run.reply.Content = append(run.reply.Content, use)
			}
		}
		s.mu.Unlock()
	}
	return pending, true
}

// awaitingInput is the CUSTOM tambo.run.awaiting_input event that lists
// the pending calls.
func awaitingInput(pending []v1PendingCall) runEvent {
	type wirePending struct {
		ToolCallID string `json:"toolCallId"`
		ToolName   string `json:"toolName"`
		Arguments  string `json:"arguments"`
	}
	list := make([]wirePending, len(pending))
	for i, pc := range pending {
		list[i] = wirePending{pc.id, pc.name, pc.args}
	}
	return runEvent{Type: "CUSTOM", Name: "tambo.run.awaiting_input", Value: map[string]any{"pendingToolCalls": list}}
}

// component streams a component's events.
func (rs *runStream) component(msgID string, c RunComponent) bool {
	s, run := rs.s, rs.run
	id := s.tempID()
	if !rs.emit(runEvent{Type: "CUSTOM", Name: "tambo.component.start", Value: struct {
		MessageID     string `json:"messageId"`
		ComponentID   string `json:"componentId"`
		ComponentName string `json:"componentName"`
	}{msgID, id, c.Name}}, true) {
		return false
	}
	names := make([]string, 0, len(c.Props))
	for k := range c.Props {
		names = append(names, k)
	}
	slices.Sort(names)
	status := map[string]string{}
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	delta := func(o op) bool {
		st := make(map[string]string, len(status))
		for k, v := range status {
			st[k] = v
		}
		return rs.emit(runEvent{Type: "CUSTOM", Name: "tambo.component.props_delta", Value: struct {
			ComponentID     string            `json:"componentId"`
			Operations      []op              `json:"operations"`
			StreamingStatus map[string]string `json:"streamingStatus"`
		}{id, []op{o}, st}}, true)
	}
	for i, name := range names {
		if i > 0 {
			status[names[i-1]] = "done"
		}
		path := "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
		v := c.Props[name]
		status[name] = "started"
		if str, ok := v.(string); ok && utf8.RuneCountInString(str) > 1 {
			half := pieces(str, 2)[0]
			if !delta(op{"add", path, half}) {
				return false
			}
			status[name] = "streaming"
			if !delta(op{"replace", path, str}) {
				return false
			}
			continue
		}
		if !delta(op{"add", path, v}) {
			return false
		}
	}
	props := c.Props
	if props == nil {
		props = map[string]any{}
	}
	if !rs.emit(runEvent{Type: "CUSTOM", Name: "tambo.component.end", Value: struct {
		ComponentID string         `json:"componentId"`
		FinalProps  map[string]any `json:"finalProps"`
		FinalState  map[string]any `json:"finalState,omitzero"`
	}{id, props, c.FinalState}}, true) {
		return false
	}
	state := map[string]any{}
	if c.FinalState != nil {
		state = cloneJSON(c.FinalState)
	}
	s.mu.Lock()
	if run.end == nil {
		run.reply.Content = append(run.reply.Content, map[string]any{"type": "component", "id": id, "name": c.Name, "props": props, "state": state})
	}
	s.mu.Unlock()
	return true
}

// tempID is a temporary id as the service gives components and tool-call
// parents: "message-" and 21 characters.
func (s *Server) tempID() string {
	const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, 21)
	for i := range b {
		b[i] = abc[s.rng.IntN(len(abc))]
	}
	return "message-" + string(b)
}

// pieces cuts s into at most n pieces of about equal length, on rune
// boundaries.
func pieces(s string, n int) []string {
	rs := []rune(s)
	if len(rs) == 0 {
		return nil
	}
	size := (len(rs) + n - 1) / n
	var out []string
	for i := 0; i < len(rs); i += size {
		out = append(out, string(rs[i:min(i+size, len(rs))]))
	}
	return out
}

// emit sends one event after the pacing, unless the run must stop first;
// counted events are those after RUN_STARTED, where the script's faults
// apply. It returns false when the stream has ended.
func (rs *runStream) emit(ev runEvent, counted bool) bool {
	if rs.done {
		return false
	}
	if counted {
		if rs.pace > 0 {
			tm := time.NewTimer(rs.pace)
			select {
			case <-tm.C:
			case <-rs.run.stop:
				tm.Stop()
			case <-rs.r.Context().Done():
				tm.Stop()
			}
		}
		sc := rs.sc
		if sc.Hold != nil && rs.sent == sc.HoldAfter {
			if sc.OnHold != nil {
				sc.OnHold()
			}
			if sc.OnHoldRun != nil {
				sc.OnHoldRun(rs.t.ID, rs.run.id)
			}
			select {
			case <-sc.Hold:
			case <-rs.run.stop:
			case <-rs.r.Context().Done():
			}
		}
		if !rs.check() {
			return false
		}
		if sc.Drop && rs.sent == sc.DropAfter {
			rs.s.mu.Lock()
			rs.s.endRunLocked(rs.t, rs.run, runEnd{kind: endCancelled})
			rs.s.mu.Unlock()
			rs.done = true
			reset(rs.w)
			return false
		}
		if sc.Error != nil && rs.sent == sc.ErrorAfter {
			rs.s.mu.Lock()
			ended := rs.s.endRunLocked(rs.t, rs.run, runEnd{kind: endFailed, err: *sc.Error})
			rs.s.mu.Unlock()
			if ended {
				rs.failed(*sc.Error)
			} else {
				rs.stopped()
			}
			return false
		}
		rs.sent++
	} else if !rs.check() {
		return false
	}
	if ev.Type == "TEXT_MESSAGE_CONTENT" {
		// Stored before it is sent, so that a client that reacts to the
		// delta (a cancel, a GET) sees it on the thread.
		rs.s.mu.Lock()
		if run := rs.run; run.end == nil && run.reply != nil {
			run.deltas = append(run.deltas, ev.Delta)
			setText(run.reply, strings.Join(run.deltas, ""))
		}
		rs.s.mu.Unlock()
	}
	if !rs.parentFirst(ev) { // reasoning.go
		return false
	}
	return rs.write(ev)
}

// check ends the stream when the run was ended from outside or the client
// went away (the run then ends cancelled, as live); it returns false then.
func (rs *runStream) check() bool {
	if rs.r.Context().Err() != nil {
		rs.s.mu.Lock()
		rs.s.endRunLocked(rs.t, rs.run, runEnd{kind: endCancelled})
		rs.s.mu.Unlock()
		rs.done = true
		return false
	}
	select {
	case <-rs.run.stop:
		rs.stopped()
		return false
	default:
		return true
	}
}

// stopped writes the end of a run ended from outside: a cancel's single
// RUN_ERROR CANCELLED (or its RUN_FINISHED, WithCancelledRunsFinished),
// or a failure's pair.
func (rs *runStream) stopped() {
	rs.s.mu.Lock()
	e := *rs.run.end
	rs.s.mu.Unlock()
	switch {
	case e.kind == endCancelled && e.byRequest && rs.run.finishOnCancel:
		// The text message stays open, as live (26).
		rs.write(runEvent{Type: "RUN_FINISHED", ThreadID: rs.t.ID, RunID: rs.run.id})
	case e.kind == endCancelled:
		rs.write(runEvent{Type: "RUN_ERROR", Message: "Run cancelled", Code: "CANCELLED"})
	case e.kind == endFailed:
		rs.failed(e.err)
	}
	rs.done = true
}

// failed writes a failure's RUN_ERROR twice, as the service does.
func (rs *runStream) failed(e RunFailure) {
	e = e.filled()
	retry := e.Retryable
	for range 2 {
		rs.write(runEvent{Type: "RUN_ERROR", Message: e.Message, Code: e.Code, Category: e.Category, IsRetryable: &retry, Status: e.Status, Usage: rs.sc.Usage})
	}
	rs.done = true
}

// write sends one event as its own chunk.
func (rs *runStream) write(ev runEvent) bool {
	ev.Timestamp = time.Now().UnixMilli()
	if writeData(rs.w, ev) != nil {
		rs.s.mu.Lock()
		rs.s.endRunLocked(rs.t, rs.run, runEnd{kind: endCancelled})
		rs.s.mu.Unlock()
		rs.done = true
		return false
	}
	return true
}

// cloneJSON copies m through JSON, so that the stored value shares
// nothing with the caller's map (which a test may change after pushing
// its script). A value that does not encode gives an empty map.
func cloneJSON(m map[string]any) map[string]any {
	out := map[string]any{}
	if b, err := json.Marshal(m); err == nil {
		json.Unmarshal(b, &out)
	}
	return out
}
