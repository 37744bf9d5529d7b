package runs

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strconv"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// ListThreadsParams pages [Client.ListThreads] and [Client.AllThreads].
type ListThreadsParams struct {
	// Limit is the page size, 1 to 100; 0 leaves the service's default
	// (20).
	Limit int
	// Cursor is a previous page's NextCursor; empty for the first page.
	Cursor string
}

// ListThreads returns one page of the end user's threads, newest first
// (GET /v1/threads). params may be nil. A Limit outside 0 to 100 is refused
// before sending; a cursor the service does not accept is a problem that
// matches [ErrInvalidCursor].
//
// Retries: a GET is retried on connection errors, 408, 429 and 5xx, as
// every call of the *threads.Client.
func (c *Client) ListThreads(ctx context.Context, params *ListThreadsParams, opts ...threads.RequestOption) (*ThreadPage, error) {
	var p ListThreadsParams
	if params != nil {
		p = *params
	}
	k := call{ep: v1wire.ListThreads}
	q, err := pageQuery(k.op(), p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	k.query = q
	var out ThreadPage
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllThreads returns an iterator over every thread of the end user,
// newest first, from params' cursor (params may be nil) to the last page.
// It works around the service's paging faults: a thread repeated at a page
// boundary is yielded once; a cursor that comes back after it was used is
// asked once more with a larger page (which the rest of the listing
// keeps), and if that does not move on either the iterator yields
// [ErrStoppedShort]; after [MaxPages] requests it yields
// [ErrTooManyPages]. It never ends short without an error. Breaking out
// of the loop stops it; an error is yielded once, last.
func (c *Client) AllThreads(ctx context.Context, params *ListThreadsParams, opts ...threads.RequestOption) iter.Seq2[Thread, error] {
	var p ListThreadsParams
	if params != nil {
		p = *params
	}
	return pages(p.Cursor, p.Limit, func(cursor string, limit int) ([]Thread, string, bool, error) {
		p.Cursor, p.Limit = cursor, limit
		pg, err := c.ListThreads(ctx, &p, opts...)
		if err != nil {
			return nil, "", false, err
		}
		return pg.Items, pg.NextCursor, pg.HasMore, nil
	}, func(t Thread) string { return t.ID })
}

// CreateThreadParams is what a new thread starts with. All fields are
// optional. Its counterpart on the spec's routes is
// [threads.CreateThreadParams].
type CreateThreadParams struct {
	Metadata map[string]any
	// InitialMessages seed the thread; a thread created with them and no
	// run yet accepts its first run without a previous run id.
	InitialMessages []InitialMessage
}

// CreateThread creates a thread for the end user and returns it (POST
// /v1/threads, 201). The user key travels in the body.
//
// Retries: a POST is re-sent only when it provably did not act (a
// connection that failed before the request was written, 429, 503), so no
// thread is ever created twice.
func (c *Client) CreateThread(ctx context.Context, params CreateThreadParams, opts ...threads.RequestOption) (*Thread, error) {
	body := &v1wire.CreateThreadBody[InitialMessage]{Metadata: params.Metadata, InitialMessages: params.InitialMessages}
	k := call{ep: v1wire.CreateThread, body: body, setKey: func(key string) { body.UserKey = key }}
	var out Thread
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetThread returns the thread and all its messages (GET
// /v1/threads/{threadId}). An unknown or deleted thread, or another end
// user's, is a 403 problem (threads.ErrForbidden).
func (c *Client) GetThread(ctx context.Context, threadID string, opts ...threads.RequestOption) (*ThreadWithMessages, error) {
	k := call{ep: v1wire.GetThread, ids: []string{threadID}}
	var out ThreadWithMessages
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateThreadParams changes a thread. A field left at its zero value is
// not sent and keeps its value. Its counterpart on the spec's routes is
// [threads.UpdateThreadParams].
type UpdateThreadParams struct {
	Name string `json:"name,omitzero"`
	// Metadata, when not nil, replaces the thread's metadata whole (the
	// service does not merge): an empty map clears it.
	Metadata map[string]any `json:"metadata,omitzero"`
}

// UpdateThread changes the thread's name or metadata and returns the
// thread (PATCH /v1/threads/{threadId}; the user key travels in the
// query, the only place this route reads it). Retried as a POST is.
func (c *Client) UpdateThread(ctx context.Context, threadID string, params UpdateThreadParams, opts ...threads.RequestOption) (*Thread, error) {
	k := call{ep: v1wire.UpdateThread, ids: []string{threadID}, body: &v1wire.UpdateThreadBody{Name: params.Name, Metadata: params.Metadata}}
	var out Thread
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteThread deletes the thread and its messages (DELETE
// /v1/threads/{threadId}, 204). Deleting it again is a 403 problem
// (threads.ErrForbidden), as for any unknown thread. A run in progress on
// the thread ends with an error event.
func (c *Client) DeleteThread(ctx context.Context, threadID string, opts ...threads.RequestOption) error {
	k := call{ep: v1wire.DeleteThread, ids: []string{threadID}}
	return c.do(ctx, opts, k, nil)
}

// pageQuery checks and encodes limit and cursor.
func pageQuery(op string, limit int, cursor string) (url.Values, error) {
	if limit < 0 || limit > 100 {
		return nil, fmt.Errorf("%s: limit %d is out of range: 1 to 100, or 0 for the service's default", op, limit)
	}
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return q, nil
}
