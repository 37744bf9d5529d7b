package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/threadsapi/threads-go/internal/rawrun"
	"github.com/threadsapi/threads-go/runs"
)

// runBody is what the browser may send to start a run: the members of the
// service's two run routes, read into the runs types. userKey and
// thread.userKey are not among them: the end user is the backend's.
type runBody struct {
	Message struct {
		Content           []runs.Content `json:"content"`
		Metadata          map[string]any `json:"metadata"`
		AdditionalContext map[string]any `json:"additionalContext"`
	} `json:"message"`
	PreviousRunID       string                    `json:"previousRunId"`
	Tools               []runs.ToolDefinition     `json:"tools"`
	AvailableComponents []runs.AvailableComponent `json:"availableComponents"`
	ToolChoice          any                       `json:"toolChoice"`
	Model               string                    `json:"model"`
	MaxTokens           int                       `json:"maxTokens"`
	Temperature         *float64                  `json:"temperature"`
	RunMetadata         map[string]any            `json:"runMetadata"`
	ThreadMetadata      map[string]any            `json:"threadMetadata"`
	Thread              *struct {
		Metadata        map[string]any        `json:"metadata"`
		InitialMessages []runs.InitialMessage `json:"initialMessages"`
	} `json:"thread"`
}

// params returns the run's parameters, the browser's tools without those
// that a server-side tool of the same name replaces.
func (b *runBody) params(server map[string]bool) runs.RunParams {
	tools := slices.DeleteFunc(b.Tools, func(t runs.ToolDefinition) bool { return server[t.Name] })
	return runs.RunParams{
		Content:             b.Message.Content,
		MessageMetadata:     b.Message.Metadata,
		AdditionalContext:   b.Message.AdditionalContext,
		PreviousRunID:       b.PreviousRunID,
		ToolDefinitions:     tools,
		AvailableComponents: b.AvailableComponents,
		ToolChoice:          b.ToolChoice,
		Model:               b.Model,
		MaxTokens:           b.MaxTokens,
		Temperature:         b.Temperature,
		RunMetadata:         b.RunMetadata,
	}
}

// run serves the two run routes: it starts the run as the backend's user
// and relays it.
func (q *request) run(create bool) {
	var b runBody
	if !q.body(&b) {
		return
	}
	h := q.h
	uid := q.user.id()
	if !h.limiter.acquire(uid) {
		writeError(q.w, http.StatusTooManyRequests, "Too many runs in progress for this user")
		return
	}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { h.limiter.release(uid) }) }
	defer release()

	// The run's calls do not end with the browser's request: a run whose
	// pause reached the relay is read to its end after the browser left
	// (the relay decides; until it runs, the browser leaving cancels).
	ctx, cancel := context.WithCancel(context.WithoutCancel(q.r.Context()))
	defer cancel()
	stopStart := context.AfterFunc(q.r.Context(), cancel)
	p := b.params(h.tools)
	threadID := ""
	if !create {
		threadID = q.vals[0]
	}
	// The continuation of a pause whose server-side results wait here.
	var pending string
	if threadID != "" && p.PreviousRunID != "" && h.cfg.store != nil {
		key := pendingKey(q.user, threadID, p.PreviousRunID)
		extra, ok := h.loadPending(ctx, key)
		if ok {
			p.Content = append(extra, p.Content...)
			pending = key
		}
	}

	var s Stream
	var err error
	opts := h.cfg.callOpts
	var tap *rawrun.Tap
	callCtx := ctx
	if len(h.tools) == 0 {
		// No server-side tools: the relay reads the service's bytes
		// itself, decoding only what it acts on.
		tap = new(rawrun.Tap)
		callCtx = rawrun.With(ctx, tap)
	}
	cp := runs.CreateRunParams{RunParams: p, ThreadMetadata: b.ThreadMetadata}
	if b.Thread != nil {
		cp.InitialMessages = b.Thread.InitialMessages
		if cp.ThreadMetadata == nil {
			cp.ThreadMetadata = b.Thread.Metadata // the service: threadMetadata wins
		}
	}
	switch tools := (runs.ToolRunner{Tools: h.cfg.tools}); {
	case len(h.tools) > 0 && create:
		s, err = nilIfErr(q.c.CreateAndRunTools(ctx, cp, tools, opts...))
	case len(h.tools) > 0:
		s, err = nilIfErr(q.c.RunTools(ctx, threadID, p, tools, opts...))
	case create:
		s, err = nilIfErr(q.c.CreateAndRun(callCtx, cp, opts...))
	default:
		s, err = nilIfErr(q.c.Run(callCtx, threadID, p, opts...))
	}
	stopStart()
	if err != nil {
		h.fail(q.w, q.r, err)
		return
	}
	if tap != nil && tap.Body == nil {
		tap = nil // not taken: the stream reads its own answer
	}
	if pending != "" {
		// The service took the results: they are not sent twice.
		if err := h.cfg.store.Delete(context.WithoutCancel(ctx), pending); err != nil {
			h.log.WarnContext(ctx, "proxy: cannot delete server-side tool results from the pending store", "error", err)
		}
	}

	// The ids go out redacted, as the events do: a service could name the
	// run or the thread with a secret (the relay copies them as they are).
	for name, id := range map[string]string{"X-Thread-Id": s.ThreadID(), "X-Run-Id": s.RunID()} {
		if id != "" {
			q.w.Header().Set(name, q.h.redact(id, q.secrets()...))
		}
	}
	rl := relayer{
		keepAlive: h.cfg.keepAlive, writeTimeout: h.cfg.writeTimeout, status: http.StatusCreated,
		stop: cancel, overrun: release, noFlush: h.cannotFlush, tap: tap,
	}
	if len(h.tools) > 0 {
		browser := make(map[string]bool, len(p.ToolDefinitions))
		for _, t := range p.ToolDefinitions {
			browser[t.Name] = true
		}
		pz := &pauses{q: q, ctx: ctx, browser: browser}
		rl.filter = pz.filter
	}
	res, err := rl.relay(q.w, q.r, s)
	switch {
	case res.Left:
		h.log.DebugContext(q.r.Context(), "proxy: the browser left; its run was cancelled", "thread", s.ThreadID(), "run", s.RunID())
	case err != nil:
		h.runEnded(ctx, q.user, err)
	}
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
	var rounds *runs.ToolRoundsError
	var repeat *runs.ToolRepeatError
	var failed *runs.RunFailedError
	var threadID, runID string
	var pending []runs.PendingToolCall
	switch {
	case errors.As(err, &rounds):
		threadID, runID, pending = rounds.ThreadID, rounds.RunID, rounds.Pending
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
	h.keepPending(ctx, pendingKey(user, threadID, runID), results)
}

// notRun answers each of calls with an error result that says why it was
// not run.
func notRun(calls []runs.PendingToolCall, err error) []runs.Content {
	out := make([]runs.Content, len(calls))
	for i, c := range calls {
		out[i] = runs.ToolResult(c.ToolCallID, "not run: "+cut(err.Error(), 1000))
		out[i].IsError = true
	}
	return out
}

// loadPending reads a pause's stored results.
func (h *Handler) loadPending(ctx context.Context, key string) ([]runs.Content, bool) {
	v, ok, err := h.cfg.store.Get(ctx, key)
	if err != nil {
		h.log.ErrorContext(ctx, "proxy: cannot read server-side tool results from the pending store", "error", err)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	var out []runs.Content
	if err := json.Unmarshal(v, &out); err != nil {
		h.log.ErrorContext(ctx, "proxy: the pending store holds results that are not JSON tool results", "error", err)
		return nil, false
	}
	return out, true
}

// keepPending stores a pause's server-side results until the browser's
// continuation. It goes on if the browser has just left: the pause stays
// on the thread, and its results must be there when the user comes back.
func (h *Handler) keepPending(ctx context.Context, key string, results []runs.Content) {
	v, err := json.Marshal(results, wireJSON)
	if err == nil {
		err = h.cfg.store.Put(context.WithoutCancel(ctx), key, v, h.cfg.pendingTTL)
	}
	if err != nil {
		h.log.ErrorContext(ctx, "proxy: cannot keep server-side tool results in the pending store", "error", err)
	}
}
