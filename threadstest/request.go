package threadstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Request is one request the server received, as [Server.Requests] returns
// it.
type Request struct {
	// Method is the request's method, such as "POST".
	Method string
	// Path is the escaped path, as on the wire.
	Path   string
	Query  url.Values
	Header http.Header
	// Body is the request body (at most 32 MiB of it); nil for a request
	// refused for its key, whose body the server does not keep.
	Body []byte
}

// The bounds of the request log ([Server.Requests]): the most recent
// requests, at most maxLogged of them and at most maxLogBytes of their
// bodies, headers and paths together. A test that needs more makes a new
// server.
const (
	maxLogged   = 10_000
	maxLogBytes = 64 << 20
)

// requestLog is the bounded log of the requests received; s.mu guards it.
type requestLog struct {
	reqs  []Request // oldest first
	bytes int       // the size of reqs, as size counts it
}

// add appends r, forgetting the oldest requests past the bounds.
func (l *requestLog) add(r Request) {
	l.reqs = append(l.reqs, r)
	l.bytes += size(r)
	drop := 0
	for len(l.reqs)-drop > maxLogged || (l.bytes > maxLogBytes && drop < len(l.reqs)-1) {
		l.bytes -= size(l.reqs[drop])
		drop++
	}
	if drop > 0 {
		// A fresh array, so that the forgotten bodies can be freed.
		l.reqs = append([]Request(nil), l.reqs[drop:]...)
	}
}

// size is what a logged request costs: its body, path, query and headers.
func size(r Request) int {
	n := len(r.Body) + len(r.Path) + len(r.Method)
	for k, vs := range r.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	for k, vs := range r.Query {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

// Advance decodes the body of an advance or advancestream request, so a
// test can assert what the client sent: the message (its role, text,
// tool_call_id and error), clientTools, toolCallCounts and the rest. It
// returns an error when the body is not such JSON.
func (r Request) Advance() (*AdvanceRequest, error) {
	if !strings.HasSuffix(r.Path, "/advance") && !strings.HasSuffix(r.Path, "/advancestream") {
		return nil, fmt.Errorf("threadstest: %s %s is not an advance request", r.Method, r.Path)
	}
	var a AdvanceRequest
	if err := json.Unmarshal(r.Body, &a); err != nil {
		return nil, fmt.Errorf("threadstest: %s %s: the body is not an advance request: %w", r.Method, r.Path, err)
	}
	return &a, nil
}

// AdvanceRequest is the body of POST /threads/{id}/advancestream (and of
// the other advance routes) as the fake reads it; [Request.Advance]
// decodes it.
type AdvanceRequest struct {
	// MessageToAppend is nil when the body has no "messageToAppend".
	MessageToAppend *SentMessage   `json:"messageToAppend"`
	ContextKey      string         `json:"contextKey"`
	ClientTools     []OfferedTool  `json:"clientTools"`
	ForceToolChoice string         `json:"forceToolChoice"`
	ToolCallCounts  map[string]int `json:"toolCallCounts"`
	InitialMessages []SentMessage  `json:"initialMessages"`
	// AvailableComponents are kept as sent.
	AvailableComponents []json.RawMessage `json:"availableComponents"`
}

// SentMessage is a message a client sent: "messageToAppend" or one of
// "initialMessages" (the fake's reading of it, not the SDK's
// [threads.MessageRequest]).
type SentMessage struct {
	Role    string     `json:"role"`
	Content []SentPart `json:"content"`
	// ToolCallID is "tool_call_id": on a tool result, the id of the call it
	// answers.
	ToolCallID string `json:"tool_call_id"`
	// Error is the "error" member a client sets on a tool result when the
	// tool failed.
	Error string `json:"error"`
}

// Text returns the text of every text part, joined.
func (m SentMessage) Text() string {
	s := ""
	for _, p := range m.Content {
		if p.Type == "text" {
			s += p.Text
		}
	}
	return s
}

// SentPart is one part of a message's content. The fake reads text
// parts only; other parts are stored without their payload.
type SentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// OfferedTool is one of the "clientTools" a client offers (named apart
// from the SDK's [threads.Tool], which is what a client runs).
type OfferedTool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  []OfferedParameter `json:"parameters"`
	MaxCalls    int                `json:"maxCalls"`
}

// OfferedParameter is one parameter of an [OfferedTool], as sent.
type OfferedParameter struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	IsRequired  bool     `json:"isRequired"`
	EnumValues  []string `json:"enumValues"`
	// Items is "items": the element type of an array parameter.
	Items *struct {
		Type string `json:"type"`
	} `json:"items"`
	// Schema is the parameter's "schema" member exactly as sent (a JSON
	// Schema of its value), nil when the client sent none. The default
	// reply reads its "type" and "enum" when Type and EnumValues are empty.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// ModelSchema returns the JSON Schema that the live service hands to the
// model for p (the property of the tool's parameters object), so that a
// test can check what the model will see: "schema" as it was sent, when
// there is one; otherwise only the type, with the items' type for an
// array, and the enumValues only when the type is "enum". The service
// drops a parameter's description, and its enumValues for any other type,
// unless "schema" carries them.
func (p OfferedParameter) ModelSchema() map[string]any {
	if len(p.Schema) > 0 {
		var sch map[string]any
		if json.Unmarshal(p.Schema, &sch) == nil {
			return sch
		}
	}
	s := map[string]any{"type": p.Type}
	switch {
	case p.Type == "enum":
		s["type"] = "string"
		enum := make([]any, len(p.EnumValues))
		for i, v := range p.EnumValues {
			enum[i] = v
		}
		s["enum"] = enum
	case p.Type == "array" && p.Items != nil:
		s["items"] = map[string]any{"type": p.Items.Type}
	}
	return s
}
