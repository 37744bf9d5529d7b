package runs

import (
	"context"
	"encoding/json"
	"fmt"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/rawrun"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// RunParams is one run: the user message it sends and how the model may
// answer. Content is required.
type RunParams struct {
	// Content is the user message: [Text], [ResourceContent] and, to continue
	// a run that awaits tool results, one [ToolResult] per pending call.
	Content []Content
	// MessageMetadata and AdditionalContext go with the message (the
	// service shows AdditionalContext to the model before the text).
	MessageMetadata   map[string]any
	AdditionalContext map[string]any
	// PreviousRunID is the thread's last completed run
	// (Thread.LastCompletedRunID, or the RunID of the last run's stream):
	// required once the thread has a completed run, including to send
	// tool results.
	PreviousRunID string
	// AfterLastRun makes [Client.Run] read the thread first (one GET
	// /v1/threads/{threadId}) and send its LastCompletedRunID as
	// PreviousRunID: for a backend that keeps no run ids between requests.
	// A run that completes between that read and the run makes the service
	// refuse it ([ErrInvalidPreviousRun]); one still active (a stream
	// closed a moment ago, which the service has not yet seen) is
	// [ErrRunActive]. It cannot be combined with
	// PreviousRunID, nor used with CreateAndRun (a new thread has no runs).
	AfterLastRun bool
	// Resume answers the interrupts of the run that paused (AG-UI's
	// resume: one [ResumeEntry] per [Interrupt] of its RunFinished's
	// Ending), sent as "resume". The service does not read it today: its
	// run body has no such member and it ignores it; its own pauses are
	// answered with ToolResult parts in Content. threadstest's fake
	// records it (threadstest.RunRequest.Resume).
	Resume []ResumeEntry
	// ToolDefinitions declare the client tools that the caller answers
	// itself: the model may call them, and a call pauses the run
	// (OutcomeAwaitingTools). The tools this process runs for you are
	// [ToolRunner.Tools] ([threads.Tool] values), declared beside these.
	ToolDefinitions []ToolDefinition
	// AvailableComponents are the components the model may render.
	AvailableComponents []AvailableComponent
	// ToolChoice is sent as given ("auto", "none", "required" or
	// {"name": ...}); nil sends none.
	ToolChoice any
	// Model, MaxTokens and Temperature (0 to 2; nil: not sent) are
	// sent as given; the observed service did not forward them to the
	// model.
	Model       string
	MaxTokens   int
	Temperature *float64
	RunMetadata map[string]any
}

// CreateRunParams is a run that creates its thread ([Client.CreateAndRun]).
type CreateRunParams struct {
	RunParams
	// ThreadMetadata is the new thread's metadata.
	ThreadMetadata map[string]any
	// InitialMessages seed the new thread before the run's message.
	InitialMessages []InitialMessage
}

// ToolDefinition is a client tool as /v1 declares it to the model (its
// wire definition), not a tool that runs: a runnable tool is a
// [threads.Tool], which [DefineTool] turns into a ToolDefinition and
// [ToolRunner] runs. InputSchema (a JSON Schema object) is required by the
// service.
type ToolDefinition struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	InputSchema  any    `json:"inputSchema"`
	OutputSchema any    `json:"outputSchema,omitzero"`
	Strict       bool   `json:"strict,omitzero"`
	MaxCalls     int    `json:"maxCalls,omitzero"`
}

// runBody is the body of both run routes, declared once in
// internal/v1wire (package proxy reads a browser's run into it).
type runBody = v1wire.RunBody[Content, ToolDefinition, AvailableComponent, InitialMessage, ResumeEntry]

type runThread = v1wire.RunThread[InitialMessage]

// check refuses a run that the service would not take well.
func (p RunParams) check(op string) error {
	if len(p.Content) == 0 {
		// The service answers a missing message with a 500 (and, on the
		// create route, an orphan thread): refused here.
		return fmt.Errorf("%s: RunParams.Content is empty", op)
	}
	return nil
}

// wire is the run's body, without the user key: the one conversion from
// RunParams to the wire, as fromWire is the one back (run_test.go's
// TestRunParamsJSONRoundTrip keeps them each other's inverse).
func (p RunParams) wire() *runBody {
	return &runBody{
		Message:             v1wire.RunMessage[Content]{Role: string(RoleUser), Content: p.Content, Metadata: p.MessageMetadata, AdditionalContext: p.AdditionalContext},
		PreviousRunID:       p.PreviousRunID,
		Resume:              p.Resume,
		Tools:               p.ToolDefinitions,
		AvailableComponents: p.AvailableComponents,
		ToolChoice:          p.ToolChoice,
		Model:               p.Model,
		MaxTokens:           p.MaxTokens,
		Temperature:         p.Temperature,
		RunMetadata:         p.RunMetadata,
	}
}

// fromWire sets p to the run of b.
func (p *RunParams) fromWire(b *runBody) {
	*p = RunParams{
		Content:             b.Message.Content,
		MessageMetadata:     b.Message.Metadata,
		AdditionalContext:   b.Message.AdditionalContext,
		PreviousRunID:       b.PreviousRunID,
		Resume:              b.Resume,
		ToolDefinitions:     b.Tools,
		AvailableComponents: b.AvailableComponents,
		ToolChoice:          b.ToolChoice,
		Model:               b.Model,
		MaxTokens:           b.MaxTokens,
		Temperature:         b.Temperature,
		RunMetadata:         b.RunMetadata,
	}
}

// MarshalJSON writes the run as the body of POST
// /v1/threads/{threadId}/runs, as [Client.Run] sends it but without the
// user key and the context helpers' members (AfterLastRun is not a member
// of the body).
func (p RunParams) MarshalJSON() ([]byte, error) { return json.Marshal(p.wire()) }

// UnmarshalJSON reads the body of the service's run routes, as the
// official clients send it, into p: message (content, metadata,
// additionalContext), previousRunId, tools, availableComponents,
// toolChoice, model, maxTokens, temperature and runMetadata. Every other
// member is not read: message.role (a run's message is the user's),
// userKey (the Client's end user is the call's), and any member the
// route does not take. This is how a backend takes a run from its own
// front end (package proxy does) and sends nothing the route does not
// take.
func (p *RunParams) UnmarshalJSON(data []byte) error { return readRun(data, p.fromWire) }

// readRun decodes a run body and hands it to set.
func readRun(data []byte, set func(*runBody)) error {
	var b runBody
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	set(&b)
	return nil
}

// wire is the run's body, without the user key.
func (p CreateRunParams) wire() *runBody {
	b := p.RunParams.wire()
	b.ThreadMetadata = p.ThreadMetadata
	if len(p.InitialMessages) > 0 {
		b.Thread = &runThread{InitialMessages: p.InitialMessages}
	}
	return b
}

// fromWire sets p to the run of b; the service's older thread.metadata
// counts when threadMetadata is not sent (the service: threadMetadata
// wins).
func (p *CreateRunParams) fromWire(b *runBody) {
	*p = CreateRunParams{ThreadMetadata: b.ThreadMetadata}
	p.RunParams.fromWire(b)
	if b.Thread != nil {
		p.InitialMessages = b.Thread.InitialMessages
		if p.ThreadMetadata == nil {
			p.ThreadMetadata = b.Thread.Metadata
		}
	}
}

// MarshalJSON writes the run as the body of POST /v1/threads/runs, as
// [Client.CreateAndRun] sends it but without the user key and the context
// helpers' members.
func (p CreateRunParams) MarshalJSON() ([]byte, error) { return json.Marshal(p.wire()) }

// UnmarshalJSON reads the body of POST /v1/threads/runs into p: what
// [RunParams.UnmarshalJSON] reads, and threadMetadata (else
// thread.metadata) and thread.initialMessages; thread.userKey is not
// read.
func (p *CreateRunParams) UnmarshalJSON(data []byte) error { return readRun(data, p.fromWire) }

// ContextHelper computes one member of the additionalContext of every
// run of a Client ([Client.WithContextHelper]): the current page, the
// user's plan, the time. It runs before each run is sent, with the run's
// context; its value is encoded with encoding/json, and a nil value (or
// one that encodes as null) adds nothing to that run. An error fails the
// run before anything is sent.
type ContextHelper func(ctx context.Context) (any, error)

type contextHelper struct {
	name string
	fn   ContextHelper
}

// helperList is a Client's context helpers, in order. A Client holds it by
// pointer (a Client stays comparable) and never changes it: adding one
// makes a new list.
type helperList struct{ list []contextHelper }

// WithContextHelper returns a copy of the Client whose runs ([Client.Run],
// [Client.CreateAndRun] and the runs of the tool runner) each carry, in
// their message's additionalContext, the member name set to fn's value, as
// the official client's addContextHelper does: the service shows it to the
// model beside the message. Helpers run in the order they were added,
// before the run is sent; adding one under a name already taken replaces
// it. The run's own RunParams.AdditionalContext wins over a helper of the
// same name: it is that run's explicit choice. An error of fn, a value
// encoding/json cannot encode, an empty name or a nil fn fails the run
// before anything is sent, with an error that names the helper (and wraps
// fn's error). The Client it is called on is not changed.
func (c *Client) WithContextHelper(name string, fn ContextHelper) *Client {
	cp := *c
	var hs []contextHelper
	if c.helpers != nil {
		hs = make([]contextHelper, 0, len(c.helpers.list)+1)
		for _, h := range c.helpers.list {
			if h.name != name {
				hs = append(hs, h)
			}
		}
	}
	cp.helpers = &helperList{list: append(hs, contextHelper{name: name, fn: fn})}
	return &cp
}

// addContext runs the Client's context helpers into b's additionalContext
// (a new map: the caller's stays as it was).
func (c *Client) addContext(ctx context.Context, op string, b *runBody) error {
	if c.helpers == nil {
		return nil
	}
	merged := make(map[string]any, len(c.helpers.list)+len(b.Message.AdditionalContext))
	for i, h := range c.helpers.list {
		switch {
		case h.name == "":
			return fmt.Errorf("%s: context helper %d has no name", op, i+1)
		case h.fn == nil:
			return fmt.Errorf("%s: context helper %q is nil", op, h.name)
		}
		v, err := h.fn(ctx)
		if err != nil {
			return fmt.Errorf("%s: context helper %q: %w", op, h.name, err)
		}
		if v == nil {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: context helper %q: its value does not encode as JSON: %w", op, h.name, err)
		}
		if string(raw) != "null" {
			merged[h.name] = json.RawMessage(raw)
		}
	}
	for k, v := range b.Message.AdditionalContext {
		merged[k] = v
	}
	if len(merged) > 0 {
		b.Message.AdditionalContext = merged
	}
	return nil
}

// Run sends a message on thread threadID and streams the reply (POST
// /v1/threads/{threadId}/runs). The returned Stream is the caller's to
// Close; closing it (or ending ctx) before the run's end cancels the run.
//
// Errors before any event are *[threads.Problem]s (use errors.As) that
// match this package's sentinels: [ErrInvalidPreviousRun] (a
// PreviousRunID missing or not the last completed run), [ErrInvalidToolResult]
// (tool results missing or extra), [ErrRunActive] (409: another run is
// active; the Problem's Extensions["currentRunId"] names it), and
// threads.ErrForbidden for a thread that is unknown or another user's.
// The POST is a write: it is re-sent only when it provably did not reach
// the service (a refused connection, 429, 503), never once the service may
// have started the run, and a stream is never retried.
func (c *Client) Run(ctx context.Context, threadID string, params RunParams, opts ...threads.RequestOption) (*Stream, error) {
	k := call{ep: v1wire.Run, ids: []string{threadID}}
	if err := params.check(k.op()); err != nil {
		return nil, err
	}
	body := params.wire()
	if err := c.addContext(ctx, k.op(), body); err != nil {
		return nil, err
	}
	if params.AfterLastRun {
		if params.PreviousRunID != "" {
			return nil, fmt.Errorf("%s: RunParams sets both PreviousRunID and AfterLastRun", k.op())
		}
		// The read goes without the call-only options: they belong to the
		// run's answer.
		follow := c.conn.FollowUpOptions(opts)
		th, err := c.GetThread(ctx, threadID, follow...)
		if err != nil {
			return nil, err
		}
		body.PreviousRunID = th.LastCompletedRunID
	}
	k.body, k.setKey = body, func(key string) { body.UserKey = key }
	return c.stream(ctx, opts, k, threadID)
}

// CreateAndRun creates a thread and runs on it (POST /v1/threads/runs);
// [Stream.ThreadID] is the new thread. Otherwise as [Client.Run]. The
// service creates the thread before it checks the run, so a run that
// fails may leave an empty thread behind.
func (c *Client) CreateAndRun(ctx context.Context, params CreateRunParams, opts ...threads.RequestOption) (*Stream, error) {
	k := call{ep: v1wire.CreateAndRun}
	if err := params.check(k.op()); err != nil {
		return nil, err
	}
	body := params.wire()
	if err := c.addContext(ctx, k.op(), body); err != nil {
		return nil, err
	}
	if params.AfterLastRun {
		return nil, fmt.Errorf("%s: RunParams.AfterLastRun: a new thread has no runs to follow", k.op())
	}
	if body.Thread == nil {
		body.Thread = &runThread{} // the user key goes in it
	}
	th := body.Thread
	k.body = body
	// This route reads the user key from thread.userKey only.
	k.setKey = func(key string) { th.UserKey = key }
	return c.stream(ctx, opts, k, "")
}

func (c *Client) stream(ctx context.Context, opts []threads.RequestOption, k call, threadID string) (*Stream, error) {
	cc, err := c.prepare(ctx, opts, k)
	if err != nil {
		return nil, err
	}
	cc.Stream = true
	ans, cc, err := c.roundTrip(ctx, opts, cc)
	if err != nil {
		return nil, err
	}
	h := ans.Resp.Header
	if id := h.Get("X-Thread-Id"); id != "" {
		threadID = id
	}
	redact := ans.Redact
	if secrets := cc.Secrets; len(secrets) > 0 && redact != nil {
		redact = func(s string, extra ...string) string { return ans.Redact(s, append(extra, secrets...)...) }
	}
	s := newStream(ctx, ans.Resp.Body, limits{maxEventSize: ans.Limits.MaxEventSize, idleTimeout: ans.Limits.IdleTimeout},
		redact, threadID, h.Get("X-Run-Id"))
	if tap := rawrun.Take(ctx); tap != nil {
		// The proxy's relay reads the body itself (internal/rawrun); s
		// keeps the connection, and its Close.
		tap.Body, tap.Observe = ans.Resp.Body, ans.Observe
		tap.Redact = func(v string) string { return s.redact(v) }
		tap.MaxEventSize, tap.IdleTimeout = s.limits.maxEventSize, s.limits.idleTimeout
	} else {
		s.eng.Observe(ans.Observe)
	}
	// The cancel must not write the run call's WithResponseInto
	// destination: it goes without the call-only options.
	follow := c.conn.FollowUpOptions(opts)
	s.run.cancel = func(ctx context.Context, threadID, runID string) error {
		return c.Cancel(ctx, threadID, runID, follow...)
	}
	s.run.thread = func(ctx context.Context, threadID string) (*ThreadWithMessages, error) {
		return c.GetThread(ctx, threadID, follow...)
	}
	return s, nil
}

// Cancel cancels run runID of thread threadID, started anywhere (DELETE
// /v1/threads/{threadId}/runs/{runId}). The service answers 200 while the
// run is active, and the run's stream then ends with RUN_ERROR CANCELLED;
// 404 (threads.ErrNotFound) when the run has already ended or was
// cancelled before; and, when the cancel meets the run's completion,
// sometimes 500 (the run may be cancelled or not). A cancel is idempotent:
// after a 500 the DELETE is re-sent once (within WithMaxRetries), and a
// re-send answered 404 counts as done. To cancel the run of a Stream you
// hold, [Stream.Cancel] also makes the stream report it cancelled
// whichever event ends it. Otherwise it is retried as every DELETE: only
// when it provably did not act.
func (c *Client) Cancel(ctx context.Context, threadID, runID string, opts ...threads.RequestOption) error {
	k := call{ep: v1wire.Cancel, ids: []string{threadID, runID}, idempotent: true}
	return c.do(ctx, opts, k, nil)
}
