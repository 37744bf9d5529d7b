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

// Event is one AG-UI event of a run stream, typed: AG-UI 1.0's 31 event
// types each have a Go type ([RunStarted], [TextMessageContent],
// [ToolCallStart], [StateDelta], [SubagentEvent]... the reasoning events'
// pre-1.0 THINKING_* names decode to the same types as their REASONING_*
// twins); a CUSTOM event is one of the service's own ([AwaitingInput],
// [ComponentStart], [ComponentPropsDelta], [ComponentEnd],
// [MessageParent]) or a [CustomEvent]; a type this version does not know
// (the protocol may add some) is an [UnknownEvent], delivered, not
// refused. The package documentation's section "AG-UI" says what the
// decoder refuses and what it tolerates. Switch on the dynamic type:
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
	CustomMessageParent  = "tambo.message.parent"
)

// The reasoning event types: the names the service sends today (AG-UI
// before 1.0, which deprecates them)...
const (
	EventThinkingStart              = "THINKING_START"
	EventThinkingEnd                = "THINKING_END"
	EventThinkingTextMessageStart   = "THINKING_TEXT_MESSAGE_START"
	EventThinkingTextMessageContent = "THINKING_TEXT_MESSAGE_CONTENT"
	EventThinkingTextMessageEnd     = "THINKING_TEXT_MESSAGE_END"
)

// ... and AG-UI's names from 0.0.57 on, the only ones of AG-UI 1.0. Each
// THINKING_* type has its REASONING_* twin and the same Go type;
// REASONING_MESSAGE_CHUNK is a [ReasoningMessageContent] too, and
// REASONING_ENCRYPTED_VALUE has no twin.
const (
	EventReasoningStart          = "REASONING_START"
	EventReasoningMessageStart   = "REASONING_MESSAGE_START"
	EventReasoningMessageContent = "REASONING_MESSAGE_CONTENT"
	EventReasoningMessageChunk   = "REASONING_MESSAGE_CHUNK"
	EventReasoningMessageEnd     = "REASONING_MESSAGE_END"
	EventReasoningEnd            = "REASONING_END"
	EventReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE"
)

// AG-UI's subagent event types (a proposal for AG-UI 1.x: see
// [SubagentEvent]).
const (
	EventSubagentStarted  = "SUBAGENT_STARTED"
	EventSubagentFinished = "SUBAGENT_FINISHED"
	EventSubagentError    = "SUBAGENT_ERROR"
)

// CodeCancelled is the RUN_ERROR code of a cancelled run (by Cancel, by
// the DELETE route, or by the connection closing). It is an outcome, not
// a failure: see [OutcomeCancelled].
const CodeCancelled = "CANCELLED"

// RunStarted opens every run.
type RunStarted struct {
	ThreadID, RunID string
	Timestamp       time.Time // the service's clock, millisecond precision
	// ParentRunID is the run that started this one, when an agent runs
	// another agent as a run of its own (AG-UI's parentRunId).
	ParentRunID string
	// ProtocolVersion is the AG-UI version the agent speaks (AG-UI 1.0's
	// protocolVersion); "" when not sent, as the service does not.
	ProtocolVersion string
	// Input is AG-UI's input: the RunAgentInput the run was started with,
	// JSON as sent (nil when absent; the service does not send it).
	Input json.RawMessage
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// RunFinished ends a run that was not cancelled or failed. A run that ends
// waiting for client tool results also ends with RunFinished, after an
// [AwaitingInput] event.
type RunFinished struct {
	ThreadID, RunID string
	Timestamp       time.Time
	// Ending is what an AG-UI RUN_FINISHED says beyond the end (AG-UI
	// 0.0.57 and 1.0): nil when the event says nothing more, as the
	// service's never does.
	Ending *RunEnding
	// Usage is the run's token usage, one entry per provider and model
	// (AG-UI 1.0's usage); the stream sums it per model in
	// [Result].Usage.
	Usage []TokenUsage
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// RunEnding is AG-UI's outcome and result of a [RunFinished].
type RunEnding struct {
	// Outcome is the outcome's type as sent: [EndingSuccess],
	// [EndingInterrupt], [EndingCancelled] (AG-UI 1.0), or another the
	// protocol adds later; "" when the event has no outcome (which AG-UI
	// reads as success).
	Outcome string
	// PendingToolCallIDs are the tool calls a success outcome leaves for
	// the client to answer (AG-UI 1.0's pendingToolCallIds).
	PendingToolCallIDs []string
	// Interrupts are set when the run ended paused for a person's input:
	// AG-UI's outcome {"type": "interrupt", "interrupts": [...]}; the
	// next run answers them by id. The stream's [Outcome] is then still
	// OutcomeFinished. An outcome that does not decode is left out: the
	// run did finish.
	Interrupts []Interrupt
	// Result is AG-UI's "result", JSON as sent; nil when absent or null.
	Result json.RawMessage
}

// The types of AG-UI's RUN_FINISHED outcome ([RunEnding].Outcome).
// EndingCancelled (AG-UI 1.0) makes the stream's outcome
// [OutcomeCancelled], as the service's RUN_ERROR CANCELLED does.
const (
	EndingSuccess   = "success"
	EndingInterrupt = "interrupt"
	EndingCancelled = "cancelled"
)

// TokenUsage is the tokens one provider's model spent (AG-UI 1.0's
// TokenUsage, on RUN_FINISHED and RUN_ERROR). Counts are as sent; 0 when
// absent.
type TokenUsage struct {
	Provider              string `json:"provider,omitzero"`
	Model                 string `json:"model,omitzero"`
	InputTokens           int64  `json:"inputTokens,omitzero"`
	OutputTokens          int64  `json:"outputTokens,omitzero"`
	TotalTokens           int64  `json:"totalTokens,omitzero"`
	ReasoningTokens       int64  `json:"reasoningTokens,omitzero"`
	CachedInputTokens     int64  `json:"cachedInputTokens,omitzero"`
	CacheWriteInputTokens int64  `json:"cacheWriteInputTokens,omitzero"`
}

// Interrupt is a reason an AG-UI run paused for input ([RunFinished]).
type Interrupt struct {
	ID     string `json:"id"`
	Reason string `json:"reason"` // a routing hint ("tool_call", "input_required", ...)
	// Message is the prompt a person reads.
	Message string `json:"message"`
	// ToolCallID binds the interrupt to a tool call of the run.
	ToolCallID string `json:"toolCallId"`
	// ResponseSchema is the JSON Schema of the answer it expects.
	ResponseSchema map[string]any `json:"responseSchema"`
	// ExpiresAt is an ISO 8601 time, as sent.
	ExpiresAt string         `json:"expiresAt"`
	Metadata  map[string]any `json:"metadata"`
	// SubagentRunID names the subagent that asks (AG-UI 1.0).
	SubagentRunID string `json:"subagentRunId"`
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
	// Usage is the tokens spent before the failure (AG-UI 1.0), summed
	// into [Result].Usage with the rest of the run's.
	Usage []TokenUsage
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// TextMessageStart opens an assistant message; MessageID is its stored
// id (msg_…).
type TextMessageStart struct {
	MessageID, Role string
	Timestamp       time.Time
	// Name is the name of the message's author, when the agent gives one
	// (AG-UI's name).
	Name string
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// TextMessageContent is the next piece of a message's text: appending the
// deltas of a message in order gives its text. They are the model's chunks
// as sent, untrimmed.
type TextMessageContent struct {
	MessageID, Delta string
	Timestamp        time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// TextMessageEnd closes a message. A failed or cancelled run may end
// without it.
type TextMessageEnd struct {
	MessageID string
	Timestamp time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ToolCallStart opens a call of a client tool. ParentMessageID, when set,
// is a temporary id of the service's, not the msg_… of the message the
// text came in.
type ToolCallStart struct {
	ToolCallID, ToolCallName, ParentMessageID string
	Timestamp                                 time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ToolCallArgs is the next piece of a call's arguments (JSON text):
// appending the deltas of a call in order gives its arguments.
type ToolCallArgs struct {
	ToolCallID, Delta string
	Timestamp         time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ToolCallEnd closes a tool call's arguments.
type ToolCallEnd struct {
	ToolCallID string
	Timestamp  time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// AwaitingInput (CUSTOM tambo.run.awaiting_input) says the run stops to
// wait for the results of client tool calls. The run then finishes; the
// next run on the thread carries previousRunId (this run's id) and one
// tool_result per pending call.
type AwaitingInput struct {
	PendingToolCalls []PendingToolCall
	Timestamp        time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
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
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
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
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ComponentEnd (CUSTOM tambo.component.end) closes a component with its
// final props, which replace what the patches built.
type ComponentEnd struct {
	ComponentID string
	FinalProps  map[string]any
	// FinalState is the component's final state (finalState), nil when
	// the service sent none: it sends none today, since a component's
	// state is not part of what the model writes. To test code that reads
	// one, script it with threadstest.RunComponent.FinalState.
	FinalState map[string]any
	Timestamp  time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// MessageParent (CUSTOM tambo.message.parent) says that message
// MessageID was made while message ParentMessageID was generated (an MCP
// server's sampling or elicitation, for one). The service sends it before
// each batch of the child message's events, so it repeats; the stream
// keeps the parent in Result's message (Message.ParentMessageID).
type MessageParent struct {
	MessageID, ParentMessageID string
	Timestamp                  time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ReasoningStart opens a phase of the model's reasoning: THINKING_START
// (Title, when sent) or REASONING_START (MessageID). The service does not
// send it today: its reasoning comes as [ReasoningMessageStart],
// [ReasoningMessageContent] and [ReasoningMessageEnd] alone.
type ReasoningStart struct {
	// Type is the type as sent, [EventThinkingStart] or
	// [EventReasoningStart]; EventType returns it ("" reads as
	// EventReasoningStart).
	Type      string
	MessageID string
	Title     string
	Timestamp time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ReasoningEnd closes a phase of reasoning: THINKING_END or REASONING_END
// (MessageID).
type ReasoningEnd struct {
	// Type is [EventThinkingEnd] or [EventReasoningEnd] ("" reads as the
	// latter).
	Type      string
	MessageID string
	Timestamp time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ReasoningMessageStart opens one block of the model's reasoning text:
// THINKING_TEXT_MESSAGE_START, which the service sends today without a
// message id, or REASONING_MESSAGE_START, whose MessageID is the
// reasoning's id (in AG-UI, a message of role "reasoning" of its own).
// Reasoning is never part of the reply's text: [Stream.Text] and
// [Message.Text] leave it out, and [Result] keeps it apart
// (Result.Reasoning).
type ReasoningMessageStart struct {
	// Type is [EventThinkingTextMessageStart] or
	// [EventReasoningMessageStart] ("" reads as the latter).
	Type      string
	MessageID string
	Timestamp time.Time
	// Role is REASONING_MESSAGE_START's role, "reasoning" as sent.
	Role string
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ReasoningMessageContent is the next piece of reasoning text: appending
// the deltas in order gives the block's text. It is
// THINKING_TEXT_MESSAGE_CONTENT (no message id: the block the last
// [ReasoningMessageStart] opened), REASONING_MESSAGE_CONTENT, or
// REASONING_MESSAGE_CHUNK, AG-UI's shorthand that opens and closes its
// block itself: a run of chunks is one block, and a chunk that names
// another message, or follows any other event, starts the next (its
// MessageID may be empty: the previous chunk's).
type ReasoningMessageContent struct {
	// Type is [EventThinkingTextMessageContent],
	// [EventReasoningMessageContent] or [EventReasoningMessageChunk] (""
	// reads as EventReasoningMessageContent).
	Type             string
	MessageID, Delta string
	Timestamp        time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ReasoningMessageEnd closes a block of reasoning text:
// THINKING_TEXT_MESSAGE_END or REASONING_MESSAGE_END.
type ReasoningMessageEnd struct {
	// Type is [EventThinkingTextMessageEnd] or [EventReasoningMessageEnd]
	// ("" reads as the latter).
	Type      string
	MessageID string
	Timestamp time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// ReasoningEncryptedValue (REASONING_ENCRYPTED_VALUE, AG-UI 0.0.57 and
// 1.0) carries the model's reasoning in a form only the agent can read,
// attached to a message or a tool call, for the agent to get back on a
// later turn. The service does not send it.
type ReasoningEncryptedValue struct {
	// Subtype says what EntityID names: "message" or "tool-call".
	Subtype, EntityID string
	// EncryptedValue is opaque: store and send it back as it is.
	EncryptedValue string
	Timestamp      time.Time
	// SubagentRunID names the subagent invocation the event belongs to
	// (AG-UI 1.0's subagentRunId); "" for the run's own agent.
	SubagentRunID string
	// Metadata is AG-UI's metadata: extra information about the event, as
	// sent (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent: the provider's event this one was
	// made from, JSON as sent (nil when absent).
	RawEvent json.RawMessage
}

// SubagentEvent is one of AG-UI 1.0's events for nested agents:
// SUBAGENT_STARTED, SUBAGENT_FINISHED or SUBAGENT_ERROR (an invocation of
// a subagent started, finished or failed). The service does not send
// them. Each member AG-UI gives any of the three is a field; those of the
// other two types are zero. The events a subagent sends in between (its
// text, tool calls...) name it in their SubagentRunID; their text joins
// the Result as any other. One whose members are not of the kinds AG-UI
// gives them is an [UnknownEvent].
type SubagentEvent struct {
	// Type is [EventSubagentStarted], [EventSubagentFinished] or
	// [EventSubagentError].
	Type          string
	SubagentRunID string
	// Name is SUBAGENT_STARTED's kind of subagent; Description says what
	// it does.
	Name, Description string
	// ParentSubagentRunID, ParentToolCallID and ParentMessageID say what
	// started it (SUBAGENT_STARTED).
	ParentSubagentRunID, ParentToolCallID, ParentMessageID string
	// Message and Code are SUBAGENT_ERROR's.
	Message, Code string
	// Result is SUBAGENT_FINISHED's result, JSON as sent (nil when absent
	// or null); Outcome its outcome (nil when absent).
	Result    json.RawMessage
	Outcome   *SubagentOutcome
	Timestamp time.Time
	// Metadata is AG-UI's metadata (nil when absent).
	Metadata map[string]any
	// RawEvent is AG-UI's rawEvent, JSON as sent (nil when absent).
	RawEvent json.RawMessage
	// Raw is the event's JSON, a copy the caller may keep.
	Raw json.RawMessage
}

// SubagentOutcome is why a subagent's part of a run ended
// (SUBAGENT_FINISHED): Type "success", or "suspended" with the
// interrupts it waits on.
type SubagentOutcome struct {
	Type         string   `json:"type"`
	InterruptIDs []string `json:"interruptIds"`
}

// UnknownEvent is an event of a type this version does not know (one
// AG-UI adds after 1.0), or a subagent event whose members are not of the
// kinds AG-UI gives them, kept as sent.
type UnknownEvent struct {
	Type string // "type"
	// Name is always "": a CUSTOM event is a [CustomEvent]. (It was a
	// CUSTOM event's name when this version kept those unknown.)
	Name string
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

// EventType returns [EventCustom]; the CUSTOM event's name is
// [CustomMessageParent].
func (MessageParent) EventType() string { return EventCustom }

// EventType returns the type as sent (e.Type), [EventReasoningStart] when
// unset.
func (e ReasoningStart) EventType() string { return or(e.Type, EventReasoningStart) }

// EventType returns the type as sent (e.Type), [EventReasoningEnd] when
// unset.
func (e ReasoningEnd) EventType() string { return or(e.Type, EventReasoningEnd) }

// EventType returns the type as sent (e.Type),
// [EventReasoningMessageStart] when unset.
func (e ReasoningMessageStart) EventType() string { return or(e.Type, EventReasoningMessageStart) }

// EventType returns the type as sent (e.Type),
// [EventReasoningMessageContent] when unset.
func (e ReasoningMessageContent) EventType() string {
	return or(e.Type, EventReasoningMessageContent)
}

// EventType returns the type as sent (e.Type), [EventReasoningMessageEnd]
// when unset.
func (e ReasoningMessageEnd) EventType() string { return or(e.Type, EventReasoningMessageEnd) }

// EventType returns [EventReasoningEncryptedValue].
func (ReasoningEncryptedValue) EventType() string { return EventReasoningEncryptedValue }

// EventType returns the type as sent (e.Type).
func (e SubagentEvent) EventType() string { return e.Type }

// EventType returns the event's "type" as sent.
func (e UnknownEvent) EventType() string { return e.Type }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (RunStarted) isEvent()              {}
func (RunFinished) isEvent()             {}
func (RunErrorEvent) isEvent()           {}
func (TextMessageStart) isEvent()        {}
func (TextMessageContent) isEvent()      {}
func (TextMessageEnd) isEvent()          {}
func (ToolCallStart) isEvent()           {}
func (ToolCallArgs) isEvent()            {}
func (ToolCallEnd) isEvent()             {}
func (AwaitingInput) isEvent()           {}
func (ComponentStart) isEvent()          {}
func (ComponentPropsDelta) isEvent()     {}
func (ComponentEnd) isEvent()            {}
func (MessageParent) isEvent()           {}
func (ReasoningStart) isEvent()          {}
func (ReasoningEnd) isEvent()            {}
func (ReasoningMessageStart) isEvent()   {}
func (ReasoningMessageContent) isEvent() {}
func (ReasoningMessageEnd) isEvent()     {}
func (ReasoningEncryptedValue) isEvent() {}
func (SubagentEvent) isEvent()           {}
func (UnknownEvent) isEvent()            {}

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

// wireEvent is every member the known event types carry, but the
// subagent events' (decodeSubagent). It is decoded only for a known type,
// whose members have these JSON kinds; other types (AG-UI's STATE_DELTA
// has an array "delta") are kept raw.
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
	Title           string         `json:"title"`
	Subtype         string         `json:"subtype"`
	EntityID        string         `json:"entityId"`
	EncryptedValue  string         `json:"encryptedValue"`
	// RUN_FINISHED's AG-UI members, of any kind here: see runFinished.
	Outcome jsontext.Value `json:"outcome"`
	Result  jsontext.Value `json:"result"`
	Usage   jsontext.Value `json:"usage"`

	// AG-UI's members of every event (metadata, rawEvent) and of the
	// attributable ones (subagentRunId).
	SubagentRunID string         `json:"subagentRunId"`
	Metadata      map[string]any `json:"metadata"`
	RawEvent      jsontext.Value `json:"rawEvent"`

	// The members of the AG-UI events the service does not send.
	ParentRunID     string           `json:"parentRunId"`
	ProtocolVersion string           `json:"protocolVersion"`
	Input           jsontext.Value   `json:"input"`
	StepName        string           `json:"stepName"`
	Source          string           `json:"source"`
	Event           jsontext.Value   `json:"event"`
	ActivityType    string           `json:"activityType"`
	Replace         *bool            `json:"replace"`
	Snapshot        jsontext.Value   `json:"snapshot"`
	Messages        []jsontext.Value `json:"messages"`
	Patch           []PatchOp        `json:"patch"`
	// Content is TOOL_CALL_RESULT's (a string or an array) and
	// ACTIVITY_SNAPSHOT's (an object): checked by typed.
	Content jsontext.Value `json:"content"`
}

// wireStateDelta is STATE_DELTA, whose "delta" is an array where the
// other events' is a string.
type wireStateDelta struct {
	Delta         []PatchOp      `json:"delta"`
	Timestamp     float64        `json:"timestamp"`
	SubagentRunID string         `json:"subagentRunId"`
	Metadata      map[string]any `json:"metadata"`
	RawEvent      jsontext.Value `json:"rawEvent"`
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

type wireMessageParent struct {
	MessageID       string `json:"messageId"`
	ParentMessageID string `json:"parentMessageId"`
}

type wireOutcome struct {
	Type               string      `json:"type"`
	Interrupts         []Interrupt `json:"interrupts"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds"`
}

type wireSubagent struct {
	SubagentRunID       string           `json:"subagentRunId"`
	Name                string           `json:"name"`
	Description         string           `json:"description"`
	ParentSubagentRunID string           `json:"parentSubagentRunId"`
	ParentToolCallID    string           `json:"parentToolCallId"`
	ParentMessageID     string           `json:"parentMessageId"`
	Message             string           `json:"message"`
	Code                string           `json:"code"`
	Result              jsontext.Value   `json:"result"`
	Outcome             *SubagentOutcome `json:"outcome"`
	Timestamp           float64          `json:"timestamp"`
	Metadata            map[string]any   `json:"metadata"`
	RawEvent            jsontext.Value   `json:"rawEvent"`
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

// Kinds of the types knownType returns.
const (
	typeUnknown    = iota // kept raw, as an UnknownEvent
	typeFlat              // decoded from wireEvent, by decodeFast too
	typeSubagent          // decoded by decodeSubagent alone
	typeStateDelta        // decoded by decodeStateDelta alone
)

// knownType returns the constant of a type this version decodes, and its
// kind; "" and typeUnknown for any other. It returns nothing of t, so that
// a caller's string(bytes) conversion needs no allocation.
func knownType(t string) (string, int) {
	switch t {
	case EventTextMessageContent:
		return EventTextMessageContent, typeFlat
	case EventToolCallArgs:
		return EventToolCallArgs, typeFlat
	case EventCustom:
		return EventCustom, typeFlat
	case EventRunStarted:
		return EventRunStarted, typeFlat
	case EventRunFinished:
		return EventRunFinished, typeFlat
	case EventRunError:
		return EventRunError, typeFlat
	case EventTextMessageStart:
		return EventTextMessageStart, typeFlat
	case EventTextMessageEnd:
		return EventTextMessageEnd, typeFlat
	case EventToolCallStart:
		return EventToolCallStart, typeFlat
	case EventToolCallEnd:
		return EventToolCallEnd, typeFlat
	case EventThinkingTextMessageContent:
		return EventThinkingTextMessageContent, typeFlat
	case EventReasoningMessageContent:
		return EventReasoningMessageContent, typeFlat
	case EventReasoningMessageChunk:
		return EventReasoningMessageChunk, typeFlat
	case EventThinkingTextMessageStart:
		return EventThinkingTextMessageStart, typeFlat
	case EventThinkingTextMessageEnd:
		return EventThinkingTextMessageEnd, typeFlat
	case EventReasoningMessageStart:
		return EventReasoningMessageStart, typeFlat
	case EventReasoningMessageEnd:
		return EventReasoningMessageEnd, typeFlat
	case EventThinkingStart:
		return EventThinkingStart, typeFlat
	case EventThinkingEnd:
		return EventThinkingEnd, typeFlat
	case EventReasoningStart:
		return EventReasoningStart, typeFlat
	case EventReasoningEnd:
		return EventReasoningEnd, typeFlat
	case EventReasoningEncryptedValue:
		return EventReasoningEncryptedValue, typeFlat
	case EventTextMessageChunk:
		return EventTextMessageChunk, typeFlat
	case EventToolCallChunk:
		return EventToolCallChunk, typeFlat
	case EventToolCallResult:
		return EventToolCallResult, typeFlat
	case EventStateSnapshot:
		return EventStateSnapshot, typeFlat
	case EventStateDelta:
		return EventStateDelta, typeStateDelta
	case EventMessagesSnapshot:
		return EventMessagesSnapshot, typeFlat
	case EventActivitySnapshot:
		return EventActivitySnapshot, typeFlat
	case EventActivityDelta:
		return EventActivityDelta, typeFlat
	case EventRaw:
		return EventRaw, typeFlat
	case EventStepStarted:
		return EventStepStarted, typeFlat
	case EventStepFinished:
		return EventStepFinished, typeFlat
	case EventSubagentStarted:
		return EventSubagentStarted, typeSubagent
	case EventSubagentFinished:
		return EventSubagentFinished, typeSubagent
	case EventSubagentError:
		return EventSubagentError, typeSubagent
	}
	return "", typeUnknown
}

// eventType finds the event's type. The service writes it first, so the
// common case is a prefix check; anything else is decoded properly.
func eventType(data []byte) (string, error) {
	if bytes.HasPrefix(data, typePrefix) {
		rest := data[len(typePrefix):]
		if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			if t, kind := knownType(string(rest[:i])); kind != typeUnknown {
				return t, nil
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
	known, kind := knownType(typ)
	switch kind {
	case typeUnknown:
		return unknown(typ, "", data), nil
	case typeSubagent:
		return decodeSubagent(known, data), nil
	case typeStateDelta:
		return decodeStateDelta(data)
	}
	typ = known
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
	sub, meta, raw := w.SubagentRunID, w.Metadata, rawOf(w.RawEvent)
	switch w.Type {
	case EventTextMessageContent:
		return TextMessageContent{MessageID: w.MessageID, Delta: w.Delta, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventToolCallArgs:
		return ToolCallArgs{ToolCallID: w.ToolCallID, Delta: w.Delta, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventRunStarted:
		return RunStarted{ThreadID: w.ThreadID, RunID: w.RunID, Timestamp: ts, ParentRunID: w.ParentRunID,
			ProtocolVersion: w.ProtocolVersion, Input: rawOf(w.Input), Metadata: meta, RawEvent: raw}, nil
	case EventRunFinished:
		return runFinished(w, ts), nil
	case EventRunError:
		// Message is cleaned by the stream, which knows the key.
		return RunErrorEvent{Message: w.Message, Code: w.Code, Category: w.Category, Retryable: w.IsRetryable, Status: w.Status, Timestamp: ts,
			Usage: usageOf(w.Usage), Metadata: meta, RawEvent: raw}, nil
	case EventTextMessageStart:
		return TextMessageStart{MessageID: w.MessageID, Role: w.Role, Name: w.Name, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventTextMessageEnd:
		return TextMessageEnd{MessageID: w.MessageID, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventToolCallStart:
		return ToolCallStart{ToolCallID: w.ToolCallID, ToolCallName: w.ToolCallName, ParentMessageID: w.ParentMessageID, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventToolCallEnd:
		return ToolCallEnd{ToolCallID: w.ToolCallID, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventThinkingTextMessageContent, EventReasoningMessageContent, EventReasoningMessageChunk:
		return ReasoningMessageContent{Type: w.Type, MessageID: w.MessageID, Delta: w.Delta, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventThinkingTextMessageStart, EventReasoningMessageStart:
		return ReasoningMessageStart{Type: w.Type, MessageID: w.MessageID, Role: w.Role, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventThinkingTextMessageEnd, EventReasoningMessageEnd:
		return ReasoningMessageEnd{Type: w.Type, MessageID: w.MessageID, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventThinkingStart, EventReasoningStart:
		return ReasoningStart{Type: w.Type, MessageID: w.MessageID, Title: w.Title, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventThinkingEnd, EventReasoningEnd:
		return ReasoningEnd{Type: w.Type, MessageID: w.MessageID, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventReasoningEncryptedValue:
		return ReasoningEncryptedValue{Subtype: w.Subtype, EntityID: w.EntityID, EncryptedValue: w.EncryptedValue, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventTextMessageChunk:
		return TextMessageChunk{MessageID: w.MessageID, Role: w.Role, Delta: w.Delta, Name: w.Name, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventToolCallChunk:
		return ToolCallChunk{ToolCallID: w.ToolCallID, ToolCallName: w.ToolCallName, ParentMessageID: w.ParentMessageID, Delta: w.Delta, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventToolCallResult:
		e := ToolCallResult{MessageID: w.MessageID, ToolCallID: w.ToolCallID, Role: w.Role, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}
		switch w.Content.Kind() {
		case '"':
			if err := jsonx.Unmarshal(w.Content, &e.Content); err != nil {
				return nil, fmt.Errorf("%w: a %s event that does not decode (%s)", errNotEvent, w.Type, jsonx.Describe(err))
			}
		case '[':
			e.ContentParts = rawOf(w.Content)
		case 0, 'n':
		default:
			return nil, fmt.Errorf("%w: a %s event whose content is neither a string nor a list", errNotEvent, w.Type)
		}
		return e, nil
	case EventStateSnapshot:
		return StateSnapshot{Snapshot: rawOf(w.Snapshot), Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventMessagesSnapshot:
		var msgs []json.RawMessage
		if w.Messages != nil {
			msgs = make([]json.RawMessage, len(w.Messages))
			for i, m := range w.Messages {
				msgs[i] = json.RawMessage(bytes.Clone(m))
			}
		}
		return MessagesSnapshot{Messages: msgs, Timestamp: ts, Metadata: meta, RawEvent: raw}, nil
	case EventActivitySnapshot:
		e := ActivitySnapshot{MessageID: w.MessageID, ActivityType: w.ActivityType, Replace: w.Replace == nil || *w.Replace,
			Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}
		if k := w.Content.Kind(); k != 0 && k != 'n' {
			if err := jsonx.Unmarshal(w.Content, &e.Content); err != nil {
				return nil, fmt.Errorf("%w: a %s event whose content is not an object (%s)", errNotEvent, w.Type, jsonx.Describe(err))
			}
		}
		return e, nil
	case EventActivityDelta:
		return ActivityDelta{MessageID: w.MessageID, ActivityType: w.ActivityType, Patch: w.Patch, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventRaw:
		return RawEvent{Event: rawOf(w.Event), Source: w.Source, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventStepStarted:
		return StepStarted{StepName: w.StepName, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case EventStepFinished:
		return StepFinished{StepName: w.StepName, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	}
	return decodeCustom(w, ts)
}

// rawOf copies a member's JSON; nil when absent. A null is kept: it is
// what was sent (AG-UI's result and rawEvent say null means something).
func rawOf(v jsontext.Value) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	return json.RawMessage(bytes.Clone(v))
}

// usageOf reads AG-UI's usage leniently: it comes on the run's terminal
// events, which a member this version cannot read must not turn into a
// failure. Usage that does not decode is left out.
func usageOf(v jsontext.Value) []TokenUsage {
	if len(v) == 0 {
		return nil
	}
	var u []TokenUsage
	if jsonx.Unmarshal(v, &u) != nil {
		return nil
	}
	return u
}

// decodeStateDelta decodes STATE_DELTA, whose delta is an array.
func decodeStateDelta(data []byte) (Event, error) {
	var w wireStateDelta
	if err := jsonx.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: a %s event that does not decode (%s)", errNotEvent, EventStateDelta, jsonx.Describe(err))
	}
	return StateDelta{Delta: w.Delta, Timestamp: millis(w.Timestamp), SubagentRunID: w.SubagentRunID, Metadata: w.Metadata, RawEvent: rawOf(w.RawEvent)}, nil
}

// runFinished makes a RunFinished. AG-UI's outcome and result are read
// leniently: RUN_FINISHED ends the run, which a member this version
// cannot read must not turn into a failure.
func runFinished(w wireEvent, ts time.Time) RunFinished {
	e := RunFinished{ThreadID: w.ThreadID, RunID: w.RunID, Timestamp: ts, Usage: usageOf(w.Usage), Metadata: w.Metadata, RawEvent: rawOf(w.RawEvent)}
	var end RunEnding
	if len(w.Outcome) > 0 {
		var o wireOutcome
		if jsonx.Unmarshal(w.Outcome, &o) == nil {
			end.Outcome = o.Type
			end.PendingToolCallIDs = o.PendingToolCallIDs
			if o.Type == EndingInterrupt && len(o.Interrupts) > 0 {
				end.Interrupts = o.Interrupts
			}
		}
	}
	if len(w.Result) > 0 && string(w.Result) != "null" {
		end.Result = json.RawMessage(bytes.Clone(w.Result))
	}
	if end.Outcome != "" || end.Interrupts != nil || end.Result != nil || end.PendingToolCallIDs != nil {
		e.Ending = &end
	}
	return e
}

// decodeSubagent decodes a subagent event, or keeps it as an
// UnknownEvent when its members are not of the kinds it expects (these
// events are a proposal that may still change).
func decodeSubagent(typ string, data []byte) Event {
	var w wireSubagent
	if jsonx.Unmarshal(data, &w) != nil {
		return unknown(typ, "", data)
	}
	e := SubagentEvent{Type: typ, SubagentRunID: w.SubagentRunID, Name: w.Name, Description: w.Description,
		ParentSubagentRunID: w.ParentSubagentRunID, ParentToolCallID: w.ParentToolCallID, ParentMessageID: w.ParentMessageID,
		Message: w.Message, Code: w.Code, Outcome: w.Outcome, Timestamp: millis(w.Timestamp), Metadata: w.Metadata,
		RawEvent: rawOf(w.RawEvent), Raw: json.RawMessage(bytes.Clone(data))}
	if len(w.Result) > 0 && string(w.Result) != "null" {
		e.Result = rawOf(w.Result)
	}
	return e
}

func decodeCustom(w wireEvent, ts time.Time) (Event, error) {
	sub, meta, raw := w.SubagentRunID, w.Metadata, rawOf(w.RawEvent)
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
		return AwaitingInput{PendingToolCalls: v.PendingToolCalls, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case CustomComponentStart:
		var v wireComponentStart
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return ComponentStart{MessageID: v.MessageID, ComponentID: v.ComponentID, ComponentName: v.ComponentName, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case CustomPropsDelta:
		var v wirePropsDelta
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return ComponentPropsDelta{ComponentID: v.ComponentID, Operations: v.Operations, StreamingStatus: v.StreamingStatus, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case CustomComponentEnd:
		var v wireComponentEnd
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return ComponentEnd{ComponentID: v.ComponentID, FinalProps: v.FinalProps, FinalState: v.FinalState, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	case CustomMessageParent:
		var v wireMessageParent
		if err := unmarshalValue(w.Value, &v); err != nil {
			return fail(err)
		}
		return MessageParent{MessageID: v.MessageID, ParentMessageID: v.ParentMessageID, Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
	}
	return CustomEvent{Name: w.Name, Value: rawOf(w.Value), Timestamp: ts, SubagentRunID: sub, Metadata: meta, RawEvent: raw}, nil
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
