package threadstest

// The /v1 routes, as the live service answers them (spec/v1/v1-api.md),
// with or without WithLiveHabits: the key in x-api-key only, whatever
// WithAPIKeyHeader says; exactly one end user per call (a userKey where
// the route reads it, or a token from POST /oauth/token in
// "Authorization: Bearer"), else the recorded 400s; 403 Forbidden resource
// for a thread that is unknown, deleted or another end user's; ids like
// thr_XXXXXXXX.xxxxxx; milliseconds in timestamps; the wire's key order.
//
// Runs and their event streams are in runs.go.
//
// Not copied: the cursor precision faults (pages here never repeat an item
// and cursors always advance; runs' tests fake those faults themselves).

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// v1Store holds the /v1 state; s.mu guards it.
type v1Store struct {
	threads map[string]*v1Thread
	order   []string          // thread ids, oldest first
	tokens  map[string]string // issued end-user token -> context key
	scripts []RunScript       // queued by PushRunScript, oldest first
}

type v1Thread struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	UserKey   string `json:"userKey"`
	RunStatus string `json:"runStatus"`
	// The run columns, in the wire's order (runs.go keeps them).
	CurrentRunID       string         `json:"currentRunId,omitempty"`
	StatusMessage      string         `json:"statusMessage,omitempty"`
	LastRunCancelled   bool           `json:"lastRunCancelled,omitempty"`
	LastRunError       *v1RunError    `json:"lastRunError,omitempty"`
	PendingToolCallIDs []string       `json:"pendingToolCallIds,omitempty"`
	LastCompletedRunID string         `json:"lastCompletedRunId,omitempty"`
	Metadata           map[string]any `json:"metadata,omitempty"`
	CreatedAt          string         `json:"createdAt"`
	UpdatedAt          string         `json:"updatedAt"`
	messages           []*v1Message
	suggestion         map[string][]v1Suggestion // message id -> its suggestions
	active             *v1Run                    // the run in progress, if any
	pending            []v1PendingCall           // the calls awaiting tool results
}

type v1Message struct {
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Content   []block        `json:"content"`
	CreatedAt string         `json:"createdAt"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	// IsCancelled is sent only when true, as live.
	IsCancelled bool `json:"isCancelled,omitempty"`
}

type v1Suggestion struct {
	ID                 string `json:"id"`
	MessageID          string `json:"messageId"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	DetailedSuggestion string `json:"detailedSuggestion"`
	CreatedAt          string `json:"createdAt"`
}

// v1Problem is the service's v1 problem, sent as application/json.
type v1Problem struct {
	Type         string   `json:"type"`
	Title        string   `json:"title"`
	Status       int      `json:"status"`
	Detail       string   `json:"detail"`
	Instance     string   `json:"instance"`
	ThreadID     string   `json:"threadId,omitempty"`
	ComponentID  string   `json:"componentId,omitempty"`
	CurrentRunID string   `json:"currentRunId,omitempty"`
	RunStatus    string   `json:"runStatus,omitempty"`
	Code         string   `json:"code,omitempty"`
	Missing      []string `json:"missingToolCallIds,omitempty"`
	Extra        []string `json:"extraToolCallIds,omitempty"`
	Errors       any      `json:"errors,omitempty"`
}

func (s *Server) v1Problem(w http.ResponseWriter, status int, code, title, detail string, extra func(*v1Problem)) {
	s.mu.Lock()
	inst := fmt.Sprintf("urn:tambo:error-instance:%08x-%04x-4%03x-8%03x-%012x", s.rng.Uint32(), s.rng.IntN(1<<16), s.rng.IntN(1<<12), s.rng.IntN(1<<12), s.rng.Uint64()&(1<<48-1))
	s.mu.Unlock()
	p := &v1Problem{Type: "urn:tambo:error:" + code, Title: title, Status: status, Detail: detail, Instance: inst}
	if extra != nil {
		extra(p)
	}
	writeJSON(w, status, p)
}

// serveV1 answers the /v1 routes and POST /oauth/token; it reports
// whether the request was one of them.
func (s *Server) serveV1(w http.ResponseWriter, r *http.Request, body []byte) bool {
	p := r.URL.EscapedPath()
	if p != "/oauth/token" && p != "/v1" && !strings.HasPrefix(p, "/v1/") {
		return false
	}
	// ApiKeyGuard, whatever header the spec's routes read the key from.
	if r.Header.Get("X-Api-Key") != s.APIKey {
		v1Forbidden(w)
		return true
	}
	s.mu.Lock()
	if s.v1.threads == nil {
		s.v1.threads, s.v1.tokens = map[string]*v1Thread{}, map[string]string{}
	}
	s.mu.Unlock()
	if p == "/oauth/token" {
		if r.Method != http.MethodPost {
			v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path))
			return true
		}
		s.v1Token(w, r, body)
		return true
	}
	// BearerTokenGuard: an Authorization header must carry a token this
	// server issued.
	bearer := ""
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, tok, _ := strings.Cut(auth, " ")
		s.mu.Lock()
		ctxKey, ok := s.v1.tokens[tok]
		s.mu.Unlock()
		if !strings.EqualFold(scheme, "Bearer") || !ok {
			v1Error(w, http.StatusUnauthorized, "Unauthorized", "Invalid bearer token")
			return true
		}
		bearer = ctxKey
	}
	segs := strings.Split(strings.TrimPrefix(p, "/v1/"), "/")
	for i, seg := range segs {
		if v, err := url.PathUnescape(seg); err == nil {
			segs[i] = v
		}
	}
	m, n := r.Method, len(segs)
	notFound := func() {
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Cannot %s %s", m, r.URL.Path))
	}
	if segs[0] != "threads" {
		notFound()
		return true
	}
	// Where each route reads the user key (v1-api.md section 1).
	var bodyKey struct {
		UserKey *string `json:"userKey"`
		Thread  *struct {
			UserKey *string `json:"userKey"`
		} `json:"thread"`
	}
	inBody := m == http.MethodPost
	if inBody && len(body) > 0 {
		if err := json.Unmarshal(body, &bodyKey); err != nil {
			v1Error(w, http.StatusBadRequest, "Bad Request", "Unexpected token in JSON at position 0")
			return true
		}
	}
	createRun := n == 2 && segs[1] == "runs" && m == http.MethodPost
	var key *string
	if createRun {
		// POST /v1/threads/runs reads thread.userKey only; the top-level
		// userKey that the official TypeScript SDK's types allow is
		// refused by the service's validation.
		if bodyKey.UserKey != nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"property userKey should not exist"})
			return true
		}
		if bodyKey.Thread != nil {
			key = bodyKey.Thread.UserKey
		}
	} else if inBody {
		key = bodyKey.UserKey
	} else if q := r.URL.Query(); q.Has("userKey") {
		k := q.Get("userKey")
		key = &k
	}
	known := (n == 1 && (m == http.MethodGet || m == http.MethodPost)) ||
		(n == 2 && (m == http.MethodGet || m == http.MethodPatch || m == http.MethodDelete)) ||
		(n == 3 && segs[2] == "messages" && m == http.MethodGet) ||
		(n == 4 && segs[2] == "messages" && m == http.MethodGet) ||
		(n == 5 && segs[2] == "components" && segs[4] == "state" && m == http.MethodPost) ||
		(n == 5 && segs[2] == "messages" && segs[4] == "suggestions" && (m == http.MethodGet || m == http.MethodPost)) ||
		createRun ||
		(n == 3 && segs[2] == "runs" && m == http.MethodPost) ||
		(n == 4 && segs[2] == "runs" && m == http.MethodDelete)
	if !known {
		notFound()
		return true
	}
	ctxKey, ok := v1Identity(w, key, bearer)
	if !ok {
		return true
	}
	if createRun {
		s.v1Run(w, r, body, nil, ctxKey)
		return true
	}
	if n == 1 {
		if m == http.MethodGet {
			s.v1ListThreads(w, r, ctxKey)
		} else {
			s.v1CreateThread(w, body, ctxKey)
		}
		return true
	}
	t := s.v1Lookup(w, segs[1], ctxKey)
	if t == nil {
		return true
	}
	switch {
	case n == 2 && m == http.MethodGet:
		s.answer(w, http.StatusOK, func() any {
			return struct {
				*v1Thread
				Messages []*v1Message `json:"messages"`
			}{t, t.messages}
		})
	case n == 2 && m == http.MethodPatch:
		s.v1UpdateThread(w, t, body)
	case n == 2 && m == http.MethodDelete:
		s.mu.Lock()
		delete(s.v1.threads, t.ID)
		s.v1.order = slices.DeleteFunc(s.v1.order, func(id string) bool { return id == t.ID })
		if t.active != nil {
			// Allowed while a run streams (126); the run then fails (125).
			s.endRunLocked(t, t.active, runEnd{kind: endFailed, err: runInternalError("Thread was deleted")})
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	case n == 3 && segs[2] == "runs":
		s.v1Run(w, r, body, t, ctxKey)
	case n == 4 && segs[2] == "runs":
		s.v1Cancel(w, t, segs[3])
	case n == 3:
		s.v1ListMessages(w, r, t)
	case n == 4:
		s.mu.Lock()
		msg := t.message(segs[3])
		var body []byte
		if msg != nil {
			body = encodeJSON(msg)
		}
		s.mu.Unlock()
		if msg == nil {
			v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Message %s not found in thread %s", segs[3], t.ID))
			return true
		}
		writeBody(w, http.StatusOK, body)
	case n == 5 && segs[2] == "components":
		s.v1ComponentState(w, t, segs[3], body)
	case n == 5 && m == http.MethodGet:
		s.v1ListSuggestions(w, r, t, segs[3])
	default:
		s.v1GenerateSuggestions(w, t, segs[3], body)
	}
	return true
}

// v1Identity applies the rule of exactly one context identifier.
func v1Identity(w http.ResponseWriter, key *string, bearer string) (string, bool) {
	const msg = "V1 APIs require exactly one context identifier: provide either userKey (query/body) or an OAuth bearer token with a context key (received %s)."
	switch {
	case key != nil && bearer != "":
		v1Error(w, http.StatusBadRequest, "Bad Request", fmt.Sprintf(msg, "both"))
	case key == nil && bearer == "":
		v1Error(w, http.StatusBadRequest, "Bad Request", fmt.Sprintf(msg, "neither"))
	case key != nil && strings.TrimSpace(*key) == "":
		v1Error(w, http.StatusBadRequest, "Bad Request", "userKey cannot be an empty string.")
	case key != nil:
		return *key, true
	default:
		return bearer, true
	}
	return "", false
}

// v1Lookup finds the end user's thread or answers 403, as the live guard
// does for an unknown, deleted or foreign thread.
func (s *Server) v1Lookup(w http.ResponseWriter, id, ctxKey string) *v1Thread {
	s.mu.Lock()
	t := s.v1.threads[id]
	s.mu.Unlock()
	if t == nil || t.UserKey != ctxKey {
		v1Forbidden(w)
		return nil
	}
	return t
}

func (t *v1Thread) message(id string) *v1Message {
	for _, m := range t.messages {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// v1Token is the RFC 8693 token exchange, with the project's OAuth
// validation off (as in the captures): the subject token's iss and sub are
// read, not verified. It takes a form or a JSON body.
func (s *Server) v1Token(w http.ResponseWriter, r *http.Request, body []byte) {
	in := map[string]string{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		json.Unmarshal(body, &in)
	} else if f, err := url.ParseQuery(string(body)); err == nil {
		for k := range f {
			in[k] = f.Get(k)
		}
	}
	if in["grant_type"] != "urn:ietf:params:oauth:grant-type:token-exchange" ||
		in["subject_token_type"] != "urn:ietf:params:oauth:token-type:access_token" {
		v1Error(w, http.StatusBadRequest, "Bad Request", "Unsupported grant_type or subject_token_type")
		return
	}
	ctxKey, ok := subjectContext(in["subject_token"])
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Invalid OAuth subject token", "statusCode": 401})
		return
	}
	s.mu.Lock()
	tok := fmt.Sprintf("eyJhbGciOiJIUzI1NiJ9.fake%016x%016x.c2lnbmF0dXJl", s.rng.Uint64(), s.rng.Uint64())
	s.v1.tokens[tok] = ctxKey
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, struct {
		AccessToken     string `json:"access_token"`
		TokenType       string `json:"token_type"`
		ExpiresIn       int    `json:"expires_in"`
		IssuedTokenType string `json:"issued_token_type"`
	}{tok, "Bearer", 3600, "urn:ietf:params:oauth:token-type:access_token"})
}

// subjectContext reads a JWT's iss and sub into the service's context key
// "oauth:user:<issuer host>:<sub>".
func subjectContext(jwt string) (string, bool) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", false
	}
	var claims struct{ Iss, Sub string }
	if json.Unmarshal(raw, &claims) != nil || claims.Sub == "" || claims.Iss == "" {
		return "", false
	}
	host := claims.Iss
	if u, err := url.Parse(claims.Iss); err == nil && u.Host != "" {
		host = u.Host
	}
	return "oauth:user:" + host + ":" + claims.Sub, true
}

// v1Limit reads ?limit= as the service's class-validator does.
func v1Limit(w http.ResponseWriter, q url.Values, def int) (int, bool) {
	if !q.Has("limit") {
		return def, true
	}
	n, err := strconv.Atoi(q.Get("limit"))
	var msgs []string
	switch {
	case err != nil:
		msgs = []string{"limit must not be greater than 100", "limit must not be less than 1", "limit must be an integer number"}
	case n < 1:
		msgs = []string{"limit must not be less than 1"}
	case n > 100:
		msgs = []string{"limit must not be greater than 100"}
	default:
		return n, true
	}
	v1ErrorList(w, http.StatusBadRequest, "Bad Request", msgs)
	return 0, false
}

// cursorOf is the service's cursor: base64url of {"createdAt","id"}.
func cursorOf(createdAt, id string) string {
	b, _ := json.Marshal(struct {
		CreatedAt string `json:"createdAt"`
		ID        string `json:"id"`
	}{createdAt, id})
	return base64.RawURLEncoding.EncodeToString(b)
}

// afterCursor returns the index after the item the cursor names in ids,
// or false when the cursor is not one of this list's.
func afterCursor(cursor string, ids []string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	var c struct{ ID string }
	if json.Unmarshal(raw, &c) != nil {
		return 0, false
	}
	i := slices.Index(ids, c.ID)
	return i + 1, i >= 0
}

func (s *Server) v1ListThreads(w http.ResponseWriter, r *http.Request, ctxKey string) {
	q := r.URL.Query()
	limit, ok := v1Limit(w, q, 20)
	if !ok {
		return
	}
	s.mu.Lock()
	var list []v1Thread // newest first
	var ids []string
	for i := len(s.v1.order) - 1; i >= 0; i-- {
		if t := s.v1.threads[s.v1.order[i]]; t.UserKey == ctxKey {
			list, ids = append(list, *t), append(ids, t.ID)
		}
	}
	s.mu.Unlock()
	start := 0
	if c := q.Get("cursor"); c != "" {
		if start, ok = afterCursor(c, ids); !ok {
			v1Error(w, http.StatusBadRequest, "Bad Request", "Invalid cursor")
			return
		}
	}
	end := min(start+limit, len(list))
	out := struct {
		Threads    []v1Thread `json:"threads"`
		NextCursor string     `json:"nextCursor,omitempty"`
		HasMore    bool       `json:"hasMore"`
	}{Threads: append([]v1Thread{}, list[start:end]...), HasMore: end < len(list)}
	if out.HasMore {
		out.NextCursor = cursorOf(list[end-1].CreatedAt, list[end-1].ID)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) v1CreateThread(w http.ResponseWriter, body []byte, ctxKey string) {
	var in struct {
		Metadata        map[string]any `json:"metadata"`
		InitialMessages []struct {
			Role     string         `json:"role"`
			Content  []block        `json:"content"`
			Metadata map[string]any `json:"metadata"`
		} `json:"initialMessages"`
	}
	if len(body) > 0 && json.Unmarshal(body, &in) != nil {
		v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"metadata must be an object"})
		return
	}
	for _, m := range in.InitialMessages {
		if m.Role == "system" {
			problem(w, http.StatusBadRequest, map[string]any{"type": "https://docs.tambo.co/reference/problems/validation",
				"status": 400, "title": "Bad Request", "instance": "/v1/threads",
				"detail": "Project does not allow overriding the system prompt with initial messages"})
			return
		}
		if m.Role != "user" && m.Role != "assistant" {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"initialMessages.0.role must be one of the following values: user, system, assistant"})
			return
		}
	}
	s.mu.Lock()
	ts := now()
	t := &v1Thread{ID: s.newID("thr_"), UserKey: ctxKey, RunStatus: "idle", Metadata: in.Metadata, CreatedAt: ts, UpdatedAt: ts}
	for _, m := range in.InitialMessages {
		t.messages = append(t.messages, &v1Message{ID: s.newID("msg_"), Role: m.Role, Content: m.Content, CreatedAt: ts, Metadata: m.Metadata})
	}
	s.v1.threads[t.ID] = t
	s.v1.order = append(s.v1.order, t.ID)
	out := *t
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) v1UpdateThread(w http.ResponseWriter, t *v1Thread, body []byte) {
	var in struct {
		Name     json.RawMessage `json:"name"`
		Metadata json.RawMessage `json:"metadata"`
	}
	json.Unmarshal(body, &in)
	var name *string
	if len(in.Name) > 0 {
		if json.Unmarshal(in.Name, &name) != nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"name must be a string"})
			return
		}
	}
	var meta map[string]any
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		if json.Unmarshal(in.Metadata, &meta) != nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"metadata must be an object"})
			return
		}
	}
	s.mu.Lock()
	if name != nil {
		t.Name = *name
	}
	if meta != nil {
		t.Metadata = meta // replaced, not merged, as live
	}
	t.UpdatedAt = now()
	out := *t
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) v1ListMessages(w http.ResponseWriter, r *http.Request, t *v1Thread) {
	q := r.URL.Query()
	limit, ok := v1Limit(w, q, 50)
	if !ok {
		return
	}
	order := q.Get("order")
	if order == "" {
		order = "asc"
	}
	if order != "asc" && order != "desc" {
		v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"order must be one of the following values: asc, desc"})
		return
	}
	s.mu.Lock()
	list := append([]*v1Message{}, t.messages...)
	s.mu.Unlock()
	if order == "desc" {
		slices.Reverse(list)
	}
	ids := make([]string, len(list))
	for i, m := range list {
		ids[i] = m.ID
	}
	start := 0
	if c := q.Get("cursor"); c != "" {
		if start, ok = afterCursor(c, ids); !ok {
			v1Error(w, http.StatusBadRequest, "Bad Request", "Invalid cursor")
			return
		}
	}
	end := min(start+limit, len(list))
	out := struct {
		Messages   []*v1Message `json:"messages"`
		NextCursor string       `json:"nextCursor,omitempty"`
		HasMore    bool         `json:"hasMore"`
	}{Messages: list[start:end], HasMore: end < len(list)}
	if out.HasMore {
		out.NextCursor = cursorOf(list[end-1].CreatedAt, list[end-1].ID)
	}
	s.answer(w, http.StatusOK, func() any { return out })
}

// v1ComponentState replaces or patches the state of a component part.
func (s *Server) v1ComponentState(w http.ResponseWriter, t *v1Thread, compID string, body []byte) {
	var in struct {
		State json.RawMessage `json:"state"`
		Patch json.RawMessage `json:"patch"`
	}
	json.Unmarshal(body, &in)
	hasState, hasPatch := len(in.State) > 0 && string(in.State) != "null", len(in.Patch) > 0 && string(in.Patch) != "null"
	var ops []map[string]any
	if hasPatch {
		if json.Unmarshal(in.Patch, &ops) != nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"patch must be an array"})
			return
		}
		for i, op := range ops {
			if !slices.Contains([]string{"add", "remove", "replace", "move", "copy", "test"}, fmt.Sprint(op["op"])) {
				v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{fmt.Sprintf("patch.%d.op must be one of the following values: ", i)})
				return
			}
		}
	}
	ids := func(p *v1Problem) { p.ThreadID, p.ComponentID = t.ID, compID }
	s.mu.Lock()
	active := t.active != nil
	s.mu.Unlock()
	if active {
		s.v1Problem(w, 409, "run_active", "Run Active", "Cannot update component state while a run is active", func(p *v1Problem) {
			p.ThreadID, p.RunStatus = t.ID, "streaming"
		})
		return
	}
	switch {
	case hasState && hasPatch:
		s.v1Problem(w, 400, "validation_error", "Validation Error", "Provide either 'state' or 'patch', not both", ids)
		return
	case !hasState && !hasPatch:
		s.v1Problem(w, 400, "validation_error", "Validation Error", "Either 'state' or 'patch' must be provided", ids)
		return
	case hasPatch && len(ops) == 0:
		s.v1Problem(w, 400, "validation_error", "Validation Error", "'patch' must not be empty", ids)
		return
	}
	var next any
	if hasState && json.Unmarshal(in.State, &next) != nil {
		v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"state must be an object"})
		return
	}
	s.mu.Lock()
	var part map[string]any
	for _, m := range t.messages {
		for _, c := range m.Content {
			if c["type"] == "component" && c["id"] == compID {
				part = c
			}
		}
	}
	if part == nil {
		s.mu.Unlock()
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Component %s not found in thread %s", compID, t.ID))
		return
	}
	tree := part["state"]
	if hasPatch {
		cur, _ := json.Marshal(tree)
		json.Unmarshal(cur, &next) // a deep copy: a failed patch changes nothing
		for i, op := range ops {
			var err error
			if next, err = applyOp(next, op); err != nil {
				s.mu.Unlock()
				name := "OPERATION_PATH_UNRESOLVABLE"
				if op["op"] == "test" {
					name = "TEST_OPERATION_FAILED"
				}
				s.v1Problem(w, 400, "invalid_json_patch", "Invalid JSON Patch", "Invalid JSON Patch: "+err.Error(), func(p *v1Problem) {
					p.Errors = map[string]any{"name": name, "index": i, "operation": op, "tree": tree}
				})
				return
			}
		}
	}
	part["state"] = next
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"state": next})
}

func (s *Server) v1ListSuggestions(w http.ResponseWriter, r *http.Request, t *v1Thread, msgID string) {
	q := r.URL.Query()
	limit, ok := v1Limit(w, q, 10)
	if !ok {
		return
	}
	s.mu.Lock()
	list := append([]v1Suggestion{}, t.suggestion[msgID]...)
	exists := t.message(msgID) != nil
	s.mu.Unlock()
	if !exists {
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Message %s not found in thread %s", msgID, t.ID))
		return
	}
	start := 0
	if c := q.Get("cursor"); c != "" {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		var cur struct{ ID, MessageID string }
		if err != nil || json.Unmarshal(raw, &cur) != nil {
			s.v1Problem(w, 400, "invalid_cursor", "Invalid Cursor", "Invalid pagination cursor", nil)
			return
		}
		if cur.MessageID != msgID {
			s.v1Problem(w, 400, "invalid_cursor", "Invalid Cursor", "Cursor does not belong to this message", nil)
			return
		}
		start = 1 + slices.IndexFunc(list, func(sg v1Suggestion) bool { return sg.ID == cur.ID })
	}
	end := min(start+limit, len(list))
	out := struct {
		Suggestions []v1Suggestion `json:"suggestions"`
		NextCursor  string         `json:"nextCursor,omitempty"`
		HasMore     bool           `json:"hasMore"`
	}{Suggestions: list[start:end], HasMore: end < len(list)}
	if out.HasMore {
		last := list[end-1]
		b, _ := json.Marshal(struct {
			CreatedAt string `json:"createdAt"`
			ID        string `json:"id"`
			MessageID string `json:"messageId"`
		}{last.CreatedAt, last.ID, msgID})
		out.NextCursor = base64.RawURLEncoding.EncodeToString(b)
	}
	writeJSON(w, http.StatusOK, out)
}

// v1SuggestionTitles are the fake model's suggestions, in order.
var v1SuggestionTitles = [...]string{"First idea", "Second idea", "Third idea", "Fourth idea", "Fifth idea",
	"Sixth idea", "Seventh idea", "Eighth idea", "Ninth idea", "Tenth idea"}

func (s *Server) v1GenerateSuggestions(w http.ResponseWriter, t *v1Thread, msgID string, body []byte) {
	var in struct {
		MaxSuggestions *float64 `json:"maxSuggestions"`
	}
	json.Unmarshal(body, &in)
	n := 3
	if in.MaxSuggestions != nil {
		switch m := *in.MaxSuggestions; {
		case m > 10:
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"maxSuggestions must not be greater than 10"})
			return
		case m < 1:
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"maxSuggestions must not be less than 1"})
			return
		}
		n = int(*in.MaxSuggestions)
	}
	s.mu.Lock()
	if t.message(msgID) == nil {
		s.mu.Unlock()
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Message %s not found in thread %s", msgID, t.ID))
		return
	}
	ts := now()
	list := make([]v1Suggestion, n)
	for i := range list {
		d := "Tell me more about the " + strings.ToLower(v1SuggestionTitles[i])
		list[i] = v1Suggestion{ID: s.newID("sug_"), MessageID: msgID, Title: v1SuggestionTitles[i], Description: d, DetailedSuggestion: d, CreatedAt: ts}
	}
	if t.suggestion == nil {
		t.suggestion = map[string][]v1Suggestion{}
	}
	t.suggestion[msgID] = list // replaces the earlier ones, as live
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, struct {
		Suggestions []v1Suggestion `json:"suggestions"`
		HasMore     bool           `json:"hasMore"`
	}{list, false})
}

// v1Error is the framework's error shape in the live key order.
func v1Error(w http.ResponseWriter, status int, title string, msg any) {
	writeJSON(w, status, struct {
		Message    any    `json:"message"`
		Error      string `json:"error"`
		StatusCode int    `json:"statusCode"`
	}{msg, title, status})
}

func v1ErrorList(w http.ResponseWriter, status int, title string, msgs []string) {
	v1Error(w, status, title, msgs)
}

// v1Forbidden is the live guards' refusal.
func v1Forbidden(w http.ResponseWriter) {
	v1Error(w, http.StatusForbidden, "Forbidden", "Forbidden resource")
}
