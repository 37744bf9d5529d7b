// Package rawrun hands a /v1 run's answer, undecoded, to package proxy:
// the seam between the runs package, which sends the run (its body, its
// end user, the one request path), and the proxy's relay, which passes
// the service's events on without decoding most of them.
//
// The proxy puts a [Tap] in the context of the run call; the runs
// package takes it (once) when the answer arrives and fills it instead of
// reading the body itself: the stream it returns then owns the
// connection (its Close closes the body, which cancels an unfinished run)
// but is never read. Only code that can import this package can ask for
// it, so a caller of runs never meets a stream left unread.
package rawrun

import (
	"context"
	"io"
	"sync/atomic"
	"time"
)

// Tap receives one run's answer.
type Tap struct {
	taken atomic.Bool

	// Body is the answer's event stream. The stream the run call returned
	// owns it: close that stream, not Body.
	Body io.Reader
	// Redact returns s with every spelling of the API key and of the
	// call's secrets (the end user's token) replaced.
	Redact func(s string) string
	// MaxEventSize bounds one event's bytes; IdleTimeout is the longest
	// silence between events (0: none): the client's settings for the
	// call.
	MaxEventSize int
	IdleTimeout  time.Duration
	// Observe reports the call's events and end to its observer.
	Observe Observation
}

// Observation is the part of a call's observation the reader of its
// answer reports to (internal/core's).
type Observation interface {
	Event()
	Leave()
	End(err error)
}

type key struct{}

// With returns ctx carrying t, for one run call.
func With(ctx context.Context, t *Tap) context.Context {
	return context.WithValue(ctx, key{}, t)
}

// Take returns the Tap of ctx the first time it is asked for, nil
// otherwise: a call made later under the same context (a tool's) reads
// its answer itself.
func Take(ctx context.Context) *Tap {
	t, _ := ctx.Value(key{}).(*Tap)
	if t == nil || t.taken.Swap(true) {
		return nil
	}
	return t
}
