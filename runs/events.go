package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/jsonx"
)

// Event is one AG-UI event of a run stream: one of [RunStarted],
// [TextMessageStart], [TextMessageContent], [TextMessageEnd],
// [ToolCallStart], [ToolCallArgs], [ToolCallEnd], [AwaitingInput],
// [ComponentStart], [ComponentPropsDelta], [ComponentEnd], [RunFinished],
// [RunErrorEvent], or [UnknownEvent] for any other type (the service may
// add some; they are delivered, not refused). Switch on its dynamic type:
//
//	switch ev := s.Current().(type) {
//	case runs.TextMessageContent:
//		fmt.Print(ev.Delta)
//	case runs.AwaitingInput:
//		// run the tools in ev.PendingToolCalls, then continue the thread
//	}
type Event interface {
	// EventType returns the event's "type" as sent ("RUN_STARTED",
	// "TEXT_MESSAGE_CONTENT", "CUSTOM", ...).
	EventType() string
	isEvent()
}

// Event types as the service sends them in "type", and the names of its
// CUSTOM events.
const (
	EventRunStarted         = "RUN_STARTED"
	EventRunFinished        = "RUN_FINISHED"
	EventRunError           = "RUN_ERROR"
	EventTextMessageStart   = "TEXT_MESSAGE_START"
	EventTextMessageContent = "TEXT_MESSAGE_CONTENT"
	EventTextMessageEnd     = "TEXT_MESSAGE_END"
	EventToolCallStart      = "TOOL_CALL_START"
	EventToolCallArgs       = "TOOL_CALL_ARGS"
	EventToolCallEnd        = "TOOL_CALL_END"
	EventCustom             = "CUSTOM"

	CustomAwaitingInput  = "tambo.run.awaiting_input"
	CustomComponentStart = "tambo.component.start"
	CustomPropsDelta     = "tambo.component.props_delta"
	CustomComponentEnd   = "tambo.component.end"
)

// CodeCancelled is the RUN_ERROR code of a cancelled run (by Cancel, by
// the DELETE route, or by the connection closing). It is an outcome, not
// a failure: see [OutcomeCancelled].
const CodeCancelled = "CANCELLED"

// RunStarted opens every run.
type RunStarted struct {
	ThreadID, RunID string
	Timestamp       time.Time // the service's clock, millisecond precision
}

// RunFinished ends a run that was not cancelled or failed. A run that ends
// waiting for client tool results also ends with RunFinished, after an
// [AwaitingInput] event.
type RunFinished struct {
	ThreadID, RunID string
	Timestamp       time.Time
}

// RunErrorEvent ends a run that failed or was cancelled (Code
// [CodeCancelled]). The service sends each failure's RUN_ERROR twice; the
// stream delivers the first and ends there. A failure is also the stream's
// error, as a [*RunFailedError]; a cancel is not an error.
type RunErrorEvent struct {
	// Message is the service's text, made safe to show: one line of
	// printable text, at most 1 KiB, with the API key redacted.
	Message   string
	Code      string // "INTERNAL_ERROR", "LLM_CLIENT_ERROR", "CANCELLED", ...
	Category  string // "server_error", "client_error"; empty for a cancel
	Retryable bool   // the service's isRetryable
	Status    int    // the HTTP status the service gives the failure; 0 for a cancel
	Timestamp time.Time
}

// TextMessageStart opens an assistant message; MessageID is its stored
// id (msg_…).
type TextMessageStart struct {
	MessageID, Role string
	Timestamp       time.Time
}

// TextMessageContent is the next piece of a message's text: appending the
// deltas of a message in order gives its text. They are the model's chunks
// as sent, untrimmed.
type TextMessageContent struct {
	MessageID, Delta string
	Timestamp        time.Time
}

// TextMessageEnd closes a message. A failed or cancelled run may end
// without it.
type TextMessageEnd struct {
	MessageID string
	Timestamp time.Time
}

// ToolCallStart opens a call of a client tool. ParentMessageID, when set,
// is a temporary id of the service's, not the msg_… of the message the
// text came in.
type ToolCallStart struct {
	ToolCallID, ToolCallName, ParentMessageID string
	Timestamp                                 time.Time
}

// ToolCallArgs is the next piece of a call's arguments (JSON text):
// appending the deltas of a call in order gives its arguments.
type ToolCallArgs struct {
	ToolCallID, Delta string
	Timestamp         time.Time
}

// ToolCallEnd closes a tool call's arguments.
type ToolCallEnd struct {
	ToolCallID string
	Timestamp  time.Time
}

// AwaitingInput (CUSTOM tambo.run.awaiting_input) says the run stops to
// wait for the results of client tool calls. The run then finishes; the
// next run on the thread carries previousRunId (this run's id) and one
// tool_result per pending call.
type AwaitingInput struct {
	PendingToolCalls []PendingToolCall
	Timestamp        time.Time
}

// PendingToolCall is a client tool call whose result the service waits for.
type PendingToolCall struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	// Arguments is the model's raw JSON text, as the model wrote it.
	Arguments string `json:"arguments"`
}

// ComponentStart (CUSTOM tambo.component.start) opens a component the
// model renders in message MessageID. ComponentID is the id the component
// keeps (a message-… id) for its state.
type ComponentStart struct {
	MessageID, ComponentID, ComponentName string
	Timestamp                             time.Time
}

// ComponentPropsDelta (CUSTOM tambo.component.props_delta) changes a
// component's props by a JSON Patch (RFC 6902). The stream applies it to
// the props it keeps for the component: [Stream.ComponentProps] returns
// them.
type ComponentPropsDelta struct {
	ComponentID string
	Operations  []PatchOp
	// StreamingStatus says, per prop, "started", "streaming" or "done".
	StreamingStatus map[string]string
	Timestamp       time.Time
}

// ComponentEnd (CUSTOM tambo.component.end) closes a component with its
// final props, which replace what the patches built.
type ComponentEnd struct {
	ComponentID string
	FinalProps  map[string]any
	// FinalState is the component's final state (finalState), nil when
	// the service sent none: it sends none today, since a component's
	// state is not part of what the model writes.
	FinalState map[string]any
	Timestamp  time.Time
}

// UnknownEvent is an event of a type (or a CUSTOM name) this version does
// not know, kept as sent.
type UnknownEvent struct {
	Type string // "type"
	Name string // "name", for a CUSTOM event
	// Raw is the event's JSON, a copy the caller may keep (at most the
	// event size limit). It is an encoding/json RawMessage so that this
	// package's API names no third-party type.
	Raw json.RawMessage
}

// EventType returns [EventRunStarted].
func (RunStarted) EventType() string { return EventRunStarted }

// EventType returns [EventRunFinished].
func (RunFinished) EventType() string { return EventRunFinished }

// EventType returns [EventRunError].
func (RunErrorEvent) EventType() string { return EventRunError }

// EventType returns [EventTextMessageStart].
func (TextMessageStart) EventType() string { return EventTextMessageStart }

// EventType returns [EventTextMessageContent].
func (TextMessageContent) EventType() string { return EventTextMessageContent }

// EventType returns [EventTextMessageEnd].
func (TextMessageEnd) EventType() string { return EventTextMessageEnd }

// EventType returns [EventToolCallStart].
func (ToolCallStart) EventType() string { return EventToolCallStart }

// EventType returns [EventToolCallArgs].
func (ToolCallArgs) EventType() string { return EventToolCallArgs }

// EventType returns [EventToolCallEnd].
func (ToolCallEnd) EventType() string { return EventToolCallEnd }

// EventType returns [EventCustom]; the CUSTOM event's name is
// [CustomAwaitingInput].
func (AwaitingInput) EventType() string { return EventCustom }

// EventType returns [EventCustom]; the CUSTOM event's name is
// [CustomComponentStart].
func (ComponentStart) EventType() string { return EventCustom }

// EventType returns [EventCustom]; the CUSTOM event's name is
// [CustomPropsDelta].
func (ComponentPropsDelta) EventType() string { return EventCustom }

// EventType returns [EventCustom]; the CUSTOM event's name is
// [CustomComponentEnd].
func (ComponentEnd) EventType() string { return EventCustom }

// EventType returns the event's "type" as sent.
func (e UnknownEvent) EventType() string { return e.Type }

func (RunStarted) isEvent()          {}
func (RunFinished) isEvent()         {}
func (RunErrorEvent) isEvent()       {}
func (TextMessageStart) isEvent()    {}
func (TextMessageContent) isEvent()  {}
func (TextMessageEnd) isEvent()      {}
func (ToolCallStart) isEvent()       {}
func (ToolCallArgs) isEvent()        {}
func (ToolCallEnd) isEvent()         {}
func (AwaitingInput) isEvent()       {}
func (ComponentStart) isEvent()      {}
func (ComponentPropsDelta) isEvent() {}
func (ComponentEnd) isEvent()        {}
func (UnknownEvent) isEvent()        {}

// ErrRunFailed matches every [*RunFailedError].
var ErrRunFailed = errors.New("runs: run failed")

// RunFailedError is a run's failure as its RUN_ERROR event reported it. It
// matches [ErrRunFailed], [threads.ErrStreamFailed], and by Status the
// sentinel of the same HTTP status ([threads.ErrServer] for a 5xx,
// [threads.ErrBadRequest] for a 400, [threads.ErrRateLimited] for a 429,
// ...). Whether trying again may help is Retryable, as the service says.
type RunFailedError struct {
	ThreadID, RunID string
	// Message is the service's text: one line of printable text, at most
	// 1 KiB, with the API key redacted. For a model failure the service
	// sends a generic text; the thread's lastRunError has the cause.
	Message   string
	Code      string
	Category  string
	Retryable bool
	Status    int
}

// Error returns one line naming the run, the code and the message.
func (e *RunFailedError) Error() string {
	if e == nil {
		return "runs: run failed"
	}
	s := "runs: run " + e.RunID + " failed"
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (%d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is matches ErrRunFailed, threads.ErrStreamFailed and the threads
// sentinel for Status.
func (e *RunFailedError) Is(target error) bool {
	switch target {
	case ErrRunFailed, threads.ErrStreamFailed:
		return true
	case nil:
		return false
	}
	if e == nil {
		return false
	}
	return statusSentinel(e.Status) == target
}

func statusSentinel(status int) error {
	switch {
	case status == 400 || status == 422:
		return threads.ErrBadRequest
	case status == 401:
		return threads.ErrUnauthorized
	case status == 402:
		return threads.ErrPaymentRequired
	case status == 403:
		return threads.ErrForbidden
	case status == 404:
		return threads.ErrNotFound
	case status == 409:
		return threads.ErrConflict
	case status == 429:
		return threads.ErrRateLimited
	case status >= 500 && status <= 599:
		return threads.ErrServer
	}
	return nil
}

// wireEvent is every member the known event types carry. It is decoded
// only for a known type, whose members have these JSON kinds; other types
// (AG-UI's STATE_DELTA has an array "delta") are kept raw.
type wireEvent struct {
	Type            string         `json:"type"`
	ThreadID        string         `json:"threadId"`
	RunID           string         `json:"runId"`
	MessageID       string         `json:"messageId"`
	Role            string         `json:"role"`
	Delta           string         `json:"delta"`
	ToolCallID      string         `json:"toolCallId"`
	ToolCallName    string         `json:"toolCallName"`
	ParentMessageID string         `json:"parentMessageId"`
	Message         string         `json:"message"`
	Code            string         `json:"code"`
	Category        string         `json:"category"`
	IsRetryable     bool           `json:"isRetryable"`
	Status          int            `json:"status"`
	Name            string         `json:"name"`
	Value           jsontext.Value `json:"value"`
	Timestamp       float64        `json:"timestamp"`
}

type wireAwaiting struct {
	PendingToolCalls []PendingToolCall `json:"pendingToolCalls"`
}

type wireComponentStart struct {
	MessageID     string `json:"messageId"`
	ComponentID   string `json:"componentId"`
	ComponentName string `json:"componentName"`
}

type wirePropsDelta struct {
	ComponentID     string            `json:"componentId"`
	Operations      []PatchOp         `json:"operations"`
	StreamingStatus map[string]string `json:"streamingStatus"`
}

type wireComponentEnd struct {
	ComponentID string         `json:"componentId"`
	FinalProps  map[string]any `json:"finalProps"`
	FinalState  map[string]any `json:"finalState"`
}

// errNotEvent is wrapped by decodeEvent's errors: the data is not an
// event (not JSON, or a known type with members of the wrong kind).
var errNotEvent = errors.New("not an AG-UI event")

// millis converts the service's Unix milliseconds; nonsense is the zero
// time.
func millis(ms float64) time.Time {
	if ms == 0 || ms != ms || math.Abs(ms) > 1<<53 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms))
}

var typePrefix = []byte(`{"type":"`)

// eventType finds the event's type. The service writes it first, so the
// common case is a prefix check; anything else is decoded properly.
func eventType(data []byte) (string, error) {
	if bytes.HasPrefix(data, typePrefix) {
		rest := data[len(typePrefix):]
		if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			// A switch on a conversion does not allocate; each case
			// returns the constant.
			switch string(rest[:i]) {
			case EventTextMessageContent:
				return EventTextMessageContent, nil
			case EventToolCallArgs:
				return EventToolCallArgs, nil
			case EventCustom:
				return EventCustom, nil
			case EventRunStarted:
				return EventRunStarted, nil
			case EventRunFinished:
				return EventRunFinished, nil
			case EventRunError:
				return EventRunError, nil
			case EventTextMessageStart:
				return EventTextMessageStart, nil
			case EventTextMessageEnd:
				return EventTextMessageEnd, nil
			case EventToolCallStart:
				return EventToolCallStart, nil
			case EventToolCallEnd:
				return EventToolCallEnd, nil
			}
		}
	}
	var t struct {
		Type string `json:"type"`
	}
	if err := jsonx.Unmarshal(data, &t); err != nil {
		return "", err
	}
	return t.Type, nil
}

// decodeEvent decodes one event's data. It never quotes the data in its
// error (it may hold a user's text or a token).
func decodeEvent(data []byte) (Event, error) {
	typ, err := eventType(data)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", errNotEvent, jsonx.Describe(err))
	}
	switch typ {
	case EventRunStarted, EventRunFinished, EventRunError, EventTextMessageStart, EventTextMessageContent,
		EventTextMessageEnd, EventToolCallStart, EventToolCallArgs, EventToolCallEnd, EventCustom:
	default:
		return unknown(typ, "", data), nil
	}
	var w wireEvent
	if err := jsonx.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: a %s event that does not decode (%s)", errNotEvent, typ, jsonx.Describe(err))
	}
	w.Type = typ
	return typed(w, data)
}

// typed makes the Event of a decoded wireEvent of a known type.
func typed(w wireEvent, data []byte) (Event, error) {
	ts := millis(w.Timestamp)
	switch w.Type {
	case EventTextMessageContent:
		return TextMessageContent{MessageID: w.MessageID, Delta: w.Delta, Timestamp: ts}, nil
	case EventToolCallArgs:
		return ToolCallArgs{ToolCallID: w.ToolCallID, Delta: w.Delta, Timestamp: ts}, nil
	case EventRunStarted:
		return RunStarted{ThreadID: w.ThreadID, RunID: w.RunID, Timestamp: ts}, nil
	case EventRunFinished:
		return RunFinished{ThreadID: w.ThreadID, RunID: w.RunID, Timestamp: ts}, nil
	case EventRunError:
		// Message is cleaned by the stream, which knows the key.
		return RunErrorEvent{Message: w.Message, Code: w.Code, Category: w.Category, Retryable: w.IsRetryable, Status: w.Status, Timestamp: ts}, nil
	case EventTextMessageStart:
		return TextMessageStart{MessageID: w.MessageID, Role: w.Role, Timestamp: ts}, nil
	case EventTextMessageEnd:
		return TextMessageEnd{MessageID: w.MessageID, Timestamp: ts}, nil
	case EventToolCallStart:
		return ToolCallStart{ToolCallID: w.ToolCallID, ToolCallName: w.ToolCallName, ParentMessageID: w.ParentMessageID, Timestamp: ts}, nil
	case EventToolCallEnd:
		return ToolCallEnd{ToolCallID: w.ToolCallID, Timestamp: ts}, nil
	}
	return decodeCustom(w, ts, data)
}

func decodeCustom(w wireEvent, ts time.Time, data []byte) (Event, error) {
	fail := func(err error) (Event, error) {
		// The name is not quoted: it is the server's text.
		return nil, fmt.Errorf("%w: a CUSTOM event whose value does not decode (%s)", errNotEvent, jsonx.Describe(err))
	}
	switch w.Name {
	case CustomAwaitingInput:
		var v wireAwaiting
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return AwaitingInput{PendingToolCalls: v.PendingToolCalls, Timestamp: ts}, nil
	case CustomComponentStart:
		var v wireComponentStart
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return ComponentStart{MessageID: v.MessageID, ComponentID: v.ComponentID, ComponentName: v.ComponentName, Timestamp: ts}, nil
	case CustomPropsDelta:
		var v wirePropsDelta
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return ComponentPropsDelta{ComponentID: v.ComponentID, Operations: v.Operations, StreamingStatus: v.StreamingStatus, Timestamp: ts}, nil
	case CustomComponentEnd:
		var v wireComponentEnd
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return ComponentEnd{ComponentID: v.ComponentID, FinalProps: v.FinalProps, FinalState: v.FinalState, Timestamp: ts}, nil
	}
	return unknown(EventCustom, w.Name, data), nil
}

// unmarshalValue decodes a CUSTOM event's value; an absent or null value
// decodes as the zero value.
func unmarshalValue(v jsontext.Value, out any) error {
	if len(v) == 0 {
		return nil
	}
	return jsonx.Unmarshal(v, out)
}

func unknown(typ, name string, data []byte) UnknownEvent {
	return UnknownEvent{Type: typ, Name: name, Raw: json.RawMessage(bytes.Clone(data))}
}

// bytesOf views s as bytes without a copy; the callee must only read.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
