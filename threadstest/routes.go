package threadstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// thread is a stored thread in the live service's JSON shape.
type thread struct {
	ID              string         `json:"id"`
	ProjectID       string         `json:"projectId"`
	Name            string         `json:"name,omitempty"`
	ContextKey      string         `json:"contextKey,omitempty"`
	GenerationStage string         `json:"generationStage"`
	StatusMessage   string         `json:"statusMessage,omitempty"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	CreatedAt       string         `json:"createdAt"`
	UpdatedAt       string         `json:"updatedAt"`

	messages []message
	cancel   chan struct{} // closed by Cancel while a generation runs
	running  bool
	run      *toolRun // a scripted tool-call conversation in progress
}

// message is a stored message in the live service's JSON shape.
type message struct {
	ID                string         `json:"id"`
	ThreadID          string         `json:"threadId"`
	IsCancelled       bool           `json:"isCancelled"`
	CreatedAt         string         `json:"createdAt"`
	AdditionalContext map[string]any `json:"additionalContext"`
	ComponentState    map[string]any `json:"componentState"`
	Content           []SentPart     `json:"content"`
	Component         *component     `json:"component,omitempty"`
	Role              string         `json:"role"`
	Reasoning         []string       `json:"reasoning,omitempty"`
	ToolCallRequest   *toolCall      `json:"toolCallRequest,omitempty"`
	ToolCallID        string         `json:"tool_call_id,omitempty"`
	ActionType        string         `json:"actionType,omitempty"`
	Error             string         `json:"error,omitempty"`
	Metadata          map[string]any `json:"metadata,omitempty"`
}

type component struct {
	Message        string    `json:"message"`
	ComponentName  string    `json:"componentName"`
	Props          any       `json:"props"`
	ComponentState any       `json:"componentState"`
	Role           string    `json:"role"`
	ToolCallReq    *toolCall `json:"toolCallRequest,omitempty"`
	ToolCallID     *string   `json:"toolCallId,omitempty"`
}

type toolCall struct {
	ToolName   string     `json:"toolName"`
	Parameters []toolArgs `json:"parameters"`
}

type toolArgs struct {
	ParameterName  string `json:"parameterName"`
	ParameterValue any    `json:"parameterValue"`
}

type snapshot struct {
	Message         message `json:"responseMessageDto"`
	GenerationStage string  `json:"generationStage"`
	StatusMessage   string  `json:"statusMessage"`
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newID makes an id in the live format: prefix, 8 alphanumerics, a dot, 6
// hex. s.mu is held.
func (s *Server) newID(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for range 8 {
		b.WriteByte(alnum[s.rng.IntN(len(alnum))])
	}
	fmt.Fprintf(&b, ".%06x", s.rng.IntN(1<<24))
	return b.String()
}

// project answers GET /projects with every field the live service sends.
func (s *Server) project(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id": s.ProjectID, "name": "Fake Project", "userId": "3abc4ccf-139a-476d-bcc4-95d0c1cb6237",
		"defaultLlmProviderName": "openai-compatible", "customLlmModelName": "fake-model",
		"customLlmBaseURL": "http://127.0.0.1:18555/v1", "allowSystemPromptOverride": false,
		"isTokenRequired": false, "providerType": "llm", "agentProviderType": "ag-ui",
	})
}

// list answers both list routes: newest first, filtered on contextKey as
// live (none lists the threads without one).
func (s *Server) list(c *call) {
	q := c.r.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(offset, 0)
	var limit *int // nil: "limit":null and no limit, as live for limit=abc
	if v := q.Get("limit"); v == "" {
		ten := 10
		limit = &ten
	} else if n, err := strconv.Atoi(v); err == nil {
		limit = &n
	}
	key := q.Get("contextKey")
	s.answer(c.w, http.StatusOK, func() any {
		var match []*thread
		for i := len(s.order) - 1; i >= 0; i-- {
			if t := s.threads[s.order[i]]; t.ContextKey == key {
				match = append(match, t)
			}
		}
		page := []*thread{}
		if offset < len(match) {
			end := len(match)
			if limit != nil {
				end = min(end, offset+max(*limit, 0))
			}
			page = match[offset:end]
		}
		return struct {
			Total  int       `json:"total"`
			Offset int       `json:"offset"`
			Limit  *int      `json:"limit"`
			Count  int       `json:"count"`
			Items  []*thread `json:"items"`
		}{len(match), offset, limit, len(page), page}
	})
}

func (s *Server) create(c *call) {
	w, body := c.w, c.body
	var in struct {
		ProjectID  any            `json:"projectId"`
		Name       string         `json:"name"`
		ContextKey string         `json:"contextKey"`
		Metadata   map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	if !s.ownProject(w, in.ProjectID, s.cfg.foreignCreate500) {
		return
	}
	s.mu.Lock()
	ts := now()
	t := &thread{ID: s.newID("thr_"), ProjectID: s.ProjectID, Name: in.Name, ContextKey: in.ContextKey,
		GenerationStage: "IDLE", Metadata: in.Metadata, CreatedAt: ts, UpdatedAt: ts}
	s.threads[t.ID] = t
	s.order = append(s.order, t.ID)
	out := *t
	s.mu.Unlock()
	out.ContextKey = "" // the create answer has no contextKey, as live
	writeJSON(w, http.StatusCreated, out)
}

// ownProject checks a body's projectId, and answers the refusal itself:
// 400 unless it is a string, 403 (or 500, as live for a create) for
// another project's.
func (s *Server) ownProject(w http.ResponseWriter, v any, foreign500 bool) bool {
	pid, ok := v.(string)
	switch {
	case !ok:
		frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"projectId must be a string"})
	case pid != s.ProjectID && foreign500:
		internalError(w)
	case pid != s.ProjectID:
		forbidden(w)
	default:
		return true
	}
	return false
}

// lookup finds a thread of the key's project or answers 403, as the live
// thread guard does for an unknown id.
func (s *Server) lookup(w http.ResponseWriter, id string) *thread {
	s.mu.Lock()
	t := s.threads[id]
	s.mu.Unlock()
	if t == nil {
		forbidden(w)
	}
	return t
}

func (s *Server) get(c *call) {
	t := c.thread
	if !includeInternalOK(c) {
		return
	}
	s.mu.Lock()
	ctxKey := t.ContextKey
	s.mu.Unlock()
	if key := c.r.URL.Query().Get("contextKey"); key != "" && key != ctxKey {
		notFound(c.w, c.r, "Thread not found")
		return
	}
	s.answer(c.w, http.StatusOK, func() any {
		out := struct {
			thread
			Messages []message `json:"messages"`
		}{*t, append([]message{}, t.messages...)}
		out.ContextKey = ""
		return out
	})
}

// includeInternalOK answers the 400 of the routes that read messages for
// an includeInternal other than "true", and reports whether there was
// none.
func includeInternalOK(c *call) bool {
	q := c.r.URL.Query()
	if q.Has("includeInternal") && q.Get("includeInternal") != "true" {
		frameworkError(c.w, http.StatusBadRequest, "Bad Request", "includeInternal is deprecated, if passed, it can only be `true`")
		return false
	}
	return true
}

func (s *Server) cancel(c *call) {
	w, t := c.w, c.thread
	s.mu.Lock()
	stopGeneration(t)
	t.run = nil
	t.GenerationStage, t.StatusMessage, t.UpdatedAt = "CANCELLED", "Thread advancement cancelled", now()
	empty := len(t.messages) == 0
	if n := len(t.messages); n > 0 && t.messages[n-1].Role == "assistant" {
		t.messages[n-1].IsCancelled = true
	}
	out := encodeJSON(t)
	s.mu.Unlock()
	if empty && s.cfg.cancelEmpty500 {
		internalError(w)
		return
	}
	writeBody(w, http.StatusCreated, out)
}

// deprecated answers the two /advance routes: 410, after the thread check
// on POST /threads/{id}/advance.
func (s *Server) deprecated(c *call) {
	w, r := c.w, c.r
	byID := c.thread != nil
	s.mu.Lock()
	advice, detail := s.migrateNew, "The non-streaming /advance endpoint has been deprecated. Please use /advancestream instead."
	if byID {
		advice, detail = s.migrateByID, "The non-streaming /:id/advance endpoint has been deprecated. Please use /:id/advancestream instead."
	}
	s.mu.Unlock()
	// The live service sends these problems as plain application/json.
	writeJSON(w, http.StatusGone, map[string]any{
		"type":     "https://docs.tambo.co/reference/problems/endpoint-deprecated",
		"status":   410,
		"title":    "Endpoint Deprecated",
		"detail":   detail,
		"code":     "ENDPOINT_DEPRECATED",
		"instance": r.URL.RequestURI(),
		"details":  map[string]any{"migrateToEndpoint": advice},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, status, encodeJSON(v))
}

// encodeJSON encodes v as the service does: no HTML escaping (as
// JSON.stringify), and a final newline.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.Bytes()
}

// writeBody sends an encoded JSON answer.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}

// answer sends what build returns, encoded while s.mu is held. Stored
// state goes out this way: a run writes its reply (text, blocks,
// isCancelled) as it streams, and a handler changes a message's component
// state in place, both under s.mu; an answer encoded after the unlock
// would read them while they change (issue 30's race).
func (s *Server) answer(w http.ResponseWriter, status int, build func() any) {
	s.mu.Lock()
	body := encodeJSON(build())
	s.mu.Unlock()
	writeBody(w, status, body)
}

func problem(w http.ResponseWriter, status int, body map[string]any) {
	w.Header().Set("Content-Type", "application/problem+json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// frameworkError answers in the framework's default shape.
func frameworkError(w http.ResponseWriter, status int, title, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "error": title, "statusCode": status})
}

func frameworkErrorList(w http.ResponseWriter, status int, title string, msgs []string) {
	writeJSON(w, status, map[string]any{"message": msgs, "error": title, "statusCode": status})
}

// forbidden is the live guards' refusal.
func forbidden(w http.ResponseWriter) {
	frameworkError(w, http.StatusForbidden, "Forbidden", "Forbidden resource")
}

// internalError is the framework's answer to an uncaught error.
func internalError(w http.ResponseWriter) {
	writeJSON(w, http.StatusInternalServerError, map[string]any{"statusCode": 500, "message": "Internal server error"})
}

// stopGeneration ends t's running generation, if any, as a cancel does.
// The caller holds s.mu.
func stopGeneration(t *thread) {
	if t.running && t.cancel != nil {
		close(t.cancel)
		t.cancel = nil
	}
}
