package v1wire

// The request bodies of the /v1 routes, as the service takes them (spec
// v1-api.md). Every member is omitted when zero, as the official clients
// omit what they do not set; UserKey is filled by the sender (package
// runs) from the call's end user, never from what a browser sent.

// CreateThreadBody is POST /v1/threads. I is the initial message type.
type CreateThreadBody[I any] struct {
	UserKey         string         `json:"userKey,omitzero"`
	Metadata        map[string]any `json:"metadata,omitzero"`
	InitialMessages []I            `json:"initialMessages,omitzero"`
}

// UpdateThreadBody is PATCH /v1/threads/{threadId} (its user key goes in
// the query). Metadata, when not nil, replaces the thread's whole: an
// empty map clears it.
type UpdateThreadBody struct {
	Name     string         `json:"name,omitzero"`
	Metadata map[string]any `json:"metadata,omitzero"`
}

// SuggestionsBody is POST …/messages/{messageId}/suggestions. A is the
// available component type.
type SuggestionsBody[A any] struct {
	UserKey             string `json:"userKey,omitzero"`
	MaxSuggestions      int    `json:"maxSuggestions,omitzero"`
	AvailableComponents []A    `json:"availableComponents,omitzero"`
}

// ComponentStateBody is POST …/components/{componentId}/state: a whole
// State or a JSON Patch (P, an operation), not both.
type ComponentStateBody[P any] struct {
	UserKey string         `json:"userKey,omitzero"`
	State   map[string]any `json:"state,omitzero"`
	Patch   []P            `json:"patch,omitzero"`
}

// RunBody is the body of both run routes: POST /v1/threads/{threadId}/runs
// and POST /v1/threads/runs (which adds Thread and ThreadMetadata, and
// reads the user key from Thread.UserKey only). C is the content part
// type, T the tool definition, A the available component, I the initial
// message, R the resume entry (AG-UI's answer to an interrupt: the service
// does not read "resume" today).
type RunBody[C, T, A, I, R any] struct {
	Message             RunMessage[C]  `json:"message"`
	UserKey             string         `json:"userKey,omitzero"`
	Thread              *RunThread[I]  `json:"thread,omitzero"`
	PreviousRunID       string         `json:"previousRunId,omitzero"`
	Resume              []R            `json:"resume,omitzero"`
	Tools               []T            `json:"tools,omitzero"`
	AvailableComponents []A            `json:"availableComponents,omitzero"`
	ToolChoice          any            `json:"toolChoice,omitzero"`
	Model               string         `json:"model,omitzero"`
	MaxTokens           int            `json:"maxTokens,omitzero"`
	Temperature         *float64       `json:"temperature,omitzero"`
	RunMetadata         map[string]any `json:"runMetadata,omitzero"`
	ThreadMetadata      map[string]any `json:"threadMetadata,omitzero"`
}

// RunMessage is a run's user message.
type RunMessage[C any] struct {
	Role              string         `json:"role"`
	Content           []C            `json:"content"`
	Metadata          map[string]any `json:"metadata,omitzero"`
	AdditionalContext map[string]any `json:"additionalContext,omitzero"`
}

// RunThread is the thread that POST /v1/threads/runs creates. Metadata is
// the service's older spelling of RunBody.ThreadMetadata, which wins when
// both are sent; the SDK sends ThreadMetadata.
type RunThread[I any] struct {
	UserKey         string         `json:"userKey,omitzero"`
	Metadata        map[string]any `json:"metadata,omitzero"`
	InitialMessages []I            `json:"initialMessages,omitzero"`
}

// Body is a request body of a route that takes one. WithoutUser removes
// the end user that a sender other than the SDK put in it (a browser's
// userKey, thread.userKey): the end user goes in only from the call's
// own, where the route reads it.
type Body interface{ WithoutUser() }

// WithoutUser removes the body's userKey.
func (b *CreateThreadBody[I]) WithoutUser() { b.UserKey = "" }

// WithoutUser does nothing: the route reads the user key in the query.
func (b *UpdateThreadBody) WithoutUser() {}

// WithoutUser removes the body's userKey.
func (b *SuggestionsBody[A]) WithoutUser() { b.UserKey = "" }

// WithoutUser removes the body's userKey.
func (b *ComponentStateBody[P]) WithoutUser() { b.UserKey = "" }

// WithoutUser removes the body's userKey and thread.userKey.
func (b *RunBody[C, T, A, I, R]) WithoutUser() {
	b.UserKey = ""
	if b.Thread != nil {
		b.Thread.UserKey = ""
	}
}
