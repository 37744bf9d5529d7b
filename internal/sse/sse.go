// Package sse is the SDK's one use of github.com/tmaxmax/go-sse: it adapts
// go-sse's event parser to the SDK's two event streams (threads.Stream for
// the advancestream routes, runs.Stream for the /v1 run routes), which
// import this package and nothing of go-sse.
//
// What it adapts, and why:
//
//   - Input: go-sse parses the whole events that internal/sseline's Filter
//     has found in what arrived (so go-sse's bufio.Scanner scans each event
//     once, however the network splits it, and nothing waits for bytes
//     past the event the caller waits for), with the live service's
//     non-standard "error:" line rewritten into an event of type
//     ErrorEvent.
//   - Form: pull (Reader.Next), without a goroutine: see Reader.
//   - Output: an Event with the two fields the SDK uses (Type, Data); the
//     data is a string go-sse allocated for this event alone and never
//     touches again, so decoders may keep substrings of it.
//   - Errors: go-sse's and bufio's are mapped to the standard library's and
//     this package's (io.ErrUnexpectedEOF for a body that ends inside an
//     event, ErrTooLarge for an event over the limit), so the streams need
//     no knowledge of go-sse's or bufio's error values.
//
// Replacing the parser, or taking an upstream change of go-sse, is a change
// of this package alone.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/threadsapi/threads-go/internal/sseline"
)

// Event is one dispatched server-sent event.
type Event struct {
	// Type is the "event:" field ("" for the default message type), or
	// ErrorEvent.
	Type string
	// Data is the event's data lines joined with "\n". It is the event's
	// own string: a decoder may keep substrings of it.
	Data string
}

// ErrorEvent is the Type of an event made from an "error: <text>" line;
// its Data is the text of the event's first error line.
const ErrorEvent = sseline.ErrorEvent

// ErrTooLarge is returned (wrapped) when one event exceeds the limit.
var ErrTooLarge = sseline.ErrTooLarge

// Reader parses the events of one body. It is not safe for concurrent use.
//
// It reads in pull form (Next) without a goroutine or coroutine of its
// own: go-sse has only a push iterator, whose parser lives on its stack
// between events, so pulling from it one event at a time needs a
// coroutine (iter.Pull2), a goroutine in all but name, held by every open
// stream, idle ones included, with its stack and go-sse's scanner buffer.
// Instead, the filter hands on the whole events it holds, and go-sse
// parses them, up to batchMax at a time, in push form, into a queue that
// Next empties; go-sse's parser is made anew for each batch (its state
// between two whole events is nothing but its buffer). Next reads from the
// body only when the queue is empty, and only until one whole event has
// arrived, so that an event still reaches the caller as soon as its bytes
// do. A stream waiting for the server holds no parser and a queue of
// nothing.
type Reader struct {
	filter *sseline.Filter
	in     batch
	cfg    gosse.ReadConfig
	queue  []Event // parsed, not yet returned: queue[head:]
	head   int
	err    error // the body's failure, returned once the queue is empty
	done   bool  // nothing more to return
	parsed bool  // a batch was parsed (see batch.prefix)
}

// batchMax bounds the events parsed at once, and so the queue: enough that
// the parser's setup (half a dozen small allocations, and a buffer the
// size of the batch's largest event) costs little per event on a fast
// stream.
const batchMax = 64

// New returns a Reader of the events in body, each at most maxEventSize
// bytes (see sseline.New); maxEventSize <= 0 means no limit.
func New(body io.Reader, maxEventSize int) *Reader {
	return &Reader{filter: sseline.New(body, maxEventSize)}
}

// Next returns the next event. ok is false at the body's clean end
// (io.EOF), with no event. A failure is returned once, with ok true and
// the zero Event, after the events before it: it wraps ErrTooLarge,
// io.ErrUnexpectedEOF (the body ended inside an event), or is the body's
// read error; Next returns ok false after it. Next blocks only when it
// holds no parsed event, until one whole event has arrived.
func (r *Reader) Next() (ev Event, err error, ok bool) {
	for r.head == len(r.queue) && !r.done && r.err == nil {
		r.parse() // a batch of comments alone gives no event: read on
	}
	switch {
	case r.head < len(r.queue):
		ev = r.queue[r.head]
		r.queue[r.head] = Event{} // the caller's now: not kept alive here
		r.head++
		return ev, nil, true
	case r.err != nil:
		err, r.err, r.done = r.err, nil, true
		return Event{}, err, true
	}
	return Event{}, nil, false
}

// Buffered reports whether Next has an event or the body's end to return
// without reading from the body.
func (r *Reader) Buffered() bool {
	return r.head < len(r.queue) || r.err != nil || r.done
}

// parse reads until the filter holds a whole event (or the body ended),
// and parses the whole events it holds, at most batchMax, into the queue.
func (r *Reader) parse() {
	f, in := r.filter, &r.in
	r.queue, r.head = r.queue[:0], 0
	in.events, in.i, in.cur, in.prefix = in.events[:0], 0, nil, ""
	largest, ended := 0, false
	for len(in.events) < batchMax {
		ev, ok := f.Take()
		if ok {
			in.events = append(in.events, ev)
			largest = max(largest, len(ev))
			continue
		}
		if f.Err() != nil {
			ended = true // the body's end: nothing follows this batch
			break
		}
		if len(in.events) > 0 {
			break // parse what is here; read on at the next batch
		}
		f.Fill()
	}
	in.end = io.EOF // the batch's end, which go-sse's Read takes as the body's
	if ended {
		in.end = f.Err()
	}
	// A fresh parser drops a byte order mark at the start of its input,
	// which the SSE standard drops only at the start of the stream (the
	// filter does): a later batch that starts with one starts with a
	// comment line instead, which the parser ignores as it would the mark
	// mid-stream.
	if r.parsed && len(in.events) > 0 && bytes.HasPrefix(in.events[0], bom) {
		in.prefix = ":\n"
	}
	r.parsed = true
	// go-sse's scanner buffer starts at the smaller of 4 KiB and its limit,
	// and doubles up to the limit when an event does not fit: bounded by
	// twice the batch's largest event (and what prefix adds), a stream of
	// short events allocates short buffers, and what one event leaves free
	// always takes the next whole (see batch.Read). Past 4 KiB, and for a
	// batch of one event (a stream whose events arrive one at a time), the
	// limit is the largest event: one growth at most.
	largest += len(in.prefix) + 64
	r.cfg.MaxEventSize = 2 * largest
	if len(in.events) == 1 {
		r.cfg.MaxEventSize = largest
	} else if r.cfg.MaxEventSize > 4<<10 {
		r.cfg.MaxEventSize = max(4<<10, largest)
	}
	for ev, err := range gosse.Read(in, &r.cfg) {
		if err != nil {
			r.err = mapError(err)
			break
		}
		r.queue = append(r.queue, Event{Type: ev.Type, Data: ev.Data})
	}
	clear(in.events) // slices of the filter's buffer: not kept past the batch
	if ended && r.err == nil {
		r.done = true
	}
}

var bom = []byte("\xEF\xBB\xBF")

// batch is the io.Reader go-sse parses one batch from: the whole events
// taken from the filter, then end.
type batch struct {
	prefix string
	events [][]byte
	i      int
	cur    []byte
	end    error // io.EOF, or the body's failure when the body ended
}

// Read gives one event (or what is left of it) per call, never the start
// of the next: go-sse's split function scans from the start of what its
// scanner holds each time it is called, so a scanner that held an event
// and part of the next would scan that part again once the rest came.
func (b *batch) Read(p []byte) (int, error) {
	if b.prefix != "" {
		n := copy(p, b.prefix)
		b.prefix = b.prefix[n:]
		return n, nil
	}
	if len(b.cur) == 0 {
		if b.i == len(b.events) {
			return 0, b.end
		}
		b.cur = b.events[b.i]
		b.i++
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

// All returns the events in push form, as Next gives them. It may be
// ranged over once. A failure is yielded once, last; the body's clean end
// ends the sequence without an error.
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err, ok := r.Next()
			if !ok || !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Ended reports whether the body has ended (returned io.EOF or an error),
// so that nothing more is left to read from it.
func (r *Reader) Ended() bool { return r.filter.Err() != nil }

func mapError(err error) error {
	switch {
	case errors.Is(err, sseline.ErrTooLarge):
		return err
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case errors.Is(err, gosse.ErrUnexpectedEOF):
		return io.ErrUnexpectedEOF
	}
	return err
}
