package threads

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
)

// cancelTimeout bounds the Cancel that WithCancelOnClose sends when a
// stream is left: Close waits for it.
const cancelTimeout = 5 * time.Second

// WithCancelOnClose makes a stream of the spec's routes (AdvanceStream,
// CreateAndAdvanceStream, RunStream) stop the thread's generation on the
// service when the caller leaves it before its end: closed, its context
// ended, or failed on the client's side, before "data: DONE". It sends
// [ThreadsService.Cancel] for the stream's thread once, bounded by 5
// seconds, and Close waits for it (the package doc's "Leaving a stream"
// says when it cannot).
//
// Without it (the default), leaving a stream only closes the connection:
// the service goes on generating the reply and stores it in the thread.
// The /v1 run streams of package runs need no option: closing one before
// the run's end cancels the run.
func WithCancelOnClose() RequestOption {
	return newRequestOption("WithCancelOnClose", func(c *config) error {
		c.cancelOnLeave = true
		return nil
	})
}

// leaving is a stream's WithCancelOnClose hook, shared with Close (so it
// is a pointer of the Stream's, under its own lock).
type leaving struct {
	mu     sync.Mutex
	cancel func(threadID string) // nil: nothing to do (off, done, or sent)
	thread string
}

// saw notes the thread a snapshot belongs to (CreateAndAdvanceStream
// learns its id this way).
func (l *leaving) saw(threadID string) {
	if threadID == "" {
		return
	}
	l.mu.Lock()
	if l.cancel != nil && l.thread == "" {
		l.thread = threadID
	}
	l.mu.Unlock()
}

// done disarms the hook: the stream reached DONE.
func (l *leaving) done() {
	l.mu.Lock()
	l.cancel = nil
	l.mu.Unlock()
}

// leave runs the hook once, if it is armed and err is not the service's
// own stream error.
func (s *Stream) leave(err error) {
	if s.leaving == nil {
		return
	}
	if se := (*StreamError)(nil); errors.As(err, &se) {
		s.leaving.done()
		return
	}
	l := s.leaving
	l.mu.Lock()
	fn, id := l.cancel, l.thread
	l.cancel = nil
	l.mu.Unlock()
	if fn == nil {
		return
	}
	if id != "" {
		fn(id)
	}
}

// cancelOnLeave arms s's hook for the call cl, made with opts.
func (c *Client) cancelOnLeave(s *Stream, opts []RequestOption, cl core.Call) {
	if cl.Route.Template != epAdvanceStream.template && cl.Route.Template != epCreateAdvanceStream.template {
		return // a migrated deprecated Advance reads its stream to the end itself
	}
	// The cancel must not write the call's WithResponseInto destination:
	// leave the call-only options out.
	keep := withoutCallOnly(opts)
	parent := context.WithoutCancel(s.eng.Context())
	l := s.leaving
	l.thread = cl.Route.Values["id"]
	l.cancel = func(id string) {
		ctx, cancel := context.WithTimeout(parent, cancelTimeout)
		defer cancel()
		_, _ = c.Threads.Cancel(ctx, id, keep...)
	}
}

// withoutCallOnly returns opts without the call-only options
// (WithResponseInto): for a request made on the caller's behalf after its
// call, which must not write their destinations.
func withoutCallOnly(opts []RequestOption) []RequestOption {
	keep := make([]RequestOption, 0, len(opts))
	for _, o := range opts {
		if ro, ok := o.(requestOption); ok && ro.callOnly {
			continue
		}
		keep = append(keep, o)
	}
	return keep
}
