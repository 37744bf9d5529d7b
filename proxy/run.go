package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	threads "github.com/threadsapi/threads-go"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/threadsapi/threads-go/internal/rawrun"
	"github.com/threadsapi/threads-go/internal/toolcore"
	"github.com/threadsapi/threads-go/runs"
)

// withoutServers returns the browser's tools without those that a
// server-side tool of the same name replaces.
func withoutServers(tools []runs.ToolDefinition, server map[string]bool) []runs.ToolDefinition {
	return slices.DeleteFunc(tools, func(t runs.ToolDefinition) bool { return server[t.Name] })
}

// run serves the two run routes: it starts the run as the backend's user
// and relays it.
func (q *request) run(create bool) {
	// The run is read as package runs reads a run body (internal/v1wire's
	// RunBody): only what the run routes take, never a userKey.
	var cp runs.CreateRunParams
	if !q.body(&cp) {
		return
	}
	if len(cp.Content) == 0 {
		// The service answers a run without a message 500, and leaves an
		// empty thread behind on the create route: the SDK refuses it.
		writeError(q.w, http.StatusBadRequest, "message.content must not be empty")
		return
	}
	h := q.h
	if !h.life.begin() {
		q.w.Header().Set("Retry-After", "1")
		writeError(q.w, http.StatusServiceUnavailable, "The server is shutting down; try again")
		return
	}
	// A detached run hands what it holds to the goroutine that owns it.
	handed := false
	defer func() {
		if !handed {
			h.life.runs.Done()
		}
	}()
	slot, status := h.takeSlot(q.r.Context(), q.user)
	switch status {
	case 0:
	case http.StatusTooManyRequests:
		writeError(q.w, status, "Too many runs in progress for this user")
		return
	default: // the store cannot give a slot: as the other store-down 503s
		q.w.Header().Set("Retry-After", "1")
		writeError(q.w, status, "The run cannot start now; try again")
		return
	}
	// Released once: at the end, or by the relay when a write overran
	// on a writer that takes no deadline.
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { h.release(context.WithoutCancel(q.r.Context()), slot) }) }
	defer func() {
		if !handed {
			release()
		}
	}()

	// The run's context says whose run it is (UserFrom), for the
	// server-side tools it runs. It does not end with the browser's
	// request: a run whose pause reached the relay is read to its end
	// after the browser left (the relay decides; until it runs, the
	// browser leaving cancels). A detached run's is bounded by its
	// maximum.
	base, cancelBase := context.WithoutCancel(q.r.Context()), context.CancelFunc(func() {})
	if h.cfg.detach > 0 {
		base, cancelBase = context.WithTimeout(base, h.cfg.detach)
	}
	ctx, cancelRun := context.WithCancel(withRunUser(base, q.user))
	cancel := func() { cancelRun(); cancelBase() }
	stopStart := context.AfterFunc(q.r.Context(), cancel)
	// Shutdown's deadline ends the run as the browser leaving would.
	stopAfter := context.AfterFunc(h.life.stop, cancel)
	defer func() {
		if !handed {
			stopAfter()
			cancel()
		}
	}()
	p := cp.RunParams
	p.ToolDefinitions = withoutServers(p.ToolDefinitions, h.server)
	threadID := q.route.Values["threadId"]
	// The continuation of a pause whose server-side calls are recorded
	// in the store: their results are the server's, never the browser's,
	// taken now, once, so that no other continuation sends them.
	continues := threadID != "" && p.PreviousRunID != "" && len(h.server) > 0
	var pending []byte
	var ours []runs.Content
	pendingKey := ""
	var parked []byte
	parkedKey := ""
	var decided []toolcore.Reported // for the observer of the run that carries them
	if continues && h.approvals != nil {
		// The pause's parked calls: each decided (through the approval
		// API, or now by the page's resume[] entry), or expired and
		// answered so; else the continuation waits.
		var results []runs.Content
		var status int
		parkedKey = h.parkedKey(q.user, threadID, p.PreviousRunID)
		parked, results, decided, status = q.settleParked(ctx, parkedKey, p.PreviousRunID, p.Resume)
		if status != 0 {
			return
		}
		if parked != nil {
			p.Content = append(slices.Clone(results), q.withoutForged(ctx, threadID, p.Content, results)...)
			p.Resume = withoutAnswers(p.Resume, parked)
		}
	}
	if continues {
		pendingKey = h.pendingKey(q.user, threadID, p.PreviousRunID)
		v, ok, err := h.cfg.store.Take(ctx, pendingKey)
		if err == nil && !ok {
			// Kept as error results: the user's share was full.
			pendingKey = h.overKey(q.user, threadID, p.PreviousRunID)
			v, ok, err = h.cfg.store.Take(ctx, pendingKey)
		}
		if err != nil {
			// Without them the service would refuse the continuation, or
			// take it without the server's results: nothing is sent.
			h.log.ErrorContext(ctx, "proxy: cannot take server-side tool results from the store; the continuation is refused", "error", err)
			q.w.Header().Set("Retry-After", "1")
			writeError(q.w, http.StatusServiceUnavailable, "The run cannot start now; try again")
			return
		}
		if ok {
			if stored, ok := h.decodePending(ctx, v); ok {
				ours, pending = stored, v
				p.Content = append(slices.Clone(ours), q.withoutForged(ctx, threadID, p.Content, ours)...)
			}
		}
	}

	opts := h.cfg.callOpts
	var tap *rawrun.Tap
	callCtx := ctx
	if len(h.server) == 0 && h.cfg.detach == 0 {
		// No server-side tools: the relay reads the service's bytes
		// itself, decoding only what it acts on.
		tap = new(rawrun.Tap)
		callCtx = rawrun.With(ctx, tap)
	}
	start := func() (Stream, error) {
		cp.RunParams = p
		// The calls that need approval are the Handler's to park.
		tctx := toolcore.WithReported(toolcore.WithDeferredApprovals(ctx, true), decided)
		switch tools := h.runner(q.user); {
		case len(h.server) > 0 && create:
			return nilIfErr(q.c.CreateAndRunTools(tctx, cp, tools, opts...))
		case len(h.server) > 0:
			return nilIfErr(q.c.RunTools(tctx, threadID, cp.RunParams, tools, opts...))
		case create:
			return nilIfErr(q.c.CreateAndRun(callCtx, cp, opts...))
		default:
			return nilIfErr(q.c.Run(callCtx, threadID, p, opts...))
		}
	}
	s, err := start()
	if err != nil && continues {
		// Server-side results the store no longer holds (expired,
		// dropped): the service names the calls without a result, and
		// the handler answers them, so that the thread is not stuck.
		if content, ok := h.answerLost(ctx, threadID, p.Content, ours, err); ok {
			p.Content = content
			s, err = start()
		}
	}
	stopStart()
	if err != nil {
		if pending != nil {
			// Not sent: they wait for the browser's next try.
			if err := h.cfg.store.Set(context.WithoutCancel(ctx), pendingKey, pending, h.cfg.pendingTTL); err != nil {
				h.log.ErrorContext(ctx, "proxy: cannot put back server-side tool results after a continuation failed", "error", err)
			}
		}
		if parked != nil && !isKeptPause(parked) {
			// Its decisions are recorded: the next try finds them.
			if err := h.cfg.store.Set(context.WithoutCancel(ctx), parkedKey, parked, h.approvals.TTL+DefaultPendingTTL); err != nil {
				h.log.ErrorContext(ctx, "proxy: cannot put back a pause's parked calls after a continuation failed", "error", err)
			}
		}
		h.fail(q.w, q.r, err)
		return
	}
	if tap != nil && tap.Body == nil {
		tap = nil // not taken: the stream reads its own answer
	}

	// The ids go out as the stream holds them: redacted by the request
	// core, as the events are. Nothing else of the service's headers is
	// passed.
	setHeaders(q.w.Header(), "")
	for name, id := range map[string]string{"X-Thread-Id": s.ThreadID(), "X-Run-Id": s.RunID()} {
		if id != "" {
			q.w.Header().Set(name, id)
		}
	}
	var filter func(runs.Event, []byte) ([]byte, bool)
	if len(h.server) > 0 {
		browser := make(map[string]bool, len(p.ToolDefinitions))
		for _, t := range p.ToolDefinitions {
			browser[t.Name] = true
		}
		ps := &pauses{q: q, ctx: ctx, browser: browser}
		filter = ps.filter
		if h.approvals != nil {
			// A pause of parked calls only: the browser's response waits
			// for the decision's run, up to Approvals.Hold.
			s = &holding{Stream: s, h: h, user: q.user, p: ps}
		}
	}
	if h.cfg.detach > 0 {
		handed = true
		q.detach(ctx, cancel, s, filter, func() {
			stopAfter()
			cancel()
			release()
			h.life.runs.Done()
		})
		return
	}
	rl := relayer{
		keepAlive: h.cfg.keepAlive, writeTimeout: h.cfg.writeTimeout, status: http.StatusCreated,
		stop: cancel, overrun: release, noFlush: h.cannotFlush, tap: tap, filter: filter,
	}
	res, err := rl.relay(q.w, q.r, s)
	switch {
	case res.Left:
		h.log.DebugContext(q.r.Context(), "proxy: the browser left; its run was cancelled", "thread", s.ThreadID(), "run", s.RunID())
	case err != nil:
		h.runEnded(ctx, q.user, err)
	}
}

// detach hands run s to a goroutine that reads it to its end into its
// log, then calls done, and serves the browser from the log: the browser
// leaving ends only its own stream.
func (q *request) detach(ctx context.Context, cancel func(), s Stream, filter func(runs.Event, []byte) ([]byte, bool), done func()) {
	h := q.h
	ref := h.detach(ctx, cancel, q.user, s, filter, func(err error) {
		switch {
		case err == nil:
		case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
			h.log.InfoContext(ctx, "proxy: a detached run was stopped: its maximum, Shutdown's deadline, or a page's cancel", "thread", s.ThreadID(), "run", s.RunID())
		default:
			h.runEnded(ctx, q.user, err)
		}
		done()
	})
	leave, _ := h.readers.enter(q.user, 0)
	defer leave()
	ref.serve(q.w, q.r, q.c, "", http.StatusCreated, pace{h.cfg.keepAlive, h.cfg.writeTimeout})
}

// cannotFlush logs, once per Handler, a response writer that cannot flush:
// the backend's middleware wraps the writer without Unwrap, and every run
// reaches the browser only at its end.
func (h *Handler) cannotFlush(w http.ResponseWriter) {
	h.flushWarn.Do(func() {
		h.log.Error(fmt.Sprintf("proxy: the response writer %T cannot flush, so runs reach the browser only at their end; "+
			"give the middleware's writer an Unwrap() http.ResponseWriter method (see http.ResponseController)", w))
	})
}

// nilIfErr turns a typed nil stream into a nil Stream, so that a failed
// call's result is not a non-nil interface holding nil.
func nilIfErr[S Stream](s S, err error) (Stream, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// runEnded logs a relayed run that did not end well, and answers a pause
// that the tool runner's bounds left unanswered: its calls get error
// results, sent with the user's next run, so that the thread can go on.
func (h *Handler) runEnded(ctx context.Context, user User, err error) {
	var rounds *threads.ToolRoundsError
	var repeat *runs.ToolRepeatError
	var failed *runs.RunFailedError
	var threadID, runID string
	var pending []runs.PendingToolCall
	switch {
	case errors.As(err, &rounds):
		threadID, runID = rounds.ThreadID, rounds.RunID
		for _, c := range rounds.Calls {
			pending = append(pending, runs.PendingToolCall{ToolCallID: c.ID, ToolName: c.Name})
		}
	case errors.As(err, &repeat):
		threadID, runID, pending = repeat.ThreadID, repeat.RunID, repeat.Pending
	case errors.As(err, &failed):
		h.log.WarnContext(ctx, "proxy: a run failed", "error", err)
		return
	default:
		h.log.ErrorContext(ctx, "proxy: a run's stream failed", "error", err)
		return
	}
	limits, ok := budget(pending)
	if !ok {
		h.log.ErrorContext(ctx, "proxy: server-side tools stopped, at a pause whose call ids are too long to keep their results", "error", err)
		return
	}
	h.log.WarnContext(ctx, "proxy: server-side tools stopped; their calls are answered with errors in the next run", "error", err)
	results := notRun(pending, err)
	for i, r := range results {
		results[i] = fit(r, limits[i])
	}
	h.keepPending(ctx, user, threadID, runID, results)
}

// notRun answers each of calls with an error result that says why it was
// not run.
func notRun(calls []runs.PendingToolCall, err error) []runs.Content {
	return notRunBecause(calls, "not run: "+cut(err.Error(), 1000))
}

// notRunBecause answers each of calls with an error result of text why.
func notRunBecause(calls []runs.PendingToolCall, why string) []runs.Content {
	out := make([]runs.Content, len(calls))
	for i, c := range calls {
		out[i] = runs.ToolResult(c.ToolCallID, why)
		out[i].IsError = true
	}
	return out
}

// decodePending reads a pause's stored results.
func (h *Handler) decodePending(ctx context.Context, v []byte) ([]runs.Content, bool) {
	var out []runs.Content
	if err := json.Unmarshal(v, &out); err != nil {
		h.log.ErrorContext(ctx, "proxy: the store holds pending results that are not JSON tool results", "error", err)
		return nil, false
	}
	return out, true
}

// keepPending stores a pause's server-side results until the browser's
// continuation. It goes on if the browser has just left: the pause stays
// on the thread, and its results must be there when the user comes back.
// Results the store refuses as over its bound (the user's share of a
// MemoryStore) are replaced by error results that say so, kept under
// another scope than the full one: the model reads why, and the thread
// goes on.
func (h *Handler) keepPending(ctx context.Context, user User, threadID, runID string, results []runs.Content) {
	key := h.pendingKey(user, threadID, runID)
	ctx = context.WithoutCancel(ctx)
	v, err := json.Marshal(results, ownJSON)
	if err == nil {
		err = h.cfg.store.Set(ctx, key, v, h.cfg.pendingTTL)
	}
	if errors.Is(err, ErrStoreFull) {
		h.log.WarnContext(ctx, "proxy: the store is full for this user's pending results; the pause's server-side calls are answered with errors", "calls", len(results))
		calls := make([]runs.PendingToolCall, len(results))
		for i, r := range results {
			calls[i].ToolCallID = r.ToolUseID
		}
		v, err = json.Marshal(notRun(calls, errors.New("the server's results could not be kept: too many pending results for this user")), ownJSON)
		if err == nil {
			err = h.cfg.store.Set(ctx, h.overKey(user, threadID, runID), v, h.cfg.pendingTTL)
		}
	}
	if err != nil {
		h.log.ErrorContext(ctx, "proxy: cannot keep server-side tool results in the store", "error", err)
	}
}

// withoutForged returns the browser's content without its tool results
// for the server's calls (those of ours), logging each one it takes out:
// a browser never answers a server-side tool's call.
func (q *request) withoutForged(ctx context.Context, threadID string, content, ours []runs.Content) []runs.Content {
	server := make(map[string]bool, len(ours))
	for _, r := range ours {
		server[r.ToolUseID] = true
	}
	return slices.DeleteFunc(slices.Clone(content), func(c runs.Content) bool {
		if c.Type != runs.ContentToolResult || !server[c.ToolUseID] {
			return false
		}
		q.h.log.WarnContext(ctx, "proxy: the browser sent a result for a server-side tool's call; it was taken out, the server's result is sent",
			"thread", threadID, "call", cut(c.ToolUseID, 200))
		return true
	})
}

// Why a server-side call is answered with an error result when its
// result is not there.
const (
	whyLeft = "not run: the user left before the server-side tool ran"
	whyLost = "no result: the server-side tool's result was not kept (it expired or was dropped before this run); the tool may not have run"
)

// answerLost reads a run refused for its tool results (400
// invalid_tool_result) and returns the content that answers it: an error
// result for each call the service names as missing one, and without
// the results the handler added (ours) for calls the service does not
// have. false when err is another refusal, or names nothing to fix.
func (h *Handler) answerLost(ctx context.Context, threadID string, content, ours []runs.Content, err error) ([]runs.Content, bool) {
	var p *threads.Problem
	if !errors.Is(err, runs.ErrInvalidToolResult) || !errors.As(err, &p) {
		return nil, false
	}
	var missing, extra []string
	_ = json.Unmarshal(p.Extensions["missingToolCallIds"], &missing)
	_ = json.Unmarshal(p.Extensions["extraToolCallIds"], &extra)
	calls := make([]runs.PendingToolCall, 0, len(missing))
	for _, id := range missing {
		if id != "" && !slices.ContainsFunc(content, func(c runs.Content) bool { return c.Type == runs.ContentToolResult && c.ToolUseID == id }) {
			calls = append(calls, runs.PendingToolCall{ToolCallID: id})
		}
	}
	added := make(map[string]bool, len(ours))
	for _, r := range ours {
		added[r.ToolUseID] = true
	}
	drop := map[string]bool{}
	for _, id := range extra {
		if added[id] {
			drop[id] = true
		}
	}
	limits, ok := budget(calls)
	if !ok || len(calls)+len(drop) == 0 {
		return nil, false
	}
	h.log.WarnContext(ctx, "proxy: a continuation lacked server-side results that are gone; its calls are answered with error results",
		"thread", threadID, "missing", len(calls), "dropped", len(drop))
	out := slices.DeleteFunc(slices.Clone(content), func(c runs.Content) bool {
		return c.Type == runs.ContentToolResult && drop[c.ToolUseID]
	})
	for i, r := range notRunBecause(calls, whyLost) {
		out = append(out, fit(r, limits[i]))
	}
	return out, true
}

// ownJSON is how the Handler writes JSON of its own: the tool results it
// keeps or sizes (the store's values, MaxPendingResults' budget) and the
// events it makes (a snapshot's): map keys sorted, times as the service
// writes them (UTC, milliseconds), a tool's text that is not UTF-8 as
// U+FFFD, as encoding/json writes it when package runs sends a result.
// The service's answers are never written with it: they pass as its
// bytes.
var ownJSON = json.JoinOptions(
	json.Deterministic(true),
	jsontext.AllowInvalidUTF8(true),
	json.WithMarshalers(json.MarshalToFunc(func(enc *jsontext.Encoder, t time.Time) error {
		return enc.WriteToken(jsontext.String(t.UTC().Format("2006-01-02T15:04:05.000Z")))
	})),
)
