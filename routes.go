package threads

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

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

	// The backend's routes (projects.go, authservice.go, registry.go): not
	// in the API spec nor the captures; from the service's OpenAPI
	// document as the official TypeScript SDK renders it (note the
	// singular "api-key" and "provider-key" of the deletes).
	epGetProject        = endpoint[Project]{http.MethodGet, "/projects/{projectId}"}
	epDeleteProject     = endpoint[noAnswer]{http.MethodDelete, "/projects/{projectId}"}
	epListAPIKeys       = endpoint[[]APIKey]{http.MethodGet, "/projects/{projectId}/api-keys"}
	epDeleteAPIKey      = endpoint[noAnswer]{http.MethodDelete, "/projects/{projectId}/api-key/{apiKeyId}"}
	epListProviderKeys  = endpoint[[]ProviderKey]{http.MethodGet, "/projects/{projectId}/provider-keys"}
	epDeleteProviderKey = endpoint[noAnswer]{http.MethodDelete, "/projects/{projectId}/provider-key/{providerKeyId}"}
	epMCPAccessToken    = endpoint[mcpTokenBody]{http.MethodPost, "/auth/mcp/access-token"}
	epRegistryGet       = endpoint[RegistryItem]{http.MethodGet, "/registry/{name}"}
	epPresign           = endpoint[PresignedUpload]{http.MethodPost, "/storage/presign"} // storage.go
	epTranscribe        = endpoint[noAnswer]{http.MethodPost, "/audio/transcribe"}       // audio.go
)

// routeTemplates are the path templates of the routes above, by method:
// a path given to Client.Do that follows one is that route (observed,
// migrated and named as the typed call is).
func routeTemplates(method string) []string {
	var out []string
	for _, p := range [...][2]string{
		epListThreads.pattern(), epListProjectThreads.pattern(), epCreateThread.pattern(), epGetThread.pattern(),
		epUpdateThread.pattern(), epDeleteThread.pattern(), epCancel.pattern(), epGenerateName.pattern(),
		epAdvanceStream.pattern(), epCreateAdvanceStream.pattern(), epAdvance.pattern(), epCreateAdvance.pattern(),
		epListMessages.pattern(), epCreateMessage.pattern(), epDeleteMessage.pattern(), epSuggestions.pattern(),
		epGenerateSuggestions.pattern(), epUpdateComponentState.pattern(), epCurrentProject.pattern(),
		epGetProject.pattern(), epDeleteProject.pattern(), epListAPIKeys.pattern(), epDeleteAPIKey.pattern(),
		epListProviderKeys.pattern(), epDeleteProviderKey.pattern(), epMCPAccessToken.pattern(),
		epRegistryGet.pattern(), epPresign.pattern(), epTranscribe.pattern(),
	} {
		if p[0] == method {
			out = append(out, p[1])
		}
	}
	return out
}

// pattern is e's method and template.
func (e endpoint[T]) pattern() [2]string { return [2]string{e.method, e.template} }

// ErrInvalidID is matched (errors.Is) by the error of a call refused
// before anything was sent because an id it was given cannot name
// anything: empty or white space only, or "." or ".." (a path step to a
// server or proxy, even escaped). Every call of this package and of
// package runs that takes an id refuses the same ids with the same words.
var ErrInvalidID = route.ErrInvalidID

// route fills the template's placeholders, in order, with ids, refusing
// before anything is sent an id that cannot name anything (route.Fill,
// the one id check of both packages); op names the operation in the error.
func (e endpoint[T]) route(op string, ids ...string) (route.Route, error) {
	r, err := route.Fill(e.method, e.template, ids...)
	if err != nil {
		return route.Route{}, fmt.Errorf("threads: %s: %w", op, err)
	}
	return r, nil
}

// projectThreads is the per-project listing route for projectID.
func projectThreads(projectID string) (route.Route, error) {
	return epListProjectThreads.route("Threads.List", projectID)
}

// do makes the call and decodes its JSON answer into a new T.
func (e endpoint[T]) do(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) (*T, error) {
	return doInto[T](ctx, c, opts, cl)
}

// stream makes the call and returns its event stream.
func (e endpoint[T]) stream(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) (*Stream, error) {
	return c.doStream(ctx, opts, cl)
}

// deleted makes a delete whose 2xx answer says whether it acted: false
// for the JSON body false (the API-key delete of an unknown id, capture
// 32), true for anything else (true, an empty 204), whose bytes are
// dropped. The observer hears a false answer as the call's error.
func (e endpoint[T]) deleted(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) (bool, error) {
	resp, _, o, err := c.exchangeObserved(ctx, opts, cl)
	if err != nil {
		return false, err
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	drainClose(resp.Body)
	if string(bytes.TrimSpace(head)) == "false" {
		o.end(fmt.Errorf("threads: %w: the service answered false", ErrNotFound))
		return false, nil
	}
	o.end(nil)
	return true, nil
}

// discard makes the call and drops its answer.
func (e endpoint[T]) discard(ctx context.Context, c *Client, opts []RequestOption, cl core.Call) error {
	return c.doDiscard(ctx, opts, cl)
}

// checkID is route.CheckID: the id check of a value that is not a path
// segment of the call (a thread id in a body, a project id a server sent).
func checkID(kind, id string) error { return route.CheckID(kind, id) }
