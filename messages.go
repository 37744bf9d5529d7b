package threads

import (
	"context"
	"fmt"
	"net/http"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// Route templates of the message operations and GenerateName.
const (
	routeGenerateName   = "/threads/{id}/generate-name"
	routeMessages       = "/threads/{id}/messages"
	routeMessage        = "/threads/{id}/messages/{messageId}"
	routeSuggestions    = "/threads/{id}/messages/{messageId}/suggestions"
	routeComponentState = "/threads/{id}/messages/{messageId}/component-state"
)

// MessagesService holds the operations on a thread's stored messages; use
// it as Client.Messages.
//
// Like [ThreadsService], every method takes options for that call only,
// returns a [*Problem] for any non-2xx answer (403 for a thread id that is
// not a thread of the key's project), and follows the service's 410
// migration advice unless [WithoutAutoMigrate] is given. Empty or blank ids
// are refused before anything is sent. GET calls retry transient failures;
// POST, PUT and DELETE calls retry only what provably did not reach the
// service (a connection that failed before the request was written, 429,
// 503).
type MessagesService struct {
	client *Client
}

// List returns every message of the thread, oldest first (GET
// /threads/{id}/messages). The service leaves system messages out and does
// not page this route, so there is no All. It is a GET: transient failures
// are retried.
func (s *MessagesService) List(ctx context.Context, threadID string, opts ...RequestOption) ([]Message, error) {
	r, err := idRoute(http.MethodGet, routeMessages, "Messages.List", threadID)
	if err != nil {
		return nil, err
	}
	out, err := doInto[[]Message](ctx, s.c(), opts, core.Call{Route: r})
	if err != nil {
		return nil, err
	}
	if *out == nil {
		return []Message{}, nil
	}
	return *out, nil
}

// Create appends msg to the thread without generating a reply and returns
// the stored message (POST /threads/{id}/messages, answered 201).
// [UserMessage] and [ToolResult] build the common messages; msg is checked
// as AdvanceStream checks its message (a role, a tool message's
// ToolCallID, each part's payload) before anything is sent.
//
// Retries: as every POST, only what provably did not act, so a message is
// never stored twice.
func (s *MessagesService) Create(ctx context.Context, threadID string, msg MessageRequest, opts ...RequestOption) (*Message, error) {
	r, err := idRoute(http.MethodPost, routeMessages, "Messages.Create", threadID)
	if err != nil {
		return nil, err
	}
	if err := checkMessage(msg); err != nil {
		return nil, fmt.Errorf("threads: Messages.Create: %w", err)
	}
	if msg.Content == nil {
		msg.Content = []ContentPart{} // content is required
	}
	return doInto[Message](ctx, s.c(), opts, core.Call{Route: r, Body: msg})
}

// Delete deletes one message of the thread (DELETE
// /threads/{id}/messages/{messageId}).
//
// Retries: only what provably did not act (a connection that failed before
// the request was written, 429, 503), like [ThreadsService.Delete].
func (s *MessagesService) Delete(ctx context.Context, threadID, messageID string, opts ...RequestOption) error {
	r, err := idRoute(http.MethodDelete, routeMessage, "Messages.Delete", threadID, messageID)
	if err != nil {
		return err
	}
	return s.c().doDiscard(ctx, opts, core.Call{Route: r})
}

// Suggestions returns the suggestions generated so far for a message (GET
// /threads/{id}/messages/{messageId}/suggestions). The service answers 404
// (code SUGGESTION_NOT_FOUND, matching [ErrNotFound]) for a message it does
// not know. It is a GET: transient failures are retried.
func (s *MessagesService) Suggestions(ctx context.Context, threadID, messageID string, opts ...RequestOption) ([]Suggestion, error) {
	r, err := idRoute(http.MethodGet, routeSuggestions, "Messages.Suggestions", threadID, messageID)
	if err != nil {
		return nil, err
	}
	return s.suggestions(ctx, opts, core.Call{Route: r})
}

// GenerateSuggestions has the model propose follow-ups to a message, stores
// them and returns them (POST /threads/{id}/messages/{messageId}/suggestions,
// answered 201). params.MaxSuggestions must be 0 (the service's default, 3)
// or 1 to 10.
//
// Retries: as every POST, only what provably did not act (it calls the
// model).
func (s *MessagesService) GenerateSuggestions(ctx context.Context, threadID, messageID string, params GenerateSuggestionsParams, opts ...RequestOption) ([]Suggestion, error) {
	r, err := idRoute(http.MethodPost, routeSuggestions, "Messages.GenerateSuggestions", threadID, messageID)
	if err != nil {
		return nil, err
	}
	if params.MaxSuggestions < 0 || params.MaxSuggestions > 10 {
		return nil, fmt.Errorf("threads: Messages.GenerateSuggestions: MaxSuggestions (%d) must be 0 (the service's default) or 1 to 10", params.MaxSuggestions)
	}
	return s.suggestions(ctx, opts, core.Call{Route: r, Body: params})
}

func (s *MessagesService) suggestions(ctx context.Context, opts []RequestOption, cl core.Call) ([]Suggestion, error) {
	out, err := doInto[[]Suggestion](ctx, s.c(), opts, cl)
	if err != nil {
		return nil, err
	}
	if *out == nil {
		return []Suggestion{}, nil
	}
	return *out, nil
}

// UpdateComponentState replaces the component state stored with a message
// and returns the message (PUT
// /threads/{id}/messages/{messageId}/component-state). A nil
// params.State sends an empty state.
//
// Retries: only what provably did not act (a connection that failed before
// the request was written, 429, 503), as for every call that is not a GET.
func (s *MessagesService) UpdateComponentState(ctx context.Context, threadID, messageID string, params UpdateComponentStateParams, opts ...RequestOption) (*Message, error) {
	r, err := idRoute(http.MethodPut, routeComponentState, "Messages.UpdateComponentState", threadID, messageID)
	if err != nil {
		return nil, err
	}
	if params.State == nil {
		params.State = map[string]any{}
	}
	return doInto[Message](ctx, s.c(), opts, core.Call{Route: r, Body: params})
}

// idRoute builds a route on a thread (and a message, when the template has
// {messageId}), refusing empty and blank ids before anything is sent.
func idRoute(method, tmpl, op string, ids ...string) (route.Route, error) {
	names := []string{"thread", "message"}
	keys := []string{"id", "messageId"}
	values := make(map[string]string, len(ids))
	for i, id := range ids {
		if err := checkID(names[i], id); err != nil {
			return route.Route{}, fmt.Errorf("threads: %s: %w", op, err)
		}
		values[keys[i]] = id
	}
	return route.Route{Method: method, Template: tmpl, Values: values}, nil
}

// c returns the service's Client, nil for a nil or zero MessagesService,
// whose calls then fail with an error instead of panicking.
func (s *MessagesService) c() *Client {
	if s == nil {
		return nil
	}
	return s.client
}
