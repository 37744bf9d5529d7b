package threadstest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
)

// The fake's routing: every request is read, checked for its key, logged,
// matched against the faults, then answered by the storage host, the /v1
// routes (with their own guards) or the other routes, each from a route
// table.

// maxBody is how much of a request body the server reads.
const maxBody = 32 << 20

// A route is one row of a route table: a method and a path, and the
// handler that answers them.
type route struct {
	method string
	// path is the route's segments after the table's prefix, "/"
	// separated; "*" matches any one segment (unescaped into call.args).
	path  string
	serve func(s *Server, c *call)
	// on, when not nil, says whether the server's options serve the route.
	on func(*config) bool
	// thread: the route's first "*" is a thread id, looked up before
	// serve (403 when it is unknown; on /v1, or another end user's).
	// project: it is a project id, 403 unless it is the key's.
	thread, project bool
	// user is where a /v1 route reads the userKey.
	user keyPlace
}

// keyPlace is where a /v1 route reads the userKey (v1-api.md section 1).
type keyPlace int

const (
	inQuery      keyPlace = iota
	inBody                // the top-level "userKey"
	inThreadBody          // "thread.userKey" only: POST /v1/threads/runs
)

// call is one request as a handler sees it.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	body []byte
	args []string // the segments the route's "*" matched, unescaped
	// The thread args[0] names when the route is a thread's; on /v1,
	// the end user's context key and their thread.
	thread *thread
	user   string
	t      *v1Thread
}

// arg is the i-th segment the route's "*" matched.
func (c *call) arg(i int) string { return c.args[i] }

// match returns the first route of table whose method and path match segs
// and that the server serves, with the segments its "*" matched.
func (s *Server) match(table []route, method string, segs []string) (*route, []string) {
	for i := range table {
		rt := &table[i]
		if rt.method != method || (rt.on != nil && !rt.on(&s.cfg)) {
			continue
		}
		if args, ok := matchPath(rt.path, segs); ok {
			return rt, args
		}
	}
	return nil, nil
}

func matchPath(pattern string, segs []string) ([]string, bool) {
	want := strings.Split(pattern, "/")
	if len(want) != len(segs) {
		return nil, false
	}
	var args []string
	for i, w := range want {
		switch {
		case w == "*":
			args = append(args, segs[i])
		case w != segs[i]:
			return nil, false
		}
	}
	return args, true
}

// segments splits an escaped path into unescaped segments, so that an id
// holding "/" or ".." stays one segment.
func segments(escaped string) []string {
	segs := strings.Split(escaped, "/")
	for i, seg := range segs {
		if v, err := url.PathUnescape(seg); err == nil {
			segs[i] = v
		}
	}
	return segs
}

// area is which part of the fake answers a request.
type area int

const (
	specArea    area = iota // the thread, message and project routes
	v1Area                  // /v1 and POST /oauth/token: their own guards (v1.go)
	storageArea             // the storage host's presigned URL: no key (extra.go)
)

func areaOf(r *http.Request) area {
	p := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(r.URL.Path, "/_storage/"):
		return storageArea
	case p == "/oauth/token" || p == "/v1" || strings.HasPrefix(p, "/v1/"):
		return v1Area
	}
	return specArea
}

// serve is the server's handler.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	a := areaOf(r)
	keyed := s.keyed(a, r)
	var body []byte
	if keyed {
		body, _ = io.ReadAll(io.LimitReader(r.Body, maxBody))
	} else {
		// Read, not kept: a refused request costs no memory.
		io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
	}
	s.mu.Lock()
	s.log.add(Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: body})
	f := s.takeFault(r)
	s.mu.Unlock()
	if f != nil && s.fault(w, r, f, a, body) {
		return
	}
	w, done := s.withExtraMembers(w) // extra_members.go
	defer done()
	s.dispatch(w, r, a, body)
}

// dispatch answers r from its area's routes.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, a area, body []byte) {
	switch a {
	case storageArea:
		s.serveStorageHost(w, r, body)
	case v1Area:
		s.serveV1(w, r, body)
	default:
		if s.authorize(w, r) {
			s.serveSpec(w, r, body)
		}
	}
}

// fault answers r as f says; it reports false when the normal handler is
// to answer after all (a Stall alone).
func (s *Server) fault(w http.ResponseWriter, r *http.Request, f *Fault, a area, body []byte) bool {
	if f.Stall != nil {
		select {
		case <-f.Stall:
		case <-r.Context().Done():
			return true
		}
	}
	switch {
	case f.Reset:
		reset(w)
	case f.ActThenReset:
		// The request acts (a /v1 run starts and streams to its end),
		// then the connection is cut without the answer.
		s.dispatch(httptest.NewRecorder(), r, a, body)
		reset(w)
	case f.Status != 0:
		for k, vs := range f.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
	default:
		return false
	}
	return true
}

// keyed reports whether r carries the key its area's guard reads: none
// for the storage host, x-api-key for /v1, and for the other routes the
// header of WithAPIKeyHeader (else "Authorization: Bearer <key>").
func (s *Server) keyed(a area, r *http.Request) bool {
	switch {
	case a == storageArea:
		return true
	case a == v1Area:
		return r.Header.Get("X-Api-Key") == s.APIKey
	case s.cfg.keyHeader != "":
		return r.Header.Get(s.cfg.keyHeader) == s.APIKey
	}
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && key == s.APIKey
}

// authorize checks the key of a route outside /v1 and answers the refusal
// itself.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.keyHeader == "" {
		if !s.keyed(specArea, r) {
			frameworkError(w, http.StatusUnauthorized, "Unauthorized", "Invalid or missing API key")
			return false
		}
		return true
	}
	// The live guards: the key header first (a guard that says no is 403),
	// then the bearer guard, which takes any Authorization for a session
	// token.
	if !s.keyed(specArea, r) {
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

// serveSpec answers the routes outside /v1 from specRoutes.
func (s *Server) serveSpec(w http.ResponseWriter, r *http.Request, body []byte) {
	segs := segments(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	rt, args := s.match(specRoutes, r.Method, segs)
	if rt == nil {
		frameworkError(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path))
		return
	}
	c := &call{w: w, r: r, body: body, args: args}
	if rt.project && args[0] != s.ProjectID {
		forbidden(w)
		return
	}
	if rt.thread {
		if c.thread = s.lookup(w, args[0]); c.thread == nil {
			return
		}
	}
	rt.serve(s, c)
}

// specRoutes are the routes outside /v1: the spec's thread routes, the
// rest of what the official client calls, and the project key's other
// routes (extra.go).
var specRoutes = []route{
	{method: "GET", path: "projects", serve: func(s *Server, c *call) { s.project(c.w) }},
	{method: "GET", path: "threads", serve: (*Server).list, on: func(c *config) bool { return !c.noSpecList }},
	{method: "GET", path: "threads/project/*", serve: (*Server).list, project: true},
	{method: "POST", path: "threads", serve: (*Server).create},
	{method: "POST", path: "threads/advance", serve: (*Server).deprecated},
	{method: "POST", path: "threads/advancestream", serve: (*Server).advance},
	{method: "GET", path: "threads/*", serve: (*Server).get, thread: true},
	{method: "POST", path: "threads/*/advance", serve: (*Server).deprecated, thread: true},
	{method: "POST", path: "threads/*/advancestream", serve: (*Server).advance},
	{method: "POST", path: "threads/*/cancel", serve: (*Server).cancel, thread: true},
	{method: "PUT", path: "threads/*", serve: (*Server).update, thread: true},
	{method: "DELETE", path: "threads/*", serve: (*Server).deleteThread, thread: true},
	{method: "POST", path: "threads/*/generate-name", serve: (*Server).generateName, thread: true},
	{method: "GET", path: "threads/*/messages", serve: (*Server).listMessages, thread: true},
	{method: "POST", path: "threads/*/messages", serve: (*Server).addMessage, thread: true},
	{method: "DELETE", path: "threads/*/messages/*", serve: (*Server).deleteMessage, thread: true},
	{method: "GET", path: "threads/*/messages/*/suggestions", serve: (*Server).suggestions, thread: true},
	{method: "POST", path: "threads/*/messages/*/suggestions", serve: (*Server).generateSuggestions, thread: true},
	{method: "PUT", path: "threads/*/messages/*/component-state", serve: (*Server).componentState, thread: true},
	{method: "POST", path: "storage/presign", serve: (*Server).presign},
	{method: "POST", path: "audio/transcribe", serve: (*Server).transcribe},
	{method: "GET", path: "projects/*", serve: func(s *Server, c *call) { s.project(c.w) }, project: true},
	{method: "GET", path: "projects/*/api-keys", serve: func(s *Server, c *call) { s.listKeys(c, fakeAPIKeys) }, project: true},
	{method: "GET", path: "projects/*/provider-keys", serve: func(s *Server, c *call) { s.listKeys(c, fakeProviderKeys) }, project: true},
	{method: "DELETE", path: "projects/*/api-key/*", serve: func(s *Server, c *call) { s.deleteKey(c, fakeAPIKeys, true) }, project: true},
	{method: "DELETE", path: "projects/*/provider-key/*", serve: func(s *Server, c *call) { s.deleteKey(c, fakeProviderKeys, false) }, project: true},
	{method: "POST", path: "auth/mcp/access-token", serve: (*Server).mcpToken},
	{method: "GET", path: "registry/*", serve: (*Server).registry},
}

// serveV1 answers the /v1 routes and POST /oauth/token, behind the live
// guards, whatever header the other routes read the key from.
func (s *Server) serveV1(w http.ResponseWriter, r *http.Request, body []byte) {
	if !s.keyed(v1Area, r) { // ApiKeyGuard
		v1Forbidden(w)
		return
	}
	p := r.URL.EscapedPath()
	notFound := func() {
		v1Error(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path))
	}
	if p == "/oauth/token" {
		if r.Method != http.MethodPost {
			notFound()
			return
		}
		s.v1Token(w, r, body)
		return
	}
	bearer, ok := s.v1Bearer(w, r)
	if !ok {
		return
	}
	segs := segments(strings.TrimPrefix(p, "/v1/"))
	if segs[0] != "threads" {
		notFound()
		return
	}
	var keys v1BodyKeys
	if r.Method == http.MethodPost && len(body) > 0 {
		if err := json.Unmarshal(body, &keys); err != nil {
			v1Error(w, http.StatusBadRequest, "Bad Request", "Unexpected token in JSON at position 0")
			return
		}
	}
	rt, args := s.match(v1Routes, r.Method, segs)
	if rt == nil {
		notFound()
		return
	}
	key, ok := keys.userKey(w, r, rt.user)
	if !ok {
		return
	}
	ctxKey, ok := v1Identity(w, key, bearer)
	if !ok {
		return
	}
	c := &call{w: w, r: r, body: body, args: args, user: ctxKey}
	if rt.thread {
		if c.t = s.v1Lookup(w, args[0], ctxKey); c.t == nil {
			return
		}
	}
	rt.serve(s, c)
}

// v1BodyKeys are the places a /v1 body may carry the userKey.
type v1BodyKeys struct {
	UserKey *string `json:"userKey"`
	Thread  *struct {
		UserKey *string `json:"userKey"`
	} `json:"thread"`
}

// userKey returns the userKey where the route reads it (nil when there is
// none), or answers the refusal of one sent where the route refuses it.
func (k v1BodyKeys) userKey(w http.ResponseWriter, r *http.Request, place keyPlace) (*string, bool) {
	switch place {
	case inThreadBody:
		// POST /v1/threads/runs reads thread.userKey only; the top-level
		// userKey that the official TypeScript SDK's types allow is
		// refused by the service's validation.
		if k.UserKey != nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"property userKey should not exist"})
			return nil, false
		}
		if k.Thread != nil {
			return k.Thread.UserKey, true
		}
		return nil, true
	case inBody:
		return k.UserKey, true
	}
	if q := r.URL.Query(); q.Has("userKey") {
		key := q.Get("userKey")
		return &key, true
	}
	return nil, true
}

// v1Bearer is the BearerTokenGuard: an Authorization header must carry a
// token this server issued. It returns the token's context key ("" when
// there is no Authorization), or answers the 401.
func (s *Server) v1Bearer(w http.ResponseWriter, r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return "", true
	}
	scheme, tok, _ := strings.Cut(auth, " ")
	s.mu.Lock()
	ctxKey, ok := s.v1.tokens[tok]
	s.mu.Unlock()
	if !strings.EqualFold(scheme, "Bearer") || !ok {
		v1Error(w, http.StatusUnauthorized, "Unauthorized", "Invalid bearer token")
		return "", false
	}
	return ctxKey, true
}

// v1Routes are the /v1 routes, after "/v1/".
var v1Routes = []route{
	{method: "GET", path: "threads", serve: (*Server).v1ListThreads},
	{method: "POST", path: "threads", serve: (*Server).v1CreateThread, user: inBody},
	{method: "POST", path: "threads/runs", serve: (*Server).v1Run, user: inThreadBody},
	{method: "GET", path: "threads/*", serve: (*Server).v1GetThread, thread: true},
	{method: "PATCH", path: "threads/*", serve: (*Server).v1UpdateThread, thread: true},
	{method: "DELETE", path: "threads/*", serve: (*Server).v1DeleteThread, thread: true},
	{method: "POST", path: "threads/*/runs", serve: (*Server).v1Run, user: inBody, thread: true},
	{method: "DELETE", path: "threads/*/runs/*", serve: (*Server).v1Cancel, thread: true},
	{method: "GET", path: "threads/*/messages", serve: (*Server).v1ListMessages, thread: true},
	{method: "GET", path: "threads/*/messages/*", serve: (*Server).v1GetMessage, thread: true},
	{method: "POST", path: "threads/*/components/*/state", serve: (*Server).v1ComponentState, user: inBody, thread: true},
	{method: "GET", path: "threads/*/messages/*/suggestions", serve: (*Server).v1ListSuggestions, thread: true},
	{method: "POST", path: "threads/*/messages/*/suggestions", serve: (*Server).v1GenerateSuggestions, user: inBody, thread: true},
}
