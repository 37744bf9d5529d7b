package runs

import (
	"encoding/json"
	"time"
)

// AG-UI's event types that the service does not send today; a run of
// another AG-UI agent (or a later service) may. Each has its Go type.
const (
	EventTextMessageChunk = "TEXT_MESSAGE_CHUNK"
	EventToolCallChunk    = "TOOL_CALL_CHUNK"
	EventToolCallResult   = "TOOL_CALL_RESULT"
	EventStateSnapshot    = "STATE_SNAPSHOT"
	EventStateDelta       = "STATE_DELTA"
	EventMessagesSnapshot = "MESSAGES_SNAPSHOT"
	EventActivitySnapshot = "ACTIVITY_SNAPSHOT"
	EventActivityDelta    = "ACTIVITY_DELTA"
	EventRaw              = "RAW"
	EventStepStarted      = "STEP_STARTED"
	EventStepFinished     = "STEP_FINISHED"
)

// TextMessageChunk (TEXT_MESSAGE_CHUNK) is AG-UI's shorthand for a text
// message's start, content and end: a chunk with a new MessageID opens
// the message (Role, Name), the chunks after it that name it or no message
// add their Delta, and any other event closes it. The stream assembles
// chunks into Result as AG-UI's own client does: a run of chunks gives the
// same Result as TEXT_MESSAGE_START, _CONTENT and _END.
type TextMessageChunk struct {
	MessageID, Role, Delta, Name string
	Timestamp                    time.Time
	// SubagentRunID, Metadata and RawEvent: as on [TextMessageStart].
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// ToolCallChunk (TOOL_CALL_CHUNK) is AG-UI's shorthand for a tool call's
// start, arguments and end, assembled as [TextMessageChunk] is: a chunk
// with a new ToolCallID opens the call (ToolCallName, ParentMessageID), the
// chunks after it add their Delta to its arguments, and any other event
// closes it.
type ToolCallChunk struct {
	ToolCallID, ToolCallName, ParentMessageID, Delta string
	Timestamp                                        time.Time
	SubagentRunID                                    string
	Metadata                                         map[string]any
	RawEvent                                         json.RawMessage
}

// ToolCallResult (TOOL_CALL_RESULT) is what a tool returned, as a tool
// message of its own (MessageID). AG-UI 1.0's content is a string
// (Content) or a list of content parts (ContentParts, JSON as sent).
type ToolCallResult struct {
	MessageID, ToolCallID string
	Content               string
	ContentParts          json.RawMessage
	Role                  string // "tool" when sent
	Timestamp             time.Time
	SubagentRunID         string
	Metadata              map[string]any
	RawEvent              json.RawMessage
}

// StateSnapshot (STATE_SNAPSHOT) replaces the agent's state: Snapshot is
// any JSON value, as sent.
type StateSnapshot struct {
	Snapshot      json.RawMessage
	Timestamp     time.Time
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// StateDelta (STATE_DELTA) changes the agent's state by a JSON Patch (RFC
// 6902). The operations are as sent: whether they apply is the reader's
// business, as in AG-UI.
type StateDelta struct {
	Delta         []PatchOp
	Timestamp     time.Time
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// MessagesSnapshot (MESSAGES_SNAPSHOT) is every message of the
// conversation the agent keeps, in order: each an AG-UI message (its
// "role" says which kind), JSON as sent.
type MessagesSnapshot struct {
	Messages  []json.RawMessage
	Timestamp time.Time
	Metadata  map[string]any
	RawEvent  json.RawMessage
}

// ActivitySnapshot (ACTIVITY_SNAPSHOT) is an activity message's content
// (progress that is not conversation text). Replace is AG-UI's replace,
// true when absent: the content replaces the message's, else it is only
// used when the message has none yet.
type ActivitySnapshot struct {
	MessageID, ActivityType string
	Content                 map[string]any
	Replace                 bool
	Timestamp               time.Time
	SubagentRunID           string
	Metadata                map[string]any
	RawEvent                json.RawMessage
}

// ActivityDelta (ACTIVITY_DELTA) changes an activity message's content
// by a JSON Patch (RFC 6902), as sent.
type ActivityDelta struct {
	MessageID, ActivityType string
	Patch                   []PatchOp
	Timestamp               time.Time
	SubagentRunID           string
	Metadata                map[string]any
	RawEvent                json.RawMessage
}

// RawEvent (RAW) passes on a provider's own event: Event is any JSON
// value, as sent; Source names the provider.
type RawEvent struct {
	Event         json.RawMessage
	Source        string
	Timestamp     time.Time
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// CustomEvent is a CUSTOM event that is not one of the service's own
// (those have their types: [AwaitingInput], [ComponentStart]...): Name
// says what it is, Value is any JSON value, as sent (nil when absent).
type CustomEvent struct {
	Name          string
	Value         json.RawMessage
	Timestamp     time.Time
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// StepStarted (STEP_STARTED) opens a step of the agent's work, named
// StepName; [StepFinished] closes it.
type StepStarted struct {
	StepName      string
	Timestamp     time.Time
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// StepFinished (STEP_FINISHED) closes the step StepName.
type StepFinished struct {
	StepName      string
	Timestamp     time.Time
	SubagentRunID string
	Metadata      map[string]any
	RawEvent      json.RawMessage
}

// EventType returns [EventTextMessageChunk].
func (TextMessageChunk) EventType() string { return EventTextMessageChunk }

// EventType returns [EventToolCallChunk].
func (ToolCallChunk) EventType() string { return EventToolCallChunk }

// EventType returns [EventToolCallResult].
func (ToolCallResult) EventType() string { return EventToolCallResult }

// EventType returns [EventStateSnapshot].
func (StateSnapshot) EventType() string { return EventStateSnapshot }

// EventType returns [EventStateDelta].
func (StateDelta) EventType() string { return EventStateDelta }

// EventType returns [EventMessagesSnapshot].
func (MessagesSnapshot) EventType() string { return EventMessagesSnapshot }

// EventType returns [EventActivitySnapshot].
func (ActivitySnapshot) EventType() string { return EventActivitySnapshot }

// EventType returns [EventActivityDelta].
func (ActivityDelta) EventType() string { return EventActivityDelta }

// EventType returns [EventRaw].
func (RawEvent) EventType() string { return EventRaw }

// EventType returns [EventCustom].
func (CustomEvent) EventType() string { return EventCustom }

// EventType returns [EventStepStarted].
func (StepStarted) EventType() string { return EventStepStarted }

// EventType returns [EventStepFinished].
func (StepFinished) EventType() string { return EventStepFinished }

func (TextMessageChunk) isEvent() {}
func (ToolCallChunk) isEvent()    {}
func (ToolCallResult) isEvent()   {}
func (StateSnapshot) isEvent()    {}
func (StateDelta) isEvent()       {}
func (MessagesSnapshot) isEvent() {}
func (ActivitySnapshot) isEvent() {}
func (ActivityDelta) isEvent()    {}
func (RawEvent) isEvent()         {}
func (CustomEvent) isEvent()      {}
func (StepStarted) isEvent()      {}
func (StepFinished) isEvent()     {}

// ResumeEntry is AG-UI's answer to one [Interrupt]: what a continuation
// run sends back (RunParams.Resume), one entry per interrupt of the run
// that paused. Status is [ResumeResolved] with the answer in Payload (any
// JSON value; the interrupt's ResponseSchema says which), or
// [ResumeCancelled] for an interrupt abandoned.
type ResumeEntry struct {
	InterruptID string         `json:"interruptId"`
	Status      string         `json:"status"`
	Payload     any            `json:"payload,omitzero"`
	Metadata    map[string]any `json:"metadata,omitzero"`
}

// The statuses of a [ResumeEntry].
const (
	ResumeResolved  = "resolved"
	ResumeCancelled = "cancelled"
)
