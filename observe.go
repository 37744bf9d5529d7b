package threads

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/route"
)

// Observer is told how the client's calls go, for tracing or metrics,
// without the SDK depending on any telemetry library (the module
// github.com/threadsapi/threads-go/otel implements it with OpenTelemetry
// spans). It never sees the API key, a token, a request or answer body, or
// a message's text: only routes, statuses, counts, durations and errors
// (whose text the SDK has already cleaned of the key).
//
// What is observed is the calls to the service: [StorageService.Upload]'s
// PUT to the storage host is not one (its presign is).
//
// StartCall is called once per call, before anything is sent; the context
// it returns is the one the call sends with (so a span it holds is the
// parent of what the transport does), and the [CallObserver] it returns
// hears the rest of that call. It may return a nil CallObserver to ignore
// the call. Methods may be called from several goroutines at once, for
// different calls.
type Observer interface {
	StartCall(ctx context.Context, call CallInfo) (context.Context, CallObserver)
}

// CallObserver hears one call: each attempt, a migration, a stream's first
// event, tool rounds and tool approvals, then End, exactly once (when a stream's call, a
// RunStream round's or a /v1 call ends: the package doc's "Middleware,
// responses and observers"). Observe and End may be called from another
// goroutine than the one that made the call (Close may end a stream), but
// never at the same time, and always in order. An observer may call back
// into the SDK (close the stream it observes, say): what that causes, End
// included, is reported after the observer's call returns.
type CallObserver interface {
	Observe(ev CallEvent)
	End(end CallEnd)
}

// CallInfo describes a call as it starts.
type CallInfo struct {
	Method string // GET, POST...
	Route  string // the route's template, e.g. /threads/{id}/advancestream
	Host   string // the base URL's host (and port, when it has one)
	Scheme string // http or https
	Stream bool   // the answer is an event stream
}

// CallEventKind says what a [CallEvent] reports.
type CallEventKind int

// The kinds of [CallEvent].
const (
	// EventAttempt: one HTTP attempt ended. Attempt, Method, Path,
	// Status (0 when none came), Err and Duration are set.
	EventAttempt CallEventKind = iota + 1
	// EventMigrated: the call is sent to another route than its own,
	// following the service's 410 advice (now or remembered). From and To
	// name the routes ("POST /threads/{id}/advance").
	EventMigrated
	// EventFirstEvent: a stream delivered its first snapshot (a /v1 run:
	// its first AG-UI event). Duration is the time from the call's start.
	EventFirstEvent
	// EventToolRound: RunStream ran a client-side tool and sends its
	// result; Round counts them from 1. (A /v1 tool stream: this run
	// carries round Round's results.)
	EventToolRound
	// EventToolApproval: an approver decided on a tool call
	// ([ToolGuards].Approver, or a person through package proxy's approval
	// API): ToolName names the tool, Approved says the decision, DecidedBy who
	// took it, Err is context.DeadlineExceeded when no one answered in
	// time (a refusal; a parked call that expired). Reported after the
	// pause's calls returned, on RunStream's call, or on a /v1 run that
	// carries the results (before a tool stream's EventToolRound).
	EventToolApproval
)

// String returns the kind's name, such as "attempt" or "first-event".
func (k CallEventKind) String() string {
	switch k {
	case EventAttempt:
		return "attempt"
	case EventMigrated:
		return "migrated"
	case EventFirstEvent:
		return "first-event"
	case EventToolRound:
		return "tool-round"
	case EventToolApproval:
		return "tool-approval"
	}
	return "CallEventKind(" + strconv.Itoa(int(k)) + ")"
}

// CallEvent is something that happened during a call; Kind says which
// fields are set.
type CallEvent struct {
	Kind     CallEventKind
	Attempt  int    // EventAttempt: 0 for the first, then the retry's number
	Method   string // EventAttempt
	Path     string // EventAttempt: the URL path sent (ids, never a query)
	Status   int    // EventAttempt: the HTTP status, 0 when none came
	Err      error  // EventAttempt: the transport error, if any; EventToolApproval: a timeout
	From, To string // EventMigrated
	Round    int    // EventToolRound
	ToolName string // EventToolApproval: the tool's name
	Approved bool   // EventToolApproval
	// DecidedBy is, for EventToolApproval, who decided: as the approver
	// named them ([Approval].DecidedBy), or package proxy's
	// Approvals.DecidedBy for a call parked there; "" when unknown.
	DecidedBy string
	// Duration is, for EventAttempt, the attempt's time until its
	// answer's headers (or its error); for EventFirstEvent, the time from
	// the call's start to the stream's first snapshot.
	Duration time.Duration
}

// CallEnd is how a call ended.
type CallEnd struct {
	Err      error         // nil: success (a stream: DONE, or closed by the caller)
	Status   int           // the final answer's status; 0 when none came
	Duration time.Duration // from StartCall to the end
	// ThreadID and RunID are the thread and the /v1 run the call was
	// about, as far as the SDK knows them without reading a body: the ids
	// in the route's path ({id}, {threadId}, {runId}), else the 2xx
	// answer's X-Thread-Id and X-Run-Id headers (a /v1 run stream sends
	// them: CreateAndRun's new thread, every run's id). Empty when
	// unknown: a spec route that creates its thread (Create,
	// CreateAndAdvanceStream) names it only in its body. An id longer than
	// 128 bytes, with a character other than a letter, digit, '_', '-',
	// '.' or ':', or that holds the API key or a token, is left empty.
	// Never a user key: /v1 sends it in the query or the body.
	ThreadID, RunID string
	// For streams: the snapshots delivered, the time from the call's
	// start to the first one (0: none came), RunStream's tool rounds, and
	// whether the caller left before the end (Close or its context).
	Events     int
	FirstEvent time.Duration
	ToolRounds int
	Left       bool
	// Usage is the tokens a /v1 run reported (AG-UI 1.0's usage on its
	// RUN_FINISHED or RUN_ERROR), summed per provider and model over the
	// call's runs (a tool stream's rounds included); nil when none was
	// reported, as the service does not today. At most 64 models.
	Usage []TokenUsage
}

// TokenUsage is the tokens one provider's model spent in a /v1 run, as the
// run reported them ([CallEnd].Usage; runs.TokenUsage is the same, read
// from the run's events).
type TokenUsage struct {
	Provider, Model                                                                                   string
	InputTokens, OutputTokens, TotalTokens, ReasoningTokens, CachedInputTokens, CacheWriteInputTokens int64
}

// WithObserver makes the client report its calls to o (see [Observer]).
// Given to [NewClient] it observes every call; given to a call, that call
// only (replacing the client's). nil turns observing off.
func WithObserver(o Observer) RequestOption {
	return newRequestOption("WithObserver", func(c *config) error {
		c.observer = o
		return nil
	})
}

// callObs is one observed call. Every method is nil-safe, so the request
// path calls them without checking whether anyone observes.
type callObs struct {
	o CallObserver
	// secrets are the call's API key and core.Call.Secrets: removed from
	// attempt errors and paths.
	secrets []string
	start   time.Time
	status  atomic.Int64
	events  atomic.Int64
	first   atomic.Int64 // nanoseconds from start to the first event; 0: none
	rounds  atomic.Int64
	left    atomic.Bool
	// mu guards the delivery queue: Observe and End are called one at a
	// time, in order, by whichever goroutine is delivering, and never
	// under mu, so an observer may call back into the SDK (close the
	// stream, which ends the call) without deadlocking it: what it causes
	// is queued and delivered after it returns.
	mu         sync.Mutex
	queue      []func()
	delivering bool
	ended      bool // End is queued or delivered: nothing more is
	// threadID and runID are CallEnd's (see shownID): set from the route
	// at the start, from the answer's headers under mu.
	threadID, runID string
	// usage is CallEnd's, summed per model under mu.
	usage []TokenUsage
}

type obsKey struct{}

// startObs starts observing a call when cfg has an observer; it returns
// the context to send with (holding the callObs for send and the
// transport) and the callObs, nil when nobody observes.
func (c *Client) startObs(ctx context.Context, cfg *config, cl core.Call) (context.Context, *callObs) {
	if cfg.observer == nil {
		return ctx, nil
	}
	octx, co := cfg.observer.StartCall(ctx, CallInfo{
		Method: cl.Route.Method, Route: routeName(cfg, cl), Host: c.base.Host, Scheme: c.base.Scheme, Stream: cl.Stream,
	})
	if octx == nil {
		octx = ctx
	}
	if co == nil {
		return ctx, nil
	}
	o := &callObs{o: co, secrets: callSecrets(cfg, cl), start: time.Now()}
	o.threadID = o.shownID(cl.Route.Values["id"] + cl.Route.Values["threadId"]) // a route has one or neither
	o.runID = o.shownID(cl.Route.Values["runId"])
	return context.WithValue(octx, obsKey{}, o), o
}

// routeName is the call's route as the observer and the log name it: a
// Do call's WithRouteTemplate, else core.Call.Name, else the template.
func routeName(cfg *config, cl core.Call) string {
	switch {
	case cl.Generic && cfg.routeTemplate != "":
		return cfg.routeTemplate
	case cl.Name != "":
		return cl.Name
	}
	return cl.Route.Template
}

// maxShownID bounds an id that CallEnd shows.
const maxShownID = 128

// shownID is id as CallEnd shows it: "" unless it looks like an id (the
// service's are "thr_…", "run_…"): at most maxShownID bytes of letters,
// digits and "_-.:", holding none of the call's secrets. The ids come
// from the caller or a server's headers, and a span or a metric label
// must not carry text, a secret or an unbounded value.
func (o *callObs) shownID(id string) string {
	if id == "" || len(id) > maxShownID {
		return ""
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':') {
			return ""
		}
	}
	for _, s := range o.secrets {
		if s != "" && redact.Contains(id, s) {
			return ""
		}
	}
	return id
}

// answered notes the ids a 2xx answer's headers name (a /v1 run's
// X-Thread-Id and X-Run-Id) where the route's path named none.
func (o *callObs) answered(h http.Header) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.threadID == "" {
		o.threadID = o.shownID(h.Get("X-Thread-Id"))
	}
	if o.runID == "" {
		o.runID = o.shownID(h.Get("X-Run-Id"))
	}
}

func obsFrom(ctx context.Context) *callObs {
	o, _ := ctx.Value(obsKey{}).(*callObs)
	return o
}

func (o *callObs) observe(ev CallEvent) {
	if o == nil {
		return
	}
	o.mu.Lock()
	if o.ended {
		o.mu.Unlock()
		return
	}
	o.deliverLocked(func() { o.o.Observe(ev) })
}

// deliverLocked queues f and, unless another call is delivering (on this
// goroutine, further up the stack, or on another), delivers the queue.
// It is called with o.mu held and returns with it released.
func (o *callObs) deliverLocked(f func()) {
	o.queue = append(o.queue, f)
	if o.delivering {
		o.mu.Unlock()
		return
	}
	o.delivering = true
	defer func() {
		o.delivering = false
		o.mu.Unlock()
	}()
	for len(o.queue) > 0 {
		next := o.queue[0]
		o.queue[0] = nil
		o.queue = o.queue[1:]
		o.mu.Unlock()
		func() {
			defer o.mu.Lock() // also when next panics: the deferred reset needs it
			next()
		}()
	}
}

// attempt reports one attempt that the transport made.
func (o *callObs) attempt(req *http.Request, resp *http.Response, err error, d time.Duration) {
	if o == nil {
		return
	}
	if err != nil {
		// The transport's error may quote what the server sent (a
		// malformed header line, key and all): the observer gets it as
		// the caller would, one bounded line without the call's secrets.
		if shown := shownText(err.Error(), maxErrorDetail, o.secrets...); shown != err.Error() {
			err = errors.New(shown)
		}
	}
	n, _ := strconv.Atoi(req.Header.Get("X-Retry-Count"))
	// The path may hold ids a server sent (a project id that spells the
	// key): shown as errors and logs show it.
	ev := CallEvent{Kind: EventAttempt, Attempt: n, Method: req.Method, Path: redact.URL(req.URL.EscapedPath(), o.secrets...), Err: err, Duration: d}
	if resp != nil {
		ev.Status = resp.StatusCode
		o.status.Store(int64(resp.StatusCode))
	}
	o.observe(ev)
}

func (o *callObs) migrated(from, to route.Route) {
	if o != nil && from.Key() != to.Key() {
		o.observe(CallEvent{Kind: EventMigrated, From: from.Method + " " + from.Template, To: to.Method + " " + to.Template})
	}
}

// event counts a stream's snapshot; the first one is reported.
func (o *callObs) event() {
	if o == nil {
		return
	}
	if o.events.Add(1) == 1 {
		d := time.Since(o.start)
		o.first.Store(int64(max(d, 1)))
		o.observe(CallEvent{Kind: EventFirstEvent, Duration: d})
	}
}

// observation is a call's observation as the stream engine
// (internal/stream) and package runs (through core.Answer.Observe) see it;
// o may be nil.
type observation struct{ o *callObs }

func (x observation) Event() { x.o.event() }
func (x observation) Leave() { x.o.leave() }
func (x observation) End(err error) {
	x.o.end(err)
}

// maxUsageModels bounds CallEnd.Usage, whatever a server reports.
const maxUsageModels = 64

// Usage adds u to the call's usage, per provider and model.
func (x observation) Usage(u core.TokenUsage) {
	o := x.o
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.usage {
		if t := &o.usage[i]; t.Provider == u.Provider && t.Model == u.Model {
			t.InputTokens += u.InputTokens
			t.OutputTokens += u.OutputTokens
			t.TotalTokens += u.TotalTokens
			t.ReasoningTokens += u.ReasoningTokens
			t.CachedInputTokens += u.CachedInputTokens
			t.CacheWriteInputTokens += u.CacheWrite
			return
		}
	}
	if len(o.usage) < maxUsageModels {
		o.usage = append(o.usage, TokenUsage{Provider: u.Provider, Model: u.Model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			TotalTokens: u.TotalTokens, ReasoningTokens: u.ReasoningTokens, CachedInputTokens: u.CachedInputTokens, CacheWriteInputTokens: u.CacheWrite})
	}
}

// ToolRound reports round n: of RunStream, whose rounds are all this call
// (the stream engine counts them), or of a /v1 tool stream, whose rounds
// are calls of their own (the call carries round n's results).
func (x observation) ToolRound(n int) {
	if x.o == nil || n < 1 {
		return
	}
	x.o.rounds.Store(int64(n))
	x.o.observe(CallEvent{Kind: EventToolRound, Round: n})
}

// ToolApproval reports an approver's decision on a call of tool.
func (x observation) ToolApproval(tool string, approved, timedOut bool, decidedBy string) {
	if x.o == nil {
		return
	}
	ev := CallEvent{Kind: EventToolApproval, ToolName: tool, Approved: approved, DecidedBy: decidedBy}
	if timedOut {
		ev.Err = context.DeadlineExceeded
	}
	x.o.observe(ev)
}

// leave marks that the caller left the stream before its end.
func (o *callObs) leave() {
	if o != nil {
		o.left.Store(true)
	}
}

// end reports the call's end, once; later calls do nothing.
func (o *callObs) end(err error) {
	if o == nil {
		return
	}
	o.mu.Lock()
	if o.ended {
		o.mu.Unlock()
		return
	}
	o.ended = true
	status := int(o.status.Load())
	var p *Problem
	if errors.As(err, &p) {
		status = p.Status
	}
	e := CallEnd{
		Err: err, Status: status, Duration: time.Since(o.start),
		ThreadID: o.threadID, RunID: o.runID,
		Events: int(o.events.Load()), FirstEvent: time.Duration(o.first.Load()),
		ToolRounds: int(o.rounds.Load()), Left: o.left.Load(),
		Usage: o.usage,
	}
	o.deliverLocked(func() { o.o.End(e) })
}

// observeTransport reports each attempt to the call's observer (found in
// the request's context).
type observeTransport struct{ next http.RoundTripper }

func (t observeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	o := obsFrom(req.Context())
	if o == nil {
		return t.next.RoundTrip(req)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	defer func() {
		if r := recover(); r != nil {
			// The observer panicked (its bug, the caller's to see): the
			// answer nobody will read is closed first, so that a caller
			// that recovers leaks no connection.
			if resp != nil && resp.Body != nil {
				resp.Body.Close()
			}
			panic(r)
		}
	}()
	o.attempt(req, resp, err, time.Since(start))
	return resp, err
}

// obsBody ends the call's observation when the body is closed: for the
// calls whose reader is not in this package (package runs).
type obsBody struct {
	rc interface {
		Read([]byte) (int, error)
		Close() error
	}
	o *callObs
}

func (b obsBody) Read(p []byte) (int, error) { return b.rc.Read(p) }
func (b obsBody) Close() error {
	err := b.rc.Close()
	b.o.end(nil)
	return err
}
