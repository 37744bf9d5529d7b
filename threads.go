package threads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/route"
)

// ListParams filters and pages [ThreadsService.List] and [ThreadsService.All]. Zero values are left out of
// the query: the service's defaults are offset 0 and limit 10, and no
// ContextKey means threads that have none.
type ListParams struct {
	// Offset skips this many threads (query parameter offset).
	Offset int
	// Limit asks for at most this many threads (query parameter limit).
	Limit int
	// ContextKey lists only the threads with exactly this context key
	// (query parameter contextKey).
	ContextKey string
	// ProjectID, when set, lists that project's threads through the live
	// service's GET /threads/project/{projectId}; empty, List uses the
	// spec's GET /threads, or, where the service lacks it (the live one),
	// the API key's project.
	ProjectID string
}

// UserMessage returns a user message holding text.
func UserMessage(text string) MessageRequest {
	return MessageRequest{Role: RoleUser, Content: []ContentPart{{Type: ContentPartTypeText, Text: text}}}
}

// ToolResult returns the answer to a client tool call: a tool message that
// carries the call's id (the message's ToolCallID) and the result as text.
func ToolResult(toolCallID, text string) MessageRequest {
	return MessageRequest{Role: RoleTool, ToolCallID: toolCallID, Content: []ContentPart{{Type: ContentPartTypeText, Text: text}}}
}

// Route templates, one per operation.
const (
	routeThreads          = "/threads"
	routeProjectThreads   = "/threads/project/{projectId}"
	routeThread           = "/threads/{id}"
	routeCancel           = "/threads/{id}/cancel"
	routeAdvance          = "/threads/{id}/advance"
	routeAdvanceStream    = "/threads/{id}/advancestream"
	routeCreateAdvance    = "/threads/advance"
	routeCreateAdvanceStr = "/threads/advancestream"
)

// ThreadsService holds the thread operations; use it as Client.Threads.
//
// Every method takes options that apply to that call only, returns a
// [*Problem] for any non-2xx answer, and follows the service's 410
// migration advice unless [WithoutAutoMigrate] is given. Retries follow the
// policy in the package documentation: GET calls retry transient failures;
// POST, PUT and DELETE calls retry only what provably did not reach the
// service.
type ThreadsService struct {
	client *Client
}

// List returns one page of the project's threads, newest first. params may
// be nil. It is a GET: transient failures are retried.
//
// With params.ProjectID set it lists through GET /threads/project/{projectId}
// (the live service's route). Without it, List uses the spec's GET /threads;
// when that route answers 404 (the live service does not have it), the
// client lists per project instead, with the project of the call's API key
// (asked once with [ProjectsService.Current] and remembered), remembers the
// route for its lifetime, and logs the switch once at info level.
//
// A server that answers with a bare JSON array instead of the
// {items,total,offset,limit,count} envelope yields a page whose Offset and
// Count describe the items and whose Total is 0 (unknown).
func (s *ThreadsService) List(ctx context.Context, params *ListParams, opts ...RequestOption) (*ThreadPage, error) {
	var p ListParams
	if params != nil {
		p = *params
	}
	if p.Offset < 0 || p.Limit < 0 {
		return nil, fmt.Errorf("threads: List: Offset (%d) and Limit (%d) must not be negative", p.Offset, p.Limit)
	}
	if p.ProjectID != "" {
		if err := checkID("project", p.ProjectID); err != nil {
			return nil, fmt.Errorf("threads: List: ProjectID: %w", err)
		}
	}
	if ctx == nil {
		return nil, errors.New("threads: List: nil context")
	}
	q := url.Values{}
	if p.Offset > 0 {
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.ContextKey != "" {
		q.Set("contextKey", p.ContextKey)
	}
	c := s.c()
	if c == nil {
		return nil, errNoClient
	}
	if p.ProjectID != "" {
		return c.listPage(ctx, opts, projectThreads(p.ProjectID), q, p.Offset)
	}
	if !c.perProject.Load() {
		page, err := c.listSpec(ctx, opts, q, p.Offset)
		if !c.perProject.Load() {
			return page, err
		}
	}
	cfg, err := c.settings(opts)
	if err != nil {
		return nil, err
	}
	projectID, err := c.keyProject(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	return c.listPage(ctx, opts, projectThreads(projectID), q, p.Offset)
}

var errNoClient = errors.New("threads: the service was not made by NewClient")

func projectThreads(projectID string) route.Route {
	return route.Route{Method: http.MethodGet, Template: routeProjectThreads, Values: map[string]string{"projectId": projectID}}
}

func (c *Client) listPage(ctx context.Context, opts []RequestOption, r route.Route, q url.Values, offset int) (*ThreadPage, error) {
	body, err := doInto[listBody](ctx, c, opts, core.Call{Route: r, Query: q})
	if err != nil {
		return nil, err
	}
	return body.toPage(offset), nil
}

// listSpec lists through GET /threads. The first calls of a client take
// turns, so that a deployment without the route costs one 404 and one
// GET /projects however many calls start at once; when the route answers
// 404 it sets c.perProject (with the key's project remembered) and the
// caller lists per project.
func (c *Client) listSpec(ctx context.Context, opts []RequestOption, q url.Values, offset int) (*ThreadPage, error) {
	spec := route.Route{Method: http.MethodGet, Template: routeThreads}
	if c.specList.Load() {
		return c.listPage(ctx, opts, spec, q, offset)
	}
	// Wait for the turn as long as the caller's context allows, not as long
	// as another caller's slow first call takes.
	select {
	case c.listTurn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.listTurn }()
	if c.perProject.Load() {
		return nil, nil
	}
	page, err := c.listPage(ctx, opts, spec, q, offset)
	var p *Problem
	switch {
	case err == nil:
		c.specList.Store(true)
		return page, nil
	case !errors.As(err, &p) || p.Status != http.StatusNotFound:
		return nil, err
	}
	cfg, cfgErr := c.settings(opts)
	if cfgErr != nil {
		return nil, cfgErr
	}
	if _, perr := c.keyProject(ctx, cfg, opts); perr != nil {
		// Without the project the per-project route cannot be tried: report
		// both, and decide again on the next call.
		return nil, fmt.Errorf("%w; listing per project needs the key's project: %w", err, perr)
	}
	c.perProject.Store(true)
	if cfg.logger != nil {
		cfg.logger.Info("threads: GET /threads answered 404; listing per project through GET /threads/project/{projectId} from now on")
	}
	return nil, nil
}

// keyProject returns the project of the call's API key, asking GET /projects
// once per key and client.
func (c *Client) keyProject(ctx context.Context, cfg *config, opts []RequestOption) (string, error) {
	key := cfg.apiKey.get()
	if id, ok := c.projects.Load(key); ok {
		return id.(string), nil
	}
	proj, err := c.Projects.Current(ctx, opts...)
	if err != nil {
		return "", err
	}
	if err := checkID("project", proj.ID); err != nil {
		// A server-sent id that names no project ("", "..") must not become
		// a path step.
		return "", unexpectedResponse(http.MethodGet, routeProjects, http.StatusOK, "the key's project: %v", err)
	}
	c.projects.Store(key, proj.ID)
	return proj.ID, nil
}

// listBody reads the list envelope, or a bare array of threads.
type listBody struct {
	page ThreadPage
	bare bool // the body was a bare array: Total, Offset and Count are unknown
}

// toPage returns the page; offset is the one asked for, which a bare array
// does not repeat.
func (b *listBody) toPage(offset int) *ThreadPage {
	page := b.page
	if b.bare {
		page.Offset, page.Count, page.Total = offset, len(page.Items), 0
	}
	if page.Items == nil {
		page.Items = []Thread{}
	}
	return &page
}

func (b *listBody) UnmarshalJSON(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		b.bare = true
		return jsonx.Unmarshal(trimmed, &b.page.Items)
	}
	return jsonx.Unmarshal(trimmed, &b.page)
}

// All iterates over every thread from params.Offset on, requesting pages of
// params.Limit (the service's default when 0) through [ThreadsService.List],
// so it lists per project the same way. It stops at an empty page or when
// the envelope's total is reached; when the service gives no total (a bare
// array, or an envelope without it) it pages until an empty page. Breaking
// out of the loop stops paging. An error is yielded once, as the last
// element. params may be nil.
//
// Threads created while paging can shift the offsets (the service orders by
// creation time only), so a thread may be seen twice or not at all.
func (s *ThreadsService) All(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Thread, error] {
	return func(yield func(Thread, error) bool) {
		var p ListParams
		if params != nil {
			p = *params
		}
		for {
			page, err := s.List(ctx, &p, opts...)
			if err != nil {
				yield(Thread{}, err)
				return
			}
			for _, t := range page.Items {
				if !yield(t, nil) {
					return
				}
			}
			p.Offset += len(page.Items)
			if len(page.Items) == 0 || (page.Total > 0 && p.Offset >= page.Total) {
				return
			}
		}
	}
}

// Create creates a thread and returns it (the service answers 201). The
// live service requires params.ProjectID (see [ProjectsService.Current]).
// Retries: as every POST, only what provably did not act, so a thread is
// never created twice.
func (s *ThreadsService) Create(ctx context.Context, params CreateThreadParams, opts ...RequestOption) (*Thread, error) {
	return doInto[Thread](ctx, s.c(), opts, core.Call{Route: route.Route{Method: http.MethodPost, Template: routeThreads}, Body: params})
}

// Get returns the thread with the given id and its messages, oldest first.
// An id that is not a thread of the key's project is 403 ([ErrForbidden]).
// A thread with a context key may be read with WithQuery("contextKey", key);
// a key that does not match is 404 ([ErrNotFound]). It is a GET: transient
// failures are retried.
func (s *ThreadsService) Get(ctx context.Context, id string, opts ...RequestOption) (*ThreadWithMessages, error) {
	r, err := idRoute(http.MethodGet, routeThread, "Get", id)
	if err != nil {
		return nil, err
	}
	return doInto[ThreadWithMessages](ctx, s.c(), opts, core.Call{Route: r})
}

// Cancel stops the thread's running generation and returns the thread,
// now CANCELLED. Closing a stream does not stop the service's generation;
// Cancel does. The live service answers 500 for a thread without messages,
// although it cancels it. Retries: only what provably did not act.
func (s *ThreadsService) Cancel(ctx context.Context, id string, opts ...RequestOption) (*Thread, error) {
	r, err := idRoute(http.MethodPost, routeCancel, "Cancel", id)
	if err != nil {
		return nil, err
	}
	return doInto[Thread](ctx, s.c(), opts, core.Call{Route: r})
}

// AdvanceStream appends params.Message to the thread and streams the reply.
//
// It returns once the response headers say 2xx and text/event-stream; any
// other answer is a [*Problem], before any event. The caller must Close the
// stream (ranging over All to its end, or breaking out, closes it). The
// request is never re-sent once it may have reached the service: a failure
// after that is reported, not retried. A 2xx stream can still fail: see
// Stream.Err.
func (s *ThreadsService) AdvanceStream(ctx context.Context, id string, params AdvanceParams, opts ...RequestOption) (*Stream, error) {
	r, err := idRoute(http.MethodPost, routeAdvanceStream, "AdvanceStream", id)
	if err != nil {
		return nil, err
	}
	if len(params.InitialMessages) > 0 {
		return nil, errors.New("threads: AdvanceStream: InitialMessages is for CreateAndAdvanceStream only")
	}
	return s.stream(ctx, r, "AdvanceStream", params, opts)
}

// CreateAndAdvanceStream creates a thread, appends params.Message (after
// params.InitialMessages, if any) and streams the reply. The new thread's
// id is each snapshot's Message.ThreadID. It behaves as AdvanceStream.
func (s *ThreadsService) CreateAndAdvanceStream(ctx context.Context, params AdvanceParams, opts ...RequestOption) (*Stream, error) {
	return s.stream(ctx, route.Route{Method: http.MethodPost, Template: routeCreateAdvanceStr}, "CreateAndAdvanceStream", params, opts)
}

func (s *ThreadsService) stream(ctx context.Context, r route.Route, op string, params AdvanceParams, opts []RequestOption) (*Stream, error) {
	if err := checkAdvance(op, &params); err != nil {
		return nil, err
	}
	return s.c().doStream(ctx, opts, core.Call{Route: r, Body: params, Stream: true})
}

// Advance appends params.Message and returns the final snapshot of the
// reply.
//
// Deprecated: use AdvanceStream. The service answers this endpoint with
// 410 ENDPOINT_DEPRECATED; Advance follows its advice to advancestream,
// reads that stream to its end and returns the last snapshot, or the
// stream's error.
func (s *ThreadsService) Advance(ctx context.Context, id string, params AdvanceParams, opts ...RequestOption) (*AdvanceResponse, error) {
	r, err := idRoute(http.MethodPost, routeAdvance, "Advance", id)
	if err != nil {
		return nil, err
	}
	if err := checkAdvance("Advance", &params); err != nil {
		return nil, err
	}
	return s.c().advance(ctx, opts, core.Call{Route: r, Body: params})
}

// CreateAndAdvance creates a thread, appends params.Message and returns the
// final snapshot of the reply.
//
// Deprecated: use CreateAndAdvanceStream. POST /threads/advance answers 410
// and is migrated to POST /threads/advancestream the same way as Advance.
func (s *ThreadsService) CreateAndAdvance(ctx context.Context, params AdvanceParams, opts ...RequestOption) (*AdvanceResponse, error) {
	if err := checkAdvance("CreateAndAdvance", &params); err != nil {
		return nil, err
	}
	r := route.Route{Method: http.MethodPost, Template: routeCreateAdvance}
	return s.c().advance(ctx, opts, core.Call{Route: r, Body: params})
}

// advance makes a deprecated advance call. Its 2xx answer is JSON, or,
// once the call was migrated to a streaming replacement, a stream, which
// is read to its end for its last snapshot.
func (c *Client) advance(ctx context.Context, opts []RequestOption, cl core.Call) (*AdvanceResponse, error) {
	resp, cfg, err := c.exchange(ctx, opts, cl)
	if err != nil {
		return nil, err
	}
	var out AdvanceResponse
	if isEventStream(resp) {
		err = lastSnapshot(newStream(ctx, resp.Body, cfg), &out)
	} else {
		defer resp.Body.Close()
		err = decodeJSON(resp, cl.Route.Method, pathOf(cl.Route), &out, int64(cfg.maxResponseSize), cfg.redact)
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// lastSnapshot reads s to its end and keeps its last event in out.
func lastSnapshot(s *Stream, out *AdvanceResponse) error {
	defer s.Close()
	seen := false
	for s.Next() {
		*out, seen = s.Current().AdvanceResponse, true
	}
	if err := s.Err(); err != nil {
		return err
	}
	if !seen {
		return fmt.Errorf("%w: the stream ended without a snapshot", ErrStreamFailed)
	}
	return nil
}

// checkAdvance catches, before sending, what the service would only report
// as an opaque in-band stream error.
func checkAdvance(op string, p *AdvanceParams) error {
	msgs := append([]MessageRequest{p.Message}, p.InitialMessages...)
	for i, m := range msgs {
		name := "Message"
		if i > 0 {
			name = fmt.Sprintf("InitialMessages[%d]", i-1)
		}
		if err := checkMessage(m); err != nil {
			return fmt.Errorf("threads: %s: %s: %w", op, name, err)
		}
	}
	if p.Message.Content == nil {
		// content is required; an empty list means "continue from the latest message".
		p.Message.Content = []ContentPart{}
	}
	return nil
}

func checkMessage(m MessageRequest) error {
	switch m.Role {
	case "":
		return errors.New("the Role is empty (use UserMessage or ToolResult)")
	case RoleTool:
		if m.ToolCallID == "" {
			return errors.New("a tool message needs ToolCallID (the tool_call_id it answers)")
		}
	}
	for i, part := range m.Content {
		switch part.Type {
		case "":
			return fmt.Errorf("content part %d: Type is empty", i)
		case ContentPartTypeImageURL:
			if part.ImageURL == nil || part.ImageURL.URL == "" {
				return fmt.Errorf("content part %d: an image_url part needs ImageURL.URL", i)
			}
		case ContentPartTypeInputAudio:
			if part.InputAudio == nil || part.InputAudio.Data == "" {
				return fmt.Errorf("content part %d: an input_audio part needs InputAudio.Data", i)
			}
		case ContentPartTypeResource:
			if part.Resource == nil {
				return fmt.Errorf("content part %d: a resource part needs Resource", i)
			}
		}
	}
	return nil
}

// The model's hand-written parts: methods on the generated types
// (types.gen.go) and the Token type that the OpenAPI document refers to.

// Text returns the message's text: its text parts joined in order. Other
// parts (images, audio, resources) are left out.
func (m Message) Text() string {
	return joinText(m.Content)
}

// Text returns the message's text parts joined in order.
func (m MessageRequest) Text() string {
	return joinText(m.Content)
}

func joinText(parts []ContentPart) string {
	// One text part is the common case; return it without copying.
	first, n := -1, 0
	for i, p := range parts {
		if p.Type == ContentPartTypeText {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return parts[first].Text
	}
	var b strings.Builder
	for _, p := range parts[first:] {
		if p.Type == ContentPartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Token is a secret that the service hands out, such as
// [AdvanceResponse.MCPAccessToken]. Every fmt verb (%v, %+v, %#v, %s, %q,
// %x, %d, even %p) prints a non-empty Token as [REDACTED] and an empty one
// as nothing, and so does log/slog; a struct that holds a Token prints the
// same way. JSON keeps the real value both ways, so a Token survives being
// decoded, stored and encoded again (which also means that encoding a value
// that holds a Token with encoding/json writes the real value).
//
// Call [Token.Reveal] only where the value itself is needed: to put it in
// the Authorization header of a request to the server it is meant for.
// Compare tokens by their revealed values; the zero Token is empty.
type Token struct {
	// value is behind a pointer so that no fmt path can print it: even the
	// ones that bypass Format (%p on a non-pointer) show only an address.
	value *string
}

// NewToken returns a Token that holds s, e.g. for a test's fake answer.
func NewToken(s string) Token {
	if s == "" {
		return Token{}
	}
	return Token{value: &s}
}

// Reveal returns the token's real value. Use it only to hand the token to
// the server it is meant for; never log, print or wrap the result in an
// error.
func (t Token) Reveal() string {
	if t.value == nil {
		return ""
	}
	return *t.value
}

// IsZero reports whether the token is empty; a JSON field marked omitzero
// leaves an empty token out.
func (t Token) IsZero() bool { return t.Reveal() == "" }

// String returns "[REDACTED]", or "" for an empty token.
func (t Token) String() string {
	if t.IsZero() {
		return ""
	}
	return redacted
}

// GoString returns the %#v form: [Token.String] as a quoted string.
func (t Token) GoString() string { return strconv.Quote(t.String()) }

// Format prints the token as [Token.String] does, whatever the verb: %q and
// %#v quote it; no verb prints the real value.
func (t Token) Format(f fmt.State, verb rune) {
	s := t.String()
	if verb == 'q' || (verb == 'v' && f.Flag('#')) {
		s = strconv.Quote(s)
	}
	_, _ = io.WriteString(f, s)
}

// LogValue makes log/slog record "[REDACTED]" (or "" for an empty token).
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// MarshalJSON encodes the real value as a JSON string.
func (t Token) MarshalJSON() ([]byte, error) { return json.Marshal(t.Reveal()) }

// UnmarshalJSON decodes a JSON string (null leaves the token empty).
func (t *Token) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("threads: token: %w", err)
	}
	if s == nil {
		*t = Token{}
		return nil
	}
	*t = NewToken(*s)
	return nil
}

// LogValue makes log/slog record the snapshot with its token redacted: the
// JSON handler would otherwise encode the whole struct with encoding/json,
// which keeps a [Token]'s real value.
func (r AdvanceResponse) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("message", r.Message),
		slog.String("generationStage", string(r.GenerationStage)),
		slog.String("statusMessage", r.StatusMessage),
		slog.Any("mcpAccessToken", r.MCPAccessToken),
	)
}

// LogValue makes log/slog record the event with its token redacted, as
// [AdvanceResponse.LogValue] does, plus its TextDelta and TextReset.
func (e StreamEvent) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("message", e.Message),
		slog.String("generationStage", string(e.GenerationStage)),
		slog.String("statusMessage", e.StatusMessage),
		slog.Any("mcpAccessToken", e.MCPAccessToken),
		slog.String("textDelta", e.TextDelta),
		slog.Bool("textReset", e.TextReset),
	)
}

// Update changes the thread's name, context key or metadata and returns the
// thread (PUT /threads/{id}). Fields left empty in params are not sent and
// keep their values; the live service requires params.ProjectID, as Create
// does. A *Problem reports any non-2xx answer: 403 for an id that is not a
// thread of the key's project.
//
// Retries: a PUT is retried as POST calls are, only when it provably did not
// act (a connection that failed before the request was written, 429, 503),
// because the service's PUT also rewrites updatedAt and may run more than a
// plain write. It follows 410 migration advice like every call.
func (s *ThreadsService) Update(ctx context.Context, id string, params UpdateThreadParams, opts ...RequestOption) (*Thread, error) {
	r, err := idRoute(http.MethodPut, routeThread, "Update", id)
	if err != nil {
		return nil, err
	}
	return doInto[Thread](ctx, s.c(), opts, core.Call{Route: r, Body: params})
}

// Delete deletes the thread and its messages (DELETE /threads/{id}). The
// service answers 2xx once the thread is gone; a later call with the same
// id is refused with 403, as for any id that is not a thread of the key's
// project.
//
// Retries: a DELETE is retried only when it provably did not act (a
// connection that failed before the request was written, 429, 503): a
// retry after the thread was deleted would turn the success into that 403.
func (s *ThreadsService) Delete(ctx context.Context, id string, opts ...RequestOption) error {
	r, err := idRoute(http.MethodDelete, routeThread, "Delete", id)
	if err != nil {
		return err
	}
	return s.c().doDiscard(ctx, opts, core.Call{Route: r})
}

// GenerateName has the service name the thread after its messages, stores
// the name and returns the thread with it (POST /threads/{id}/generate-name,
// answered 201). A thread with a context key needs it on the call:
// WithQuery("contextKey", key).
//
// Retries: as every POST, only what provably did not act (it calls the
// model).
func (s *ThreadsService) GenerateName(ctx context.Context, id string, opts ...RequestOption) (*Thread, error) {
	r, err := idRoute(http.MethodPost, routeGenerateName, "GenerateName", id)
	if err != nil {
		return nil, err
	}
	return doInto[Thread](ctx, s.c(), opts, core.Call{Route: r})
}
