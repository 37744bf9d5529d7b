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
// Paging: a page follows the item its cursor names, as the spec says;
// with WithOverlappingPages, an ascending page of messages or suggestions
// starts at that item, as the service does (captures 08-21).

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
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
	replay             *v1Replay                 // a pause to deliver again (RunScript.PauseTwice)
}

type v1Message struct {
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Content   []block        `json:"content"`
	CreatedAt string         `json:"createdAt"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	// ParentMessageID is sent only when set (RunScript.ParentMessageID),
	// before isCancelled, as live (apps/api/src/v1/v1-conversions.ts).
	ParentMessageID string `json:"parentMessageId,omitempty"`
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

// v1Token is the RFC 8693 token exchange, POST /oauth/token, in the
// project's OAuth validation mode (WithOAuthValidation). It takes a form
// or a JSON body.
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
	sub, ctxKey, ok := s.subjectContext(in["subject_token"])
	if !ok {
		writeJSON(w, http.StatusUnauthorized, struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		}{"Invalid OAuth subject token", 401})
		return
	}
	s.mu.Lock()
	tok := s.accessTokenLocked(sub)
	s.v1.tokens[tok] = ctxKey
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, struct {
		AccessToken     string `json:"access_token"`
		TokenType       string `json:"token_type"`
		ExpiresIn       int    `json:"expires_in"`
		IssuedTokenType string `json:"issued_token_type"`
	}{tok, "Bearer", 3600, "urn:ietf:params:oauth:token-type:access_token"})
}

// accessTokenLocked issues a token shaped as the service's: an HS256 JWT
// whose claims are the subject's sub and original_iss, iss the project,
// aud "tambo" and an hour's lifetime (64, 35); its signature is random,
// as the fake checks a token by looking it up. s.mu is held.
func (s *Server) accessTokenLocked(sub subject) string {
	ts := time.Now().Unix()
	claims, _ := json.Marshal(struct {
		Sub         string `json:"sub"`
		Iss         string `json:"iss"`
		Aud         string `json:"aud"`
		Iat         int64  `json:"iat"`
		Exp         int64  `json:"exp"`
		OriginalIss string `json:"original_iss,omitempty"`
	}{sub.sub, s.ProjectID, "tambo", ts, ts + 3600, sub.iss})
	sig := make([]byte, 32)
	for i := range sig {
		sig[i] = byte(s.rng.Uint32())
	}
	enc := base64.RawURLEncoding
	return "eyJhbGciOiJIUzI1NiJ9." + enc.EncodeToString(claims) + "." + enc.EncodeToString(sig)
}

// subject is what the exchange reads of a subject token.
type subject struct{ sub, iss string }

// subjectContext reads the subject token as the OAuth validation mode
// says: its subject and the service's context key, or false (the 401).
func (s *Server) subjectContext(token string) (subject, string, bool) {
	sub, ok := jwtSubject(token)
	switch s.cfg.oauth {
	case "":
		// The fake's default: a JWT read as in mode none, anything else
		// refused.
	case OAuthValidationNone:
		if !ok && token != "" {
			// An opaque token: its sub is "opaque:<SHA-256 hex>", and with
			// no issuer the context key is the service's legacy form (35).
			sum := sha256.Sum256([]byte(token))
			sub, ok = subject{sub: "opaque:" + hex.EncodeToString(sum[:])}, true
		}
	default:
		// A verifying mode: the issuer's keys are out of the fake's reach.
		return subject{}, "", false
	}
	if !ok {
		return subject{}, "", false
	}
	if sub.iss == "" {
		return sub, "oauth:user:" + sub.sub, true
	}
	host := sub.iss
	if u, err := url.Parse(sub.iss); err == nil && u.Host != "" {
		host = u.Host
	}
	return sub, "oauth:user:" + host + ":" + sub.sub, true
}

// jwtSubject reads a JWT's iss and sub, unverified.
func jwtSubject(jwt string) (subject, bool) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return subject{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return subject{}, false
	}
	var claims struct{ Iss, Sub string }
	if json.Unmarshal(raw, &claims) != nil || claims.Sub == "" || claims.Iss == "" {
		return subject{}, false
	}
	return subject{sub: claims.Sub, iss: claims.Iss}, true
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

// v1Cursor is what a /v1 cursor holds: base64url of {"createdAt","id"},
// plus "messageId" for a suggestion's.
type v1Cursor struct {
	CreatedAt string `json:"createdAt"`
	ID        string `json:"id"`
	MessageID string `json:"messageId,omitempty"`
}

func (c v1Cursor) String() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func parseCursor(s string) (v1Cursor, bool) {
	var c v1Cursor
	raw, err := base64.RawURLEncoding.DecodeString(s)
	return c, err == nil && json.Unmarshal(raw, &c) == nil
}

// v1Page is one page of a /v1 list: from the item after the cursor's
// (overlap: from the cursor's own item), limit items, and the cursor of
// the page's last item when more follow.
type v1Page[T any] struct {
	Items      []T
	NextCursor string
	HasMore    bool
}

// pageOf cuts the page of list that starts after index at (at -1: at the
// start), as the service does: overlapping pages start at the cursor's
// item itself.
func pageOf[T any](list []T, at, limit int, overlap bool, cursor func(T) v1Cursor) v1Page[T] {
	start := at + 1
	if overlap && at >= 0 {
		start = at
	}
	end := min(start+limit, len(list))
	p := v1Page[T]{Items: append([]T{}, list[start:end]...), HasMore: end < len(list)}
	if p.HasMore {
		p.NextCursor = cursor(list[end-1]).String()
	}
	return p
}

// cursorIndex returns the index of the item the ?cursor= names (-1 when
// there is none), or answers "Invalid cursor" for one that is not of ids.
func cursorIndex(w http.ResponseWriter, q url.Values, ids []string) (int, bool) {
	c := q.Get("cursor")
	if c == "" {
		return -1, true
	}
	cur, ok := parseCursor(c)
	i := slices.Index(ids, cur.ID)
	if !ok || i < 0 {
		v1Error(w, http.StatusBadRequest, "Bad Request", "Invalid cursor")
		return 0, false
	}
	return i, true
}

func threadCursor(t *v1Thread) v1Cursor   { return v1Cursor{CreatedAt: t.CreatedAt, ID: t.ID} }
func messageCursor(m *v1Message) v1Cursor { return v1Cursor{CreatedAt: m.CreatedAt, ID: m.ID} }

func (s *Server) v1ListThreads(c *call) {
	q := c.r.URL.Query()
	limit, ok := v1Limit(c.w, q, 20)
	if !ok {
		return
	}
	s.mu.Lock()
	var list []*v1Thread // newest first
	var ids []string
	for i := len(s.v1.order) - 1; i >= 0; i-- {
		if t := s.v1.threads[s.v1.order[i]]; t.UserKey == c.user {
			list, ids = append(list, t), append(ids, t.ID)
		}
	}
	s.mu.Unlock()
	at, ok := cursorIndex(c.w, q, ids)
	if !ok {
		return
	}
	p := pageOf(list, at, limit, false, threadCursor)
	s.answer(c.w, http.StatusOK, func() any {
		return struct {
			Threads    []*v1Thread `json:"threads"`
			NextCursor string      `json:"nextCursor,omitempty"`
			HasMore    bool        `json:"hasMore"`
		}{p.Items, p.NextCursor, p.HasMore}
	})
}

func (s *Server) v1CreateThread(c *call) {
	w := c.w
	var in struct {
		Metadata        map[string]any `json:"metadata"`
		InitialMessages []struct {
			Role     string         `json:"role"`
			Content  []block        `json:"content"`
			Metadata map[string]any `json:"metadata"`
		} `json:"initialMessages"`
	}
	if len(c.body) > 0 && json.Unmarshal(c.body, &in) != nil {
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
	s.answer(w, http.StatusCreated, func() any {
		t := s.newV1ThreadLocked(c.user, in.Metadata)
		for _, m := range in.InitialMessages {
			t.messages = append(t.messages, &v1Message{ID: s.newID("msg_"), Role: m.Role, Content: m.Content, CreatedAt: t.CreatedAt, Metadata: m.Metadata})
		}
		return t
	})
}

// newV1ThreadLocked stores a new thread of the end user; s.mu is held.
func (s *Server) newV1ThreadLocked(ctxKey string, meta map[string]any) *v1Thread {
	ts := now()
	t := &v1Thread{ID: s.newID("thr_"), UserKey: ctxKey, RunStatus: "idle", Metadata: meta, CreatedAt: ts, UpdatedAt: ts}
	s.v1.threads[t.ID] = t
	s.v1.order = append(s.v1.order, t.ID)
	return t
}

func (s *Server) v1GetThread(c *call) {
	s.answer(c.w, http.StatusOK, func() any {
		return struct {
			*v1Thread
			Messages []*v1Message `json:"messages"`
		}{c.t, append([]*v1Message{}, c.t.messages...)}
	})
}

func (s *Server) v1UpdateThread(c *call) {
	w, t := c.w, c.t
	var in struct {
		Name     json.RawMessage `json:"name"`
		Metadata json.RawMessage `json:"metadata"`
	}
	json.Unmarshal(c.body, &in)
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
	s.answer(w, http.StatusOK, func() any {
		if name != nil {
			t.Name = *name
		}
		if meta != nil {
			t.Metadata = meta // replaced, not merged, as live
		}
		t.UpdatedAt = now()
		return t
	})
}

func (s *Server) v1DeleteThread(c *call) {
	t := c.t
	s.mu.Lock()
	delete(s.v1.threads, t.ID)
	s.v1.order = slices.DeleteFunc(s.v1.order, func(id string) bool { return id == t.ID })
	if t.active != nil {
		// Allowed while a run streams (126); the run then fails (125).
		s.endRunLocked(t, t.active, runEnd{kind: endFailed, err: runInternalError("Thread was deleted")})
	}
	s.mu.Unlock()
	c.w.WriteHeader(http.StatusNoContent)
}

func (s *Server) v1GetMessage(c *call) {
	s.mu.Lock()
	msg := c.t.message(c.arg(1))
	var body []byte
	if msg != nil {
		body = encodeJSON(msg)
	}
	s.mu.Unlock()
	if msg == nil {
		v1MessageNotFound(c.w, c.t.ID, c.arg(1))
		return
	}
	writeBody(c.w, http.StatusOK, body)
}

func v1MessageNotFound(w http.ResponseWriter, threadID, msgID string) {
	v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Message %s not found in thread %s", msgID, threadID))
}

func (s *Server) v1ListMessages(c *call) {
	w, t := c.w, c.t
	q := c.r.URL.Query()
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
	at, ok := cursorIndex(w, q, ids)
	if !ok {
		return
	}
	p := pageOf(list, at, limit, s.cfg.overlapPages && order == "asc", messageCursor)
	s.answer(w, http.StatusOK, func() any {
		return struct {
			Messages   []*v1Message `json:"messages"`
			NextCursor string       `json:"nextCursor,omitempty"`
			HasMore    bool         `json:"hasMore"`
		}{p.Items, p.NextCursor, p.HasMore}
	})
}

// v1ComponentState replaces or patches the state of a component part.
// The state is kept as the JSON it was sent in, so that a failed patch's
// detail shows it in its own key order, as live (91, 92).
func (s *Server) v1ComponentState(c *call) {
	w, t, compID := c.w, c.t, c.arg(1)
	var in struct {
		State json.RawMessage   `json:"state"`
		Patch []json.RawMessage `json:"patch"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "patch" {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"patch must be an array"})
			return
		}
	}
	ops, ok := patchOps(w, in.Patch)
	if !ok || !s.v1StateAllowed(w, t, compID, in.State, in.Patch) {
		return
	}
	var next json.RawMessage
	if in.Patch == nil {
		var obj any
		if json.Unmarshal(in.State, &obj) != nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"state must be an object"})
			return
		}
		next = compactJSON(in.State)
	}
	s.mu.Lock()
	part := t.component(compID)
	if part == nil {
		s.mu.Unlock()
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Component %s not found in thread %s", compID, t.ID))
		return
	}
	if next == nil {
		tree := stateJSON(part["state"])
		var perr *patchError
		if next, perr = patchState(tree, in.Patch, ops); perr != nil {
			s.mu.Unlock()
			s.v1Problem(w, 400, "invalid_json_patch", "Invalid JSON Patch", perr.detail(), func(p *v1Problem) { p.Errors = perr })
			return
		}
	}
	part["state"] = next
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, struct {
		State json.RawMessage `json:"state"`
	}{next})
}

// v1StateAllowed answers the refusals of a component state update that
// come before the component is looked up: a run in progress, and state
// and patch both or neither.
func (s *Server) v1StateAllowed(w http.ResponseWriter, t *v1Thread, compID string, state json.RawMessage, patch []json.RawMessage) bool {
	hasState := len(state) > 0 && string(state) != "null"
	s.mu.Lock()
	active := t.active != nil
	s.mu.Unlock()
	ids := func(p *v1Problem) { p.ThreadID, p.ComponentID = t.ID, compID }
	switch {
	case active:
		s.v1Problem(w, 409, "run_active", "Run Active", "Cannot update component state while a run is active", func(p *v1Problem) {
			p.ThreadID, p.RunStatus = t.ID, "streaming"
		})
	case hasState && patch != nil:
		s.v1Problem(w, 400, "validation_error", "Validation Error", "Provide either 'state' or 'patch', not both", ids)
	case !hasState && patch == nil:
		s.v1Problem(w, 400, "validation_error", "Validation Error", "Either 'state' or 'patch' must be provided", ids)
	case patch != nil && len(patch) == 0:
		s.v1Problem(w, 400, "validation_error", "Validation Error", "'patch' must not be empty", ids)
	default:
		return true
	}
	return false
}

// component returns the thread's component block with the id, or nil;
// s.mu is held.
func (t *v1Thread) component(id string) block {
	var part block
	for _, m := range t.messages {
		for _, b := range m.Content {
			if b["type"] == "component" && b["id"] == id {
				part = b
			}
		}
	}
	return part
}

func (s *Server) v1ListSuggestions(c *call) {
	w, t, msgID := c.w, c.t, c.arg(1)
	q := c.r.URL.Query()
	limit, ok := v1Limit(w, q, 10)
	if !ok {
		return
	}
	s.mu.Lock()
	list := append([]v1Suggestion{}, t.suggestion[msgID]...)
	exists := t.message(msgID) != nil
	s.mu.Unlock()
	if !exists {
		v1MessageNotFound(w, t.ID, msgID)
		return
	}
	at := -1
	if cs := q.Get("cursor"); cs != "" {
		cur, ok := parseCursor(cs)
		if !ok {
			s.v1Problem(w, 400, "invalid_cursor", "Invalid Cursor", "Invalid pagination cursor", nil)
			return
		}
		if cur.MessageID != msgID {
			s.v1Problem(w, 400, "invalid_cursor", "Invalid Cursor", "Cursor does not belong to this message", nil)
			return
		}
		at = slices.IndexFunc(list, func(sg v1Suggestion) bool { return sg.ID == cur.ID })
	}
	p := pageOf(list, at, limit, s.cfg.overlapPages, func(sg v1Suggestion) v1Cursor {
		return v1Cursor{CreatedAt: sg.CreatedAt, ID: sg.ID, MessageID: msgID}
	})
	writeJSON(w, http.StatusOK, struct {
		Suggestions []v1Suggestion `json:"suggestions"`
		NextCursor  string         `json:"nextCursor,omitempty"`
		HasMore     bool           `json:"hasMore"`
	}{p.Items, p.NextCursor, p.HasMore})
}

// v1SuggestionTitles are the fake model's suggestions, in order.
var v1SuggestionTitles = [...]string{"First idea", "Second idea", "Third idea", "Fourth idea", "Fifth idea",
	"Sixth idea", "Seventh idea", "Eighth idea", "Ninth idea", "Tenth idea"}

func (s *Server) v1GenerateSuggestions(c *call) {
	w, t, msgID := c.w, c.t, c.arg(1)
	var in struct {
		MaxSuggestions *float64 `json:"maxSuggestions"`
	}
	json.Unmarshal(c.body, &in)
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
		v1MessageNotFound(w, t.ID, msgID)
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
