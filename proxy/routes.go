package proxy

import (
	"net/http"
	"strings"

	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// The allow-list is internal/v1wire's table of the routes that act for an
// end user, the routes package runs sends: those the official TypeScript
// SDK (0.96.4) and @tambo-ai/client (1.1.3) call. The token exchange
// (POST /oauth/token) is not among them: the backend decides the end
// user. Beside them the Handler serves its own v1wire.RunEvents (a
// detached run's events; the service has no such route). Paths are
// matched by internal/route's matcher, the one that checks the paths of
// the SDK's generic calls.

// match finds r's route: the table's route and the route with the path's
// values. On a miss it returns the status to answer: 400 for a path that
// tries to step elsewhere (dot segments in any spelling, encoded slashes
// or backslashes, backslashes, empty or blank segments, bad escapes), 404
// for a path that is no /v1 route, 405 (with the allowed methods) for a
// route asked with another method.
func match(r *http.Request) (rt v1wire.Route, rr route.Route, status int, allow string) {
	rr, known, _, err := route.Literal(http.MethodGet, r.URL.EscapedPath(), append(v1wire.Templates(""), v1wire.RunEvents.Template))
	switch {
	case err != nil:
		return rt, rr, http.StatusBadRequest, ""
	case !known:
		return rt, rr, http.StatusNotFound, ""
	}
	var methods []string
	for _, t := range append(v1wire.Routes(), v1wire.RunEvents) {
		if t.Template != rr.Template {
			continue
		}
		if t.Method == r.Method {
			rr.Method = t.Method
			return t, rr, 0, ""
		}
		methods = append(methods, t.Method)
	}
	return rt, rr, http.StatusMethodNotAllowed, strings.Join(methods, ", ")
}
