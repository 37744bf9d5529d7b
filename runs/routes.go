package runs

import (
	"fmt"
	"net/http"

	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// The routes of package runs are internal/v1wire's table, the one
// declaration of the /v1 wire that package proxy serves too: each
// operation names its route there and hands it, with its ids in the
// template's order, to the request path (client.go), which fills the
// template through route.Fill: the one route builder and id check of both
// packages, so an id is refused here exactly as package threads refuses
// it, before anything is sent.

// templates returns the templates of the routes of method.
func templates(method string) []string {
	if method == "" {
		return nil // Templates("") is every method's
	}
	return v1wire.Templates(method)
}

// endpointOf returns the route of r, one that Client.Do was given: a route
// of the table, or another /v1 route, which reads the user key where the
// service's routes of its method do (a POST or PUT from the body, any
// other method from the query).
func endpointOf(r route.Route, known bool) v1wire.Route {
	if known {
		if e, ok := v1wire.Lookup(r.Method, r.Template); ok {
			return e
		}
	}
	e := v1wire.Route{Method: r.Method, Template: r.Template, Key: v1wire.KeyInQuery}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		e.Key = v1wire.KeyInBody
	}
	return e
}

// opOf names the route in errors: "runs: GET /v1/threads/{threadId}".
func opOf(e v1wire.Route) string { return "runs: " + e.Method + " " + e.Template }

// fill fills e's template with ids, in order, refusing an id that cannot
// name anything (route.Fill) with an error that names the route.
func fill(e v1wire.Route, ids ...string) (route.Route, error) {
	r, err := route.Fill(e.Method, e.Template, ids...)
	if err != nil {
		return route.Route{}, fmt.Errorf("%s: %w", opOf(e), err)
	}
	return r, nil
}
