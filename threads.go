package threads

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/threadsapi/threads-go/internal/core"
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
// On /v1, runs.ToolResult builds the answer the same way, as a part.
func ToolResult(toolCallID, text string) MessageRequest {
	return MessageRequest{Role: RoleTool, ToolCallID: toolCallID, Content: []ContentPart{{Type: ContentPartTypeText, Text: text}}}
}

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

// Format prints "threads.ThreadsService" whatever the verb: fmt would otherwise
// print the client's settings through the pointer (a bad verb such as %s
// prints them in full), the headers and query values of WithHeader and
// WithQuery among them.
func (s ThreadsService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.ThreadsService") }

// List returns one page of the project's threads, newest first. params may
// be nil. It is a GET: transient failures are retried. With
// params.ProjectID set it lists through GET /threads/project/{projectId}
// (the live service's route); without it, through the spec's GET
// /threads, or per project with the key's project where that route is
// missing (the package doc's "Listing threads" says how the switch is
// made and remembered).
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
	c := s.c()
	if _, err := c.begin(ctx, opts); err != nil {
		return nil, err
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
	if p.ProjectID != "" {
		r, err := projectThreads(p.ProjectID)
		if err != nil {
			return nil, err
		}
		return c.listPage(ctx, opts, r, q, p.Offset)
	}
	if !c.perProject.Load() {
		page, err := c.listSpec(ctx, opts, q, p.Offset)
		if page != nil || err != nil {
			return page, err
		}
		// nil, nil: another call found that the service lists per project.
	}
	return c.listKeyProject(ctx, opts, q, p.Offset)
}

// listKeyProject lists the key's project through the per-project route.
// The route, and the project id GET /projects named, are remembered only
// once that route answered 2xx with it; a later refusal (see refused)
// forgets both, so that the next call finds out again instead of failing
// for the client's life.
func (c *Client) listKeyProject(ctx context.Context, opts []RequestOption, q url.Values, offset int) (*ThreadPage, error) {
	cfg, err := c.settings(opts)
	if err != nil {
		return nil, err
	}
	projectID, err := c.keyProject(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	r, err := projectThreads(projectID)
	if err != nil {
		return nil, err
	}
	page, err := c.listPage(ctx, opts, r, q, offset)
	if err != nil {
		if refused(err) {
			c.projects.CompareAndDelete(cfg.apiKey.get(), projectID)
			c.perProject.Store(false)
		}
		return nil, err
	}
	c.projects.Store(cfg.apiKey.get(), projectID)
	if !c.perProject.Swap(true) && cfg.logger != nil {
		cfg.logger.Info("threads: GET /threads answered 404; listing per project through GET /threads/project/{projectId} from now on")
	}
	return page, nil
}

// refused reports whether err is the service refusing a route or what it
// names (401, 403, 404, 410): what was learned about listing is then
// forgotten. Other failures (a 5xx, a timeout) say nothing about it.
func refused(err error) bool {
	var p *Problem
	if !errors.As(err, &p) {
		return false
	}
	switch p.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return true
	}
	return false
}

func (c *Client) listPage(ctx context.Context, opts []RequestOption, r route.Route, q url.Values, offset int) (*ThreadPage, error) {
	body, err := epListThreads.do(ctx, c, opts, core.Call{Route: r, Query: q})
	if err != nil {
		return nil, err
	}
	return body.toPage(offset), nil
}

// listSpec lists through GET /threads. The first calls of a client take
// turns, so that a deployment without the route costs one 404 and one
// GET /projects however many calls start at once; when the route answers
// 404 it lists per project (listKeyProject, which remembers the switch
// once that answered 2xx). It returns nil, nil when, by its turn, another
// call has found that the service lists per project. What it learns is
// remembered only after a 2xx, and forgotten on a later refusal.
func (c *Client) listSpec(ctx context.Context, opts []RequestOption, q url.Values, offset int) (*ThreadPage, error) {
	spec, _ := epListThreads.route("Threads.List")
	if c.specList.Load() {
		page, err := c.listPage(ctx, opts, spec, q, offset)
		if err != nil && refused(err) {
			c.specList.Store(false)
		}
		return page, err
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
	page, perr := c.listKeyProject(ctx, opts, q, offset)
	if perr != nil {
		// Neither way worked: report both, the per-project failure first
		// (errors.As finds its *Problem), and decide again on the next call.
		return nil, fmt.Errorf("%w (listing per project because %w)", perr, err)
	}
	return page, nil
}

// keyProject returns the project of the call's API key: the one remembered
// for the key (listKeyProject remembers it once listing it answered 2xx),
// else GET /projects's.
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
		return "", unexpectedResponse(epCurrentProject.method, epCurrentProject.template, http.StatusOK, "the key's project: %v", err)
	}
	return proj.ID, nil
}

// All iterates over every thread from params.Offset on, requesting pages of
// params.Limit (the service's default when 0) through [ThreadsService.List],
// so it lists per project the same way. It stops at an empty page or when
// the envelope's total is reached. Breaking out of the loop stops paging.
// An error is yielded once, as the last element, after the threads read so
// far: paging is bounded ([WithPagingLimit], [ErrPagingLimit]) and a server
// that ignores the offset is an error, never a silent stop (the package
// doc's "Listing threads"). params may be nil.
func (s *ThreadsService) All(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Thread, error] {
	return func(yield func(Thread, error) bool) {
		var p ListParams
		if params != nil {
			p = *params
		}
		var cfg config
		if err := cfg.applyRequest(opts); err != nil {
			yield(Thread{}, err)
			return
		}
		if c := s.c(); c != nil && cfg.maxPages == 0 {
			cfg.maxPages, cfg.maxPagingBytes = c.cfg.maxPages, c.cfg.maxPagingBytes
		}
		maxPages, maxBytes := cmp.Or(cfg.maxPages, defaultMaxPages), cmp.Or(cfg.maxPagingBytes, defaultMaxPagingBytes)
		var read int64
		pageOpts := append(slices.Clip(opts), requestOption{name: "All", fn: func(c *config) error {
			c.readBytes = &read
			return nil
		}})
		var prev map[string]bool // the ids of the page before
		stale := 0               // pages in a row with no thread that was not on the page before
		for pages := 0; ; pages++ {
			if pages == maxPages || read >= maxBytes {
				yield(Thread{}, fmt.Errorf("threads: All: %w: stopped after %d pages and %d bytes, at offset %d (WithPagingLimit raises the bound)",
					ErrPagingLimit, pages, read, p.Offset))
				return
			}
			page, err := s.List(ctx, &p, pageOpts...)
			if err != nil {
				yield(Thread{}, err)
				return
			}
			stale++
			if len(page.Items) == 0 || prev == nil || slices.ContainsFunc(page.Items, func(t Thread) bool { return !prev[t.ID] }) {
				stale = 0
			}
			// One repeat can be honest (as many threads created meanwhile
			// as a page holds shift the offsets by a page); two in a row
			// are a server that ignores the offset.
			if stale == 2 {
				yield(Thread{}, fmt.Errorf("%w: All: the pages at offset %d and before hold the same threads: the server does not page",
					ErrUnexpectedResponse, p.Offset))
				return
			}
			prev = make(map[string]bool, len(page.Items))
			for _, t := range page.Items {
				prev[t.ID] = true
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

// Bounds on [ThreadsService.All] unless [WithPagingLimit] says otherwise
// (unexported, like options.go's defaults: its documentation states them).
const (
	defaultMaxPages       = 10_000
	defaultMaxPagingBytes = 64 << 20
)

// ErrPagingLimit ends [ThreadsService.All] when it has read as many pages,
// or as many bytes of page bodies, as [WithPagingLimit] allows: the listing
// is incomplete. Match it with errors.Is.
var ErrPagingLimit = errors.New("threads: paging limit reached")

// WithPagingLimit bounds one [ThreadsService.All] loop: at most pages pages
// and about bytes bytes of page bodies (counted after decompression; the
// page that crosses the bound is the last). Defaults: 10,000 pages
// (100,000 threads at the service's default page size) and 64 MiB (some
// 100,000 threads of the live service). Reaching either yields an error matching [ErrPagingLimit].
// Both must be positive. Other calls ignore it.
func WithPagingLimit(pages int, bytes int64) RequestOption {
	return newRequestOption("WithPagingLimit", func(c *config) error {
		if pages <= 0 || bytes <= 0 {
			return fmt.Errorf("threads: WithPagingLimit(%d, %d): both must be positive", pages, bytes)
		}
		c.maxPages, c.maxPagingBytes = pages, bytes
		return nil
	})
}

// Create creates a thread and returns it (the service answers 201). The
// live service requires params.ProjectID (see [ProjectsService.Current]).
// Retries: as every POST, only what provably did not act, so a thread is
// never created twice.
func (s *ThreadsService) Create(ctx context.Context, params CreateThreadParams, opts ...RequestOption) (*Thread, error) {
	r, _ := epCreateThread.route("Create")
	return epCreateThread.do(ctx, s.c(), opts, core.Call{Route: r, Body: params})
}

// Get returns the thread with the given id and its messages, oldest first.
// An id that is not a thread of the key's project is 403 ([ErrForbidden]).
// A thread with a context key is read with [WithContextKey](key);
// a key that does not match is 404 ([ErrNotFound]). It is a GET: transient
// failures are retried.
func (s *ThreadsService) Get(ctx context.Context, id string, opts ...RequestOption) (*ThreadWithMessages, error) {
	r, err := epGetThread.route("Get", id)
	if err != nil {
		return nil, err
	}
	return epGetThread.do(ctx, s.c(), opts, core.Call{Route: r})
}

// Cancel stops the thread's running generation and returns the thread,
// now CANCELLED. Closing a stream does not stop the service's generation;
// Cancel does. The live service answers 500 for a thread without messages,
// although it cancels it. Retries: only what provably did not act.
//
// After a cancel, [ThreadsService.Get] is the truth about what the thread
// holds: the service stops storing the reply before it stops streaming
// it, so the last snapshot a stream delivered (and Stream.Messages) can
// hold more text than the stored message that Get returns.
func (s *ThreadsService) Cancel(ctx context.Context, id string, opts ...RequestOption) (*Thread, error) {
	r, err := epCancel.route("Cancel", id)
	if err != nil {
		return nil, err
	}
	return epCancel.do(ctx, s.c(), opts, core.Call{Route: r})
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
	return s.advanceStream(ctx, "AdvanceStream", id, params, opts)
}

// advanceStream is AdvanceStream for the operation op (AdvanceStream,
// RunStream), which its errors name.
func (s *ThreadsService) advanceStream(ctx context.Context, op, id string, params AdvanceParams, opts []RequestOption) (*Stream, error) {
	r, err := epAdvanceStream.route(op, id)
	if err != nil {
		return nil, err
	}
	if len(params.InitialMessages) > 0 {
		return nil, fmt.Errorf("threads: %s: InitialMessages is for CreateAndAdvanceStream only", op)
	}
	return s.stream(ctx, r, op, params, opts)
}

// CreateAndAdvanceStream creates a thread, appends params.Message (after
// params.InitialMessages, if any) and streams the reply. The new thread's
// id is each snapshot's Message.ThreadID. It behaves as AdvanceStream.
func (s *ThreadsService) CreateAndAdvanceStream(ctx context.Context, params AdvanceParams, opts ...RequestOption) (*Stream, error) {
	r, _ := epCreateAdvanceStream.route("CreateAndAdvanceStream")
	return s.stream(ctx, r, "CreateAndAdvanceStream", params, opts)
}

func (s *ThreadsService) stream(ctx context.Context, r route.Route, op string, params AdvanceParams, opts []RequestOption) (*Stream, error) {
	if err := checkAdvance(op, &params); err != nil {
		return nil, err
	}
	return epAdvanceStream.stream(ctx, s.c(), opts, core.Call{Route: r, Body: params, Stream: true})
}

// Advance appends params.Message and returns the final snapshot of the
// reply.
//
// Deprecated: use AdvanceStream. The service answers this endpoint with
// 410 ENDPOINT_DEPRECATED; Advance follows its advice to advancestream,
// reads that stream to its end and returns the last snapshot, or the
// stream's error.
func (s *ThreadsService) Advance(ctx context.Context, id string, params AdvanceParams, opts ...RequestOption) (*AdvanceResponse, error) {
	r, err := epAdvance.route("Advance", id)
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
	r, _ := epCreateAdvance.route("CreateAndAdvance")
	return s.c().advance(ctx, opts, core.Call{Route: r, Body: params})
}

// advance makes a deprecated advance call. Its 2xx answer is JSON, or,
// once the call was migrated to a streaming replacement, a stream, which
// is read to its end for its last snapshot.
func (c *Client) advance(ctx context.Context, opts []RequestOption, cl core.Call) (*AdvanceResponse, error) {
	resp, cfg, o, err := c.exchangeObserved(ctx, opts, cl)
	if err != nil {
		return nil, err
	}
	var out AdvanceResponse
	if isEventStream(resp) {
		st := newStream(ctx, resp.Body, cfg, o) // the stream ends the call's observation
		err = lastSnapshot(st, &out)
	} else {
		defer resp.Body.Close()
		err = decodeJSON(resp, cl.Route.Method, pathOf(cl.Route), &out, int64(cfg.maxResponseSize), cfg.redact, cfg.readBytes, cfg.wire.keepRaw)
	}
	o.end(err) // nil-safe; a no-op once the stream ended it
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
	r, err := epUpdateThread.route("Update", id)
	if err != nil {
		return nil, err
	}
	return epUpdateThread.do(ctx, s.c(), opts, core.Call{Route: r, Body: params})
}

// Delete deletes the thread and its messages (DELETE /threads/{id}). The
// service answers 2xx once the thread is gone; a later call with the same
// id is refused with 403, as for any id that is not a thread of the key's
// project.
//
// Success is any 2xx status, whatever the body and its Content-Type: the
// body is not read. So an answer that did not come from the service but
// has a 2xx status (a captive portal's 200 text/html) is reported as
// success too; when that matters, check afterwards with Get (403 once the
// thread is gone).
//
// Retries: a DELETE is retried only when it provably did not act (a
// connection that failed before the request was written, 429, 503): a
// retry after the thread was deleted would turn the success into that 403.
func (s *ThreadsService) Delete(ctx context.Context, id string, opts ...RequestOption) error {
	r, err := epDeleteThread.route("Delete", id)
	if err != nil {
		return err
	}
	return epDeleteThread.discard(ctx, s.c(), opts, core.Call{Route: r})
}

// GenerateName has the service name the thread after its messages, stores
// the name and returns the thread with it (POST /threads/{id}/generate-name,
// answered 201). A thread with a context key needs it on the call:
// [WithContextKey](key).
//
// Retries: as every POST, only what provably did not act (it calls the
// model).
func (s *ThreadsService) GenerateName(ctx context.Context, id string, opts ...RequestOption) (*Thread, error) {
	r, err := epGenerateName.route("GenerateName", id)
	if err != nil {
		return nil, err
	}
	return epGenerateName.do(ctx, s.c(), opts, core.Call{Route: r})
}
