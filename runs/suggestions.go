package runs

import (
	"context"
	"fmt"
	"iter"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// ListSuggestionsParams pages [Client.ListSuggestions] and
// [Client.AllSuggestions].
type ListSuggestionsParams struct {
	// Limit is the page size, 1 to 100; 0 leaves the service's default.
	Limit int
	// Cursor is a previous page's NextCursor for the same message.
	Cursor string
}

// ListSuggestions returns one page of the suggestions stored for a message
// (GET /v1/threads/{threadId}/messages/{messageId}/suggestions); none
// before [Client.GenerateSuggestions]. params may be nil. A cursor of
// another message, or garbage, is a 400 problem that matches
// [ErrInvalidCursor]. The service pages suggestions made together badly:
// they share a timestamp, so with a page smaller than their number page 2
// repeats page 1 and its cursor forever (captures-turn4 18-21);
// [Client.AllSuggestions] then asks that cursor with a larger page.
func (c *Client) ListSuggestions(ctx context.Context, threadID, messageID string, params *ListSuggestionsParams, opts ...threads.RequestOption) (*SuggestionPage, error) {
	var p ListSuggestionsParams
	if params != nil {
		p = *params
	}
	k := call{ep: v1wire.ListSuggestions, ids: []string{threadID, messageID}}
	q, err := pageQuery(k.op(), p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	k.query = q
	var out SuggestionPage
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllSuggestions returns an iterator over a message's suggestions, each
// once, to the last page; it pages as [Client.AllThreads] does.
func (c *Client) AllSuggestions(ctx context.Context, threadID, messageID string, params *ListSuggestionsParams, opts ...threads.RequestOption) iter.Seq2[Suggestion, error] {
	var p ListSuggestionsParams
	if params != nil {
		p = *params
	}
	return pages(p.Cursor, p.Limit, func(cursor string, limit int) ([]Suggestion, string, bool, error) {
		p.Cursor, p.Limit = cursor, limit
		pg, err := c.ListSuggestions(ctx, threadID, messageID, &p, opts...)
		if err != nil {
			return nil, "", false, err
		}
		return pg.Items, pg.NextCursor, pg.HasMore, nil
	}, func(s Suggestion) string { return s.ID })
}

// GenerateSuggestionsParams shapes [Client.GenerateSuggestions]. Its
// counterpart on the spec's routes is [threads.GenerateSuggestionsParams].
type GenerateSuggestionsParams struct {
	// MaxSuggestions is 1 to 10; 0 leaves the service's default (3).
	MaxSuggestions int `json:"maxSuggestions,omitzero"`
	// AvailableComponents are components the suggestions may refer to.
	AvailableComponents []AvailableComponent `json:"availableComponents,omitzero"`
}

// GenerateSuggestions asks the service's model for follow-up suggestions
// to a message and returns them (POST
// /v1/threads/{threadId}/messages/{messageId}/suggestions, 201). They
// replace the message's earlier suggestions (new ids). An unknown message
// is a 404 problem. Retried as a POST is: only when it provably did not
// act.
func (c *Client) GenerateSuggestions(ctx context.Context, threadID, messageID string, params GenerateSuggestionsParams, opts ...threads.RequestOption) (*SuggestionPage, error) {
	k := call{ep: v1wire.GenerateSuggestions, ids: []string{threadID, messageID}}
	if params.MaxSuggestions < 0 || params.MaxSuggestions > 10 {
		return nil, fmt.Errorf("%s: MaxSuggestions %d is out of range: 1 to 10, or 0 for the service's default", k.op(), params.MaxSuggestions)
	}
	body := &v1wire.SuggestionsBody[AvailableComponent]{MaxSuggestions: params.MaxSuggestions, AvailableComponents: params.AvailableComponents}
	k.body, k.setKey = body, func(key string) { body.UserKey = key }
	var out SuggestionPage
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
