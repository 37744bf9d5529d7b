package runs

import (
	"log/slog"
	"time"

	threads "github.com/threadsapi/threads-go"
)

// The types below are hand-written from the /v1 captures (the live
// service's bytes), not generated: the service's OpenAPI document is wrong
// about several of them (statuses, which fields are sent), and the captures
// are what a client must read. Optional fields the service leaves out decode
// as zero values; enum types accept values this package does not name.

// RunStatus is a thread's run state. Values not listed here decode as they
// are.
type RunStatus string

// The run states of a thread. RunStatusWaiting is documented by the
// service but was not seen on the wire.
const (
	RunStatusIdle      RunStatus = "idle"
	RunStatusWaiting   RunStatus = "waiting"
	RunStatusStreaming RunStatus = "streaming"
)

// Role is who wrote a message. The service lists tool results as
// RoleAssistant messages whose only part is a [ContentToolResult]. Its
// counterpart on the spec's routes is [threads.Role].
type Role string

// The roles the service names.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
)

// ContentType names the kind of a [Content] part. Values not listed here
// decode as they are, with only Type set among the kind-specific fields
// this package knows.
type ContentType string

// The content part kinds.
const (
	ContentText       ContentType = "text"
	ContentResource   ContentType = "resource"
	ContentToolUse    ContentType = "tool_use"
	ContentToolResult ContentType = "tool_result"
	ContentComponent  ContentType = "component"
)

// Thread is a /v1 thread: one end user's conversation. Its counterpart on
// the spec's routes is [threads.Thread].
type Thread struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	ID   string `json:"id"`
	Name string `json:"name,omitzero"`
	// UserKey is the thread's end user: the user key it was created with,
	// or "oauth:user:<issuer host>:<sub>" for a thread created with an
	// end-user token.
	UserKey   string    `json:"userKey,omitzero"`
	RunStatus RunStatus `json:"runStatus"`
	// CurrentRunID is the active run's id while RunStatus is not idle.
	CurrentRunID string `json:"currentRunId,omitzero"`
	// StatusMessage is a leftover of the older API; the live service leaves
	// it at "Streaming response..." after a failed or cancelled run.
	StatusMessage    string    `json:"statusMessage,omitzero"`
	LastRunCancelled bool      `json:"lastRunCancelled,omitzero"`
	LastRunError     *RunError `json:"lastRunError,omitzero"`
	// PendingToolCallIDs are the client tool calls whose results the next
	// run must carry (with LastCompletedRunID as its previous run).
	PendingToolCallIDs []string `json:"pendingToolCallIds,omitzero"`
	// LastCompletedRunID is set after every run, failed and cancelled ones
	// included: it is the previous run id the next run must name.
	LastCompletedRunID string         `json:"lastCompletedRunId,omitzero"`
	Metadata           map[string]any `json:"metadata,omitzero"`
	CreatedAt          time.Time      `json:"createdAt"`
	UpdatedAt          time.Time      `json:"updatedAt"`
}

// ThreadWithMessages is a thread as [Client.GetThread] returns it: the
// thread and all its messages, oldest first. Its counterpart on the spec's
// routes is [threads.ThreadWithMessages].
type ThreadWithMessages struct {
	Thread
	Messages []Message `json:"messages"`
}

// RunError is how the last run of a thread failed. Message is the
// service's internal message (more precise than the stream's event). The
// fake scripts one with threadstest.RunFailure.
type RunError struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	Code    string `json:"code,omitzero"`
	Message string `json:"message"`
}

// Message is one message of a thread. Its counterpart on the spec's routes
// is [threads.Message].
type Message struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	ID      string    `json:"id"`
	Role    Role      `json:"role"`
	Content []Content `json:"content"`
	// CreatedAt has millisecond precision, as the service sends it.
	CreatedAt time.Time      `json:"createdAt"`
	Metadata  map[string]any `json:"metadata,omitzero"`
	// ParentMessageID is set on messages made while another was generated.
	ParentMessageID string `json:"parentMessageId,omitzero"`
	// IsCancelled is true when a cancelled run interrupted the message: its
	// content may be incomplete.
	IsCancelled bool `json:"isCancelled,omitzero"`
}

// Text returns the message's text parts joined in order. The service
// opens an assistant message that calls a tool or shows a component with a
// one-space text part; Text keeps it, as sent.
func (m Message) Text() string {
	var s string
	for _, c := range m.Content {
		if c.Type == ContentText {
			s += c.Text
		}
	}
	return s
}

// Content is one part of a message. Type says which of the other fields
// are set:
//
//   - text: Text.
//   - resource: Resource.
//   - tool_use (an assistant's client tool call): ID (the call id), Name
//     (the tool) and Input (its arguments).
//   - tool_result: ToolUseID (the call it answers), Content (text and
//     resource parts) and IsError.
//   - component: ID (the component id [Client.SetComponentState] takes),
//     Name, Props and State.
//
// Build the parts a caller sends with [Text], [ResourceContent] and
// [ToolResult].
type Content struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	Type      ContentType    `json:"type"`
	Text      string         `json:"text,omitzero"`
	Resource  *Resource      `json:"resource,omitzero"`
	ID        string         `json:"id,omitzero"`
	Name      string         `json:"name,omitzero"`
	Input     map[string]any `json:"input,omitzero"`
	ToolUseID string         `json:"toolUseId,omitzero"`
	Content   []Content      `json:"content,omitzero"`
	IsError   bool           `json:"isError,omitzero"`
	Props     map[string]any `json:"props,omitzero"`
	State     map[string]any `json:"state,omitzero"`
}

// Text returns a text part.
func Text(text string) Content { return Content{Type: ContentText, Text: text} }

// ResourceContent returns a resource part, as [threads.ResourcePart] does on
// the spec's routes.
func ResourceContent(r Resource) Content { return Content{Type: ContentResource, Resource: &r} }

// ToolResult returns the part that answers the client tool call callID
// with text, as [threads.ToolResult] builds the answer on the spec's
// routes. Set the part's IsError to mark a failed call.
func ToolResult(callID, text string) Content {
	return Content{Type: ContentToolResult, ToolUseID: callID, Content: []Content{Text(text)}}
}

// Resource is a resource part's payload: a URI, inline text or a base64
// blob, with its MIME type. Its counterpart on the spec's routes is
// [threads.Resource].
type Resource struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	URI         string               `json:"uri,omitzero"`
	Name        string               `json:"name,omitzero"`
	Description string               `json:"description,omitzero"`
	MIMEType    string               `json:"mimeType,omitzero"`
	Text        string               `json:"text,omitzero"`
	Blob        string               `json:"blob,omitzero"`
	Annotations *ResourceAnnotations `json:"annotations,omitzero"`
}

// ResourceAnnotations are a resource's MCP annotations.
type ResourceAnnotations struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	Audience []string `json:"audience,omitzero"`
	Priority float64  `json:"priority,omitzero"`
}

// InitialMessage is a message a new thread starts with ([CreateThreadParams]):
// RoleUser or RoleAssistant with text and resource parts. A RoleSystem
// message is refused (400) unless the project allows overriding its system
// prompt.
type InitialMessage struct {
	Role     Role           `json:"role"`
	Content  []Content      `json:"content"`
	Metadata map[string]any `json:"metadata,omitzero"`
}

// AvailableComponent is a UI component the model may pick, described by
// the JSON Schemas of its props and (optionally) its state. Its
// counterpart on the spec's routes is [threads.AvailableComponent].
type AvailableComponent struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	PropsSchema any    `json:"propsSchema"`
	StateSchema any    `json:"stateSchema,omitzero"`
}

// Suggestion is a follow-up the service proposes for a message.
// Description repeats DetailedSuggestion. Its counterpart on the spec's
// routes is [threads.Suggestion].
type Suggestion struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	ID                 string            `json:"id"`
	MessageID          string            `json:"messageId"`
	Title              string            `json:"title"`
	Description        string            `json:"description"`
	DetailedSuggestion string            `json:"detailedSuggestion"`
	Metadata           map[string]string `json:"metadata,omitzero"`
	CreatedAt          time.Time         `json:"createdAt"`
}

// PatchOp is one RFC 6902 JSON Patch operation on a component's state:
// Op is add, remove, replace, move, copy or test; Path and From are JSON
// Pointers. Value is sent for add, replace and test.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitzero"`
	Value any    `json:"value,omitzero"`
}

// ThreadPage is one page of [Client.ListThreads], newest first. It pages
// by cursor; Items holds the page, as in every page type of both packages
// ([threads.ThreadPage], offset paging, is its counterpart on the spec's
// routes).
type ThreadPage struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	Items []Thread `json:"threads"`
	// NextCursor is the cursor of the next page; empty when HasMore is
	// false.
	NextCursor string `json:"nextCursor,omitzero"`
	HasMore    bool   `json:"hasMore"`
}

// MessagePage is one page of [Client.ListMessages]; it pages as
// [ThreadPage] does.
type MessagePage struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	Items      []Message `json:"messages"`
	NextCursor string    `json:"nextCursor,omitzero"`
	HasMore    bool      `json:"hasMore"`
}

// SuggestionPage is one page of [Client.ListSuggestions], and the answer of
// [Client.GenerateSuggestions]; it pages as [ThreadPage] does.
type SuggestionPage struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	Items      []Suggestion `json:"suggestions"`
	NextCursor string       `json:"nextCursor,omitzero"`
	HasMore    bool         `json:"hasMore"`
}

// AccessToken is an end-user token from [Client.ExchangeToken]. Its Token
// prints as [REDACTED] with every fmt verb and in log/slog (see
// [threads.Token]); pass the AccessToken to [Client.ForToken].
type AccessToken struct {
	Token threads.Token
	// TokenType is "Bearer".
	TokenType string
	// IssuedTokenType is the RFC 8693 type of Token.
	IssuedTokenType string
	// ExpiresIn is the lifetime the service gave; Expiry is when the answer
	// arrived plus ExpiresIn (zero when the service gave none).
	ExpiresIn time.Duration
	Expiry    time.Time
}

// LogValue makes log/slog record the token redacted: a JSON handler would
// otherwise encode the struct with encoding/json, which writes a
// [threads.Token]'s real value.
func (t AccessToken) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("token", t.Token),
		slog.String("tokenType", t.TokenType),
		slog.String("issuedTokenType", t.IssuedTokenType),
		slog.Duration("expiresIn", t.ExpiresIn),
		slog.Time("expiry", t.Expiry),
	)
}
