package proxy

import (
	"net/http"
	"net/url"
	"strings"
)

// routeID names one /v1 route the handler serves.
type routeID int

const (
	routeListThreads routeID = iota
	routeCreateThread
	routeCreateRun
	routeGetThread
	routeUpdateThread
	routeDeleteThread
	routeRun
	routeCancelRun
	routeListMessages
	routeGetMessage
	routeListSuggestions
	routeGenerateSuggestions
	routeComponentState
	routeRunEvents
)

// routes is the allow-list: the /v1 routes that the official TypeScript
// SDK (0.96.4) and @tambo-ai/client (1.1.3) call, and nothing else. The
// token exchange (POST /oauth/token) is not here: the backend decides the
// end user. A {name} segment is one path segment.
var routes = []struct {
	method, path string
	id           routeID
}{
	{"GET", "/v1/threads", routeListThreads},
	{"POST", "/v1/threads", routeCreateThread},
	{"POST", "/v1/threads/runs", routeCreateRun},
	{"GET", "/v1/threads/{threadId}", routeGetThread},
	{"PATCH", "/v1/threads/{threadId}", routeUpdateThread},
	{"DELETE", "/v1/threads/{threadId}", routeDeleteThread},
	{"POST", "/v1/threads/{threadId}/runs", routeRun},
	{"DELETE", "/v1/threads/{threadId}/runs/{runId}", routeCancelRun},
	{"GET", "/v1/threads/{threadId}/messages", routeListMessages},
	{"GET", "/v1/threads/{threadId}/messages/{messageId}", routeGetMessage},
	{"GET", "/v1/threads/{threadId}/messages/{messageId}/suggestions", routeListSuggestions},
	{"POST", "/v1/threads/{threadId}/messages/{messageId}/suggestions", routeGenerateSuggestions},
	{"POST", "/v1/threads/{threadId}/components/{componentId}/state", routeComponentState},
	// The Handler's own: a detached run's events, for a page resuming it
	// (WithDetachedRuns); the service has no such route.
	{"GET", "/v1/threads/{threadId}/runs/{runId}/events", routeRunEvents},
}

// match finds r's route. On a miss it returns the status to answer: 400
// for a path that tries to step elsewhere (dot segments, encoded slashes,
// backslashes or dots, empty segments, control characters), 404 for a
// path that is no /v1 route, 405 (with the allowed methods) for a route
// asked with another method. vals are the {name} segments, unescaped, in
// order.
func match(r *http.Request) (id routeID, vals []string, status int, allow string) {
	segs, ok := splitPath(r.URL.EscapedPath())
	if !ok {
		return 0, nil, http.StatusBadRequest, ""
	}
	var methods []string
	for _, rt := range routes {
		v, ok := matchPath(rt.path, segs)
		if !ok {
			continue
		}
		if r.Method == rt.method {
			return rt.id, v, 0, ""
		}
		methods = append(methods, rt.method)
	}
	if len(methods) > 0 {
		return 0, nil, http.StatusMethodNotAllowed, strings.Join(methods, ", ")
	}
	return 0, nil, http.StatusNotFound, ""
}

// splitPath splits an escaped path into unescaped segments, refusing what
// could make the service (or a proxy before it) resolve another path than
// the one matched: a segment "." or "..", encoded or not; an encoded
// slash, backslash or dot; a backslash; an empty or blank segment (//, a
// trailing slash, %20); control characters; bad escapes.
func splitPath(p string) ([]string, bool) {
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return nil, false
	}
	parts := strings.Split(rest, "/")
	for i, s := range parts {
		if s == "" || strings.ContainsAny(s, `\`) {
			return nil, false
		}
		low := strings.ToLower(s)
		if strings.Contains(low, "%2f") || strings.Contains(low, "%5c") || strings.Contains(low, "%2e") {
			return nil, false
		}
		u, err := url.PathUnescape(s)
		if err != nil || u == "." || u == ".." || strings.TrimSpace(u) == "" {
			return nil, false
		}
		for _, c := range u {
			if c < 0x20 || c == 0x7f {
				return nil, false
			}
		}
		parts[i] = u
	}
	return parts, true
}

// matchPath matches segments against a route template.
func matchPath(tmpl string, segs []string) ([]string, bool) {
	t := strings.Split(strings.TrimPrefix(tmpl, "/"), "/")
	if len(t) != len(segs) {
		return nil, false
	}
	var vals []string
	for i, p := range t {
		if strings.HasPrefix(p, "{") {
			vals = append(vals, segs[i])
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return vals, true
}
