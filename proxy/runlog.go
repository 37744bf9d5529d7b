package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/v1wire"
	"github.com/threadsapi/threads-go/runs"
)

// The bounds of a detached run's log ([WithDetachedRuns]).
const (
	// DefaultRunLogTTL is how long a run's log is kept after its last
	// event: a page reloaded within it resumes from the log.
	DefaultRunLogTTL = 10 * time.Minute
	// RunLogLength is the most events a run's log keeps (the oldest go
	// first); a page resuming from before them gets the snapshot form.
	RunLogLength = 10000
	// DefaultDetachedRunMax bounds how long a detached run is read when
	// [WithDetachedRuns] is given 0.
	DefaultDetachedRunMax = 15 * time.Minute
)

// WithDetachedRuns lets a run go on when its browser leaves (a reload, a
// lost connection, a closed lid): the instance that started it reads it
// to its end, at most max (0: [DefaultDetachedRunMax]), into a log in
// the [Store], and the browser's stream is served from that log. Each
// event then carries an SSE id: line, and a page resumes the run from any
// instance with GET /v1/threads/{threadId}/runs/{runId}/events and
// Last-Event-ID: every event after it once, in order, then the live ones,
// then the end. See docs/reloads.md.
//
// A detached run is an exception to "no goroutine after a call": it ends
// with the run, at max, or at [Handler.Shutdown]'s deadline, and keeps
// its user's run slot until then. Pages on the official clients do not
// resume; for them the run is no longer cancelled when they leave.
func WithDetachedRuns(max time.Duration) Option {
	return option(func(c *config) {
		if max < 0 {
			c.fail(fmt.Errorf("proxy: WithDetachedRuns(%v): want 0 (the default bound) or more", max))
			return
		}
		if max == 0 {
			max = DefaultDetachedRunMax
		}
		c.detach = max
	})
}

// Detach lets a run that the backend starts itself and relays with
// [Relay] go on when its browser leaves, as [WithDetachedRuns] does for
// h's runs: start the run with ctx, not r's context (a stream started
// with r's ends with it), and give opt to Relay, which then hands the
// run to h to read to its end into h's log, and serves the browser from
// the log. h's resume route serves it on any instance to u, as h's user
// function returns u. ctx carries u ([UserFrom]); it ends with r until
// Relay has the run, then at WithDetachedRuns' maximum or
// [Handler.Shutdown]'s deadline; the goroutine reading the run ends with
// it, and Shutdown waits for it. h needs WithDetachedRuns and u exactly
// one of a key and a token, else Relay closes the stream and returns an
// error; once Shutdown has begun, Relay does not detach. See
// docs/reloads.md.
func (h *Handler) Detach(r *http.Request, u User) (ctx context.Context, opt RelayOption) {
	d := &detachment{h: h, user: u}
	max := h.cfg.detach
	switch {
	case max == 0:
		d.err = errors.New("proxy: Detach: the Handler was made without WithDetachedRuns")
		max = DefaultDetachedRunMax
	case (u.Key == "") == u.Token.IsZero():
		d.err = errors.New("proxy: Detach: the user has no key and no token, or both; want exactly one")
	}
	d.ctx, d.cancel = context.WithTimeout(withRunUser(context.WithoutCancel(r.Context()), u), max)
	// Until Relay has the run, the browser leaving ends it, as it ends a
	// Handler's run that is starting; Shutdown's deadline ends it. Both
	// registrations go with ctx.
	d.unlink = context.AfterFunc(r.Context(), d.cancel)
	stop := context.AfterFunc(h.life.stop, d.cancel)
	context.AfterFunc(d.ctx, func() {
		stop()
		d.unlink()
	})
	return d.ctx, relayOption(func(c *config) { c.detached = d })
}

// detachment is one run's [Handler.Detach].
type detachment struct {
	h      *Handler
	user   User
	ctx    context.Context
	cancel context.CancelFunc
	unlink func() bool // ctx no longer ends with the request
	err    error       // Relay refuses the run
}

// relay is [Relay] of s under Detach: the run's owner reads it into its
// log, the browser is served from the log.
func (d *detachment) relay(w http.ResponseWriter, r *http.Request, s Stream, p pace) (RelayResult, error) {
	h := d.h
	if d.err != nil {
		s.Close()
		d.cancel()
		return RelayResult{}, d.err
	}
	plain := s.ThreadID() == "" || s.RunID() == ""
	if plain {
		// Its log could not be named, nor resumed: the service sends
		// both ids (X-Thread-Id, X-Run-Id) before the first event.
		h.log.WarnContext(r.Context(), "proxy: a run without its thread and run ids cannot be detached; it is relayed as it is")
	}
	if plain || !h.life.begin() {
		// Shutdown would not wait for it: the run ends with the browser
		// (ctx still ends with the request).
		rl := relayer{keepAlive: p.keepAlive, writeTimeout: p.writeTimeout, status: http.StatusOK, stop: d.cancel}
		defer d.cancel()
		return rl.relay(w, r, s)
	}
	d.unlink() // the run is the Handler's now; a request that already ended cancelled it
	hd := w.Header()
	for name, id := range map[string]string{"X-Thread-Id": s.ThreadID(), "X-Run-Id": s.RunID()} {
		if id != "" && hd.Get(name) == "" {
			hd.Set(name, id)
		}
	}
	ended := make(chan error, 1)
	cancel := func() {
		d.cancel()
		s.Close()
	}
	// Whatever context s was started with, the bounds of Detach's end it.
	stopClose := context.AfterFunc(d.ctx, func() { s.Close() })
	ref := h.detach(d.ctx, cancel, d.user, s, nil, func(err error) {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) && d.ctx.Err() == nil:
			h.log.ErrorContext(d.ctx, "proxy: a detached run's stream ended when its context did: start it with the context Handler.Detach returns, not the request's", "error", err)
		default:
			h.log.WarnContext(d.ctx, "proxy: a detached run's stream failed", "error", err)
		}
		stopClose()
		d.cancel()
		ended <- err
		h.life.runs.Done()
	})
	leave, _ := h.readers.enter(d.user, 0)
	out := ref.serve(w, r, h.clientOf(d.user), "", http.StatusOK, p)
	leave()
	res := RelayResult{Events: out.events, Left: out.left}
	if out.ended {
		// The owner ends right after the end entry it wrote.
		return res, <-ended
	}
	return res, nil
}

// runRef names a detached run's records in the store.
type runRef struct {
	h                 *Handler
	user              User
	threadID, runID   string
	log, meta, owner  string
	ttl, metaTTL, max time.Duration
}

func (h *Handler) runRef(u User, threadID, runID string) *runRef {
	sum := sha256.Sum256([]byte(threadID + "\x00" + runID))
	name := hex.EncodeToString(sum[:])
	return &runRef{
		h: h, user: u, threadID: threadID, runID: runID,
		log: h.storeKey("log", u, name), meta: h.storeKey("run", u, name), owner: h.storeKey("owner", u, name),
		ttl: DefaultRunLogTTL, metaTTL: h.cfg.detach + 2*DefaultRunLogTTL, max: h.cfg.detach,
	}
}

// runMeta is what the store keeps of a detached run beside its log: that
// it exists, for its user.
type runMeta struct {
	ThreadID string `json:"threadId"`
	RunID    string `json:"runId"`
}

// detach records run s of u as detached, hands it to a goroutine that
// reads it to its end into its log (own) and then calls done, and
// returns once the log exists: a browser reads it from its start.
func (h *Handler) detach(ctx context.Context, cancel func(), u User, s Stream, filter func(runs.Event, []byte) ([]byte, bool), done func(error)) *runRef {
	ref := h.runRef(u, s.ThreadID(), s.RunID())
	meta, _ := json.Marshal(runMeta{ThreadID: ref.threadID, RunID: ref.runID})
	if err := h.cfg.store.Set(ctx, ref.meta, meta, ref.metaTTL); err != nil {
		h.log.WarnContext(ctx, "proxy: cannot record a detached run in the store; it cannot be resumed", "error", err)
	}
	ready := make(chan struct{})
	go ref.own(ctx, cancel, s, filter, ready, done)
	<-ready
	return ref
}

// own reads a detached run to its end into its log, under the run's
// owner lease, then releases what the run holds. It runs in its own
// goroutine; ready is closed once the log exists (its first entry is
// written, or tried), done is called once it has ended.
func (ref *runRef) own(ctx context.Context, cancel func(), s Stream, filter func(runs.Event, []byte) ([]byte, bool), ready chan<- struct{}, done func(error)) {
	h := ref.h
	var err error
	readyOnce := sync.OnceFunc(func() { close(ready) })
	defer func() { done(err) }()
	defer readyOnce()
	// Stopped before done: no goroutine of the run outlives it.
	stopWatch, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		ref.watch(context.WithoutCancel(ctx), s, cancel, stopWatch)
	}()
	defer func() {
		close(stopWatch)
		<-watched
	}()
	defer s.Close()
	holder := h.instance + ":" + ref.runID
	if ok, lerr := h.cfg.store.Lease(ctx, ref.owner, holder, h.cfg.leaseTTL); lerr != nil || !ok {
		// Another instance cannot read this run (only this one has its
		// stream): the lease only tells readers whether an owner lives.
		h.log.WarnContext(ctx, "proxy: cannot take a detached run's owner lease; it is read anyway", "error", lerr)
	}
	own := &slot{key: ref.owner, holder: holder, stop: make(chan struct{}), done: make(chan struct{})}
	go h.renew(ctx, own)
	defer h.release(ctx, own)
	// Once an append failed, the log takes no more events (a later one
	// would leave a hole no reader sees): only the broken marker, tried
	// again now and then, and after it the end.
	broken, marked := false, false
	// complete: the last event logged was a run's end (RUN_FINISHED,
	// RUN_ERROR). A stream that stopped before one (cancelled at
	// Shutdown's deadline or max, broken) is logged as broken too: its
	// readers get the run's state as the service stored it, rather than a
	// stream that stops without an end (an EventSource would reconnect).
	complete := false
	var retry time.Time
	mark := func(ctx context.Context) {
		if marked || time.Now().Before(retry) {
			return
		}
		if _, aerr := h.cfg.store.Append(ctx, ref.log, brokenEntry, RunLogLength, ref.ttl); aerr == nil {
			marked = true
		}
		retry = time.Now().Add(h.cfg.leaseTTL / 3)
	}
	for s.Next() {
		raw := s.EventJSON()
		if filter != nil {
			var keep bool
			if raw, keep = filter(s.Current(), raw); !keep {
				continue
			}
		}
		if len(raw) == 0 {
			continue
		}
		if broken {
			mark(ctx)
		} else if _, aerr := h.cfg.store.Append(ctx, ref.log, raw, RunLogLength, ref.ttl); aerr != nil {
			h.log.WarnContext(ctx, "proxy: cannot append a run's event to its log; its readers get the run's state instead", "error", aerr)
			broken = true
			mark(ctx)
		}
		complete = runEnd(s.Current(), raw)
		readyOnce()
	}
	err = s.Err()
	if !complete {
		broken = true
	}
	if broken {
		retry = time.Time{}
		if mark(context.WithoutCancel(ctx)); !marked {
			// No end either: its readers find the owner gone, and
			// answer with the run's state.
			h.log.WarnContext(ctx, "proxy: cannot mark a run's log broken")
			return
		}
	}
	// The end: an empty entry, after the run's own last event.
	if _, aerr := h.cfg.store.Append(context.WithoutCancel(ctx), ref.log, nil, RunLogLength, ref.ttl); aerr != nil {
		h.log.WarnContext(ctx, "proxy: cannot append a run's end to its log", "error", aerr)
	}
}

// runEnd reports whether an event is a run's end, RUN_FINISHED or
// RUN_ERROR: by its type, or for one the stream did not decode (a
// followed run's, from its log) by its JSON.
func runEnd(ev runs.Event, raw []byte) bool {
	switch ev.(type) {
	case runs.RunFinished, runs.RunErrorEvent:
		return true
	case nil:
		typ, _ := member(raw, "type")
		return typ == runs.EventRunFinished || typ == runs.EventRunError
	}
	return false
}

// brokenEntry is the log entry after which a run's log holds no more of
// its events, only its end: an append failed (a store outage). No event
// is one: events are JSON objects.
var brokenEntry = []byte("broken")

// serve writes the run from its log to the browser, from the entry after
// id after ("": from the start), as Server-Sent Events with id: lines,
// until the log's end entry; the browser leaving ends it (the run goes
// on). What the log cannot serve is answered in AG-UI's own form of the
// run's state (snapshot).
func (ref *runRef) serve(w http.ResponseWriter, r *http.Request, c *runs.Client, after string, status int, p pace) (out served) {
	h := ref.h
	ctx := r.Context()
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(status)
	write := func(b []byte) bool {
		if out.left {
			return false
		}
		if p.writeTimeout > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(p.writeTimeout))
		}
		if _, err := w.Write(b); err != nil {
			out.left = true
			return false
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			out.left = true
			return false
		}
		return true
	}
	defer func() {
		_ = rc.SetWriteDeadline(time.Time{})
		if ctx.Err() != nil && !out.ended {
			out.left = true
		}
	}()
	if !write(nil) {
		return out
	}
	// A read that finds nothing for wait checks the owner, and writes a
	// keep-alive unless WithKeepAlive turned them off.
	wait := p.keepAlive
	if wait <= 0 {
		wait = DefaultKeepAlive
	}
	// held is a pause (tambo.run.awaiting_input) kept until the event
	// after it, the run's end, so that the two reach the browser in one
	// write: a client answering the pause at once must find the run
	// complete on the service (see "Relaying a run" in the package doc).
	var buf, held []byte
	heldN := 0
	// broken: the log met its broken marker, and holds none of the run's
	// events after it: the page gets the run's state at its end.
	broken := false
	state := func() {
		if ref.snapshot(ctx, c, held, write) {
			out.events += heldN + 3
		}
	}
	for ctx.Err() == nil {
		es, whole, err := h.cfg.store.ReadLog(ctx, ref.log, after, 256, wait)
		if err != nil && ctx.Err() != nil {
			return out
		}
		if err != nil || !whole {
			if err != nil {
				h.log.WarnContext(ctx, "proxy: cannot read a run's log; the page gets the run's state", "error", err)
			}
			state()
			return out
		}
		if len(es) == 0 {
			if !ref.ownerLives(ctx) {
				// Its owner died mid-run, or could not write the end: what
				// the log held was sent, and the run's state is the
				// service's (what the owner read last may not be in the
				// log, and a cancelled run's stored text can be shorter
				// than what was streamed).
				state()
				return out
			}
			if p.keepAlive > 0 && !write([]byte(keepAliveComment)) {
				return out
			}
			continue
		}
		buf = append(buf[:0], held...)
		n := heldN
		held, heldN = held[:0], 0
		last, end, pause := 0, false, false
		for _, e := range es {
			after = e.ID
			switch {
			case len(e.Value) == 0:
				end = true
			case broken:
				continue
			case bytes.Equal(e.Value, brokenEntry):
				broken = true
				continue
			}
			if end {
				break
			}
			last = len(buf)
			buf = append(buf, "id: "...)
			buf = append(buf, e.ID...)
			buf = append(buf, '\n')
			buf = frame(buf, e.Value)
			n++
			pause = bytes.Contains(e.Value, []byte(`"tambo.run.awaiting_input"`))
		}
		if !end && pause {
			held = append(held, buf[last:]...)
			heldN = 1
			buf = buf[:last]
			n--
		}
		if end && broken {
			held, heldN = buf, n
			state()
			out.ended = true
			return out
		}
		if len(buf) > 0 {
			if !write(buf) {
				return out
			}
			out.events += n
		}
		if end {
			out.ended = true
			return out // the run's end
		}
	}
	return out
}

// pace is how a relay writes to its browser: [WithKeepAlive],
// [WithWriteTimeout].
type pace struct{ keepAlive, writeTimeout time.Duration }

// served is how serving a run from its log ended.
type served struct {
	events int  // written
	ended  bool // the log's end entry was reached
	left   bool // the browser left, or a write to it failed, before the end
}

// cancelKey is where a cancel of a run of the thread waits for the
// instance that owns it.
func (h *Handler) cancelKey(u User, threadID string) string {
	sum := sha256.Sum256([]byte(threadID))
	return h.storeKey("cancel", u, hex.EncodeToString(sum[:]))
}

// cancelValue is what a cancel of run runID records: a hash, so that the
// value is bounded whatever id the page names (it is written before the
// service has said whose thread it is).
func cancelValue(runID string) []byte {
	sum := sha256.Sum256([]byte(runID))
	return []byte(hex.EncodeToString(sum[:]))
}

// tellOwner records a page's cancel of run runID for the detached run's
// owner, on whichever instance it is: between two runs (server-side
// tools running) the service has no run to cancel. It reports whether
// the cancel was recorded.
func (h *Handler) tellOwner(ctx context.Context, u User, threadID, runID string) bool {
	if h.cfg.detach == 0 {
		return false
	}
	if err := h.cfg.store.Set(ctx, h.cancelKey(u, threadID), cancelValue(runID), 3*h.cfg.leaseTTL); err != nil {
		h.log.WarnContext(ctx, "proxy: cannot record a cancel for a detached run's owner", "error", err)
		return false
	}
	return true
}

// watch stops the run (cancel) when a page's cancel of one of its runs
// is recorded, checking every third of the lease ttl, until stop closes.
func (ref *runRef) watch(ctx context.Context, s Stream, cancel func(), stop <-chan struct{}) {
	h := ref.h
	key := h.cancelKey(ref.user, ref.threadID)
	t := time.NewTicker(h.cfg.leaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		v, ok, err := h.cfg.store.Get(ctx, key)
		if err != nil || !ok {
			continue
		}
		if id := s.RunID(); bytes.Equal(v, cancelValue(ref.runID)) || bytes.Equal(v, cancelValue(id)) {
			h.log.InfoContext(ctx, "proxy: a page cancelled a detached run", "thread", ref.threadID, "run", id)
			_ = h.cfg.store.Delete(context.WithoutCancel(ctx), key)
			cancel()
			return
		}
	}
}

// ownerLives reports whether an instance still reads the run: its owner
// lease is held. The store has no read of a lease, so this takes it for a
// moment when it is free (and lets it go at once).
func (ref *runRef) ownerLives(ctx context.Context) bool {
	h := ref.h
	probe := h.instance + ":probe:" + ref.runID
	free, err := h.cfg.store.Lease(ctx, ref.owner, probe, h.cfg.leaseTTL)
	if err != nil {
		return true // unknown: keep waiting, the log may go on
	}
	if free {
		_ = h.cfg.store.Release(context.WithoutCancel(ctx), ref.owner, probe)
	}
	return !free
}

// snapshot writes AG-UI's own form of the run's state, for a page whose
// place in the log is gone: RUN_STARTED, MESSAGES_SNAPSHOT of the
// thread's messages as the service has them, and the run's end as the
// service stored it (RUN_FINISHED, or RUN_ERROR for a failed or cancelled
// run, or one still going).
func (ref *runRef) snapshot(ctx context.Context, c *runs.Client, b []byte, write func([]byte) bool) bool {
	h := ref.h
	start, _ := json.Marshal(runEdge{"RUN_STARTED", ref.threadID, ref.runID})
	th, err := ref.thread(ctx, c)
	msgs := []any{}
	for _, m := range th.Messages {
		msgs = append(msgs, aguiMessages(m)...)
	}
	if err != nil {
		h.log.WarnContext(ctx, "proxy: cannot read a thread's messages for a run's snapshot", "error", err)
		msgs = []any{}
	}
	snap, _ := json.Marshal(struct {
		Type     string `json:"type"`
		Messages []any  `json:"messages"`
	}{"MESSAGES_SNAPSHOT", msgs}, ownJSON)
	for _, ev := range [][]byte{start, snap, ref.endOf(ctx, th, err)} {
		b = frame(b, ev)
	}
	return write(b)
}

// thread reads the run's thread with all its messages, as the Handler
// forwards an answer: its bytes redacted by the request core, so that
// nothing decoded from them holds a secret.
func (ref *runRef) thread(ctx context.Context, c *runs.Client) (runs.ThreadWithMessages, error) {
	var th runs.ThreadWithMessages
	rr, err := route.Fill(v1wire.GetThread.Method, v1wire.GetThread.Template, ref.threadID)
	if err != nil {
		return th, err
	}
	path, err := rr.Path()
	if err != nil {
		return th, err
	}
	var resp runs.Response
	if err := c.Do(ctx, v1wire.GetThread.Method, path, nil, &resp, ref.h.cfg.callOpts...); err != nil {
		return th, err
	}
	return th, json.Unmarshal(resp.Body, &th)
}

// endOf is the run's end as the service stored it in th (read with
// err), as AG-UI's RUN_FINISHED or RUN_ERROR: RUN_ERROR for a failed or
// cancelled run (code CANCELLED), for one still going whose events this
// instance cannot serve (RUN_IN_PROGRESS), and when the thread cannot be
// read (STATE_UNKNOWN).
func (ref *runRef) endOf(ctx context.Context, th runs.ThreadWithMessages, err error) []byte {
	var end []byte
	switch {
	case err != nil:
		ref.h.log.WarnContext(ctx, "proxy: cannot read a thread for a run's end", "error", err)
		end, _ = json.Marshal(runErr{"RUN_ERROR", "the run's state could not be read; reload the thread", "STATE_UNKNOWN"})
	case th.RunStatus != runs.RunStatusIdle && th.CurrentRunID == ref.runID:
		end, _ = json.Marshal(runErr{"RUN_ERROR", "the run is still going, but its events are no longer kept; reload the thread when it ends", "RUN_IN_PROGRESS"})
	case th.LastRunError != nil:
		end, _ = json.Marshal(runErr{"RUN_ERROR", th.LastRunError.Message, th.LastRunError.Code})
	case th.LastRunCancelled:
		end, _ = json.Marshal(runErr{"RUN_ERROR", "the run was cancelled", "CANCELLED"})
	default:
		end, _ = json.Marshal(runEdge{"RUN_FINISHED", ref.threadID, ref.runID})
	}
	return end
}

// runEdge and runErr are the events the Handler writes of its own, in
// the service's member order (type first).
type (
	runEdge struct {
		Type     string `json:"type"`
		ThreadID string `json:"threadId"`
		RunID    string `json:"runId"`
	}
	runErr struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Code    string `json:"code"`
	}
)

// aguiMessages turns one of the service's messages into AG-UI's message
// form: its text as content, its tool calls as toolCalls, each tool
// result a tool message of its own.
func aguiMessages(m runs.Message) []any {
	var text strings.Builder
	var calls []any
	var out []any
	for _, c := range m.Content {
		switch c.Type {
		case runs.ContentText:
			text.WriteString(c.Text)
		case runs.ContentToolUse:
			args, _ := json.Marshal(c.Input)
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(args)}})
		case runs.ContentToolResult:
			var rt strings.Builder
			for _, p := range c.Content {
				rt.WriteString(p.Text)
			}
			out = append(out, map[string]any{"id": m.ID + ":" + c.ToolUseID, "role": "tool", "toolCallId": c.ToolUseID, "content": rt.String()})
		}
	}
	if text.Len() > 0 || len(calls) > 0 || len(out) == 0 {
		msg := map[string]any{"id": m.ID, "role": string(m.Role), "content": text.String()}
		if len(calls) > 0 {
			msg["toolCalls"] = calls
		}
		out = append([]any{msg}, out...)
	}
	return out
}

// cancel serves a page's cancel under WithDetachedRuns: recorded for the
// run's owner (tellOwner), then sent to the service. The service's
// refusal when it has no run to cancel (404: the owner is between two
// runs) is answered 200: the owner stops. Its other refusals pass, 403 for
// another user's thread among them: that cancel was recorded only in the
// sender's own scope, where no run of the thread reads it.
func (q *request) cancel() {
	ctx := q.r.Context()
	threadID, runID := q.route.Values["threadId"], q.route.Values["runId"]
	told := q.h.tellOwner(ctx, q.user, threadID, runID)
	path, err := q.route.Path()
	if err != nil {
		writeError(q.w, http.StatusBadRequest, "The path is not a /v1 route")
		return
	}
	var resp runs.Response
	err = q.c.Do(ctx, http.MethodDelete, path, nil, &resp, q.h.cfg.callOpts...)
	var p *threads.Problem
	switch {
	case err == nil:
		q.pass(resp)
	case told && errors.As(err, &p) && p.Status == http.StatusNotFound:
		b, _ := json.Marshal(struct {
			RunID  string `json:"runId"`
			Status string `json:"status"`
		}{runID, "cancelled"})
		writeJSON(q.w, http.StatusOK, b)
	default:
		q.h.fail(q.w, q.r, err)
	}
}

// resume serves GET /v1/threads/{threadId}/runs/{runId}/events: a page
// resuming a detached run of its user from Last-Event-ID.
func (q *request) resume() {
	h := q.h
	if h.cfg.detach == 0 {
		writeError(q.w, http.StatusNotFound, "Cannot GET "+cut(q.r.URL.EscapedPath(), 200))
		return
	}
	// Refused before the store is asked: each reader holds a blocking
	// read of the store (a pooled connection on Redis) while it waits.
	leave, ok := h.readers.enter(q.user, h.maxReaders())
	if !ok {
		q.w.Header().Set("Retry-After", "5")
		writeError(q.w, http.StatusTooManyRequests, "Too many streams of this user's runs are open; close one and try again")
		return
	}
	defer leave()
	ref := h.runRef(q.user, q.route.Values["threadId"], q.route.Values["runId"])
	_, ok, err := h.cfg.store.Get(q.r.Context(), ref.meta)
	switch {
	case err != nil:
		h.log.ErrorContext(q.r.Context(), "proxy: cannot read a run's record from the store", "error", err)
		q.w.Header().Set("Retry-After", "1")
		writeError(q.w, http.StatusServiceUnavailable, "The run cannot be resumed now; try again")
		return
	case !ok:
		// Another user's run, or one never detached here: the same
		// answer, so that ids cannot be probed.
		writeError(q.w, http.StatusNotFound, "No such run")
		return
	}
	if h.approvals != nil {
		// A page's resume touches the run's parked calls: expired ones
		// are answered now, and the run goes on.
		h.touchParked(q.r.Context(), q.user, ref.threadID, ref.runID)
	}
	setHeaders(q.w.Header(), "")
	after := q.r.Header.Get("Last-Event-ID")
	if after == "" {
		after = q.r.URL.Query().Get("lastEventId")
	}
	ref.serve(q.w, q.r, q.c, cut(after, 64), http.StatusOK, pace{h.cfg.keepAlive, h.cfg.writeTimeout})
}

// defaultMaxReaders bounds one user's streams read from run logs on an
// instance when [WithMaxRunsPerUser] sets no bound.
const defaultMaxReaders = 4

// maxReaders is how many streams of its runs' logs one user may have
// open on this instance: twice its runs (a run's own stream and one
// resume each), else defaultMaxReaders. See "Readers of a run's log" in
// docs/reloads.md.
func (h *Handler) maxReaders() int {
	if h.cfg.maxRuns > 0 {
		return 2 * h.cfg.maxRuns
	}
	return defaultMaxReaders
}

// readerCounts counts, per user, the streams an instance serves from run
// logs: each waits on a blocking store read (on Redis, a connection of
// the pool), so that one user's pages must not take them all. Per
// instance, not shared through the store: the pool it protects is the
// instance's own.
type readerCounts struct {
	mu sync.Mutex
	n  map[string]int // by userScope
}

// enter counts a reader of u in, unless u has max already (max 0: no
// bound, for a run's own stream, bounded by the run slots); leave counts
// it out, once.
func (c *readerCounts) enter(u User, max int) (leave func(), ok bool) {
	scope := userScope(u)
	c.mu.Lock()
	defer c.mu.Unlock()
	if max > 0 && c.n[scope] >= max {
		return nil, false
	}
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[scope]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.n[scope]--; c.n[scope] <= 0 {
				delete(c.n, scope)
			}
		})
	}, true
}
