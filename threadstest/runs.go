package threadstest

// The /v1 runs (spec/v1/v1-api.md sections 5 and 6): POST /v1/threads/runs
// and POST /v1/threads/{id}/runs answer 201 text/event-stream with the
// service's AG-UI events, one "data:" line each, in the live order and
// shapes; DELETE /v1/threads/{id}/runs/{runId} cancels. The thread's run
// columns (runStatus, currentRunId, statusMessage, lastRunCancelled,
// lastRunError, pendingToolCallIds, lastCompletedRunId) and its messages
// follow the run as the captures show them, including two data losses of
// the service: a failed run stores " " instead of the streamed text, and
// an assistant message with parallel tool calls keeps only the last
// tool_use block.
//
// Not copied: the model's retries and their seconds of silence; a cancel
// that the service ends with RUN_FINISHED (here a cancel always ends with
// RUN_ERROR CANCELLED); the delta a disconnect loses (here the stored text
// is what was sent); the server-side (MCP) tools and thread auto-naming.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// RunScript shapes the next /v1 run. Queue one with [Server.PushRunScript];
// each run (POST /v1/threads/runs or /v1/threads/{id}/runs, including one
// that sends tool results) takes the oldest queued script. The zero
// RunScript is the default model:
//
//   - a message with text and a request that offers tools: the model
//     calls the first tool, each property of its inputSchema set to a
//     value of its type (its first enum value; for a string, the user's
//     text), and the run pauses for its result (TOOL_CALL_START, ARGS and
//     END, then CUSTOM tambo.run.awaiting_input, then RUN_FINISHED);
//   - a message with tool results: the reply "The tool said: <result>."
//     (several results joined with "; ");
//   - otherwise the reply "You said: <the user's text>".
//
// A reply is streamed as live: TEXT_MESSAGE_START, one
// TEXT_MESSAGE_CONTENT per word, TEXT_MESSAGE_END, RUN_FINISHED.
//
// The counts ErrorAfter, HoldAfter and DropAfter count the events sent
// after RUN_STARTED: 0 acts right after RUN_STARTED.
//
// As live, toolChoice, model, maxTokens and temperature are accepted (and
// validated) but change nothing.
type RunScript struct {
	// Text is the assistant's reply, streamed word by word. With
	// ToolCalls it is streamed before the calls, in the same model turn
	// (TEXT_MESSAGE_END then comes after the calls, as live). With
	// Component it is the text after the component (default "The tool
	// said: Component was rendered.", as live).
	Text string
	// Deltas, when set, are the reply's exact TEXT_MESSAGE_CONTENT
	// deltas, in the place of Text.
	Deltas []string
	// ToolCalls are client tool calls the model makes in this run, one
	// after another, each with its own TOOL_CALL_START, ARGS and END; then
	// one tambo.run.awaiting_input lists them all and the run finishes.
	// The next run on the thread must carry previousRunId and one
	// tool_result per call. The fake does not check that the request
	// offered the tools.
	ToolCalls []RunToolCall
	// Component, when set, makes the model render a component:
	// tambo.component.start, one props_delta per step of each prop, then
	// tambo.component.end, then a text reply (Text). The fake does not
	// check that the request offered it.
	Component *RunComponent
	// Error, when set, fails the run after ErrorAfter events: the service's
	// RUN_ERROR, sent twice, and the thread's lastRunError. The streamed
	// text is not kept (the stored reply is " "), as live.
	Error      *RunError
	ErrorAfter int
	// Hold, when not nil, pauses the run after HoldAfter events until Hold
	// is closed, the run is cancelled or the client goes away: what a
	// test needs to cancel a run at a known point.
	Hold      <-chan struct{}
	HoldAfter int
	// OnHold, when not nil, is called once, when the run reaches its Hold
	// (its events so far sent and flushed), so that a test knows the run
	// is in flight there without watching the wire.
	OnHold func()
	// Drop, when set, cuts the connection after DropAfter events, without
	// RUN_FINISHED. The run ends cancelled, as when a client disconnects.
	Drop      bool
	DropAfter int
	// Pace is the pause between two events of this run. 0 uses the
	// server's throttle ([WithThrottle], [WithLiveHabits]): none by
	// default, 50ms with the live habits.
	Pace time.Duration
}

// RunToolCall is a client tool call that a [RunScript] makes the model ask
// for.
type RunToolCall struct {
	// ID is the call's id; "" makes one ("call_1", "call_2"...).
	ID string
	// Name is the tool's name.
	Name string
	// Arguments are sent as the call's JSON arguments, in pieces
	// (TOOL_CALL_ARGS), then whole in tambo.run.awaiting_input.
	Arguments map[string]any
}

// RunComponent is a component that a [RunScript] makes the model render.
type RunComponent struct {
	// Name is the component's name (componentName).
	Name string
	// Props are its final props, streamed one at a time in sorted order
	// (a string in two steps: "add" with its first half, then "replace").
	// nil derives them from the offered component's propsSchema like a
	// tool's arguments.
	Props map[string]any
}

// RunError is how a scripted run fails. The zero RunError is what the
// service sends when the model fails after its retries: code
// INTERNAL_ERROR, "An internal error occurred", category server_error,
// status 500.
type RunError struct {
	// Code is the RUN_ERROR's code (default INTERNAL_ERROR), also the
	// thread's lastRunError.code.
	Code string
	// Message is the RUN_ERROR's message (default "An internal error
	// occurred").
	Message string
	// Category is sent as given; "" sends "client_error" for a Status
	// below 500, else "server_error".
	Category string
	// Status is the RUN_ERROR's status (default 500).
	Status int
	// Retryable is the RUN_ERROR's isRetryable.
	Retryable bool
	// Cause is the thread's lastRunError.message, the raw cause the
	// stream does not show (default: Message).
	Cause string
}

// PushRunScript queues a script for a later /v1 run.
func (s *Server) PushRunScript(sc RunScript) {
	s.mu.Lock()
	s.v1.scripts = append(s.v1.scripts, sc)
	s.mu.Unlock()
}

// RunRequest is the body of a /v1 run request as the fake reads it;
// [Request.Run] decodes it.
type RunRequest struct {
	// Message is the user message; nil when the body has none.
	Message *RunMessage `json:"message"`
	// UserKey is the top-level userKey (POST /v1/threads/{id}/runs).
	UserKey string `json:"userKey"`
	// Thread is POST /v1/threads/runs's thread: its userKey, metadata and
	// initialMessages.
	Thread *struct {
		UserKey         string         `json:"userKey"`
		Metadata        map[string]any `json:"metadata"`
		InitialMessages []RunMessage   `json:"initialMessages"`
	} `json:"thread"`
	PreviousRunID       string             `json:"previousRunId"`
	Tools               []RunTool          `json:"tools"`
	AvailableComponents []OfferedComponent `json:"availableComponents"`
	// ToolChoice is kept as sent.
	ToolChoice     json.RawMessage `json:"toolChoice"`
	Model          string          `json:"model"`
	MaxTokens      int             `json:"maxTokens"`
	Temperature    *float64        `json:"temperature"`
	RunMetadata    map[string]any  `json:"runMetadata"`
	ThreadMetadata map[string]any  `json:"threadMetadata"`
}

// RunMessage is a /v1 message a client sent.
type RunMessage struct {
	Role              string         `json:"role"`
	Content           []RunContent   `json:"content"`
	Metadata          map[string]any `json:"metadata"`
	AdditionalContext map[string]any `json:"additionalContext"`
}

// RunContent is one content block a client sent: "text" (Text),
// "resource" (Resource, as sent) or "tool_result" (ToolUseID, Content,
// IsError).
type RunContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Resource  json.RawMessage `json:"resource,omitempty"`
	ToolUseID string          `json:"toolUseId,omitempty"`
	Content   []RunContent    `json:"content,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
}

// RunTool is a client tool a run offers to the model.
type RunTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema and OutputSchema are kept as sent.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Strict       bool            `json:"strict"`
	MaxCalls     int             `json:"maxCalls"`
}

// OfferedComponent is a component a run offers to the model.
type OfferedComponent struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// PropsSchema and StateSchema are kept as sent.
	PropsSchema json.RawMessage `json:"propsSchema"`
	StateSchema json.RawMessage `json:"stateSchema"`
}

// Run decodes the body of a /v1 run request (POST /v1/threads/runs or
// /v1/threads/{id}/runs), so a test can assert what the client sent. It
// returns an error when the request is not a run or its body is not JSON.
func (r Request) Run() (*RunRequest, error) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Path, "/v1/threads/") || !strings.HasSuffix(r.Path, "/runs") {
		return nil, fmt.Errorf("threadstest: %s %s is not a run request", r.Method, r.Path)
	}
	var in RunRequest
	if err := json.Unmarshal(r.Body, &in); err != nil {
		return nil, fmt.Errorf("threadstest: %s %s: the body is not a run request: %w", r.Method, r.Path, err)
	}
	return &in, nil
}

// Text returns the message's text blocks, joined with newlines.
func (m RunMessage) Text() string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// v1Run is a run in progress; s.mu guards its fields.
type v1Run struct {
	id     string
	stop   chan struct{} // closed when the run is ended from outside (cancel, thread deleted)
	end    *runEnd       // how it ended; nil while it runs
	reply  *v1Message    // the assistant message being streamed, if any
	deltas []string      // what reply's text block has received
}

// v1PendingCall is a client tool call awaiting its result.
type v1PendingCall struct{ id, name, args string }

// v1RunError is a thread's lastRunError.
type v1RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type endKind int

const (
	endFinished endKind = iota
	endAwaiting
	endFailed
	endCancelled
)

type runEnd struct {
	kind    endKind
	err     RunError
	pending []v1PendingCall
}

func runInternalError(cause string) RunError { return RunError{Cause: cause} }

// filled returns e with its defaults.
func (e RunError) filled() RunError {
	if e.Code == "" {
		e.Code = "INTERNAL_ERROR"
	}
	if e.Message == "" {
		e.Message = "An internal error occurred"
	}
	if e.Status == 0 {
		e.Status = 500
	}
	if e.Category == "" {
		e.Category = "server_error"
		if e.Status < 500 {
			e.Category = "client_error"
		}
	}
	if e.Cause == "" {
		e.Cause = e.Message
	}
	return e
}

// endRunLocked ends run on t (s.mu held) the first time it is called and
// reports whether this call ended it. An end from outside the run's
// handler (cancel, deleted thread) also wakes the handler.
func (s *Server) endRunLocked(t *v1Thread, run *v1Run, e runEnd) bool {
	if run.end != nil {
		return false
	}
	run.end = &e
	if t.active == run {
		t.active = nil
	}
	t.RunStatus, t.CurrentRunID, t.LastCompletedRunID = "idle", "", run.id
	t.UpdatedAt = now()
	switch e.kind {
	case endFinished:
		t.StatusMessage = "Complete"
	case endAwaiting:
		t.StatusMessage = "Fetching context..."
		t.pending = e.pending
		t.PendingToolCallIDs = make([]string, len(e.pending))
		for i, p := range e.pending {
			t.PendingToolCallIDs[i] = p.id
		}
	case endFailed:
		// statusMessage stays "Streaming response...", and the streamed
		// text is not kept (124).
		ee := e.err.filled()
		t.LastRunError = &v1RunError{Code: ee.Code, Message: ee.Cause}
		if run.reply != nil {
			setText(run.reply, " ")
		}
	case endCancelled:
		t.LastRunCancelled = true
		if run.reply != nil {
			run.reply.IsCancelled = true
		}
	}
	close(run.stop)
	return true
}

// setText replaces the text of m's first text block.
func setText(m *v1Message, text string) {
	for _, c := range m.Content {
		if c["type"] == "text" {
			c["text"] = text
			return
		}
	}
}

// v1Run serves POST /v1/threads/runs (t nil: the thread is created) and
// POST /v1/threads/{id}/runs.
func (s *Server) v1Run(w http.ResponseWriter, r *http.Request, body []byte, t *v1Thread, ctxKey string) {
	var in RunRequest
	json.Unmarshal(body, &in) // serveV1 refused a body that is not JSON
	if msgs := validateRun(&in); len(msgs) > 0 {
		v1ErrorList(w, http.StatusBadRequest, "Bad Request", msgs)
		return
	}
	create := t == nil
	if create {
		// The service creates the thread before it looks at the run, so a
		// run refused below leaves it behind (75, 128).
		meta := in.ThreadMetadata
		var initial []RunMessage
		if in.Thread != nil {
			if meta == nil {
				meta = in.Thread.Metadata
			}
			initial = in.Thread.InitialMessages
		}
		s.mu.Lock()
		ts := now()
		t = &v1Thread{ID: s.newID("thr_"), UserKey: ctxKey, RunStatus: "idle", Metadata: meta, CreatedAt: ts, UpdatedAt: ts}
		for _, m := range initial {
			t.messages = append(t.messages, &v1Message{ID: s.newID("msg_"), Role: m.Role, Content: contentMaps(m.Content), CreatedAt: ts})
		}
		s.v1.threads[t.ID] = t
		s.v1.order = append(s.v1.order, t.ID)
		s.mu.Unlock()
	}
	if in.Message == nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"statusCode": 500, "message": "Internal server error"})
		return
	}

	s.mu.Lock()
	if t.active != nil {
		cur := t.active.id
		s.mu.Unlock()
		s.v1Problem(w, http.StatusConflict, "concurrent_run", "Concurrent Run", "A run is already active on thread "+t.ID, func(p *v1Problem) {
			p.ThreadID, p.CurrentRunID = t.ID, cur
		})
		return
	}
	last := t.LastCompletedRunID
	switch {
	case in.PreviousRunID == "" && last != "":
		s.mu.Unlock()
		s.v1Problem(w, 400, "invalid_previous_run", "Invalid Previous Run", "previousRunId is required when continuing a thread with existing messages", nil)
		return
	case in.PreviousRunID != "" && in.PreviousRunID != last:
		if last == "" {
			last = "(none)"
		}
		s.mu.Unlock()
		s.v1Problem(w, 400, "invalid_previous_run", "Invalid Previous Run",
			fmt.Sprintf("previousRunId %s does not match last completed run %s", in.PreviousRunID, last), nil)
		return
	}
	var resultIDs []string
	results := map[string]string{}
	for _, c := range in.Message.Content {
		if c.Type == "tool_result" {
			resultIDs = append(resultIDs, c.ToolUseID)
			results[c.ToolUseID] = RunMessage{Content: c.Content}.Text()
		}
	}
	var missing, extra []string
	for _, p := range t.pending {
		if !slices.Contains(resultIDs, p.id) {
			missing = append(missing, p.id)
		}
	}
	for _, id := range resultIDs {
		if !slices.ContainsFunc(t.pending, func(p v1PendingCall) bool { return p.id == id }) {
			extra = append(extra, id)
		}
	}
	switch {
	case len(missing) > 0:
		s.mu.Unlock()
		s.v1Problem(w, 400, "invalid_tool_result", "Invalid Tool Result", "Missing tool results for pending tool calls: "+strings.Join(missing, ", "), func(p *v1Problem) {
			p.Code, p.Missing = "MISSING_RESULTS", missing
		})
		return
	case len(extra) > 0:
		s.mu.Unlock()
		s.v1Problem(w, 400, "invalid_tool_result", "Invalid Tool Result", "Tool results provided for unknown tool calls: "+strings.Join(extra, ", "), func(p *v1Problem) {
			p.Code, p.Extra = "EXTRA_RESULTS", extra
		})
		return
	}

	// The run starts: its messages are stored, the thread streams.
	run := &v1Run{id: s.newID("run_"), stop: make(chan struct{})}
	t.active, t.pending, t.PendingToolCallIDs = run, nil, nil
	t.RunStatus, t.CurrentRunID, t.StatusMessage = "streaming", run.id, "Streaming response..."
	t.LastRunCancelled, t.LastRunError = false, nil
	ts := now()
	t.UpdatedAt = ts
	var text []RunContent
	for _, c := range in.Message.Content {
		if c.Type == "tool_result" {
			// A tool result is listed as an assistant message of its own (46).
			t.messages = append(t.messages, &v1Message{ID: s.newID("msg_"), Role: "assistant", Content: contentMaps([]RunContent{c}), CreatedAt: ts})
		} else {
			text = append(text, c)
		}
	}
	if len(text) > 0 {
		t.messages = append(t.messages, &v1Message{ID: s.newID("msg_"), Role: "user", Content: contentMaps(text), CreatedAt: ts})
	}
	var sc RunScript
	if len(s.v1.scripts) > 0 {
		sc, s.v1.scripts = s.v1.scripts[0], s.v1.scripts[1:]
	}
	if !runnable(in.Message.Content) && sc.Error == nil {
		// Content that passes validation but cannot be run (empty, an
		// unknown block type) fails after RUN_STARTED (77, 79).
		sc.Error, sc.ErrorAfter = &RunError{}, 0
	}
	pace := s.throttle
	plan := s.planRun(sc, &in, resultIDs, results)
	s.mu.Unlock()
	if sc.Pace > 0 {
		pace = sc.Pace
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if create {
		h.Set("X-Thread-Id", t.ID)
	}
	h.Set("X-Run-Id", run.id)
	w.WriteHeader(http.StatusCreated)
	if f, ok := w.(http.Flusher); ok {
		f.Flush() // the headers go before the first event, as live
	}
	rs := &runStream{s: s, w: w, r: r, t: t, run: run, sc: sc, pace: pace}
	rs.play(plan)
}

// validateRun is the service's class-validator pass over a run body.
func validateRun(in *RunRequest) []string {
	var msgs []string
	if m := in.Message; m != nil {
		if m.Role != "user" {
			msgs = append(msgs, "message.role must be one of the following values: user")
		}
		for i, c := range m.Content {
			if c.Type == "text" && c.Text == "" {
				msgs = append(msgs, fmt.Sprintf("message.content.%d.text should not be empty", i))
			}
		}
	}
	for i, tl := range in.Tools {
		if !isJSONObject(tl.InputSchema) {
			msgs = append(msgs, fmt.Sprintf("tools.%d.inputSchema must be an object", i))
		}
	}
	if in.Temperature != nil && *in.Temperature > 2 {
		msgs = append(msgs, "temperature must not be greater than 2")
	}
	if in.Temperature != nil && *in.Temperature < 0 {
		msgs = append(msgs, "temperature must not be less than 0")
	}
	return msgs
}

// runnable reports whether the service's model call accepts content.
func runnable(cs []RunContent) bool {
	if len(cs) == 0 {
		return false
	}
	for _, c := range cs {
		if c.Type != "text" && c.Type != "resource" && c.Type != "tool_result" {
			return false
		}
	}
	return true
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// contentMaps stores content blocks as the generic JSON the fake keeps.
func contentMaps(cs []RunContent) []block {
	out := make([]block, 0, len(cs))
	for _, c := range cs {
		b, _ := json.Marshal(c)
		var m block
		json.Unmarshal(b, &m)
		out = append(out, m)
	}
	return out
}

// runPlan is what a run streams, decided when it starts.
type runPlan struct {
	text      []string // the deltas of the reply
	textFirst bool     // the text comes before the tool calls, in one turn
	calls     []RunToolCall
	component *RunComponent
}

// planRun decides a run's events from its script and request; s.mu held.
func (s *Server) planRun(sc RunScript, in *RunRequest, resultIDs []string, results map[string]string) runPlan {
	var p runPlan
	userText := in.Message.Text()
	reply := sc.Text
	switch {
	case len(sc.Deltas) > 0:
		p.text = sc.Deltas
	case reply != "":
		p.text = words(reply)
	}
	for _, c := range sc.ToolCalls {
		if c.ID == "" {
			s.toolCalls++
			c.ID = fmt.Sprintf("call_%d", s.toolCalls)
		}
		p.calls = append(p.calls, c)
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
	scripted := p.text != nil || len(p.calls) > 0 || p.component != nil
	switch {
	case scripted:
		p.textFirst = len(p.calls) > 0 && p.text != nil
	case len(resultIDs) > 0:
		var rs []string
		for _, id := range resultIDs {
			rs = append(rs, results[id])
		}
		p.text = words("The tool said: " + strings.Join(rs, "; ") + ".")
	case len(in.Tools) > 0 && userText != "":
		s.toolCalls++
		tl := in.Tools[0]
		p.calls = []RunToolCall{{ID: fmt.Sprintf("call_%d", s.toolCalls), Name: tl.Name, Arguments: argumentsFor(tl.InputSchema, userText)}}
	default:
		p.text = words("You said: " + userText)
	}
	return p
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
	Timestamp       int64  `json:"timestamp"`
}

// runStream writes one run's events with its script's faults and pacing.
type runStream struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	t    *v1Thread
	run  *v1Run
	sc   RunScript
	pace time.Duration
	sent int  // events sent after RUN_STARTED
	done bool // the stream has ended (its last event written, or cut)
}

// play streams the plan and ends the run.
func (rs *runStream) play(p runPlan) {
	s, t, run := rs.s, rs.t, rs.run
	if !rs.emit(runEvent{Type: "RUN_STARTED", ThreadID: t.ID, RunID: run.id}, false) {
		return
	}
	// The reply message is stored from the start, with its " " text.
	s.mu.Lock()
	if run.end == nil {
		run.reply = &v1Message{ID: s.newID("msg_"), Role: "assistant", Content: []block{{"type": "text", "text": " "}}, CreatedAt: now()}
		t.messages = append(t.messages, run.reply)
	}
	replyID := ""
	if run.reply != nil {
		replyID = run.reply.ID
	}
	s.mu.Unlock()

	if p.component != nil {
		if !rs.component(replyID, *p.component) {
			return
		}
		// The text after a component is the model's second answer, a new
		// message (87, 88).
		s.mu.Lock()
		if run.end == nil {
			run.reply = &v1Message{ID: s.newID("msg_"), Role: "assistant", Content: []block{{"type": "text", "text": " "}}, CreatedAt: now()}
			run.deltas = nil
			t.messages = append(t.messages, run.reply)
			replyID = run.reply.ID
		}
		s.mu.Unlock()
	}
	textOpen := false
	if p.text != nil && (p.textFirst || len(p.calls) == 0) {
		if !rs.emit(runEvent{Type: "TEXT_MESSAGE_START", MessageID: replyID, Role: "assistant"}, true) {
			return
		}
		for _, d := range p.text {
			if !rs.emit(runEvent{Type: "TEXT_MESSAGE_CONTENT", MessageID: replyID, Delta: d}, true) {
				return
			}
		}
		textOpen = true
	}
	var pending []v1PendingCall
	if len(p.calls) > 0 {
		parent := ""
		if textOpen {
			parent = s.tempID() // a temporary id, not the msg_ id (52)
		}
		for _, c := range p.calls {
			args, _ := json.Marshal(c.Arguments)
			if c.Arguments == nil {
				args = []byte("{}")
			}
			if !rs.emit(runEvent{Type: "TOOL_CALL_START", ToolCallID: c.ID, ToolCallName: c.Name, ParentMessageID: parent}, true) {
				return
			}
			for _, piece := range pieces(string(args), 4) {
				if !rs.emit(runEvent{Type: "TOOL_CALL_ARGS", ToolCallID: c.ID, Delta: piece}, true) {
					return
				}
			}
			if !rs.emit(runEvent{Type: "TOOL_CALL_END", ToolCallID: c.ID}, true) {
				return
			}
			pending = append(pending, v1PendingCall{id: c.ID, name: c.Name, args: string(args)})
			s.mu.Lock()
			if run.end == nil {
				// The stored message keeps only the last call's tool_use
				// block, as live (130, 135).
				var input any
				json.Unmarshal(args, &input)
				run.reply.Content = []block{run.reply.Content[0], {"type": "tool_use", "id": c.ID, "name": c.Name, "input": input}}
			}
			s.mu.Unlock()
		}
	}
	if textOpen {
		if !rs.emit(runEvent{Type: "TEXT_MESSAGE_END", MessageID: replyID}, true) {
			return
		}
	}
	if len(pending) > 0 {
		type wirePending struct {
			ToolCallID string `json:"toolCallId"`
			ToolName   string `json:"toolName"`
			Arguments  string `json:"arguments"`
		}
		list := make([]wirePending, len(pending))
		for i, pc := range pending {
			list[i] = wirePending{pc.id, pc.name, pc.args}
		}
		if !rs.emit(runEvent{Type: "CUSTOM", Name: "tambo.run.awaiting_input", Value: map[string]any{"pendingToolCalls": list}}, true) {
			return
		}
	}
	// The end: recorded first, so that a GET after the last event sees it.
	e := runEnd{kind: endFinished}
	if len(pending) > 0 {
		e = runEnd{kind: endAwaiting, pending: pending}
	}
	if !rs.check() {
		return
	}
	s.mu.Lock()
	ended := s.endRunLocked(t, run, e)
	s.mu.Unlock()
	if !ended {
		rs.stopped()
		return
	}
	rs.write(runEvent{Type: "RUN_FINISHED", ThreadID: t.ID, RunID: run.id})
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
	}{id, props}}, true) {
		return false
	}
	s.mu.Lock()
	if run.end == nil {
		run.reply.Content = append(run.reply.Content, map[string]any{"type": "component", "id": id, "name": c.Name, "props": props, "state": map[string]any{}})
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
// RUN_ERROR CANCELLED, or a failure's pair.
func (rs *runStream) stopped() {
	rs.s.mu.Lock()
	e := *rs.run.end
	rs.s.mu.Unlock()
	switch e.kind {
	case endCancelled:
		rs.write(runEvent{Type: "RUN_ERROR", Message: "Run cancelled", Code: "CANCELLED"})
	case endFailed:
		rs.failed(e.err)
	}
	rs.done = true
}

// failed writes a failure's RUN_ERROR twice, as the service does.
func (rs *runStream) failed(e RunError) {
	e = e.filled()
	retry := e.Retryable
	for range 2 {
		rs.write(runEvent{Type: "RUN_ERROR", Message: e.Message, Code: e.Code, Category: e.Category, IsRetryable: &retry, Status: e.Status})
	}
	rs.done = true
}

// write sends one event as its own chunk.
func (rs *runStream) write(ev runEvent) bool {
	ev.Timestamp = time.Now().UnixMilli()
	var b bytes.Buffer
	b.WriteString("data: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as JSON.stringify
	enc.Encode(ev)           // ends with a newline
	b.WriteString("\n")
	if _, err := rs.w.Write(b.Bytes()); err != nil {
		rs.s.mu.Lock()
		rs.s.endRunLocked(rs.t, rs.run, runEnd{kind: endCancelled})
		rs.s.mu.Unlock()
		rs.done = true
		return false
	}
	if f, ok := rs.w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// v1Cancel serves DELETE /v1/threads/{id}/runs/{runId}: 200 while the run
// is active, else 404. The thread shows the cancel before the answer.
func (s *Server) v1Cancel(w http.ResponseWriter, t *v1Thread, runID string) {
	s.mu.Lock()
	run := t.active
	ok := run != nil && run.id == runID && s.endRunLocked(t, run, runEnd{kind: endCancelled})
	s.mu.Unlock()
	if !ok {
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Run %s not found on thread %s", runID, t.ID))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		RunID  string `json:"runId"`
		Status string `json:"status"`
	}{runID, "cancelled"})
}

// block is a stored content block. It is sent with its keys in the
// service's order ("type" first, then "text", "id", "name"...), so that
// a message reads as the captures show it; keys the service does not
// send follow, sorted.
type block map[string]any

// blockKeys is the service's key order of content blocks (40, 46, 88, 134).
var blockKeys = [...]string{"type", "uri", "text", "id", "name", "input", "toolUseId", "content", "isError", "mimeType", "resource", "props", "state"}

// MarshalJSON writes b with its keys in the service's order.
func (b block) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	keys := make([]string, 0, len(b))
	for _, k := range blockKeys {
		if _, ok := b[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range b {
		if !slices.Contains(blockKeys[:], k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for i, k := range append(keys, rest...) {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		v := b[k]
		switch tv := v.(type) {
		case map[string]any:
			if k == "resource" {
				v = block(tv) // uri, text, mimeType as live (134)
			}
		case []any:
			if k == "content" {
				nested := make([]any, len(tv))
				for j, e := range tv {
					if m, ok := e.(map[string]any); ok {
						nested[j] = block(m)
					} else {
						nested[j] = e
					}
				}
				v = nested
			}
		}
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		buf.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
