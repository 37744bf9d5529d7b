package threadstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: body})
	f := s.takeFault(r)
	s.mu.Unlock()

	if f != nil {
		if f.Stall != nil {
			select {
			case <-f.Stall:
			case <-r.Context().Done():
				return
			}
		}
		if f.Reset {
			reset(w)
			return
		}
		if f.ActThenReset {
			// The /v1 routes act too (a run starts and streams to its end).
			if !s.serveV1(httptest.NewRecorder(), r, body) && s.authorize(httptest.NewRecorder(), r) {
				s.route(httptest.NewRecorder(), r, body)
			}
			reset(w)
			return
		}
		if f.Status != 0 {
			for k, vs := range f.Header {
				w.Header()[k] = vs
			}
			w.WriteHeader(f.Status)
			io.WriteString(w, f.Body)
			return
		}
	}
	if s.serveStorageHost(w, r, body) { // the presigned upload URL: no key (extra.go)
		return
	}
	if s.serveV1(w, r, body) { // the /v1 routes: their own guards (v1.go)
		return
	}
	if !s.authorize(w, r) {
		return
	}
	s.route(w, r, body)
}

// authorize checks the key and answers the refusal itself.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.keyHeader == "" {
		scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if ok && strings.EqualFold(scheme, "Bearer") && key == s.APIKey {
			return true
		}
		frameworkError(w, http.StatusUnauthorized, "Unauthorized", "Invalid or missing API key")
		return false
	}
	// The live guards: the key header first (a guard that says no is 403),
	// then the bearer guard, which takes any Authorization for a session
	// token.
	if r.Header.Get(s.cfg.keyHeader) != s.APIKey {
		forbidden(w)
		return false
	}
	if auth := r.Header.Get("Authorization"); auth != "" {
		if len(auth) < 7 || !strings.EqualFold(auth[:7], "bearer ") {
			frameworkError(w, http.StatusUnauthorized, "Unauthorized", "Invalid Authorization header format")
		} else {
			frameworkError(w, http.StatusUnauthorized, "Unauthorized", "Invalid bearer token")
		}
		return false
	}
	return true
}

// route dispatches on escaped segments, so an id holding "/" or ".." stays
// one segment.
func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte) {
	raw := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	segs := make([]string, len(raw))
	for i, seg := range raw {
		v, err := url.PathUnescape(seg)
		if err != nil {
			v = seg
		}
		segs[i] = v
	}
	m := r.Method
	switch {
	case len(segs) == 1 && segs[0] == "projects" && m == http.MethodGet:
		s.project(w)
	case len(segs) == 1 && segs[0] == "threads" && m == http.MethodGet && !s.cfg.noSpecList:
		s.list(w, r)
	case len(segs) == 3 && segs[0] == "threads" && segs[1] == "project" && m == http.MethodGet:
		if segs[2] != s.ProjectID {
			forbidden(w)
			return
		}
		s.list(w, r)
	case len(segs) == 1 && segs[0] == "threads" && m == http.MethodPost:
		s.create(w, body)
	case len(segs) == 2 && segs[0] == "threads" && segs[1] == "advance" && m == http.MethodPost:
		s.deprecated(w, r, "")
	case len(segs) == 2 && segs[0] == "threads" && segs[1] == "advancestream" && m == http.MethodPost:
		s.advance(w, r, body, "")
	case len(segs) == 2 && segs[0] == "threads" && m == http.MethodGet:
		s.get(w, r, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "advance" && m == http.MethodPost:
		if s.lookup(w, segs[1]) != nil {
			s.deprecated(w, r, segs[1])
		}
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "advancestream" && m == http.MethodPost:
		s.advance(w, r, body, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "cancel" && m == http.MethodPost:
		s.cancel(w, segs[1])
	case len(segs) == 2 && segs[0] == "threads" && m == http.MethodPut:
		s.update(w, segs[1], body)
	case len(segs) == 2 && segs[0] == "threads" && m == http.MethodDelete:
		s.deleteThread(w, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "generate-name" && m == http.MethodPost:
		s.generateName(w, r, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "messages" && m == http.MethodGet:
		s.listMessages(w, r, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "messages" && m == http.MethodPost:
		s.addMessage(w, segs[1], body)
	case len(segs) == 4 && segs[0] == "threads" && segs[2] == "messages" && m == http.MethodDelete:
		s.deleteMessage(w, segs[1], segs[3])
	case len(segs) == 5 && segs[0] == "threads" && segs[2] == "messages" && segs[4] == "suggestions" && m == http.MethodGet:
		s.suggestions(w, r, segs[1], segs[3])
	case len(segs) == 5 && segs[0] == "threads" && segs[2] == "messages" && segs[4] == "suggestions" && m == http.MethodPost:
		s.generateSuggestions(w, r, segs[1], segs[3], body)
	case len(segs) == 5 && segs[0] == "threads" && segs[2] == "messages" && segs[4] == "component-state" && m == http.MethodPut:
		s.componentState(w, r, segs[1], segs[3], body)
	default:
		if s.routeExtra(w, r, segs, body) { // storage, audio, keys, MCP tokens, registry (extra.go)
			return
		}
		frameworkError(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Cannot %s %s", m, r.URL.Path))
	}
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
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
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
	s.mu.Lock()
	var match []thread
	for i := len(s.order) - 1; i >= 0; i-- {
		t := s.threads[s.order[i]]
		if t.ContextKey == key {
			match = append(match, *t)
		}
	}
	s.mu.Unlock()
	page := []thread{}
	if offset < len(match) {
		end := len(match)
		if limit != nil {
			end = min(end, offset+max(*limit, 0))
		}
		page = match[offset:end]
	}
	writeJSON(w, http.StatusOK, struct {
		Total  int      `json:"total"`
		Offset int      `json:"offset"`
		Limit  *int     `json:"limit"`
		Count  int      `json:"count"`
		Items  []thread `json:"items"`
	}{len(match), offset, limit, len(page), page})
}

func (s *Server) create(w http.ResponseWriter, body []byte) {
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
	pid, ok := in.ProjectID.(string)
	if !ok {
		frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"projectId must be a string"})
		return
	}
	if pid != s.ProjectID {
		if s.cfg.foreignCreate500 {
			internalError(w)
		} else {
			forbidden(w)
		}
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

func (s *Server) get(w http.ResponseWriter, r *http.Request, id string) {
	t := s.lookup(w, id)
	if t == nil {
		return
	}
	q := r.URL.Query()
	if q.Has("includeInternal") && q.Get("includeInternal") != "true" {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "includeInternal is deprecated, if passed, it can only be `true`")
		return
	}
	s.mu.Lock()
	out := struct {
		thread
		Messages []message `json:"messages"`
	}{*t, append([]message{}, t.messages...)}
	s.mu.Unlock()
	if key := q.Get("contextKey"); key != "" && key != out.ContextKey {
		problem(w, http.StatusNotFound, map[string]any{
			"type": "https://docs.tambo.co/reference/problems/not-found", "status": 404,
			"title": "Not Found", "detail": "Thread not found", "instance": r.URL.RequestURI(),
		})
		return
	}
	out.ContextKey = ""
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) cancel(w http.ResponseWriter, id string) {
	t := s.lookup(w, id)
	if t == nil {
		return
	}
	s.mu.Lock()
	stopGeneration(t)
	t.run = nil
	t.GenerationStage, t.StatusMessage, t.UpdatedAt = "CANCELLED", "Thread advancement cancelled", now()
	empty := len(t.messages) == 0
	if n := len(t.messages); n > 0 && t.messages[n-1].Role == "assistant" {
		t.messages[n-1].IsCancelled = true
	}
	out := *t
	s.mu.Unlock()
	if empty && s.cfg.cancelEmpty500 {
		internalError(w)
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) deprecated(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	advice, detail := s.migrateNew, "The non-streaming /advance endpoint has been deprecated. Please use /advancestream instead."
	if id != "" {
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
