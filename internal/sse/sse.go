// Package sse is the SDK's one use of github.com/tmaxmax/go-sse: it adapts
// go-sse's event parser to the SDK's two event streams (threads.Stream for
// the advancestream routes, runs.Stream for the /v1 run routes), which
// import this package and nothing of go-sse.
//
// What it adapts, and why:
//
//   - Input: go-sse reads the body through internal/sseline's Filter, which
//     hands it one whole event at a time (so go-sse's bufio.Scanner scans
//     each event once, however the network splits it, and never reads
//     ahead of the event the caller waits for) and rewrites the live
//     service's non-standard "error:" line into an event of type
//     ErrorEvent.
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
type Reader struct {
	filter *sseline.Filter
	events func(func(gosse.Event, error) bool)
}

// New returns a Reader of the events in body, each at most maxEventSize
// bytes (see sseline.New); maxEventSize <= 0 means no limit.
func New(body io.Reader, maxEventSize int) *Reader {
	f := sseline.New(body, maxEventSize)
	cfg := &gosse.ReadConfig{}
	if maxEventSize > 0 {
		cfg.MaxEventSize = maxEventSize + sseline.Overhead
	}
	return &Reader{filter: f, events: gosse.Read(f, cfg)}
}

// All returns the events in push form. It may be ranged over once. A
// failure is yielded once, last: it wraps ErrTooLarge, io.ErrUnexpectedEOF
// (the body ended inside an event), or the body's read error. The body's
// clean end (io.EOF) ends the sequence without an error.
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for ev, err := range r.events {
			if err != nil {
				yield(Event{}, mapError(err))
				return
			}
			if !yield(Event{Type: ev.Type, Data: ev.Data}, nil) {
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
