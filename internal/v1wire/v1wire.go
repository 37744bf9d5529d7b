// Package v1wire declares the /v1 API once, as the client side sends it:
// the table of routes (method, path template, where the end user's key
// goes, which query parameters the route takes) and the request body
// types. Package runs sends every /v1 call from them; package proxy
// serves the same routes to browsers, matches their paths against this
// table (with internal/route's matcher) and reads their bodies into these
// types, so that nothing reaches the service that a route does not take,
// and a member added here for runs is taken by the proxy with no second
// edit.
//
// The fake (threadstest) keeps its own table on purpose, as an
// independent check of the client; a test of threadstest checks that both
// tables list the same routes.
//
// The body types are generic over the item types that package runs
// declares for its users (a content part, a tool definition...): runs
// instantiates them with its own types, so that a user's value goes on the
// wire with no copy, and every type a user touches stays declared in runs.
package v1wire

import "strings"

// Route is one /v1 route.
type Route struct {
	Method   string // "GET", "POST", "PATCH", "DELETE"
	Template string // the path, with {name} placeholders, one segment each
	Key      KeyPlace
	// Query lists the query parameters the route takes besides userKey,
	// space-separated ("limit cursor"); see [Route.Params].
	Query string
	// Stream: the 2xx answer is an AG-UI event stream, not JSON.
	Stream bool
}

// KeyPlace is where a route reads the end user's key (when the end user is
// not named by a token, which always travels in Authorization).
type KeyPlace int

const (
	KeyInQuery  KeyPlace = iota // the userKey query parameter
	KeyInBody                   // the body's userKey member
	KeyInThread                 // the body's thread.userKey, and only there
	KeyNone                     // no end user: the API key alone
)

// Params returns the query parameters r takes besides userKey.
func (r Route) Params() []string { return strings.Fields(r.Query) }

// The routes. Never written.
var (
	ListThreads  = Route{Method: "GET", Template: "/v1/threads", Key: KeyInQuery, Query: "limit cursor"}
	CreateThread = Route{Method: "POST", Template: "/v1/threads", Key: KeyInBody}
	GetThread    = Route{Method: "GET", Template: "/v1/threads/{threadId}", Key: KeyInQuery}
	// The PATCH reads the user key from the query only.
	UpdateThread        = Route{Method: "PATCH", Template: "/v1/threads/{threadId}", Key: KeyInQuery}
	DeleteThread        = Route{Method: "DELETE", Template: "/v1/threads/{threadId}", Key: KeyInQuery}
	ListMessages        = Route{Method: "GET", Template: "/v1/threads/{threadId}/messages", Key: KeyInQuery, Query: "limit cursor order"}
	GetMessage          = Route{Method: "GET", Template: "/v1/threads/{threadId}/messages/{messageId}", Key: KeyInQuery}
	ListSuggestions     = Route{Method: "GET", Template: "/v1/threads/{threadId}/messages/{messageId}/suggestions", Key: KeyInQuery, Query: "limit cursor"}
	GenerateSuggestions = Route{Method: "POST", Template: "/v1/threads/{threadId}/messages/{messageId}/suggestions", Key: KeyInBody}
	Run                 = Route{Method: "POST", Template: "/v1/threads/{threadId}/runs", Key: KeyInBody, Stream: true}
	// Create-and-run reads the user key from thread.userKey only.
	CreateAndRun   = Route{Method: "POST", Template: "/v1/threads/runs", Key: KeyInThread, Stream: true}
	Cancel         = Route{Method: "DELETE", Template: "/v1/threads/{threadId}/runs/{runId}", Key: KeyInQuery}
	ComponentState = Route{Method: "POST", Template: "/v1/threads/{threadId}/components/{componentId}/state", Key: KeyInBody}
	ExchangeToken  = Route{Method: "POST", Template: "/oauth/token", Key: KeyNone}
	// RunEvents is package proxy's own route, not the service's: a
	// detached run's events, for a page resuming it (proxy's
	// WithDetachedRuns). It is in no table of the service's routes.
	RunEvents = Route{Method: "GET", Template: "/v1/threads/{threadId}/runs/{runId}/events", Key: KeyNone, Stream: true}
)

// Routes returns the routes that act for an end user: every route above
// but the token exchange. These are the routes package runs places a
// user key for, and the routes package proxy serves to browsers (the
// token exchange is the backend's decision, never a browser's).
func Routes() []Route {
	return []Route{
		ListThreads, CreateThread, GetThread, UpdateThread, DeleteThread, ListMessages, GetMessage,
		ListSuggestions, GenerateSuggestions, Run, CreateAndRun, Cancel, ComponentState,
	}
}

// Templates returns the templates of the routes of method (all methods
// when method is ""), in Routes' order, each once.
func Templates(method string) []string {
	var out []string
	for _, r := range Routes() {
		if (method == "" || r.Method == method) && !contains(out, r.Template) {
			out = append(out, r.Template)
		}
	}
	return out
}

// Lookup returns the route of method and template among Routes.
func Lookup(method, template string) (r Route, ok bool) {
	for _, r := range Routes() {
		if r.Method == method && r.Template == template {
			return r, true
		}
	}
	return r, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
