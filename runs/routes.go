package runs

import (
	"fmt"
	"net/http"

	"github.com/threadsapi/threads-go/internal/route"
)

// This file is the one place that lists every route of package runs: its
// method, its path template and where it reads the end user's key, as
// package threads lists its own in its routes.go. The operations pick
// their endpoint and hand it, with their ids in the template's order, to
// the request path (client.go), which fills the template through
// route.Fill: the one route builder and id check of both packages, so an
// id is refused here exactly as package threads refuses it, before
// anything is sent.

// endpoint is one /v1 route.
type endpoint struct {
	method, template string
	key              keyPlace
}

// where a route reads the user key.
type keyPlace int

const (
	keyInQuery keyPlace = iota // the query's userKey
	keyInBody                  // a member of the body (call.setKey puts it there)
	keyNone                    // no end user: the API key alone (the token exchange)
)

// The routes. Never written.
var (
	epListThreads  = endpoint{http.MethodGet, "/v1/threads", keyInQuery}
	epCreateThread = endpoint{http.MethodPost, "/v1/threads", keyInBody}
	epGetThread    = endpoint{http.MethodGet, "/v1/threads/{threadId}", keyInQuery}
	// The PATCH reads the user key from the query only.
	epUpdateThread        = endpoint{http.MethodPatch, "/v1/threads/{threadId}", keyInQuery}
	epDeleteThread        = endpoint{http.MethodDelete, "/v1/threads/{threadId}", keyInQuery}
	epListMessages        = endpoint{http.MethodGet, "/v1/threads/{threadId}/messages", keyInQuery}
	epGetMessage          = endpoint{http.MethodGet, "/v1/threads/{threadId}/messages/{messageId}", keyInQuery}
	epListSuggestions     = endpoint{http.MethodGet, "/v1/threads/{threadId}/messages/{messageId}/suggestions", keyInQuery}
	epGenerateSuggestions = endpoint{http.MethodPost, "/v1/threads/{threadId}/messages/{messageId}/suggestions", keyInBody}
	epRun                 = endpoint{http.MethodPost, "/v1/threads/{threadId}/runs", keyInBody}
	// Create-and-run reads the user key from thread.userKey only.
	epCreateAndRun   = endpoint{http.MethodPost, "/v1/threads/runs", keyInBody}
	epCancel         = endpoint{http.MethodDelete, "/v1/threads/{threadId}/runs/{runId}", keyInQuery}
	epComponentState = endpoint{http.MethodPost, "/v1/threads/{threadId}/components/{componentId}/state", keyInBody}
	epExchangeToken  = endpoint{http.MethodPost, "/oauth/token", keyNone}
)

// endpoints are the routes above with an end user, for Client.Do: a path
// that follows one is that route, and takes the user key where it does.
var endpoints = [...]endpoint{
	epListThreads, epCreateThread, epGetThread, epUpdateThread, epDeleteThread, epListMessages, epGetMessage,
	epListSuggestions, epGenerateSuggestions, epRun, epCreateAndRun, epCancel, epComponentState,
}

// templates returns the templates of the endpoints of method.
func templates(method string) []string {
	var out []string
	for _, e := range endpoints {
		if e.method == method {
			out = append(out, e.template)
		}
	}
	return out
}

// endpointOf returns the endpoint of r, one that Client.Do was given: a
// route of the endpoints above, or another /v1 route, which reads the user
// key where the service's routes of its method do (a POST or PUT from the
// body, any other method from the query).
func endpointOf(r route.Route, known bool) endpoint {
	if known {
		for _, e := range endpoints {
			if e.method == r.Method && e.template == r.Template {
				return e
			}
		}
	}
	e := endpoint{method: r.Method, template: r.Template, key: keyInQuery}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		e.key = keyInBody
	}
	return e
}

// op names the route in errors: "runs: GET /v1/threads/{threadId}".
func (e endpoint) op() string { return "runs: " + e.method + " " + e.template }

// route fills the template with ids, in order, refusing an id that cannot
// name anything (route.Fill) with an error that names the route.
func (e endpoint) route(ids ...string) (route.Route, error) {
	r, err := route.Fill(e.method, e.template, ids...)
	if err != nil {
		return route.Route{}, fmt.Errorf("%s: %w", e.op(), err)
	}
	return r, nil
}
