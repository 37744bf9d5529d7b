package threadstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// The thread routes beyond the five endpoints: update, delete, generate-name
// and the message routes (list, append, delete, suggestions, component
// state), with the live formats.

// updatedThread is the answer to PUT /threads/{id}: the live handler spreads
// the database row, so contextKey is null when unset and the v1 columns come
// along.
type updatedThread struct {
	thread
	ContextKey         *string `json:"contextKey"`
	RunStatus          string  `json:"runStatus"`
	CurrentRunID       *string `json:"currentRunId"`
	LastRunCancelled   *bool   `json:"lastRunCancelled"`
	LastRunError       any     `json:"lastRunError"`
	PendingToolCallIDs any     `json:"pendingToolCallIds"`
	LastCompletedRunID *string `json:"lastCompletedRunId"`
	SDKVersion         *string `json:"sdkVersion"`
}

func (s *Server) update(c *call) {
	w, body := c.w, c.body
	t := c.thread
	// A contextKey in the body is accepted and ignored: the live service
	// does not store it (capture 03).
	var in struct {
		ProjectID any             `json:"projectId"`
		Name      *string         `json:"name"`
		Metadata  json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	var meta map[string]any
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		if err := json.Unmarshal(in.Metadata, &meta); err != nil {
			frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"metadata must be an object"})
			return
		}
	}
	if !s.ownProject(w, in.ProjectID, false) {
		return
	}
	s.mu.Lock()
	if in.Name != nil {
		t.Name = *in.Name
	}
	if meta != nil {
		t.Metadata = meta
	}
	t.UpdatedAt = now()
	out := updatedThread{thread: *t, RunStatus: "idle"}
	s.mu.Unlock()
	if out.thread.ContextKey != "" {
		out.ContextKey = &out.thread.ContextKey
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) deleteThread(c *call) {
	w, id, t := c.w, c.arg(0), c.thread
	s.mu.Lock()
	stopGeneration(t)
	for _, m := range t.messages {
		delete(s.suggested, m.ID)
	}
	delete(s.threads, id)
	s.order = slices.DeleteFunc(s.order, func(v string) bool { return v == id })
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// generateName names the thread after its first user message, clipped to 40
// characters ("New conversation" when no message has text), and answers
// 201; a thread without messages is the live 404 problem (capture 15).
func (s *Server) generateName(c *call) {
	w, r, t := c.w, c.r, c.thread
	s.mu.Lock()
	if key := r.URL.Query().Get("contextKey"); key != "" && key != t.ContextKey {
		s.mu.Unlock()
		notFound(w, r, "Thread not found")
		return
	}
	if len(t.messages) == 0 {
		s.mu.Unlock()
		notFound(w, r, "No messages found for thread")
		return
	}
	name := "New conversation"
	for _, m := range t.messages {
		if m.Role == "user" {
			if text := strings.TrimSpace(textOf(m.Content)); text != "" {
				name = clip(text, 40)
				break
			}
		}
	}
	t.Name, t.UpdatedAt = name, now()
	out := *t
	s.mu.Unlock()
	out.ContextKey = ""
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listMessages(c *call) {
	if includeInternalOK(c) {
		s.answer(c.w, http.StatusOK, func() any { return append([]message{}, c.thread.messages...) })
	}
}

var roles = []string{"user", "assistant", "system", "tool"}

func (s *Server) addMessage(c *call) {
	w, body := c.w, c.body
	t := c.thread
	var in struct {
		Role              any            `json:"role"`
		Content           any            `json:"content"`
		ToolCallID        string         `json:"tool_call_id"`
		Error             string         `json:"error"`
		Metadata          map[string]any `json:"metadata"`
		ComponentState    map[string]any `json:"componentState"`
		AdditionalContext map[string]any `json:"additionalContext"`
		IsCancelled       bool           `json:"isCancelled"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	var errs []string
	role, _ := in.Role.(string)
	if !slices.Contains(roles, role) {
		errs = append(errs, "role must be one of the following values: user, assistant, system, tool")
	}
	parts, isList := in.Content.([]any)
	if !isList {
		errs = append(errs, "content must be an array")
	}
	if len(errs) > 0 {
		frameworkErrorList(w, http.StatusBadRequest, "Bad Request", errs)
		return
	}
	if role == "tool" && in.ToolCallID == "" {
		// A plain Error in the live service: the framework's 500.
		internalError(w)
		return
	}
	content := make([]SentPart, 0, len(parts))
	for _, p := range parts {
		obj, _ := p.(map[string]any)
		typ, _ := obj["type"].(string)
		text, _ := obj["text"].(string)
		content = append(content, SentPart{Type: typ, Text: text})
	}
	m := message{ThreadID: t.ID, CreatedAt: now(), Role: role, Content: content, ToolCallID: in.ToolCallID,
		Error: in.Error, Metadata: in.Metadata, IsCancelled: in.IsCancelled,
		ComponentState: orEmpty(in.ComponentState), AdditionalContext: orEmpty(in.AdditionalContext)}
	s.mu.Lock()
	m.ID = s.newID("msg_")
	t.messages = append(t.messages, m)
	t.UpdatedAt = now()
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, m)
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// deleteMessage answers 200 whether or not the thread has the message, as
// the live handler deletes by id without looking first.
func (s *Server) deleteMessage(c *call) {
	w, messageID, t := c.w, c.arg(1), c.thread
	s.mu.Lock()
	t.messages = slices.DeleteFunc(t.messages, func(m message) bool { return m.ID == messageID })
	delete(s.suggested, messageID)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// suggestion is a stored suggestion in the live service's JSON shape.
type suggestion struct {
	ID                 string         `json:"id"`
	MessageID          string         `json:"messageId"`
	Title              string         `json:"title"`
	DetailedSuggestion string         `json:"detailedSuggestion"`
	Description        string         `json:"description"`
	Metadata           map[string]any `json:"metadata,omitempty"`
}

// findMessage returns the thread's message with the id, or nil; s.mu is
// held.
func findMessage(t *thread, messageID string) *message {
	for i := range t.messages {
		if t.messages[i].ID == messageID {
			return &t.messages[i]
		}
	}
	return nil
}

func (s *Server) suggestions(c *call) {
	w, messageID, t := c.w, c.arg(1), c.thread
	s.mu.Lock()
	found := findMessage(t, messageID) != nil
	out := append([]suggestion{}, s.suggested[messageID]...)
	s.mu.Unlock()
	switch {
	case !found: // capture 10
		writeJSON(w, http.StatusBadRequest, map[string]any{
			"type": "https://problems-registry.smartbear.com/bad-request", "status": 400,
			"title": "Invalid Suggestion Request", "detail": "Message not found", "code": "INVALID_SUGGESTION_REQUEST",
		})
	case len(out) == 0: // capture 07: none generated yet
		writeJSON(w, http.StatusNotFound, map[string]any{
			"type": "https://problems-registry.smartbear.com/not-found", "status": 404,
			"title": "Suggestion Not Found", "detail": "No suggestions found for message " + messageID,
			"code": "SUGGESTION_NOT_FOUND",
		})
	default:
		writeJSON(w, http.StatusOK, out)
	}
}

// suggestionTitles are the titles of the fake's suggestions, in order: a
// request for n suggestions gets the first n. Each suggestion's
// detailedSuggestion (and description) is "<title> (re: <message text>)",
// the text clipped to 40 characters.
var suggestionTitles = [10]string{
	"Tell me more", "Give an example", "Summarize this", "What comes next?", "Explain it simply",
	"Any caveats?", "Show the steps", "Compare the options", "Ask a follow-up", "Start over",
}

func (s *Server) generateSuggestions(c *call) {
	w, messageID, body, t := c.w, c.arg(1), c.body, c.thread
	var in struct {
		MaxSuggestions any `json:"maxSuggestions"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	n := 3
	if in.MaxSuggestions != nil {
		f, ok := in.MaxSuggestions.(float64)
		switch {
		case !ok:
			frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"maxSuggestions must be a number conforming to the specified constraints"})
			return
		case f < 1:
			frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"maxSuggestions must not be less than 1"})
			return
		case f > 10:
			frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"maxSuggestions must not be greater than 10"})
			return
		}
		n = int(f)
	}
	s.mu.Lock()
	m := findMessage(t, messageID)
	if m == nil { // capture 11
		s.mu.Unlock()
		writeJSON(w, http.StatusInternalServerError, map[string]any{
			"type": "https://problems-registry.smartbear.com/internal-server-error", "status": 500,
			"title": "Suggestion Generation Failed", "detail": "Failed to generate suggestions for message " + messageID,
			"code": "SUGGESTION_GENERATION_FAILED", "details": map[string]any{"maxSuggestions": n},
		})
		return
	}
	text := clip(strings.TrimSpace(textOf(m.Content)), 40)
	out := make([]suggestion, n)
	for i := range out {
		title := suggestionTitles[i]
		detail := fmt.Sprintf("%s (re: %s)", title, text)
		out[i] = suggestion{ID: s.newID("sug_"), MessageID: messageID, Title: title, DetailedSuggestion: detail,
			Description: detail, Metadata: map[string]any{"source": "threadstest"}}
	}
	if s.suggested == nil {
		s.suggested = map[string][]suggestion{}
	}
	s.suggested[messageID] = append(s.suggested[messageID], out...)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) componentState(c *call) {
	w, messageID, body, t := c.w, c.arg(1), c.body, c.thread
	var in struct {
		State json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	var state map[string]any
	if err := json.Unmarshal(in.State, &state); err != nil || state == nil {
		frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"state must be an object"})
		return
	}
	s.mu.Lock()
	m := findMessage(t, messageID)
	if m == nil {
		s.mu.Unlock()
		internalError(w) // capture 13: an uncaught error in the live service
		return
	}
	m.ComponentState = state
	out := *m
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// notFound is the service's domain 404 problem.
func notFound(w http.ResponseWriter, r *http.Request, detail string) {
	problem(w, http.StatusNotFound, map[string]any{
		"type": "https://docs.tambo.co/reference/problems/not-found", "status": 404,
		"title": "Not Found", "detail": detail, "instance": r.URL.RequestURI(),
	})
}

func textOf(parts []SentPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// clip cuts s to at most n characters, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
