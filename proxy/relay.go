package proxy

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

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
	// (the stream closed). This is the browser's choice, not a failure:
	// Relay returns a nil error with it.
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

// Relay writes s to w as the service writes a run: Server-Sent Events,
// each event one "data: <JSON>" line and a blank line, no event: or id:
// lines, the events' JSON in the service's own form (see below), flushed
// one by one. It answers 200 with Content-Type text/event-stream (the
// browser's EventSource accepts only 200; the [Handler] answers the /v1
// run routes 201, as the service does), with X-Run-Id and X-Thread-Id
// when s knows them, and Cache-Control: no-cache and X-Accel-Buffering: no
// so that a proxy in between does not hold events back. Set other headers
// on w before calling it.
//
// While no event comes for the keep-alive interval (default 15 s), it
// writes an SSE comment line, which readers skip, so that proxies and
// browsers keep an idle connection open (a run waits on the model, or a
// server-side tool runs). Each write must complete within the write
// timeout (default 30 s; needs a ResponseWriter that supports
// [http.ResponseController.SetWriteDeadline], as net/http's does): a
// browser that stops reading cannot hold the run open.
//
// Relay returns when the stream ends, or when the browser leaves (the
// request's context ends, or a write fails or times out). It closes s
// either way: a run that has not ended is cancelled on the service. A
// browser that left is reported as [RelayResult.Left] with a nil error:
// a closed tab is not a failure. Otherwise the error is s.Err(): nil for
// a run that finished, paused for tools or was cancelled; a
// [*runs.RunFailedError] for a run that failed (its RUN_ERROR event was
// written, as the service sends it); a stream error (the connection to
// the service broke) after the events that did arrive. Relay keeps at
// most two events in memory (one being written, the next framed), and no
// goroutine of it runs once it returns.
//
// Each event is written as the service sent it (its JSON as received,
// [runs.Stream.EventJSON]): events and members this SDK version does not model
// go out too, and the bytes are the service's (checked against its
// recorded streams), except that every spelling of the project key and
// of the end user's token reads "[REDACTED]": the browser never sees
// them, even when the service echoes them. What the stream does not read
// is not written: the service's second RUN_ERROR of a failure (the stream
// ends at the first). A [*runs.ToolStream]'s own [runs.ToolRunStart] and
// [runs.ToolRunResult] are not written: the service has no such events.
func Relay(w http.ResponseWriter, r *http.Request, s Stream, opts ...RelayOption) (RelayResult, error) {
	var c config
	c.keepAlive, c.writeTimeout = DefaultKeepAlive, DefaultWriteTimeout
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	rl := relayer{keepAlive: c.keepAlive, writeTimeout: c.writeTimeout, status: http.StatusOK}
	return rl.relay(w, r, s)
}

// relayer is one relay's settings.
type relayer struct {
	keepAlive, writeTimeout time.Duration
	status                  int
	// filter, if set, sees each event (typed, and its JSON as
	// [Stream.EventJSON] gives it) in the reading goroutine before it is
	// written: it may replace its JSON (out, which must stay valid until
	// the next event), or drop it (keep false). It may block (a
	// server-side tool runs); keep-alives go on meanwhile.
	filter func(ev runs.Event, raw []byte) (out []byte, keep bool)
	// stop, if set, is called when the relay ends, before it waits for
	// the reading goroutine: it must make a blocked filter return.
	stop func()
}

func (rl relayer) relay(w http.ResponseWriter, r *http.Request, s Stream) (res RelayResult, err error) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
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

	// The reading goroutine frames each event in one of two buffers in
	// turn: the channel is unbuffered, so the writer is done with a
	// buffer before the reader fills it again.
	evs := make(chan []byte) // unbuffered: one event at a time
	quit := make(chan struct{})
	go func() {
		defer close(evs)
		var bufs [2][]byte
		for i := 0; s.Next(); {
			raw := s.EventJSON()
			if rl.filter != nil {
				var keep bool
				if raw, keep = rl.filter(s.Current(), raw); !keep {
					continue
				}
			}
			if raw == nil {
				continue // no wire form: the tool runner's own events
			}
			b := &bufs[i%2]
			if cap(*b) > 64<<10 {
				*b = nil // one large event does not stay for the run
			}
			*b = frame((*b)[:0], raw)
			select {
			case evs <- *b:
				i++
			case <-quit:
				return
			}
		}
	}()
	defer func() {
		close(quit)
		if rl.stop != nil {
			rl.stop()
		}
		s.Close() // makes a Next blocked in a read return; cancels an unfinished run
		for range evs {
		}
		_ = rc.SetWriteDeadline(time.Time{}) // the server's own end of the response has no deadline
		if res.Left {
			err = nil
		}
	}()

	write := func(b []byte) bool {
		if rl.writeTimeout > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(rl.writeTimeout)) // ErrNotSupported: no bound to set
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		return true
	}

	w.WriteHeader(rl.status)
	// The headers go out at once, before the first event, as the service
	// sends them.
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		res.Left = true
		return res, nil
	}
	var idle <-chan time.Time
	var timer *time.Timer
	if rl.keepAlive > 0 {
		timer = time.NewTimer(rl.keepAlive)
		defer timer.Stop()
		idle = timer.C
	}
	for {
		select {
		case ev, ok := <-evs:
			if !ok {
				if ctx.Err() != nil {
					res.Left = true
				}
				return res, s.Err()
			}
			if !write(ev) {
				res.Left = true
				return res, nil
			}
			res.Events++
		case <-idle:
			if !write([]byte(keepAliveComment)) {
				res.Left = true
				return res, nil
			}
		case <-ctx.Done():
			res.Left = true
			return res, nil
		}
		if timer != nil {
			timer.Reset(rl.keepAlive)
		}
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
