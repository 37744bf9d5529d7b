package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/rawrun"
	"github.com/threadsapi/threads-go/runs"
)

// Stream is a run's event stream as [Relay] reads it: a [*runs.Stream] or
// a [*runs.ToolStream]. Close must be safe to call from another goroutine
// while Next runs, and must make Next return (both runs types do).
type Stream interface {
	Next() bool
	Current() runs.Event
	// EventJSON is the current event's JSON as the service sent it, the
	// secrets redacted, valid until the next Next; nil for an event the
	// service did not send ([runs.Stream.EventJSON]). Relay writes what
	// it gives, and nothing for nil.
	EventJSON() []byte
	Err() error
	Close() error
	RunID() string
	ThreadID() string
}

// RelayResult is how a relay ended.
type RelayResult struct {
	// Events is how many events were written to the browser.
	Events int
	// Left is true when the browser left or stopped reading before the
	// run's end: its request's context ended, or a write to it failed or
	// took longer than the write timeout. The run was then cancelled
	// (the stream closed), unless detached ([Handler.Detach]) or its
	// pause had already reached the relay: such a run was read to its
	// end. This is the browser's choice, not a failure: Relay returns a
	// nil error with it.
	Left bool
}

// The relay's defaults (see [WithKeepAlive], [WithWriteTimeout]).
const (
	DefaultKeepAlive    = 15 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

// keepAliveComment is what an idle relay writes: an SSE comment, which
// every SSE reader skips (the official TypeScript SDK's decoder included).
const keepAliveComment = ": keep-alive\n\n"

// Relay writes run s to w as Server-Sent Events, the service's bytes with
// the secrets redacted, and closes s; see the package doc's "Relaying a
// run" for the wire form, batching, keep-alives, write timeouts and the
// held pause. It answers 200 with Content-Type text/event-stream, X-Run-Id
// and X-Thread-Id when s knows them, and no caching; set other headers on
// w before calling it.
//
// Relay returns when the run ends or the browser leaves (its request's
// context ends, or a write fails or overruns the write timeout). A run
// left before its end is cancelled on the service, unless its pause had
// reached the relay: that run is read to its end first. A browser that
// left is [RelayResult.Left] with a nil error; otherwise the error is
// s.Err(). No goroutine of Relay runs once it returns, unless
// [Handler.Detach] detached the run: it then outlives its browser.
func Relay(w http.ResponseWriter, r *http.Request, s Stream, opts ...RelayOption) (RelayResult, error) {
	var c config
	c.keepAlive, c.writeTimeout = DefaultKeepAlive, DefaultWriteTimeout
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	if c.detached != nil {
		return c.detached.relay(w, r, s, pace{c.keepAlive, c.writeTimeout})
	}
	rl := relayer{keepAlive: c.keepAlive, writeTimeout: c.writeTimeout, status: http.StatusOK}
	return rl.relay(w, r, s)
}

// relayer is one relay's settings.
type relayer struct {
	keepAlive, writeTimeout time.Duration
	status                  int
	// filter, if set, sees each event (typed, and its JSON as
	// [Stream.EventJSON] gives it) before it is written: it may replace
	// its JSON (out, which must stay valid until the next event), or drop
	// it (keep false). It may block (a server-side tool runs); keep-alives
	// go on meanwhile.
	filter func(ev runs.Event, raw []byte) (out []byte, keep bool)
	// stop, if set, is called when the relay cancels the run: it must
	// make a blocked filter return, and end the call's context.
	stop func()
	// overrun, if set, is called once, from a timer, when a write took
	// the write timeout on a writer that takes no deadline (the run is
	// cancelled beside): it frees what the run holds (its run slot).
	overrun func()
	// noFlush, if set, is called when w can neither flush nor unwrap to a
	// writer that can: the events reach the browser only at the end.
	noFlush func(w http.ResponseWriter)
	// tap, if set, is s's undecoded answer (internal/rawrun): the relay
	// reads it instead of s's events, and s only owns the connection.
	tap *rawrun.Tap
}

// maxBatch is the most bytes of events written at once: events that have
// already arrived go out together, in writes of at most this.
const maxBatch = 64 << 10

func (rl relayer) relay(w http.ResponseWriter, r *http.Request, s Stream) (res RelayResult, err error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if id := s.ThreadID(); id != "" && h.Get("X-Thread-Id") == "" {
		h.Set("X-Thread-Id", id)
	}
	if id := s.RunID(); id != "" && h.Get("X-Run-Id") == "" {
		h.Set("X-Run-Id", id)
	}

	k := &sink{w: w, rc: http.NewResponseController(w), timeout: rl.writeTimeout, keepAlive: rl.keepAlive, noFlushed: rl.noFlush, overrun: rl.overrun}
	var closeOnce sync.Once
	k.cancel = func() {
		closeOnce.Do(func() {
			if rl.stop != nil {
				rl.stop()
			}
			s.Close() // makes a blocked Next (or read) return; cancels an unfinished run
		})
	}
	// The browser leaving ends the relay, from a goroutine of the
	// context's: nothing runs for it until then.
	left := make(chan struct{})
	stopLeave := context.AfterFunc(r.Context(), func() {
		defer close(left)
		k.leave()
	})
	defer func() {
		// The context closes Done before it starts its AfterFunc: a
		// stream on the same context can fail, and the relay get here,
		// before the leave ran. Stopped then, it is ours to run.
		if stopLeave() {
			if r.Context().Err() != nil {
				k.leave()
			}
		} else if r.Context().Err() != nil {
			<-left
		}
		k.end()
		k.cancel()                             // a run that ended: closing it only frees the connection
		_ = k.rc.SetWriteDeadline(time.Time{}) // the server's own end of the response has no deadline
		if k.left.Load() {
			res.Left, err = true, nil
		}
	}()

	w.WriteHeader(rl.status)
	// The headers go out at once, before the first event, as the service
	// sends them.
	if !k.write(nil, 0, true) {
		if t := rl.tap; t != nil && t.Observe != nil {
			t.Observe.Leave()
			t.Observe.End(nil)
		}
		return res, nil
	}
	k.startKeepAlive()
	if rl.tap != nil {
		res.Events, err = rl.relayRaw(k, s)
	} else {
		res.Events, err = rl.relayTyped(k, s)
	}
	return res, err
}

// relayTyped relays the events of s as its Next delivers them: those
// that have arrived (s.Buffered, when s has it) are written as one batch.
func (rl *relayer) relayTyped(k *sink, s Stream) (int, error) {
	buffered, _ := s.(interface{ Buffered() bool })
	var batch, held []byte
	n, heldN := 0, 0
	for s.Next() {
		ev := s.Current()
		raw := s.EventJSON()
		_, pause := ev.(runs.AwaitingInput)
		if rl.filter != nil {
			if pause && n > 0 {
				// The filter may run tools: what came before goes out now.
				k.write(batch, n, true)
				batch, n = batch[:0], 0
			}
			var keep bool
			if raw, keep = rl.filter(ev, raw); !keep {
				continue
			}
		}
		if raw == nil {
			continue // no wire form: the tool runner's own events
		}
		if pause || heldN > 0 {
			// A pause is written with the run's end (the service records
			// the run as complete between them): it and what follows it
			// wait for the end; what came before goes out now.
			if heldN == 0 {
				k.pause()
				k.write(batch, n, true)
				batch, n = batch[:0], 0
			}
			held = frame(held, raw)
			heldN++
			continue
		}
		batch = frame(batch, raw)
		n++
		if len(batch) >= maxBatch || buffered == nil || !buffered.Buffered() {
			k.write(batch, n, true)
			batch, n = keepSmall(batch), 0
		}
	}
	if n+heldN > 0 {
		k.write(append(batch, held...), n+heldN, true)
	}
	return k.events, s.Err()
}

// keepSmall returns b emptied, or nil once it grew large: one burst of
// events does not keep its buffer for the run.
func keepSmall(b []byte) []byte {
	if cap(b) > maxBatch {
		return nil
	}
	return b[:0]
}

// relayRaw relays the run of rl.tap, reading per event only where it
// ends, its type, and (by the batch) the secrets: the events that have
// arrived in the service's own form go out as one write of the bytes
// read, redacted. An event is decoded only when the relay acts on it: a
// pause, the run's end.
func (rl *relayer) relayRaw(k *sink, s Stream) (int, error) {
	t := rl.tap
	obs := t.Observe
	if obs == nil {
		obs = noObservation{}
	}
	rd := rawEvents{r: t.Body, max: t.MaxEventSize}
	var idle *time.Timer
	var idled atomic.Bool
	if t.IdleTimeout > 0 {
		idle = time.AfterFunc(t.IdleTimeout, func() {
			idled.Store(true)
			s.Close()
		})
	}
	b := batcher{k: k, redact: t.Redact}
	var runErr error
	for ended := false; !ended; {
		for !ended {
			ev, ok := rd.take()
			if !ok {
				break
			}
			re, scratch := parse(ev, b.scratch[:0])
			b.scratch = scratch
			if re.data == nil {
				b.emit(false) // an event without data: not written
				continue
			}
			obs.Event()
			switch {
			case is(re.typ, "RUN_FINISHED"):
				ended = true
			case is(re.typ, "RUN_ERROR"):
				ended, runErr = true, runFailure(re.data, t.Redact, s)
			case is(re.typ, "CUSTOM") && b.heldN == 0:
				if isPause(re.data) {
					b.emit(true)
					k.pause()
					b.hold(re.data)
					continue
				}
			}
			switch {
			case b.heldN > 0:
				b.hold(re.data)
			case re.wire:
				b.add(rd.start-len(ev), rd.start, rd.buf)
			default:
				b.emit(false)
				b.one(re.data)
			}
		}
		b.emit(b.heldN == 0)
		if ended {
			break
		}
		if idle != nil {
			idle.Stop()
			idle.Reset(t.IdleTimeout)
		}
		if !rd.fill() {
			switch {
			case idled.Load():
				runErr = fmt.Errorf("%w: no event for %v", threads.ErrStreamIdle, t.IdleTimeout)
			case k.closed.Load():
				runErr = nil // the relay closed it: the browser left
			default:
				runErr = rawFailure(rd.err, t.MaxEventSize)
			}
			break
		}
	}
	if idle != nil {
		idle.Stop()
	}
	b.release()
	if runErr == nil && !k.closed.Load() {
		drain(t.Body, s)
	}
	rd.release()
	if k.left.Load() {
		obs.Leave()
	}
	obs.End(runErr)
	return k.events, runErr
}

type noObservation struct{}

func (noObservation) Event()    {}
func (noObservation) Leave()    {}
func (noObservation) End(error) {}

// isPause reports whether CUSTOM event data is the service's pause. The
// service writes the name right after the type; any other order is
// decoded.
func isPause(data []byte) bool {
	const front = `{"type":"CUSTOM","name":"`
	if rest, ok := bytes.CutPrefix(data, []byte(front)); ok {
		if n := bytes.IndexByte(rest, '"'); n >= 0 && bytes.IndexByte(rest[:n], '\\') < 0 {
			return string(rest[:n]) == runs.CustomAwaitingInput
		}
	}
	name, _ := member(data, "name")
	return name == runs.CustomAwaitingInput
}

// drain reads what follows a run's end (normally only the body's end),
// for at most 100 ms and 4 KiB, so that the connection to the service can
// be reused.
func drain(body io.Reader, s Stream) {
	t := time.AfterFunc(100*time.Millisecond, func() { s.Close() })
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	t.Stop()
}

// runFailure is the error of a run that ended with RUN_ERROR data, as
// runs.Stream.Err gives it: nil for a cancel (code CANCELLED).
func runFailure(data []byte, redact func(string) string, s Stream) error {
	var e struct {
		Message   string `json:"message"`
		Code      string `json:"code"`
		Category  string `json:"category"`
		Retryable bool   `json:"isRetryable"`
		Status    int    `json:"status"`
	}
	_ = json.Unmarshal(data, &e)
	if e.Code == runs.CodeCancelled {
		return nil
	}
	clean := func(v string, n int) string { return cut(oneLine(redact(v)), n) }
	return &runs.RunFailedError{
		ThreadID: s.ThreadID(), RunID: s.RunID(), Message: clean(e.Message, 1<<10),
		Code: clean(e.Code, 200), Category: clean(e.Category, 200), Retryable: e.Retryable, Status: e.Status,
	}
}

// oneLine keeps s on one line of printable text.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// batcher gathers the events of a raw relay into writes.
type batcher struct {
	k      *sink
	redact func(string) string

	// span is buf[start:end], whole events in the service's own form, as
	// read: written at once (emit).
	buf        []byte
	start, end int
	n          int

	out     []byte // framed events: the redacted span, held events
	held    []byte // the held pause and what followed it
	heldN   int
	scratch []byte // parse's
}

// add extends the span with the event at buf[start:end].
func (b *batcher) add(start, end int, buf []byte) {
	if b.n == 0 {
		b.buf, b.start = buf, start
	}
	b.end = end
	b.n++
	if b.end-b.start >= maxBatch {
		b.emit(false)
	}
}

// emit writes the span, redacted, and flushes when flush is set.
func (b *batcher) emit(flush bool) {
	if b.n == 0 {
		if flush {
			b.k.write(nil, 0, true)
		}
		return
	}
	span := b.buf[b.start:b.end]
	n := b.n
	b.n, b.buf = 0, nil
	if r := b.redact(unsafeString(span)); same(r, span) {
		b.k.write(span, n, flush)
		return
	}
	// A secret: each event on its own (a redaction may break one).
	out := b.out[:0]
	m := 0
	for len(span) > 0 {
		i := bytes.Index(span, []byte("\n\n"))
		ev := span[len("data: "):i]
		span = span[i+2:]
		if d, ok := b.clean(ev); ok {
			out = frame(out, d)
			m++
		}
	}
	b.k.write(out, m, flush)
	b.out = keepSmall(out)
}

// clean returns data with the secrets redacted; false when that leaves it
// not JSON (a secret that spells JSON punctuation): not to be written.
func (b *batcher) clean(data []byte) ([]byte, bool) {
	r := b.redact(unsafeString(data))
	if same(r, data) {
		return data, true
	}
	return []byte(r), jsontext.Value(r).IsValid()
}

// one writes one event that is not in the service's own form, framed as
// the service frames events.
func (b *batcher) one(data []byte) {
	if d, ok := b.clean(data); ok {
		b.out = frame(b.out[:0], d)
		b.k.write(b.out, 1, false)
		b.out = keepSmall(b.out)
	}
}

// hold keeps an event until the run's end.
func (b *batcher) hold(data []byte) {
	if d, ok := b.clean(data); ok {
		b.held = frame(b.held, d)
		b.heldN++
	}
}

// release writes what is held, with the run's end or whatever ended it.
func (b *batcher) release() {
	b.emit(b.heldN == 0)
	if b.heldN > 0 {
		b.k.write(b.held, b.heldN, true)
		b.held, b.heldN = nil, 0
	}
}

// unsafeString views b as a string, for the redaction's search, which
// returns it unchanged when it finds nothing.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// same reports whether s is b itself (the redaction changed nothing).
func same(s string, b []byte) bool {
	return len(s) == len(b) && (len(b) == 0 || unsafe.StringData(s) == unsafe.SliceData(b))
}

// is reports whether an event's type is typ.
func is(b []byte, typ string) bool { return string(b) == typ }

// sink is where a relay's bytes go: the browser's response, written by
// the relay's goroutine and by the keep-alive timer, one at a time. It is
// the relay's one event writer: every event goes out through write.
type sink struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	timeout   time.Duration
	keepAlive time.Duration
	noFlushed func(http.ResponseWriter)
	overrun   func()
	cancel    func() // cancels the run: closes the stream

	mu         sync.Mutex // guards the writer and the fields below
	ended      bool       // the relay returned: nothing more is written
	noDeadline bool       // w takes no write deadline: guard bounds each write
	noFlush    bool       // w cannot flush
	guard      *time.Timer
	keep       *time.Timer
	events     int // written

	left   atomic.Bool // the browser left, or a write failed or overran
	paused atomic.Bool // the run's pause reached the relay: read it to its end
	closed atomic.Bool // cancel was called
}

// write writes b, n events (or none: the headers, a flush), and flushes
// when flush is set; false when the browser is gone.
func (k *sink) write(b []byte, n int, flush bool) bool {
	if len(b) == 0 && !flush {
		return true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ended || k.left.Load() {
		return false
	}
	if !k.writeLocked(b, flush) {
		k.gone()
		return false
	}
	k.events += n
	if k.keep != nil {
		k.keep.Reset(k.keepAlive)
	}
	return true
}

func (k *sink) writeLocked(b []byte, flush bool) bool {
	if k.timeout > 0 {
		if !k.noDeadline {
			if err := k.rc.SetWriteDeadline(time.Now().Add(k.timeout)); errors.Is(err, http.ErrNotSupported) {
				k.noDeadline = true
			}
		}
		if k.noDeadline {
			// No deadline can end a write that blocks: a timer cancels
			// the run and frees what it holds; this goroutine stays in
			// the write until the connection dies.
			if k.guard == nil {
				k.guard = time.AfterFunc(k.timeout, k.overran)
			} else {
				k.guard.Reset(k.timeout)
			}
			defer k.guard.Stop()
		}
	}
	if len(b) > 0 {
		if _, err := k.w.Write(b); err != nil {
			return false
		}
	}
	if flush && !k.noFlush {
		if err := k.rc.Flush(); err != nil {
			if !errors.Is(err, http.ErrNotSupported) {
				return false
			}
			k.noFlush = true
			if k.noFlushed != nil {
				k.noFlushed(k.w)
			}
		}
	}
	return true
}

// startKeepAlive arms the keep-alive timer.
func (k *sink) startKeepAlive() {
	if k.keepAlive <= 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keep = time.AfterFunc(k.keepAlive, k.keepAliveFired)
}

// keepAliveFired writes a keep-alive comment: nothing was written for
// the keep-alive interval.
func (k *sink) keepAliveFired() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ended || k.left.Load() {
		return
	}
	if !k.writeLocked([]byte(keepAliveComment), true) {
		k.gone()
		return
	}
	k.keep.Reset(k.keepAlive)
}

// overran is the guard's: a write took the write timeout on a writer
// that takes no deadline.
func (k *sink) overran() {
	k.gone()
	if k.overrun != nil {
		k.overrun()
	}
}

// gone marks the browser gone; the run is cancelled unless its pause
// reached the relay (it is then read to its end).
func (k *sink) gone() {
	k.left.Store(true)
	if !k.paused.Load() {
		k.closed.Store(true)
		k.cancel()
	}
}

// leave is the browser's request ending.
func (k *sink) leave() { k.gone() }

// pause records that the run's pause reached the relay.
func (k *sink) pause() { k.paused.Store(true) }

// end stops the timers; nothing is written after it.
func (k *sink) end() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ended = true
	if k.keep != nil {
		k.keep.Stop()
	}
	if k.guard != nil {
		k.guard.Stop()
	}
}

// leftErr reports whether err is only the browser's request ending.
func leftErr(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctx.Err()))
}

// frame appends one SSE event holding data, as the service writes it:
// "data: ", the JSON, a blank line. An event the service split over
// several data: lines (joined with "\n" by the reader) is split again.
func frame(b, data []byte) []byte {
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
		if !more {
			return append(b, '\n')
		}
		data = rest
	}
}
