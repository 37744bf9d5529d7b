// Package fakeserver is an in-memory Conversation Threads service for tests,
// examples and benchmarks. It speaks the API spec with the live service's
// formats: 201 on POST, ids like thr_XXXXXXXX.xxxxxx, millisecond UTC
// timestamps, the list envelope newest first, snapshot streams that end in
// "data: DONE", the "error:" line, 410 problems with migrateToEndpoint, and
// the three error shapes. It also injects faults on request.
//
// It requires "Authorization: Bearer <key>" (or the header set with
// WithKeyHeader).
package fakeserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a running fake service. Close it when done.
type Server struct {
	// URL is the base URL, such as http://127.0.0.1:41234.
	URL string
	// APIKey is the key the server accepts.
	APIKey string
	// ProjectID is the project every thread belongs to.
	ProjectID string

	srv       *httptest.Server
	keyHeader string
	conns     atomic.Int64 // TCP connections accepted

	mu          sync.Mutex
	rng         *rand.Rand
	threads     map[string]*thread
	order       []string // thread ids, oldest first
	faults      []*Fault
	scripts     []Script
	requests    []Request
	throttle    time.Duration
	migrateByID string
	migrateNew  string
	toolCalls   int
}

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
}

// message is a stored message in the live service's JSON shape.
type message struct {
	ID                string         `json:"id"`
	ThreadID          string         `json:"threadId"`
	IsCancelled       bool           `json:"isCancelled"`
	CreatedAt         string         `json:"createdAt"`
	AdditionalContext map[string]any `json:"additionalContext"`
	ComponentState    map[string]any `json:"componentState"`
	Content           []part         `json:"content"`
	Component         *component     `json:"component,omitempty"`
	Role              string         `json:"role"`
	Reasoning         []string       `json:"reasoning,omitempty"`
	ToolCallRequest   *toolCall      `json:"toolCallRequest,omitempty"`
	ToolCallID        string         `json:"tool_call_id,omitempty"`
	ActionType        string         `json:"actionType,omitempty"`
}

type part struct {
	Type string `json:"type"`
	Text string `json:"text"`
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

// Request is what the server received.
type Request struct {
	Method string
	Path   string // escaped, as on the wire
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Option configures New.
type Option func(*Server)

// WithKey sets the accepted API key (default "test-key").
func WithKey(key string) Option { return func(s *Server) { s.APIKey = key } }

// WithKeyHeader makes the server read the key from "name: <key>" instead of
// "Authorization: Bearer <key>", as the live service reads x-api-key.
func WithKeyHeader(name string) Option { return func(s *Server) { s.keyHeader = name } }

// WithThrottle sets the pause between snapshots (default 50ms, as live).
func WithThrottle(d time.Duration) Option { return func(s *Server) { s.throttle = d } }

// New starts a server.
func New(opts ...Option) *Server {
	s := &Server{
		APIKey:      "test-key",
		ProjectID:   "p_FakeProj.c0ffee",
		rng:         rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano()))),
		threads:     map[string]*thread{},
		throttle:    50 * time.Millisecond,
		migrateByID: "POST /:id/advancestream",
		migrateNew:  "POST /advancestream",
	}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, ending any stream in progress.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Client returns an *http.Client that talks to the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// SetThrottle changes the pause between snapshots.
func (s *Server) SetThrottle(d time.Duration) {
	s.mu.Lock()
	s.throttle = d
	s.mu.Unlock()
}

// SetMigrateTo sets the migrateToEndpoint advice of the two /advance 410s:
// byID for POST /threads/{id}/advance, create for POST /threads/advance.
// The defaults are the live service's: "POST /:id/advancestream" and
// "POST /advancestream".
func (s *Server) SetMigrateTo(byID, create string) {
	s.mu.Lock()
	s.migrateByID, s.migrateNew = byID, create
	s.mu.Unlock()
}

// Fault replaces the server's answer to matching requests.
type Fault struct {
	Method string // "" matches any method
	Path   string // the escaped path; a trailing "*" matches a prefix; "" matches any
	Times  int    // how many requests it answers (0 means 1; -1 means all)

	// Stall holds the request (before any answer) until Stall is closed or
	// the client goes away.
	Stall <-chan struct{}
	// Reset closes the connection without an answer, before the request
	// acts.
	Reset bool
	// ActThenReset lets the request act (a thread is created, a message
	// appended) and then closes the connection without the answer: the
	// case a client must never retry blindly.
	ActThenReset bool
	// Status, Header and Body make the answer. Status 0 passes the request
	// on to the normal handler (after Stall).
	Status int
	Header http.Header
	Body   string
}

// Inject queues a fault. Faults are matched in the order they were injected.
func (s *Server) Inject(f Fault) {
	if f.Times == 0 {
		f.Times = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
}

// Script shapes the next streamed reply. Queue one with PushScript.
type Script struct {
	// Replies are the assistant messages to stream, one after another. Empty
	// means one reply derived from the user's message.
	Replies []string
	// ErrorAfter, when Error is set, sends the error line after that many
	// snapshots (0: before any).
	Error      bool
	ErrorAfter int
	// DropAfter, when Drop is set, cuts the connection after that many
	// snapshots, without DONE.
	Drop      bool
	DropAfter int
	// Hold, when not nil, pauses after HoldAfter snapshots until closed.
	Hold      <-chan struct{}
	HoldAfter int
	// Oversize, when > 0, sends one snapshot whose text has that many bytes
	// first.
	Oversize int
	// FirstByte, when not nil, holds the response headers until closed.
	FirstByte <-chan struct{}
}

// PushScript queues a script for the next advancestream call.
func (s *Server) PushScript(sc Script) {
	s.mu.Lock()
	s.scripts = append(s.scripts, sc)
	s.mu.Unlock()
}

// Requests returns copies of every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count returns how many requests had the method and escaped path.
func (s *Server) Count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// Connections returns how many TCP connections the server has accepted.
func (s *Server) Connections() int { return int(s.conns.Load()) }

// ThreadCount returns how many threads exist.
func (s *Server) ThreadCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.threads)
}

// ThreadIDs returns every thread id, oldest first.
func (s *Server) ThreadIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
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
			if s.authorized(r) {
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
	if !s.authorized(r) {
		frameworkError(w, http.StatusUnauthorized, "Unauthorized", "Invalid or missing API key")
		return
	}
	s.route(w, r, body)
}

func (s *Server) takeFault(r *http.Request) *Fault {
	for i, f := range s.faults {
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if p := f.Path; p != "" {
			if strings.HasSuffix(p, "*") {
				if !strings.HasPrefix(r.URL.EscapedPath(), strings.TrimSuffix(p, "*")) {
					continue
				}
			} else if p != r.URL.EscapedPath() {
				continue
			}
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return f
	}
	return nil
}

// reset closes the connection without a response.
func reset(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func (s *Server) authorized(r *http.Request) bool {
	if s.keyHeader != "" {
		return r.Header.Get(s.keyHeader) == s.APIKey
	}
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && key == s.APIKey
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
		writeJSON(w, http.StatusOK, map[string]any{"id": s.ProjectID, "name": "Fake Project", "userId": "user_fake", "isTokenRequired": false, "providerType": "llm"})
	case len(segs) == 1 && segs[0] == "threads" && m == http.MethodGet:
		s.list(w, r)
	case len(segs) == 1 && segs[0] == "threads" && m == http.MethodPost:
		s.create(w, r, body)
	case len(segs) == 2 && segs[0] == "threads" && segs[1] == "advance" && m == http.MethodPost:
		s.deprecated(w, r, "")
	case len(segs) == 2 && segs[0] == "threads" && segs[1] == "advancestream" && m == http.MethodPost:
		s.advance(w, r, body, "")
	case len(segs) == 2 && segs[0] == "threads" && m == http.MethodGet:
		s.get(w, r, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "advance" && m == http.MethodPost:
		if s.lookup(w, r, segs[1]) != nil {
			s.deprecated(w, r, segs[1])
		}
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "advancestream" && m == http.MethodPost:
		s.advance(w, r, body, segs[1])
	case len(segs) == 3 && segs[0] == "threads" && segs[2] == "cancel" && m == http.MethodPost:
		s.cancel(w, r, segs[1])
	default:
		frameworkError(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Cannot %s %s", m, r.URL.Path))
	}
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newID makes an id in the live format: prefix, 8 alphanumerics, a dot, 6 hex.
func (s *Server) newID(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for range 8 {
		b.WriteByte(alnum[s.rng.IntN(len(alnum))])
	}
	fmt.Fprintf(&b, ".%06x", s.rng.IntN(1<<24))
	return b.String()
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	limit := 10
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
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
		page = match[offset:min(len(match), offset+max(limit, 0))]
	}
	writeJSON(w, http.StatusOK, struct {
		Total  int      `json:"total"`
		Offset int      `json:"offset"`
		Limit  int      `json:"limit"`
		Count  int      `json:"count"`
		Items  []thread `json:"items"`
	}{len(match), offset, limit, len(page), page})
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, body []byte) {
	var in struct {
		ProjectID  *string        `json:"projectId"`
		Name       string         `json:"name"`
		ContextKey string         `json:"contextKey"`
		Metadata   map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	if in.ProjectID == nil {
		frameworkErrorList(w, http.StatusBadRequest, "Bad Request", []string{"projectId must be a string"})
		return
	}
	if *in.ProjectID != s.ProjectID {
		frameworkError(w, http.StatusForbidden, "Forbidden", "Forbidden resource")
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

// lookup finds a thread or answers 404.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, id string) *thread {
	s.mu.Lock()
	t := s.threads[id]
	s.mu.Unlock()
	if t == nil {
		problem(w, http.StatusNotFound, map[string]any{
			"type": "https://docs.tambo.co/reference/problems/not-found", "status": 404,
			"title": "Not Found", "detail": "Thread not found", "instance": r.URL.RequestURI(),
		})
	}
	return t
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, id string) {
	t := s.lookup(w, r, id)
	if t == nil {
		return
	}
	s.mu.Lock()
	out := struct {
		thread
		Messages []message `json:"messages"`
	}{*t, append([]message{}, t.messages...)}
	s.mu.Unlock()
	out.ContextKey = ""
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request, id string) {
	t := s.lookup(w, r, id)
	if t == nil {
		return
	}
	s.mu.Lock()
	if t.running && t.cancel != nil {
		close(t.cancel)
		t.cancel = nil
	}
	t.GenerationStage, t.StatusMessage, t.UpdatedAt = "CANCELLED", "Thread advancement cancelled", now()
	if n := len(t.messages); n > 0 && t.messages[n-1].Role == "assistant" {
		t.messages[n-1].IsCancelled = true
	}
	out := *t
	s.mu.Unlock()
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
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusGone)
	json.NewEncoder(w).Encode(map[string]any{
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
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
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

// advanceRequest is the part of the advance body the fake reads.
type advanceRequest struct {
	MessageToAppend *struct {
		Role       string `json:"role"`
		Content    []part `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messageToAppend"`
	ContextKey  string `json:"contextKey"`
	ClientTools []struct {
		Name       string `json:"name"`
		Parameters []struct {
			Name string `json:"name"`
		} `json:"parameters"`
	} `json:"clientTools"`
}

func (s *Server) advance(w http.ResponseWriter, r *http.Request, body []byte, id string) {
	var in advanceRequest
	if err := json.Unmarshal(body, &in); err != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Unexpected end of JSON input")
		return
	}
	var t *thread
	if id != "" {
		if t = s.lookup(w, r, id); t == nil {
			return
		}
	}
	s.mu.Lock()
	var sc Script
	if len(s.scripts) > 0 {
		sc, s.scripts = s.scripts[0], s.scripts[1:]
	}
	throttle := s.throttle
	s.mu.Unlock()

	if sc.FirstByte != nil {
		select {
		case <-sc.FirstByte:
		case <-r.Context().Done():
			return
		}
	}
	st := &streamer{w: w, r: r, throttle: throttle}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusCreated)
	defer st.line("data: DONE")

	msg := in.MessageToAppend
	if msg == nil || (msg.Role == "tool" && msg.ToolCallID == "") || msg.Role == "" {
		st.line("error: Error in streaming response")
		return
	}

	s.mu.Lock()
	if t == nil {
		ts := now()
		t = &thread{ID: s.newID("thr_"), ProjectID: s.ProjectID, ContextKey: in.ContextKey, GenerationStage: "IDLE", CreatedAt: ts, UpdatedAt: ts}
		s.threads[t.ID] = t
		s.order = append(s.order, t.ID)
	}
	if t.running {
		s.mu.Unlock()
		st.line("error: Error in streaming response")
		return
	}
	cancel := make(chan struct{})
	t.running, t.cancel = true, cancel
	t.messages = append(t.messages, message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: msg.Role,
		Content: msg.Content, ToolCallID: msg.ToolCallID, AdditionalContext: map[string]any{}, ComponentState: map[string]any{}})
	t.GenerationStage, t.StatusMessage = "STREAMING_RESPONSE", "Streaming response..."
	userText := ""
	for _, p := range msg.Content {
		userText += p.Text
	}
	var tool string
	var toolParams []string
	if msg.Role == "user" && len(in.ClientTools) > 0 {
		tool = in.ClientTools[0].Name
		for _, p := range in.ClientTools[0].Parameters {
			toolParams = append(toolParams, p.Name)
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		t.running = false
		if t.cancel == cancel {
			t.cancel = nil
		}
		s.mu.Unlock()
	}()
	st.cancel = cancel

	replies := sc.Replies
	if len(replies) == 0 {
		if msg.Role == "tool" {
			replies = []string{"The tool returned: " + userText}
		} else {
			replies = []string{"You said: " + userText}
		}
	}
	st.sc = sc
	if sc.Error && sc.ErrorAfter == 0 {
		st.line("error: Error in streaming response")
		s.finishThread(t, "ERROR", "")
		return
	}
	if sc.Oversize > 0 {
		big := message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: "assistant",
			Content: []part{{Type: "text", Text: strings.Repeat("x", sc.Oversize)}}}
		st.send(snapshot{Message: big, GenerationStage: "STREAMING_RESPONSE", StatusMessage: "Streaming response..."})
	}
	for i, text := range replies {
		last := i == len(replies)-1
		var stage string
		if last && tool != "" {
			stage = s.streamToolCall(st, t, tool, toolParams, userText)
		} else {
			stage = s.streamText(st, t, text, last)
		}
		if stage == "" {
			return // cut, failed or cancelled: the streamer said so
		}
	}
}

func (s *Server) finishThread(t *thread, stage, status string) {
	s.mu.Lock()
	t.GenerationStage, t.StatusMessage, t.UpdatedAt = stage, status, now()
	s.mu.Unlock()
}

// streamText streams one assistant message as the live service does: a
// one-space placeholder, the text growing word by word, the final text
// twice, then (for the last message) COMPLETE. It returns "" when the stream
// stopped early.
func (s *Server) streamText(st *streamer, t *thread, text string, last bool) string {
	s.mu.Lock()
	m := message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: "assistant",
		AdditionalContext: map[string]any{}, ComponentState: map[string]any{}, Reasoning: []string{}}
	s.mu.Unlock()
	texts := []string{" "}
	words := strings.SplitAfter(text, " ")
	acc := ""
	for _, wd := range words {
		acc += wd
		texts = append(texts, strings.TrimRight(acc, " "))
	}
	// The live service repeats the final text: once more while streaming,
	// and again in the closing snapshot.
	texts = append(texts, text, text)
	for i, tx := range texts {
		m.Content = []part{{Type: "text", Text: tx}}
		m.Component = &component{Message: tx, Role: "assistant"}
		stage, status := "STREAMING_RESPONSE", "Streaming response..."
		if i == len(texts)-1 && last {
			stage, status = "COMPLETE", "Complete"
		}
		if !st.send(snapshot{Message: m, GenerationStage: stage, StatusMessage: status}) {
			s.store(t, m, st.cancelled)
			return ""
		}
	}
	s.store(t, m, false)
	if last {
		s.finishThread(t, "COMPLETE", "Complete")
		return "COMPLETE"
	}
	return "STREAMING_RESPONSE"
}

// streamToolCall streams an assistant message that asks the client to run
// tool, ending in FETCHING_CONTEXT with toolCallRequest and tool_call_id.
func (s *Server) streamToolCall(st *streamer, t *thread, tool string, params []string, arg string) string {
	s.mu.Lock()
	s.toolCalls++
	callID := fmt.Sprintf("call_%d", s.toolCalls)
	m := message{ID: s.newID("msg_"), ThreadID: t.ID, CreatedAt: now(), Role: "assistant",
		AdditionalContext: map[string]any{}, ComponentState: map[string]any{}, Reasoning: []string{},
		Content: []part{{Type: "text", Text: " "}}}
	s.mu.Unlock()
	args := make([]toolArgs, 0, len(params))
	for _, p := range params {
		args = append(args, toolArgs{ParameterName: p, ParameterValue: arg})
	}
	empty := ""
	m.Component = &component{Message: " ", Role: "assistant", ToolCallReq: &toolCall{ToolName: tool, Parameters: []toolArgs{}}, ToolCallID: &empty}
	if !st.send(snapshot{Message: m, GenerationStage: "STREAMING_RESPONSE", StatusMessage: "Streaming response..."}) {
		return ""
	}
	req := &toolCall{ToolName: tool, Parameters: args}
	m.Component = &component{Message: " ", Role: "assistant", ToolCallReq: req, ToolCallID: &callID}
	m.ToolCallRequest, m.ToolCallID, m.ActionType = req, callID, "tool_call"
	if !st.send(snapshot{Message: m, GenerationStage: "FETCHING_CONTEXT", StatusMessage: "Fetching context..."}) {
		return ""
	}
	s.store(t, m, false)
	s.finishThread(t, "FETCHING_CONTEXT", "Fetching context...")
	return "FETCHING_CONTEXT"
}

func (s *Server) store(t *thread, m message, cancelled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m.IsCancelled = cancelled
	t.messages = append(t.messages, m)
	t.UpdatedAt = now()
}

// streamer writes events with the throttle and the script's faults.
type streamer struct {
	w         http.ResponseWriter
	r         *http.Request
	throttle  time.Duration
	sc        Script
	sent      int
	cancel    <-chan struct{}
	cancelled bool
	stopped   bool
}

func (st *streamer) line(l string) {
	if st.stopped {
		return
	}
	io.WriteString(st.w, l+"\n\n")
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
}

// send writes one snapshot after the throttle. It returns false when the
// stream must stop (fault, cancel, client gone); it has then written what
// the live service would.
func (st *streamer) send(snap snapshot) bool {
	if st.stopped {
		return false
	}
	if st.sent > 0 && st.throttle > 0 {
		t := time.NewTimer(st.throttle)
		select {
		case <-t.C:
		case <-st.cancel:
			t.Stop()
		case <-st.r.Context().Done():
			t.Stop()
			st.stopped = true
			return false
		}
	}
	select {
	case <-st.cancel:
		st.cancelled = true
		snap.GenerationStage, snap.StatusMessage = "CANCELLED", "cancelled"
		st.write(snap)
		return false
	default:
	}
	sc := st.sc
	if sc.Drop && st.sent == sc.DropAfter {
		st.stopped = true
		reset(st.w)
		return false
	}
	if sc.Error && st.sent == sc.ErrorAfter {
		st.line("error: Error in streaming response")
		return false
	}
	if sc.Hold != nil && st.sent == sc.HoldAfter {
		select {
		case <-sc.Hold:
		case <-st.r.Context().Done():
			st.stopped = true
			return false
		}
	}
	st.write(snap)
	return true
}

func (st *streamer) write(snap snapshot) {
	var b bytes.Buffer
	b.WriteString("data: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as JSON.stringify
	enc.Encode(snap)         // ends with a newline
	b.WriteString("\n")
	st.w.Write(b.Bytes())
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
	st.sent++
}
