package threadstest

// The /v1 runs (spec/v1/v1-api.md sections 5 and 6): POST /v1/threads/runs
// and POST /v1/threads/{id}/runs answer 201 text/event-stream with the
// service's AG-UI events, one "data:" line each, in the live order and
// shapes; DELETE /v1/threads/{id}/runs/{runId} cancels. The thread's run
// columns (runStatus, currentRunId, statusMessage, lastRunCancelled,
// lastRunError, pendingToolCallIds, lastCompletedRunId) and its messages
// follow the run as the captures show them, including the data loss of a
// failed run, which stores " " instead of the streamed text, and, with
// WithLastToolCallOnly, that of parallel tool calls: the assistant message
// keeps only the last tool_use block and the model reads only its result.
//
// A cancel by DELETE ends the stream with RUN_ERROR CANCELLED, or, with
// WithCancelledRunsFinished, RUN_FINISHED with the text message open and
// one delta less stored (captures 22-29).
//
// Not copied: the model's retries and their seconds of silence; the
// timing of a cancel (live, the stream ends when the model's next chunk
// would come); the delta a disconnect loses (here the stored text is what
// was sent); the server-side (MCP) tools and thread auto-naming.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// RunScript shapes the next /v1 run. Queue one with [Server.PushRunScript];
// each run (POST /v1/threads/runs or /v1/threads/{id}/runs, including one
// that sends tool results) takes the oldest queued script. The zero
// RunScript is the default model (the package doc's "The default /v1
// model": it calls the first offered tool, quotes tool results, or echoes
// the user's text), its reply streamed as live: TEXT_MESSAGE_START, one
// TEXT_MESSAGE_CONTENT per word, TEXT_MESSAGE_END, RUN_FINISHED.
//
// The counts ErrorAfter, HoldAfter and DropAfter count the events sent
// after RUN_STARTED: 0 acts right after RUN_STARTED. As live, toolChoice,
// model, maxTokens and temperature are accepted (and validated) but change
// nothing.
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
	Error      *RunFailure
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
	// OnHoldRun, when not nil, is called as OnHold is, with the held
	// run's thread and run ids (what a test needs to cancel it by id).
	OnHoldRun func(threadID, runID string)
	// PauseWindow, when not nil, opens the service's pause window in a
	// run that pauses for tools: tambo.run.awaiting_input is sent and
	// flushed, but the run is recorded as complete (and RUN_FINISHED
	// sent) only once PauseWindow is closed, as the service records it a
	// moment after the event (captures-turn5 29-31). A continuation of
	// the run that arrives inside the window is refused 400
	// invalid_previous_run, as the service refuses it; a client that
	// closes the connection inside it cancels the run. OnPauseWindow, when
	// not nil, is called when the window opens.
	PauseWindow   <-chan struct{}
	OnPauseWindow func()
	// Drop, when set, cuts the connection after DropAfter events, without
	// RUN_FINISHED. The run ends cancelled, as when a client disconnects.
	Drop      bool
	DropAfter int
	// Pace is the pause between two events of this run. 0 uses the
	// server's throttle ([WithThrottle], [WithLiveHabits]): none by
	// default, 50ms with the live habits.
	Pace time.Duration
	// CancelEnd is how this run's stream ends when a DELETE
	// /v1/threads/{id}/runs/{runId} cancels it, from any connection:
	// "RUN_ERROR", one RUN_ERROR CANCELLED with no TEXT_MESSAGE_END and
	// the streamed text stored, as the service did in 6 of 7 tries
	// (captures 22-25); or "RUN_FINISHED", while the text message is
	// still open, the text stored without the last delta streamed, as it
	// did in 1 of 7 (captures 26-29: the stream alone does not tell the
	// cancel). Either way the thread says lastRunCancelled, the reply
	// isCancelled, and the stored text has no trailing white space. ""
	// (or any other value) is the server's choice: "RUN_FINISHED" with
	// [WithCancelledRunsFinished], else "RUN_ERROR" ([WithLiveHabits] too).
	CancelEnd string
	// Reasoning, when set, is the model's reasoning, streamed before the
	// reply under the names it chooses (see [RunReasoning]).
	Reasoning *RunReasoning
	// ParentMessageID, when set, makes the reply a child of that message
	// (as a message made during an MCP server's sampling is): the
	// service's CUSTOM tambo.message.parent comes before each of the
	// reply's events, and the stored reply has the parentMessageId.
	ParentMessageID string
	// PauseTwice, with ToolCalls, delivers the run's pause twice, as a
	// service that delivers it again would: the first continuation of it
	// (one that the fake accepts) is answered with the same pause again,
	// the same run id and tool call ids, and the thread stays paused
	// there; the next continuation goes on with the scripts. A runner that
	// runs a call once ([threads.ToolGuards]) answers the repeat with the
	// results it sent, without running the tools again.
	PauseTwice bool
	// WithoutServiceArguments keeps the service's two arguments out of
	// this run's tool calls whatever the server's options
	// ([WithServiceToolArguments], [WithLiveHabits]), except in a call
	// that sets their values.
	WithoutServiceArguments bool
	// Usage, when set, is sent as AG-UI 1.0's usage on the run's
	// RUN_FINISHED, or on its RUN_ERROR when it fails (the service does
	// not send usage today): a runs client sums it in Result.Usage.
	Usage []TokenUsage
	// Interrupts, when set, end the run waiting for input from outside
	// (a person's approval, a missing value): its RUN_FINISHED carries
	// AG-UI 1.0's outcome {"type": "interrupt", "interrupts": [...]},
	// which a runs client reads as runs.RunEnding.Interrupts. The next run
	// answers them in resume[] ([RunRequest].Resume), which the fake
	// records and does not check. The run is otherwise recorded as the
	// rest of its script makes it. The service sends no interrupts today.
	Interrupts []RunInterrupt
}

// RunInterrupt is an AG-UI interrupt that ends a scripted run
// ([RunScript].Interrupts), in AG-UI's JSON.
type RunInterrupt struct {
	// ID names the interrupt; a resume entry answers it by this id. ""
	// makes one: int_1, int_2... in the script's order.
	ID string `json:"id"`
	// Reason is why the run stopped, an open string: "" sends
	// "input_required" (AG-UI requires one).
	Reason string `json:"reason"`
	// Message is the prompt a person reads.
	Message string `json:"message,omitempty"`
	// ToolCallID binds the interrupt to a tool call (a tool approval).
	ToolCallID string `json:"toolCallId,omitempty"`
	// ResponseSchema is the JSON Schema of the answer expected.
	ResponseSchema map[string]any `json:"responseSchema,omitempty"`
	// ExpiresAt is when it stops being answerable, ISO 8601, as given.
	ExpiresAt string         `json:"expiresAt,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TokenUsage is the tokens one provider's model spent, as AG-UI 1.0's
// usage reports them ([RunScript].Usage).
type TokenUsage struct {
	Provider              string `json:"provider,omitempty"`
	Model                 string `json:"model,omitempty"`
	InputTokens           int64  `json:"inputTokens,omitempty"`
	OutputTokens          int64  `json:"outputTokens,omitempty"`
	TotalTokens           int64  `json:"totalTokens,omitempty"`
	ReasoningTokens       int64  `json:"reasoningTokens,omitempty"`
	CachedInputTokens     int64  `json:"cachedInputTokens,omitempty"`
	CacheWriteInputTokens int64  `json:"cacheWriteInputTokens,omitempty"`
}

// ResumeEntry is AG-UI's answer to an interrupt, as a run request carried
// it in "resume" ([RunRequest].Resume). The fake records it and, as the
// service, does nothing with it.
type ResumeEntry struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload"`
	Metadata    map[string]any  `json:"metadata"`
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
	// StatusMessage and CompletionStatusMessage are the values the model
	// gives the service's two arguments, "_tambo_statusMessage" and
	// "_tambo_completionStatusMessage", which then come first in the
	// call's arguments (see [WithServiceToolArguments]). Setting either
	// sends both, whatever the options; with the option on, one left
	// empty is the user's text.
	StatusMessage           string
	CompletionStatusMessage string
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
	// FinalState, when not nil, is sent as tambo.component.end's
	// finalState (an empty map as {}), which a runs client reads as
	// runs.ComponentEnd.FinalState and runs.ComponentEvent.State
	// (DecodeState decodes it), and is the stored component's state. nil
	// sends none, as the service does today (capture 87), and the stored
	// state is {} (88). The service declares finalState but never sets
	// it, so no capture shows one: what it would store is this fake's
	// reading.
	FinalState map[string]any
}

// RunFailure is how a scripted run fails. The zero RunFailure is what the
// service sends when the model fails after its retries: code
// INTERNAL_ERROR, "An internal error occurred", category server_error,
// status 500. A client of package runs reads it as a runs.RunFailedError
// from the stream and as the thread's runs.RunError, whose Message is
// Cause.
type RunFailure struct {
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

// PushRunScript queues a script for a later /v1 run: each run takes the
// oldest queued script, and a run with none queued is the default model
// (see [RunScript]).
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
	PreviousRunID string `json:"previousRunId"`
	// Resume is AG-UI's answers to interrupts, as sent (runs.RunParams.Resume);
	// the service ignores it today, and so does the fake.
	Resume              []ResumeEntry       `json:"resume"`
	Tools               []RunToolDefinition `json:"tools"`
	AvailableComponents []OfferedComponent  `json:"availableComponents"`
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
// IsError). A tool_result's Content holds its parts, text and resource
// blocks (what runs.Client.RunTools sends for a tool with CallParts,
// such as threads.NewPartsTool's); the fake stores them as sent, each
// tool_result as an assistant message of its own, as the service does.
type RunContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Resource  json.RawMessage `json:"resource,omitempty"`
	ToolUseID string          `json:"toolUseId,omitempty"`
	Content   []RunContent    `json:"content,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
}

// RunToolDefinition is a client tool a run offers to the model: the wire
// definition, runs.ToolDefinition as the fake received it.
type RunToolDefinition struct {
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
	// finishOnCancel: a cancel by DELETE ends the stream RUN_FINISHED and
	// keeps one delta less (WithCancelledRunsFinished, RunScript.CancelEnd).
	finishOnCancel bool
	pauseTwice     *RunScript // its script, when its pause is to be delivered twice
	// window: the run sent its pause and is not yet recorded as complete
	// (RunScript.PauseWindow).
	window bool
}

// v1Replay is a pause to deliver again (RunScript.PauseTwice): the paused
// run's id and its script, the calls with their ids.
type v1Replay struct {
	runID string
	sc    RunScript
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
	err     RunFailure
	pending []v1PendingCall
	// byRequest: cancelled by DELETE .../runs/{runId}, not by a
	// disconnect.
	byRequest bool
}

func runInternalError(cause string) RunFailure { return RunFailure{Cause: cause} }

// filled returns e with its defaults.
func (e RunFailure) filled() RunFailure {
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
		t.replay = nil
		if sc := run.pauseTwice; sc != nil {
			again := RunScript{ToolCalls: slices.Clone(sc.ToolCalls), WithoutServiceArguments: sc.WithoutServiceArguments}
			for i := range again.ToolCalls {
				if i < len(e.pending) {
					again.ToolCalls[i].ID = e.pending[i].id
				}
			}
			t.replay = &v1Replay{runID: run.id, sc: again}
		}
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
			if e.byRequest {
				run.keepCancelledText()
			}
		}
	}
	close(run.stop)
	return true
}

// keepCancelledText stores the text of a run cancelled by DELETE as the
// service does: without trailing white space (25), and without the last
// delta streamed when the stream ends RUN_FINISHED (29). s.mu is held.
func (run *v1Run) keepCancelledText() {
	deltas := run.deltas
	if run.finishOnCancel && len(deltas) > 0 {
		deltas = deltas[:len(deltas)-1]
	}
	if text := strings.TrimRight(strings.Join(deltas, ""), " \n"); text != "" {
		setText(run.reply, text)
	} else if len(run.deltas) > 0 {
		setText(run.reply, " ")
	}
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

// v1Run serves POST /v1/threads/runs (c.t nil: the thread is created) and
// POST /v1/threads/{id}/runs.
func (s *Server) v1Run(c *call) {
	w := c.w
	var in RunRequest
	json.Unmarshal(c.body, &in) // serveV1 refused a body that is not JSON
	if msgs := validateRun(&in); len(msgs) > 0 {
		v1ErrorList(w, http.StatusBadRequest, "Bad Request", msgs)
		return
	}
	t, create := c.t, c.t == nil
	if create {
		// The service creates the thread before it looks at the run, so a
		// run refused below leaves it behind (75, 128).
		t = s.createRunThread(&in, c.user)
	}
	if in.Message == nil {
		internalError(w)
		return
	}
	s.mu.Lock()
	if refuse := s.runRefusalLocked(t, &in); refuse != nil {
		s.mu.Unlock()
		refuse(w)
		return
	}
	var rs *runStream
	if t.replay != nil && !create {
		rs = s.replayRunLocked(t, &in)
	} else {
		rs = s.startRunLocked(t, &in)
	}
	s.mu.Unlock()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if create {
		h.Set("X-Thread-Id", t.ID)
	}
	h.Set("X-Run-Id", rs.run.id)
	w.WriteHeader(http.StatusCreated)
	if f, ok := w.(http.Flusher); ok {
		f.Flush() // the headers go before the first event, as live
	}
	rs.w, rs.r = w, c.r
	rs.play()
}

// createRunThread stores the thread of POST /v1/threads/runs with its
// metadata and initial messages.
func (s *Server) createRunThread(in *RunRequest, ctxKey string) *v1Thread {
	meta := in.ThreadMetadata
	var initial []RunMessage
	if in.Thread != nil {
		if meta == nil {
			meta = in.Thread.Metadata
		}
		initial = in.Thread.InitialMessages
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.newV1ThreadLocked(ctxKey, meta)
	for _, m := range initial {
		t.messages = append(t.messages, &v1Message{ID: s.newID("msg_"), Role: m.Role, Content: contentMaps(m.Content), CreatedAt: t.CreatedAt})
	}
	return t
}

// toolResults are the tool results a run's message carries, in order,
// and each one's text.
func toolResults(m *RunMessage) (ids []string, texts map[string]string) {
	texts = map[string]string{}
	for _, c := range m.Content {
		if c.Type == "tool_result" {
			ids = append(ids, c.ToolUseID)
			texts[c.ToolUseID] = RunMessage{Content: c.Content}.Text()
		}
	}
	return ids, texts
}

// runRefusalLocked returns the answer to a run the service refuses
// before it starts (a run already active, a previousRunId that is not the
// last completed run, tool results missing or extra), or nil. s.mu is
// held.
func (s *Server) runRefusalLocked(t *v1Thread, in *RunRequest) func(http.ResponseWriter) {
	problem := func(status int, code, title, detail string, extra func(*v1Problem)) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) { s.v1Problem(w, status, code, title, detail, extra) }
	}
	if t.active != nil && t.active.window && in.PreviousRunID != "" {
		// The service checks previousRunId against the last completed
		// run before it looks for an active one (captures-turn5 30).
		last := t.LastCompletedRunID
		if last == "" {
			last = "(none)"
		}
		return problem(400, "invalid_previous_run", "Invalid Previous Run",
			fmt.Sprintf("previousRunId %s does not match last completed run %s", in.PreviousRunID, last), nil)
	}
	if t.active != nil {
		cur := t.active.id
		return problem(http.StatusConflict, "concurrent_run", "Concurrent Run", "A run is already active on thread "+t.ID, func(p *v1Problem) {
			p.ThreadID, p.CurrentRunID = t.ID, cur
		})
	}
	last := t.LastCompletedRunID
	switch {
	case in.PreviousRunID == "" && last != "":
		return problem(400, "invalid_previous_run", "Invalid Previous Run", "previousRunId is required when continuing a thread with existing messages", nil)
	case in.PreviousRunID != "" && in.PreviousRunID != last:
		if last == "" {
			last = "(none)"
		}
		return problem(400, "invalid_previous_run", "Invalid Previous Run",
			fmt.Sprintf("previousRunId %s does not match last completed run %s", in.PreviousRunID, last), nil)
	}
	resultIDs, _ := toolResults(in.Message)
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
		return problem(400, "invalid_tool_result", "Invalid Tool Result", "Missing tool results for pending tool calls: "+strings.Join(missing, ", "), func(p *v1Problem) {
			p.Code, p.Missing = "MISSING_RESULTS", missing
		})
	case len(extra) > 0:
		return problem(400, "invalid_tool_result", "Invalid Tool Result", "Tool results provided for unknown tool calls: "+strings.Join(extra, ", "), func(p *v1Problem) {
			p.Code, p.Extra = "EXTRA_RESULTS", extra
		})
	}
	return nil
}

// startRunLocked starts a run on t: the thread streams, the message is
// stored, the next script is taken and the run's events are planned. s.mu
// is held.
func (s *Server) startRunLocked(t *v1Thread, in *RunRequest) *runStream {
	run := &v1Run{id: s.newID("run_"), stop: make(chan struct{})}
	var lastCall string // the paused turn's last call: the one the model kept
	if n := len(t.pending); n > 0 {
		lastCall = t.pending[n-1].id
	}
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
		sc.Error, sc.ErrorAfter = &RunFailure{}, 0
	}
	run.finishOnCancel = sc.CancelEnd == "RUN_FINISHED" || (sc.CancelEnd != "RUN_ERROR" && s.cfg.cancelFinishes)
	if sc.PauseTwice && len(sc.ToolCalls) > 0 {
		run.pauseTwice = &sc
	}
	pace := s.throttle
	if sc.Pace > 0 {
		pace = sc.Pace
	}
	return &runStream{s: s, t: t, run: run, sc: sc, pace: pace, plan: s.planRun(sc, in, lastCall)}
}

// replayRunLocked answers a continuation of a pause to deliver twice
// (RunScript.PauseTwice) with that pause again: the same run id and
// calls; nothing of the request is stored. s.mu is held.
func (s *Server) replayRunLocked(t *v1Thread, in *RunRequest) *runStream {
	rp := t.replay
	t.replay = nil
	run := &v1Run{id: rp.runID, stop: make(chan struct{})}
	t.active, t.pending, t.PendingToolCallIDs = run, nil, nil
	t.RunStatus, t.CurrentRunID, t.StatusMessage = "streaming", run.id, "Streaming response..."
	t.UpdatedAt = now()
	return &runStream{s: s, t: t, run: run, sc: rp.sc, pace: s.throttle, plan: s.planRun(rp.sc, in, "")}
}

// v1Cancel serves DELETE /v1/threads/{id}/runs/{runId}: 200 while the run
// is active, else 404. The thread shows the cancel before the answer.
func (s *Server) v1Cancel(c *call) {
	t, runID := c.t, c.arg(1)
	s.mu.Lock()
	run := t.active
	ok := run != nil && run.id == runID && s.endRunLocked(t, run, runEnd{kind: endCancelled, byRequest: true})
	s.mu.Unlock()
	if !ok {
		v1Error(c.w, http.StatusNotFound, "Not Found", fmt.Sprintf("Run %s not found on thread %s", runID, t.ID))
		return
	}
	writeJSON(c.w, http.StatusOK, struct {
		RunID  string `json:"runId"`
		Status string `json:"status"`
	}{runID, "cancelled"})
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
