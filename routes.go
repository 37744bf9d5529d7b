package threads

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// This file is the one place that lists every route of package threads:
// its method, its path template and the type its 2xx answer is read into.
// The operations (threads.go, messages.go, projects.go) pick their
// endpoint, fill in its ids (route, the prologue's id check) and hand the
// call to the request path (request.go).

// endpoint is one route and the type T of its 2xx answer: JSON decoded into
// a T (do), an event stream (T is Stream: stream), or nothing to read (T is
// noAnswer: discard).
type endpoint[T any] struct{ method, template string }

// noAnswer is the result type of a route whose 2xx answer is dropped.
type noAnswer struct{}

// The routes. Never written: each is a constant pair with its type.
var (
	epListThreads          = endpoint[listBody]{http.MethodGet, "/threads"}
	epListProjectThreads   = endpoint[listBody]{http.MethodGet, "/threads/project/{projectId}"}
	epCreateThread         = endpoint[Thread]{http.MethodPost, "/threads"}
	epGetThread            = endpoint[ThreadWithMessages]{http.MethodGet, "/threads/{id}"}
	epUpdateThread         = endpoint[Thread]{http.MethodPut, "/threads/{id}"}
	epDeleteThread         = endpoint[noAnswer]{http.MethodDelete, "/threads/{id}"}
	epCancel               = endpoint[Thread]{http.MethodPost, "/threads/{id}/cancel"}
	epGenerateName         = endpoint[Thread]{http.MethodPost, "/threads/{id}/generate-name"}
	epAdvanceStream        = endpoint[Stream]{http.MethodPost, "/threads/{id}/advancestream"}
	epCreateAdvanceStream  = endpoint[Stream]{http.MethodPost, "/threads/advancestream"}
	epAdvance              = endpoint[AdvanceResponse]{http.MethodPost, "/threads/{id}/advance"} // deprecated: JSON, or a migrated stream
	epCreateAdvance        = endpoint[AdvanceResponse]{http.MethodPost, "/threads/advance"}      // deprecated, as epAdvance
	epListMessages         = endpoint[[]Message]{http.MethodGet, "/threads/{id}/messages"}
	epCreateMessage        = endpoint[Message]{http.MethodPost, "/threads/{id}/messages"}
	epDeleteMessage        = endpoint[noAnswer]{http.MethodDelete, "/threads/{id}/messages/{messageId}"}
	epSuggestions          = endpoint[[]Suggestion]{http.MethodGet, "/threads/{id}/messages/{messageId}/suggestions"}
	epGenerateSuggestions  = endpoint[[]Suggestion]{http.MethodPost, "/threads/{id}/messages/{messageId}/suggestions"}
	epUpdateComponentState = endpoint[Message]{http.MethodPut, "/threads/{id}/messages/{messageId}/component-state"}
	epCurrentProject       = endpoint[Project]{http.MethodGet, "/projects"}
)

// idKinds names what each placeholder's id names, for errors.
var idKinds = map[string]string{"id": "thread", "messageId": "message", "projectId": "project",
	"apiKeyId": "API key", "providerKeyId": "provider key", "name": "registry item"}

// route fills the template's placeholders, in order, with ids, refusing
// before anything is sent an id that cannot name anything (see checkID);
// op names the operation in the error.
func (e endpoint[T]) route(op string, ids ...string) (route.Route, error) {
	r := route.Route{Method: e.method, Template: e.template}
	i := 0
	for seg := range strings.SplitSeq(e.template, "/") {
		name, ok := strings.CutPrefix(seg, "{")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "}")
		if i >= len(ids) {
			return route.Route{}, fmt.Errorf("threads: %s: no %s id", op, idKinds[name])
		}
		if err := checkID(idKinds[name], ids[i]); err != nil {
			return route.Route{}, fmt.Errorf("threads: %s: %w", op, err)
		}
		if r.Values == nil {
			r.Values = make(map[string]string, len(ids))
		}
		r.Values[name] = ids[i]
		i++
	}
	return r, nil
}

// do makes the call and decodes its JSON answer into a new T.
func (e endpoint[T]) do(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) (*T, error) {
	return doInto[T](ctx, c, opts, cl)
}

// stream makes the call and returns its event stream.
func (e endpoint[T]) stream(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) (*Stream, error) {
	return c.doStream(ctx, opts, cl)
}

// discard makes the call and drops its answer.
func (e endpoint[T]) discard(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) error {
	return c.doDiscard(ctx, opts, cl)
}

// checkID refuses, before anything is sent, an id that cannot name a thread
// or a message: empty or white space only, or "." and "..", which a server
// or proxy would resolve as a path step even escaped ("%2E%2E"). kind names
// the id in the error ("thread", "message").
func checkID(kind, id string) error {
	switch strings.TrimSpace(id) {
	case "":
		if id == "" {
			return fmt.Errorf("empty %s id", kind)
		}
		return fmt.Errorf("%s id %q is only white space", kind, id)
	case ".", "..":
		return fmt.Errorf("%s id %q is a dot segment, not an id", kind, id)
	}
	return nil
}
