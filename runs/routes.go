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
