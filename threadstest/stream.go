package threadstest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Script shapes the next streamed reply. Queue one with [Server.PushScript];
// each advancestream call takes the oldest queued script (a scripted tool
// conversation takes one for all its rounds). The zero Script is the
// default reply.
type Script struct {
	// Replies are the assistant messages to stream, one after another, in
	// one stream. Empty means one reply derived from the user's message. A
	// reply that is empty or only white space stays " " (one space), as
	// the live service stores a message without text.
	//
	// With ToolCalls, Replies are instead the answer after the last tool
	// result (default: "The tool returned: <result 1>; <result 2>...").
	Replies []string

	// Snapshots, when set, streams one assistant message as exactly these
	// texts, one snapshot each, after the one-space placeholder; the last
	// is sent again as the closing snapshot. A text that does not extend
	// the one before it is a rewrite, which the SDK reports with
	// [threads.StreamEvent] TextReset: {"Hello wor", "Hello world", "Hi
	// there"} streams "Hello wor", then " world", then a reset to "Hi
	// there". Snapshots takes the place of Replies; it is not used with
	// ToolCalls.
	Snapshots []string

	// ToolCalls, when set, makes the script a client-tool conversation on
	// one thread, over several advancestream calls: the reply asks for
	// ToolCalls[0]; the next tool result sent to that thread (role "tool")
	// is answered by asking for ToolCalls[1], and so on; the result of the
	// last one is answered with Replies. Each request is streamed as live:
	// partial arguments in component.toolCallRequest with an empty
	// component.toolCallId, then a final FETCHING_CONTEXT snapshot with
	// toolCallRequest, tool_call_id ("call_1", "call_2"...) and actionType
	// "tool_call". The fault fields below apply to the first round only.
	// A cancel ends the conversation.
	ToolCalls []ScriptedToolCall

	// Error, when set, sends the error line ("error: Error in streaming
	// response") after ErrorAfter snapshots (0: before any), then
	// "data: DONE". ErrorAfter alone does nothing: set Error.
	Error      bool
	ErrorAfter int
	// Drop, when set, cuts the connection after DropAfter snapshots,
	// without "data: DONE". DropAfter alone does nothing: set Drop.
	Drop      bool
	DropAfter int
	// Hold, when not nil, pauses the stream after HoldAfter snapshots until
	// Hold is closed or the client goes away. HoldAfter alone does nothing.
	Hold      <-chan struct{}
	HoldAfter int
	// OnHold, when not nil, is called once, when the stream reaches its
	// Hold: the HoldAfter snapshots have been written and flushed, and the
	// stream pauses right after the call. A test learns so that the reply
	// is in flight (to cancel it, or interrupt its reader) without polling
	// the thread. It runs on the server's handler goroutine and must not
	// block. Without Hold it is not called.
	OnHold func()
	// Oversize, when > 0, first sends one snapshot whose text has that many
	// bytes.
	Oversize int
	// FirstByte, when not nil, holds the response headers until closed (or
	// the client goes away).
	FirstByte <-chan struct{}
}

// ScriptedToolCall is a client-tool call that a [Script] makes the reply ask for.
type ScriptedToolCall struct {
	// Name is the tool's name (toolCallRequest.toolName). The fake does not
	// check that the client offered it.
	Name string
	// Arguments become toolCallRequest.parameters, in the order of their
	// names: [{parameterName, parameterValue}].
	Arguments map[string]any
	// Twice makes the fake ask for this call again, with the same
	// tool_call_id, when its result arrives, as a service that delivers a
	// request twice would; the result of that repeat goes on with the
	// script (and is not listed twice in the default reply). A runner that
	// runs a call once ([threads.ToolGuards]) answers the repeat with the
	// result it sent, without running the tool again.
	Twice bool

	id string // the call's tool_call_id, for its repeat
}

// PushScript queues a script for a later advancestream call.
func (s *Server) PushScript(sc Script) {
	s.mu.Lock()
	s.scripts = append(s.scripts, sc)
	s.mu.Unlock()
}

// toolRun is a scripted tool conversation in progress on a thread.
type toolRun struct {
	script  Script
	next    int      // index of the next call to ask for
	results []string // the tool results received so far
	// again is a Twice call asked once, to ask again; repeating: the
	// last call asked was such a repeat.
	again     *ScriptedToolCall
	repeating bool
}

// advance answers POST /threads/advancestream and POST
// /threads/{id}/advancestream: 201 and a stream of snapshots, any failure
// in-band, then "data: DONE".
func (s *Server) advance(c *call) {
	w, r := c.w, c.r
	var in AdvanceRequest
	if err := json.Unmarshal(c.body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	var t *thread
	if len(c.args) > 0 {
		if t = s.lookup(w, c.arg(0)); t == nil {
			return
		}
	}
	msg := in.MessageToAppend
	sc, run, throttle := s.takeScript(t, msg)
	if sc.FirstByte != nil {
		select {
		case <-sc.FirstByte:
		case <-r.Context().Done():
			return
		}
	}
	st := &streamer{w: w, r: r, throttle: throttle, sc: sc}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusCreated)
	defer st.line("data: DONE")

	if msg == nil || msg.Role == "" || (msg.Role == "tool" && msg.ToolCallID == "") {
		st.line("error: Error in streaming response")
		return
	}
	s.mu.Lock()
	t, ok := s.startGenerationLocked(&in, t)
	if !ok {
		s.mu.Unlock()
		st.line("error: Error in streaming response")
		return
	}
	cancel := t.cancel
	replies, call := planReply(t, run, sc, &in)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		t.running = false
		if t.cancel == cancel {
			t.cancel = nil
		}
		s.mu.Unlock()
	}()
	st.cancel = cancel
	s.streamReply(st, t, run, replies, call)
}

// takeScript picks what shapes an advance: a tool result on a thread with
// a scripted conversation continues it (run); anything else takes the
// next script.
func (s *Server) takeScript(t *thread, msg *SentMessage) (sc Script, run *toolRun, throttle time.Duration) {
	isToolResult := msg != nil && msg.Role == "tool" && msg.ToolCallID != ""
	s.mu.Lock()
	defer s.mu.Unlock()
	if t != nil && t.run != nil && isToolResult {
		run = t.run
	} else if len(s.scripts) > 0 {
		sc, s.scripts = s.scripts[0], s.scripts[1:]
	}
	return sc, run, s.throttle
}

// startGenerationLocked stores the request's message on t (a new thread
// when t is nil) and marks t generating, with a new cancel channel. It
// returns false, changing nothing, where the live service fails the
// stream in-band: a thread already generating, a contextKey mismatch.
// s.mu is held.
func (s *Server) startGenerationLocked(in *AdvanceRequest, t *thread) (*thread, bool) {
	msg := in.MessageToAppend
	if t == nil {
		ts := now()
		t = &thread{ID: s.newID("thr_"), ProjectID: s.ProjectID, ContextKey: in.ContextKey, GenerationStage: "IDLE", CreatedAt: ts, UpdatedAt: ts}
		s.threads[t.ID] = t
		s.order = append(s.order, t.ID)
	}
	if t.running || (in.ContextKey != "" && in.ContextKey != t.ContextKey) {
		return t, false
	}
	t.running, t.cancel = true, make(chan struct{})
	content := msg.Content
	if content == nil {
		content = []SentPart{}
	}
	t.messages = append(t.messages, message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: msg.Role,
		Content: content, ToolCallID: msg.ToolCallID, Error: msg.Error,
		AdditionalContext: map[string]any{}, ComponentState: map[string]any{}})
	if msg.Role == "tool" && msg.Error != "" {
		// The live service copies a tool reply's error onto the call.
		for i := range t.messages {
			if t.messages[i].Role == "assistant" && t.messages[i].ToolCallID == msg.ToolCallID {
				t.messages[i].Error = msg.Error
			}
		}
	}
	t.GenerationStage, t.StatusMessage = "STREAMING_RESPONSE", "Streaming response..."
	return t, true
}

// planReply decides what an advance streams: text replies, then at most
// one tool call (nil replies with a script's Snapshots). s.mu is held.
func planReply(t *thread, run *toolRun, sc Script, in *AdvanceRequest) ([]string, *ScriptedToolCall) {
	msg := in.MessageToAppend
	userText := msg.Text()
	switch {
	case run != nil:
		if !run.repeating {
			run.results = append(run.results, userText)
		}
		run.repeating = false
		if again := run.again; again != nil {
			run.again, run.repeating = nil, true
			return nil, again
		}
		if run.next < len(run.script.ToolCalls) {
			run.next++
			return nil, &run.script.ToolCalls[run.next-1]
		}
		t.run = nil
		if len(run.script.Replies) > 0 {
			return run.script.Replies, nil
		}
		return []string{"The tool returned: " + strings.Join(run.results, "; ")}, nil
	case len(sc.ToolCalls) > 0:
		t.run = &toolRun{script: sc, next: 1}
		return nil, &sc.ToolCalls[0]
	case len(sc.Snapshots) > 0:
		t.run = nil
		return nil, nil
	}
	t.run = nil
	replies := sc.Replies
	if len(replies) == 0 {
		if msg.Role == "tool" {
			replies = []string{"The tool returned: " + userText}
		} else {
			replies = []string{"You said: " + userText}
		}
	}
	if msg.Role == "user" && len(in.ClientTools) > 0 {
		// The default model calls the first client tool, every parameter
		// set to a value of its type (a string: the user's text), in
		// place of the last reply.
		ct := in.ClientTools[0]
		args := map[string]any{}
		for _, p := range ct.Parameters {
			args[p.Name] = defaultArgument(p, userText)
		}
		return replies[:len(replies)-1], &ScriptedToolCall{Name: ct.Name, Arguments: args}
	}
	return replies, nil
}

// streamReply streams what planReply decided, with the script's faults.
func (s *Server) streamReply(st *streamer, t *thread, run *toolRun, replies []string, call *ScriptedToolCall) {
	sc := st.sc
	if sc.Error && sc.ErrorAfter == 0 {
		st.line("error: Error in streaming response")
		s.finishThread(t, "ERROR", "")
		return
	}
	if sc.Oversize > 0 {
		s.mu.Lock()
		big := message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: "assistant",
			Content: []SentPart{{Type: "text", Text: strings.Repeat("x", sc.Oversize)}}}
		s.mu.Unlock()
		st.send(snapshot{Message: big, GenerationStage: "STREAMING_RESPONSE", StatusMessage: "Streaming response..."})
	}
	if len(sc.Snapshots) > 0 && run == nil && len(sc.ToolCalls) == 0 {
		texts := append([]string{" "}, sc.Snapshots...)
		s.streamTexts(st, t, append(texts, sc.Snapshots[len(sc.Snapshots)-1]), true)
		return
	}
	for i, text := range replies {
		if !s.streamText(st, t, text, i == len(replies)-1 && call == nil) {
			return // cut, failed or cancelled: the streamer said so
		}
	}
	if call != nil {
		s.streamToolCall(st, t, *call)
	}
}

func (s *Server) finishThread(t *thread, stage, status string) {
	s.mu.Lock()
	t.GenerationStage, t.StatusMessage, t.UpdatedAt = stage, status, now()
	s.mu.Unlock()
}

// newAssistant makes an empty assistant message with the live defaults.
func (s *Server) newAssistant(t *thread) message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: "assistant",
		AdditionalContext: map[string]any{}, ComponentState: map[string]any{}, Reasoning: []string{}}
}

// streamText streams one assistant message as the live service does: a
// one-space placeholder, the text growing word by word, the final text
// twice, then (for the last message) COMPLETE. It returns false when the
// stream stopped early.
func (s *Server) streamText(st *streamer, t *thread, text string, last bool) bool {
	texts := []string{" "}
	if strings.TrimSpace(text) == "" {
		// No text: the placeholder stays, as live.
		if last {
			texts = append(texts, " ")
		}
	} else {
		acc := ""
		for _, wd := range strings.SplitAfter(text, " ") {
			acc += wd
			texts = append(texts, strings.TrimRight(acc, " "))
		}
		// The live service repeats the final text: once more while
		// streaming, and again in the closing snapshot.
		texts = append(texts, text, text)
	}
	return s.streamTexts(st, t, texts, last)
}

// streamTexts streams one assistant message, one snapshot per text, and
// stores it with the last text; the last snapshot of the last message is
// COMPLETE. It returns false when the stream stopped early.
func (s *Server) streamTexts(st *streamer, t *thread, texts []string, last bool) bool {
	m := s.newAssistant(t)
	for i, tx := range texts {
		m.Content = []SentPart{{Type: "text", Text: tx}}
		m.Component = &component{Message: tx, Role: "assistant"}
		stage, status := "STREAMING_RESPONSE", "Streaming response..."
		if i == len(texts)-1 && last {
			stage, status = "COMPLETE", "Complete"
		}
		if !st.send(snapshot{Message: m, GenerationStage: stage, StatusMessage: status}) {
			s.store(t, m, st.cancelled)
			return false
		}
	}
	s.store(t, m, false)
	if last {
		s.finishThread(t, "COMPLETE", "Complete")
	}
	return true
}

// streamToolCall streams an assistant message that asks the client to run
// a tool, as capture 45 shows: the placeholder, then
// component.toolCallRequest with no parameters, then partial and full
// arguments with an empty component.toolCallId, then the id, then the final
// FETCHING_CONTEXT snapshot with the top-level toolCallRequest, tool_call_id
// and actionType.
func (s *Server) streamToolCall(st *streamer, t *thread, call ScriptedToolCall) bool {
	s.mu.Lock()
	callID := call.id
	if callID == "" {
		s.toolCalls++
		callID = fmt.Sprintf("call_%d", s.toolCalls)
	}
	if call.Twice && call.id == "" && t.run != nil {
		again := call
		again.Twice, again.id = false, callID
		t.run.again = &again
	}
	s.mu.Unlock()
	m := s.newAssistant(t)
	m.Content = []SentPart{{Type: "text", Text: " "}}

	names := make([]string, 0, len(call.Arguments))
	for k := range call.Arguments {
		names = append(names, k)
	}
	slices.Sort(names)
	full := make([]toolArgs, 0, len(names))
	for _, n := range names {
		full = append(full, toolArgs{ParameterName: n, ParameterValue: call.Arguments[n]})
	}
	// Each step adds an argument, a string first cut to its first half.
	steps := [][]toolArgs{{}}
	for i, a := range full {
		if str, ok := a.ParameterValue.(string); ok && len(str) > 1 {
			partial := slices.Clone(full[:i])
			partial = append(partial, toolArgs{ParameterName: a.ParameterName, ParameterValue: str[:len(str)/2]})
			steps = append(steps, partial)
		}
		steps = append(steps, slices.Clone(full[:i+1]))
	}
	empty := ""
	snaps := []*component{{Message: " ", Role: "assistant"}}
	for _, args := range steps {
		snaps = append(snaps, &component{Message: " ", Role: "assistant", ToolCallReq: &toolCall{ToolName: call.Name, Parameters: args}, ToolCallID: &empty})
	}
	req := &toolCall{ToolName: call.Name, Parameters: full}
	snaps = append(snaps, &component{Message: " ", Role: "assistant", ToolCallReq: req, ToolCallID: &callID})
	for _, c := range snaps {
		m.Component = c
		if !st.send(snapshot{Message: m, GenerationStage: "STREAMING_RESPONSE", StatusMessage: "Streaming response..."}) {
			s.store(t, m, st.cancelled)
			return false
		}
	}
	m.ToolCallRequest, m.ToolCallID, m.ActionType = req, callID, "tool_call"
	if !st.send(snapshot{Message: m, GenerationStage: "FETCHING_CONTEXT", StatusMessage: "Fetching context..."}) {
		s.store(t, m, st.cancelled)
		return false
	}
	s.store(t, m, false)
	s.finishThread(t, "FETCHING_CONTEXT", "Fetching context...")
	return true
}

func (s *Server) store(t *thread, m message, cancelled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m.IsCancelled = cancelled
	t.messages = append(t.messages, m)
	t.UpdatedAt = now()
}

// streamer writes events with the throttle and the script's faults.
type streamer struct {
	w         http.ResponseWriter
	r         *http.Request
	throttle  time.Duration
	sc        Script
	sent      int
	cancel    <-chan struct{}
	cancelled bool
	stopped   bool
	held      bool // OnHold was called
}

func (st *streamer) line(l string) {
	if st.stopped {
		return
	}
	io.WriteString(st.w, l+"\n\n")
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
}

// send writes one snapshot after the throttle. It returns false when the
// stream must stop (fault, cancel, client gone); it has then written what
// the live service would.
func (st *streamer) send(snap snapshot) bool {
	if st.stopped {
		return false
	}
	if st.sent > 0 && st.throttle > 0 {
		t := time.NewTimer(st.throttle)
		select {
		case <-t.C:
		case <-st.cancel:
			t.Stop()
		case <-st.r.Context().Done():
			t.Stop()
			st.stopped = true
			return false
		}
	}
	select {
	case <-st.cancel:
		st.cancelled = true
		snap.GenerationStage, snap.StatusMessage = "CANCELLED", "cancelled"
		st.write(snap)
		return false
	default:
	}
	sc := st.sc
	if sc.Drop && st.sent == sc.DropAfter {
		st.stopped = true
		reset(st.w)
		return false
	}
	if sc.Error && st.sent == sc.ErrorAfter {
		st.line("error: Error in streaming response")
		return false
	}
	if sc.Hold != nil && st.sent == sc.HoldAfter {
		if sc.OnHold != nil && !st.held {
			st.held = true
			sc.OnHold()
		}
		select {
		case <-sc.Hold:
		case <-st.r.Context().Done():
			st.stopped = true
			return false
		}
	}
	st.write(snap)
	return true
}

func (st *streamer) write(snap snapshot) {
	writeData(st.w, snap)
	st.sent++
}

// writeData sends v as one server-sent event, "data: <JSON>", and
// flushes it.
func writeData(w http.ResponseWriter, v any) error {
	b := append([]byte("data: "), encodeJSON(v)...) // ends with a newline
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// defaultArgument is the value the default model passes for p: the first
// of its enum values, else one of its type, with text for a string.
func defaultArgument(p OfferedParameter, text string) any {
	typ, enum := p.Type, p.EnumValues
	if len(p.Schema) > 0 && (typ == "" || len(enum) == 0) {
		var sch struct {
			Type any   `json:"type"` // a name or a list of names
			Enum []any `json:"enum"`
		}
		if json.Unmarshal(p.Schema, &sch) == nil {
			if len(enum) == 0 && len(sch.Enum) > 0 {
				return sch.Enum[0]
			}
			if typ == "" {
				switch v := sch.Type.(type) {
				case string:
					typ = v
				case []any:
					if len(v) > 0 {
						typ, _ = v[0].(string)
					}
				}
			}
		}
	}
	if len(enum) > 0 {
		return enum[0]
	}
	switch typ {
	case "number", "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{text}
	case "object":
		return map[string]any{}
	}
	return text
}
