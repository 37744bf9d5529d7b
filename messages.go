package threads

import (
	"context"
	"fmt"

	"github.com/threadsapi/threads-go/internal/core"
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

// Format prints "threads.MessagesService" whatever the verb: fmt would otherwise
// print the client's settings through the pointer (a bad verb such as %s
// prints them in full), the headers and query values of WithHeader and
// WithQuery among them.
func (s MessagesService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.MessagesService") }

// List returns every message of the thread, oldest first (GET
// /threads/{id}/messages). The service leaves system messages out and does
// not page this route, so there is no All. It is a GET: transient failures
// are retried.
func (s *MessagesService) List(ctx context.Context, threadID string, opts ...RequestOption) ([]Message, error) {
	r, err := epListMessages.route("Messages.List", threadID)
	if err != nil {
		return nil, err
	}
	out, err := epListMessages.do(ctx, s.c(), opts, core.Call{Route: r})
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
	r, err := epCreateMessage.route("Messages.Create", threadID)
	if err != nil {
		return nil, err
	}
	if err := checkMessage(msg); err != nil {
		return nil, fmt.Errorf("threads: Messages.Create: %w", err)
	}
	if msg.Content == nil {
		msg.Content = []ContentPart{} // content is required
	}
	return epCreateMessage.do(ctx, s.c(), opts, core.Call{Route: r, Body: msg})
}

// Delete deletes one message of the thread (DELETE
// /threads/{id}/messages/{messageId}). Success is any 2xx status, whatever
// the body and its Content-Type: the body is not read, so a proxy or
// captive portal that answers 200 text/html is reported as success too
// (as for [ThreadsService.Delete]).
//
// Retries: only what provably did not act (a connection that failed before
// the request was written, 429, 503), like [ThreadsService.Delete].
func (s *MessagesService) Delete(ctx context.Context, threadID, messageID string, opts ...RequestOption) error {
	r, err := epDeleteMessage.route("Messages.Delete", threadID, messageID)
	if err != nil {
		return err
	}
	return epDeleteMessage.discard(ctx, s.c(), opts, core.Call{Route: r})
}

// Suggestions returns the suggestions generated so far for a message (GET
// /threads/{id}/messages/{messageId}/suggestions). The service answers 404
// (code SUGGESTION_NOT_FOUND, matching [ErrNotFound]) for a message it does
// not know. It is a GET: transient failures are retried.
func (s *MessagesService) Suggestions(ctx context.Context, threadID, messageID string, opts ...RequestOption) ([]Suggestion, error) {
	r, err := epSuggestions.route("Messages.Suggestions", threadID, messageID)
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
	r, err := epGenerateSuggestions.route("Messages.GenerateSuggestions", threadID, messageID)
	if err != nil {
		return nil, err
	}
	if params.MaxSuggestions < 0 || params.MaxSuggestions > 10 {
		return nil, fmt.Errorf("threads: Messages.GenerateSuggestions: MaxSuggestions (%d) must be 0 (the service's default) or 1 to 10", params.MaxSuggestions)
	}
	return s.suggestions(ctx, opts, core.Call{Route: r, Body: params})
}

func (s *MessagesService) suggestions(ctx context.Context, opts []RequestOption, cl core.Call) ([]Suggestion, error) {
	out, err := epSuggestions.do(ctx, s.c(), opts, cl) // the same type for both suggestion routes
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
	r, err := epUpdateComponentState.route("Messages.UpdateComponentState", threadID, messageID)
	if err != nil {
		return nil, err
	}
	if params.State == nil {
		params.State = map[string]any{}
	}
	return epUpdateComponentState.do(ctx, s.c(), opts, core.Call{Route: r, Body: params})
}

// c returns the service's Client, nil for a nil or zero MessagesService,
// whose calls then fail with an error instead of panicking.
func (s *MessagesService) c() *Client {
	if s == nil {
		return nil
	}
	return s.client
}
