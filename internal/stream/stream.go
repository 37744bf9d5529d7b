// Package stream is the SDK's one event-stream engine: both API
// generations' streams run on it (threads.Stream over the spec's
// advancestream snapshots, runs.Stream over a /v1 run's AG-UI events), and
// each package keeps only its decoder and its typed events, as openai-go's
// one ssestream.Stream[T] serves every stream kind.
//
// The engine owns what a stream does with its connection:
//   - the body and go-sse's parser (through internal/sse, whose Reader
//     gives go-sse's events in pull form without a goroutine or coroutine:
//     an open stream, idle or not, runs nothing of its own), with the
//     event size bound;
//   - Next, and All and Collect on it;
//   - Close, from any goroutine, also while Next blocks in a read;
//   - the idle timer, which runs only while the caller waits for an event
//     (not while it works on the previous one, nor while the owner works at a
//     pause);
//   - the release of a stream that is dropped without Close
//     (runtime.AddCleanup), and of the connection when the stream ends;
//   - the bounded read of what follows the stream's end (normally only the
//     end of the chunked body), so that the connection can be reused, done
//     by the caller's next call into the stream (Next or Close): no
//     goroutine is started at a stream's end;
//   - the observer's hooks (core.Observation): each delivered event, the
//     caller leaving, the end, a further round.
//
// It knows nothing of what the events mean: a package's [Decoder] says,
// event by event (one interface call each, a few nanoseconds of the
// microseconds an event takes), what each one is.
//
// A stream may go on past its clean end with a further body: that is how
// both tool runners answer tool calls, and the engine knows nothing of
// tools. It has one mechanism for it, [Engine.Continue], which the owner
// (the package's stream) calls when Next has returned false at a clean
// end, with the body that continues the stream. It serves the two
// runners' two kinds of end: a body whose end the decoder marks [Pause]
// (the spec's RunStream: the rounds are one call, its observation hears of
// each round, and the stream goes on as if the body had not ended), and a
// stream that ended cleanly (a /v1 tool stream's runs, each a call of its
// own with its own end and the runner's own events between them).
package stream

import (
	"context"
	"io"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/sse"
)

// Verdict is what a Decoder made of one event.
type Verdict uint8

const (
	// Skip: the event holds nothing for the caller (no data, a keep-alive,
	// a line the package ignores). The idle clock keeps running: it
	// measures the time without an event the caller sees.
	Skip Verdict = iota
	// Deliver: the decoder holds a new current event; Next returns true.
	Deliver
	// DeliverLast: as Deliver, and the event is the stream's clean end (a
	// run's terminal event). The error returned with it, if any, is the
	// stream's Err (a failed run). The Next after it returns false.
	DeliverLast
	// Last: the stream's clean end, with nothing to deliver ("data:
	// DONE").
	Last
	// Pause: a body's clean end, with nothing to deliver, that the owner
	// may continue: Next returns false with the stream neither done nor
	// failed ([Engine.Paused]); the owner then calls [Engine.Continue]
	// with the next body, or [Engine.EndPause]. The finished body has been
	// read to its end and the idle clock is stopped (what the owner does
	// meanwhile is not the server's silence).
	Pause
	// Refused: the client cannot use the event (the error says why, and
	// ends the stream): the client ends the stream, as Close would.
	Refused
	// Failed: the server ended the stream with a failure (the error, such
	// as the spec's "error:" line).
	Failed
)

// End says how a stream ended, for [Decoder.Ended].
type End uint8

const (
	// Clean: the stream reached its end (Last or DeliverLast).
	Clean End = iota
	// ByServer: the server's bytes ended it before its end: the body
	// failed or ended early, or a Failed event.
	ByServer
	// ByClient: this client ended it before its end: Close, the context,
	// the idle timer, a Refused event, or the owner's error at a pause
	// (EndPause).
	ByClient
)

// Decoder is a package's side of a stream: its events' decoder, and what
// its errors say. The engine calls Decode once per event, and the others
// at most once per stream.
type Decoder interface {
	// Decode handles one event, as the parser gives it (its data may be
	// empty, and its type sse.ErrorEvent for the service's "error:" line).
	// With Refused or Failed, the error ends the stream; with DeliverLast
	// it is the stream's Err (nil for a clean end).
	Decode(ev sse.Event) (Verdict, error)
	// ReadFailure returns the stream's error for a body that failed or
	// ended before the stream's end: err is io.ErrUnexpectedEOF (the body
	// ended), wraps sse.ErrTooLarge (an event over the size bound), or is
	// the body's read error. The engine replaces it with the context's
	// error when the context has ended.
	ReadFailure(err error) error
	// IdleFailure returns the stream's error when the idle timer ended it.
	IdleFailure() error
	// Ended reports the stream's end, once, with its error (nil for a
	// clean end or Close), before the observer hears of it. It may be
	// called from Close's goroutine, concurrently with Decode.
	Ended(how End, err error)
}

// Source is a further body for a stream (see [Engine.Continue]).
type Source struct {
	Body io.ReadCloser
	// Observe is the observation of the call that got Body, or nil. At a
	// pause it is ended (End(nil)) when the body is adopted, since its
	// events are counted in the stream's own call, which hears of the
	// round (ToolRound); after a clean end it becomes the stream's.
	Observe core.Observation
}

// Config is how a stream reads its body.
type Config struct {
	// MaxEventSize bounds one event's bytes (sse.New); <= 0: no bound.
	MaxEventSize int
	// IdleTimeout is the longest wait for an event the caller sees; 0:
	// none.
	IdleTimeout time.Duration
}

// Engine is one stream's connection and its state. A package's stream
// holds one by value (the zero Engine is a stream that was not made by
// [Start]: see Zero) and is its owner: what the caller holds.
//
// It is not safe for concurrent use, except Close, which may be called from
// any goroutine, any number of times, also while Next blocks.
type Engine struct {
	c   *conn // shared with Close, the idle timer and the cleanup; nil in a zero Engine
	ctx context.Context
	dec Decoder
	obs core.Observation

	src *sse.Reader // the body's events

	maxEventSize int
	idleTimeout  time.Duration

	rounds  int  // further bodies adopted at a pause
	paused  bool // at a Pause: Next returns false until Continue or EndPause
	drained bool // the body was read to its end (pause)
	armed   bool // the idle clock runs (Next waits; c.timer is set)
	done    bool
	err     error

	cleanup runtime.Cleanup
}

// conn is what Close, the idle timer and the garbage collector's cleanup
// share with Next. It holds no reference to its Engine's owner, so a
// dropped stream can become unreachable while its connection is open.
type conn struct {
	mu   sync.Mutex // guards the fields below
	body *body      // what the stream reads; another when it goes on (adoptLocked); nil once handed on
	// closed: Close was called or the stream ended; idle: the idle timer
	// fired. Both are set under mu, and read without it by Next once per
	// event (an atomic load, where a lock per event was a tenth of a short
	// event's time).
	closed atomic.Bool
	idle   atomic.Bool
	left   bool // Close was called
	timer  *time.Timer
	drain  bool // what follows the clean end is still to be read (drainNow)
}

// body is a body the stream reads, closed once.
type body struct {
	rc   io.ReadCloser
	once sync.Once
}

func (b *body) close() { b.once.Do(func() { b.rc.Close() }) }

// Start makes e read the events of rc with dec, under ctx (whose end
// ends the stream with its error). The stream's connection is closed when
// e (or rather its owner, which holds it) becomes unreachable without
// Close.
func Start(e *Engine, ctx context.Context, rc io.ReadCloser, dec Decoder, cfg Config) {
	*e = Engine{
		c: &conn{body: &body{rc: rc}}, ctx: ctx, dec: dec, obs: nobody{},
		src: sse.New(rc, cfg.MaxEventSize), maxEventSize: cfg.MaxEventSize, idleTimeout: cfg.IdleTimeout,
	}
	e.cleanup = runtime.AddCleanup(e, (*conn).abandon, e.c)
}

// Observe sets the observation the stream reports to (nil: none). Call it
// before the first Next.
func (e *Engine) Observe(o core.Observation) {
	if o == nil {
		o = nobody{}
	}
	e.obs = o
}

// Observation returns the observation the stream reports to (never nil).
func (e *Engine) Observation() core.Observation {
	if e.obs == nil {
		return nobody{}
	}
	return e.obs
}

// nobody is the observation of a stream that nobody observes.
type nobody struct{}

func (nobody) Event()                                  {}
func (nobody) ToolRound(int)                           {}
func (nobody) ToolApproval(string, bool, bool, string) {}
func (nobody) Leave()                                  {}
func (nobody) End(error)                               {}

func (nobody) Usage(core.TokenUsage) {}

// Zero reports whether e was not made by Start (a zero or nil stream).
// Every method works on such an Engine, nil included: the stream has
// ended, with the error its package gives Err.
func (e *Engine) Zero() bool { return e == nil || e.c == nil }

// Done reports whether the stream has ended: Next returns false from now
// on.
func (e *Engine) Done() bool { return e.Zero() || e.done }

// Err returns why the stream ended (nil: its clean end, or Close), as set
// by the Next that saw the end; zero for a zero Engine.
func (e *Engine) Err(zero error) error {
	if e.Zero() {
		return zero
	}
	return e.err
}

// Buffered reports whether Next has an event, or the stream's end, to
// return without reading from the body.
func (e *Engine) Buffered() bool {
	return e.Zero() || e.done || e.src.Buffered()
}

// Context returns the stream's context.
func (e *Engine) Context() context.Context { return e.ctx }

// Rounds returns how many further bodies the stream has read at a pause.
func (e *Engine) Rounds() int { return e.rounds }

// Next reads events until the decoder delivers one (true) or the stream
// ends (false; see Err). A zero Engine's returns false. It blocks until an event's bytes have arrived,
// and no longer; except that a Next called after the end first reads what
// the server sent after it (normally only the end of the body) for at
// most 100 ms and 64 KiB, so that the connection can be reused; Close,
// from any goroutine, ends that at once. The Next that reaches the end
// returns at once.
func (e *Engine) Next() bool {
	if e.Zero() {
		return false
	}
	if e.paused {
		return false
	}
	if e.done {
		e.drainNow()
		return false
	}
	c := e.c
	for !e.done && !e.paused {
		if c.closed.Load() {
			e.fail(nil, ByClient)
			return false
		}
		if !e.armed && e.idleTimeout > 0 && !e.src.Buffered() {
			// The idle clock runs only while the caller waits for an
			// event, not while it works on the previous one (nor while
			// Next takes an event that has already arrived). It starts
			// once per Next: events the decoder skips (an id: line alone,
			// a comment) do not restart it, since the idle timeout means
			// "no event for that long".
			c.mu.Lock()
			if c.timer == nil {
				c.timer = time.AfterFunc(e.idleTimeout, c.idleFired)
			} else {
				c.timer.Reset(e.idleTimeout)
			}
			c.mu.Unlock()
			e.armed = true
		}
		ev, err, ok := e.src.Next()
		if e.step(ev, err, ok) {
			return true
		}
	}
	return false
}

// All is a stream's All method: an iterator over its events, the current
// one after each successful next (the package's Next, which resets its
// current event at the end), and the stream's error (err, the package's
// Err) yielded once, last, with the zero E. Breaking out of the loop, or
// reaching the end, closes the stream.
func All[E any](e *Engine, next func() bool, current func() E, err func() error) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		defer e.Close()
		for next() {
			if !yield(current(), nil) {
				return
			}
		}
		if err := err(); err != nil {
			var zero E
			yield(zero, err)
		}
	}
}

// Collect reads the stream to its end with next (the package's Next: see
// All), and closes it.
func (e *Engine) Collect(next func() bool) {
	for next() {
	}
	e.Close()
}

// step handles one result of the parser (ok is false when it ended). It
// reports whether the decoder holds a new event; when the stream is over
// it has set e.done and e.err.
func (e *Engine) step(ev sse.Event, err error, ok bool) bool {
	c := e.c
	switch {
	case c.closed.Load():
		e.fail(nil, ByClient)
	case c.idle.Load():
		e.fail(e.dec.IdleFailure(), ByClient)
	case !ok:
		e.fail(e.dec.ReadFailure(io.ErrUnexpectedEOF), ByServer)
	case err != nil:
		e.fail(e.dec.ReadFailure(err), ByServer)
	default:
		v, err := e.dec.Decode(ev)
		switch v {
		case Deliver:
			if e.armed {
				e.stopTimer()
			}
			e.obs.Event()
			return true
		case DeliverLast:
			e.obs.Event()
			e.end(err)
			return true
		case Last:
			e.end(nil)
		case Pause:
			e.pause()
		case Refused:
			e.fail(err, ByClient)
		case Failed:
			e.fail(err, ByServer)
		}
	}
	return false
}

func (e *Engine) stopTimer() {
	c := e.c
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	e.armed = false
}

// end ends the stream at its clean end, with err as its Err. The body is
// closed now if it has ended; otherwise what follows is read by the
// caller's next Next or Close (drainNow), not by a goroutine of its own:
// a goroutine per stream here was a fifth of the time of a short run's
// stream.
func (e *Engine) end(err error) {
	e.done, e.err = true, err
	c := e.c
	c.mu.Lock()
	wasClosed := c.shutLocked()
	drain := !wasClosed && !e.src.Ended() && !e.drained
	c.drain = drain
	c.mu.Unlock()
	if !drain {
		e.cleanup.Stop()
		c.closeBody() // the body already ended (or Close closed it): its connection is free
	}
	if wasClosed {
		return // Close reported the end
	}
	// The observer's calls come after the lock: an observer may call back
	// into the stream without deadlocking it.
	e.dec.Ended(Clean, err)
	e.obs.End(err)
}

// fail ends the stream before its end with err (nil: closed). A failure
// while the stream's context has ended is the context's error: the
// caller left.
func (e *Engine) fail(err error, how End) {
	left := how == ByClient && err == nil // closed
	if err != nil {
		if ctxErr := e.ctx.Err(); ctxErr != nil {
			err, how, left = ctxErr, ByClient, true
		}
	}
	e.done, e.err = true, err
	c := e.c
	c.mu.Lock()
	wasClosed := c.shutLocked()
	c.mu.Unlock()
	e.cleanup.Stop()
	c.closeBody()
	if wasClosed {
		return // Close reported the end
	}
	e.dec.Ended(how, err)
	if left {
		e.obs.Leave()
	}
	e.obs.End(err)
}

// Close releases the connection at once; a Next blocked in a read returns
// false. Before the stream's end, this is the caller leaving it: the
// decoder hears Ended(ByClient, nil) and the observer Leave and End(nil).
// After its end, what the server still sends (normally only the end of the
// body) is read for at most 100 ms and 64 KiB, so that the connection can
// be reused, unless a Next did; a Close from another goroutine ends that
// read at once. Idempotent.
func (e *Engine) Close() {
	if e.Zero() {
		return
	}
	c := e.c
	c.mu.Lock()
	c.left = true
	if c.closed.Load() {
		c.mu.Unlock()
		if !e.drainNow() {
			c.closeBody() // ends a Next's drain now (or does nothing)
		}
		return
	}
	c.closed.Store(true)
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	c.closeBody()
	// Not closed before: the stream had not ended, so the caller left it.
	e.dec.Ended(ByClient, nil)
	e.obs.Leave()
	e.obs.End(nil)
}

// drainNow reads what follows the stream's clean end, for a Next or Close
// after it (see Next), unless another did or does. It reports whether it
// did.
func (e *Engine) drainNow() bool {
	c := e.c
	c.mu.Lock()
	drain, b, cleanup := c.drain, c.body, e.cleanup
	c.drain = false
	c.mu.Unlock()
	if drain {
		cleanup.Stop()
		// At most 100 ms and 64 KiB: closeBody, from Close or the timer,
		// ends the read.
		drainFor(b.rc, b.close)
		b.close()
	}
	return drain
}

// drainFor reads what follows a body's end of stream (normally just the
// end of the chunked body) so that the connection can be reused, but calls
// stop, which must close r, if that takes longer than 100 ms.
func drainFor(r io.Reader, stop func()) {
	t := time.AfterFunc(100*time.Millisecond, stop)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, r, 64<<10)
}

// pause holds the stream at a body's clean end (a Pause) for the owner:
// it reads the finished body to its end (so that its connection can be
// reused) and stops the idle clock. If the stream was closed meanwhile, or
// the clock had already fired, it ends the stream instead: nothing runs,
// nothing is sent.
func (e *Engine) pause() {
	if !e.src.Ended() {
		old := e.c.current()
		drainFor(old.rc, old.close)
		e.drained = true
	}
	if end, err := e.pauseIdle(); end {
		e.fail(err, ByClient)
		return
	}
	e.paused = true
}

// Paused reports whether Next returned false at a [Pause]: the owner is to
// call Continue or EndPause.
func (e *Engine) Paused() bool { return !e.Zero() && e.paused }

// EndPause ends a paused stream: cleanly with err nil (as if the body's end
// had been Last), else with err, as this client's failure; a stream closed
// while the owner worked ends as closed, whatever err (the owner's work
// failing because of Close is no failure). It does nothing when the
// stream is not paused.
func (e *Engine) EndPause(err error) {
	if !e.Paused() {
		return
	}
	e.paused = false
	if e.c.closed.Load() {
		e.fail(nil, ByClient) // Close reported the end
		return
	}
	if err != nil {
		e.fail(err, ByClient)
		return
	}
	e.end(nil)
}

// Continue makes src's body the rest of the stream, read by the next Next
// on a new parser. It is the engine's one way to go on past a body's end,
// for two kinds of end:
//   - at a [Pause] (Paused): src continues the same call: its observation,
//     if any, is ended (its events are counted in the stream's call, which
//     hears of the round, ToolRound) and Rounds counts one more. If Close
//     was called while the owner worked, src is closed, its call ended,
//     and the stream ends as closed;
//   - after a clean end (Done, Err nil), delivered to the caller: src is a
//     call of its own (src.Observe becomes the stream's observation) whose
//     events follow on the same stream. What followed the end is read
//     first, if no Next did. After Close, src's body is closed and its
//     call ends as left.
//
// It reports whether the stream goes on; false for any other stream
// (failed, not ended, zero), whose src is closed the same way.
func (e *Engine) Continue(src *Source) bool {
	if e.Paused() {
		return e.continuePaused(src)
	}
	obs := src.Observe
	if obs == nil {
		obs = nobody{}
	}
	if !e.Zero() && e.done && e.err == nil {
		e.drainNow()
		c := e.c
		c.mu.Lock()
		if !c.left {
			e.adoptLocked(src)
			c.closed.Store(false)
			c.idle.Store(false)
			c.drain = false
			e.done, e.obs, e.armed = false, obs, false
			e.cleanup.Stop()
			e.cleanup = runtime.AddCleanup(e, (*conn).abandon, c)
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
	}
	src.Body.Close()
	obs.Leave()
	obs.End(nil)
	return false
}

// continuePaused is Continue at a pause.
func (e *Engine) continuePaused(src *Source) bool {
	e.paused = false
	c := e.c
	c.mu.Lock()
	if c.closed.Load() {
		c.mu.Unlock()
		src.Body.Close()
		if src.Observe != nil {
			src.Observe.End(nil)
		}
		e.fail(nil, ByClient) // Close was called while the owner worked: it reported the end
		return false
	}
	old := c.body
	e.adoptLocked(src) // Next restarts the idle clock: the next body's silence counts again
	c.mu.Unlock()
	// The observer's calls come after the lock: an observer may call back
	// into the stream without deadlocking it.
	if src.Observe != nil {
		src.Observe.End(nil) // its events are counted in e's call
	}
	e.rounds++
	e.obs.ToolRound(e.rounds)
	old.close()
	return true
}

// adoptLocked makes src's body the one the stream reads, with a new
// parser. e.c.mu is held.
func (e *Engine) adoptLocked(src *Source) {
	e.c.body = &body{rc: src.Body}
	e.src, e.drained = sse.New(src.Body, e.maxEventSize), false
}

// pauseIdle stops the idle clock at a pause, while the owner works. The idle
// timeout is about the server's silence: a round's own work (a tool) is
// not the server's, and the next request's wait for its headers has its
// own bound (the request timeout). Next restarts the clock when it waits
// for the next body. end reports that the stream is over instead (closed:
// err nil; the clock already fired: the idle failure), so that no round
// runs.
func (e *Engine) pauseIdle() (end bool, err error) {
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	armed := e.armed
	e.armed = false
	switch {
	case c.closed.Load():
		return true, nil
	case c.idle.Load():
		return true, e.dec.IdleFailure()
	case !armed:
		return false, nil
	}
	// Next started the clock, and only a delivered event or Close stops
	// it, so at a body's clean end a Stop that finds it not running means
	// that it fired, even if idleFired has not yet set c.idle.
	if !c.timer.Stop() {
		return true, e.dec.IdleFailure()
	}
	return false, nil
}

// Detach hands e's body, unread, to another stream (the Source of its
// Continue): e no longer reads it, closes it or reports its end; the Source's
// Observe is e's observation.
func (e *Engine) Detach() *Source {
	c := e.c
	c.mu.Lock()
	c.shutLocked()
	b := c.body
	c.body = nil // e no longer closes what is not e's
	c.mu.Unlock()
	e.cleanup.Stop()
	e.done = true
	return &Source{Body: b.rc, Observe: e.obs}
}

func (c *conn) idleFired() {
	c.mu.Lock()
	c.idle.Store(true)
	c.mu.Unlock()
	c.closeBody()
}

// current returns the body being read (nil once handed on).
func (c *conn) current() *body {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.body
}

// closeBody closes the body being read, once. c.mu must not be held.
func (c *conn) closeBody() {
	if b := c.current(); b != nil {
		b.close()
	}
}

// abandon releases a stream that became unreachable without Close.
func (c *conn) abandon() {
	c.mu.Lock()
	c.shutLocked()
	c.mu.Unlock()
	c.closeBody()
}

// shutLocked marks the stream closed and stops the idle clock, and
// reports whether it was closed before.
func (c *conn) shutLocked() (wasClosed bool) {
	wasClosed = c.closed.Swap(true)
	if c.timer != nil {
		c.timer.Stop()
	}
	return wasClosed
}
