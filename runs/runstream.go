package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/jsonscan"
	"github.com/threadsapi/threads-go/internal/sse"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// Outcome is how a run ended, as far as its stream tells.
type Outcome int

const (
	// OutcomeUnknown: the stream has not reached the run's end: it is
	// still being read, or it was cut by the server or the network (see
	// [Stream.Err]).
	OutcomeUnknown Outcome = iota
	// OutcomeFinished: the run finished (RUN_FINISHED) with its reply.
	OutcomeFinished
	// OutcomeAwaitingTools: the run finished waiting for the results of
	// client tool calls (Result.PendingToolCalls). Continue the thread with
	// previousRunId set to this run and one tool result per pending call.
	OutcomeAwaitingTools
	// OutcomeCancelled: the run was cancelled: by [Stream.Cancel] (even
	// when the service then ended it with RUN_FINISHED), by the DELETE
	// route from elsewhere (RUN_ERROR CANCELLED), or because this client
	// closed the connection before the run's end ([Stream.Close], the
	// context, the idle timeout, a failure to read an event), which makes
	// the service cancel it.
	OutcomeCancelled
	// OutcomeFailed: the run failed (RUN_ERROR); Stream.Err is a
	// [*RunFailedError].
	OutcomeFailed
)

// String returns "unknown", "finished", "awaiting_tools", "cancelled" or
// "failed".
func (o Outcome) String() string {
	switch o {
	case OutcomeFinished:
		return "finished"
	case OutcomeAwaitingTools:
		return "awaiting_tools"
	case OutcomeCancelled:
		return "cancelled"
	case OutcomeFailed:
		return "failed"
	}
	return "unknown"
}

// Stream reads the AG-UI events of one run, in order, until the run's end:
// RUN_FINISHED, or the first RUN_ERROR (the service sends a failure's
// twice; the second is not read). There is no DONE line.
//
// Iterate with Next and Current, then check Err; or range over All; or
// call Collect for the whole reply. The stream assembles what the events
// say: each message's text from its deltas, each tool call's arguments,
// each component's props from its JSON Patches ([Stream.ComponentProps]),
// and the run's [Outcome].
//
// Closing the stream, or ending the context given to the call that made
// it, before the run's end closes the connection, and the service then
// cancels the run (it stops the model). [Stream.Cancel] cancels the run
// and reads on to its end.
//
// Memory is bounded whatever the server sends: an event is at most the
// client's WithMaxEventSize, and what the stream keeps for Collect is at
// most 1,024 messages, tool calls and components each and about 64 MiB of
// text, arguments and props (past either, Result.Incomplete is set and the
// rest is delivered as events only). CPU is linear in the bytes received,
// however they are split. A Stream dropped without Close is closed once
// the garbage collector finds it unreachable.
//
// A Stream is not safe for concurrent use, except Close, Cancel, Outcome,
// ThreadID and RunID, which may be called from any goroutine, also while
// Next blocks.
type Stream struct {
	*streamConn // shared with Close, the idle timer and the cleanup

	ctx    context.Context
	limits limits
	redact func(s string, extra ...string) string
	src    *sse.Reader
	next   func() (sse.Event, error, bool)

	scan  jsonscan.Scanner // decodeFast's
	cur   Event
	err   error
	index int  // events decoded so far
	done  bool // Next returns false from now on

	acc assembly

	// obs reports the events and the end to the call's observer
	// (threads.WithObserver); never called with mu held.
	obs core.Observation

	cleanup runtime.Cleanup
}

// limits are the settings a Stream honours (core.Limits' stream part).
type limits struct {
	maxEventSize int
	idleTimeout  time.Duration
}

// streamConn is what Close, Cancel, the idle timer and the garbage
// collector's cleanup share with Next. It holds no reference to its
// Stream, so a dropped Stream can become unreachable while its connection
// is open.
type streamConn struct {
	body io.ReadCloser

	mu       sync.Mutex // guards the fields below
	closed   bool       // Close was called or the stream ended
	running  bool       // Next is inside the parser
	idle     bool       // the idle timer fired
	timer    *time.Timer
	stop     func() // ends the pull iterator
	once     sync.Once
	threadID string
	runID    string
	outcome  Outcome
	ended    bool // the run's terminal event was read
	drain    bool // what follows the terminal event is still to be read (drainNow)
	draining bool // Next is reading it
	// cancelled: Cancel's DELETE was accepted: the run is reported
	// cancelled whichever event ends it.
	cancelled bool
	cancel    func(ctx context.Context, threadID, runID string) error
}

// Default bounds of what a Stream keeps for Collect.
const (
	maxItems    = 1024
	maxRetained = 64 << 20
	maxErrText  = 1 << 10 // runes of a RUN_ERROR message
)

var errZeroStream = errors.New("runs: Stream not returned by the SDK (zero or nil)")

// newStream reads a run's events from body. threadID and runID are the
// response's X-Thread-Id and X-Run-Id, when sent; cancel, when not nil,
// is what Stream.Cancel calls.
func newStream(ctx context.Context, body io.ReadCloser, l limits, redact func(string, ...string) string, threadID, runID string) *Stream {
	if l.maxEventSize <= 0 {
		l.maxEventSize = 16 << 20 // threads' default (WithMaxEventSize)
	}
	if redact == nil {
		redact = func(s string, _ ...string) string { return s }
	}
	s := &Stream{streamConn: &streamConn{body: body, threadID: threadID, runID: runID}, ctx: ctx, limits: l, redact: redact, obs: noObservation{}}
	s.src = sse.New(body, l.maxEventSize)
	s.cleanup = runtime.AddCleanup(s, (*streamConn).abandon, s.streamConn)
	return s
}

// noObservation is the observation of a Stream made without one.
type noObservation struct{}

func (noObservation) Event()        {}
func (noObservation) ToolRound(int) {}
func (noObservation) Leave()        {}
func (noObservation) End(error)     {}

func (c *streamConn) closeBody() { c.once.Do(func() { c.body.Close() }) }

func (c *streamConn) idleFired() {
	c.mu.Lock()
	c.idle = true
	c.mu.Unlock()
	c.closeBody()
}

// abandon releases a Stream that became unreachable without Close.
func (c *streamConn) abandon() {
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.stopParserLocked()
	c.mu.Unlock()
	c.closeBody()
}

func (c *streamConn) stopParserLocked() {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
}

// Next advances to the next event, which Current then returns. It returns
// false after the run's terminal event (RUN_FINISHED or RUN_ERROR, which
// Next does deliver) or on failure; Err tells which. It blocks until an
// event's bytes have arrived, and no longer; except that the Next after
// the run's terminal event reads what the server sends after it (normally
// nothing but the body's end) for at most 100 ms, so that the connection
// can be reused.
func (s *Stream) Next() bool {
	if s == nil || s.streamConn == nil {
		if s != nil && s.err == nil {
			s.err, s.done = errZeroStream, true
		}
		return false
	}
	arm := true
	for !s.done {
		if !s.enter(true, arm) {
			s.finish(nil, true)
			return false
		}
		arm = false
		ev, err, ok := s.next()
		if s.step(ev, err, ok) {
			return true
		}
	}
	s.cur = nil
	s.drainNow()
	return false
}

// enter marks the parser as running, unless the stream was closed. pull
// makes the pull iterator on first use; arm starts the idle clock.
func (s *Stream) enter(pull, arm bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if pull && s.next == nil {
		s.next, s.stop = iter.Pull2(s.src.All())
	}
	s.running = true
	// The clock runs while the caller waits for an event, not while it
	// works on the previous one.
	if d := s.limits.idleTimeout; d > 0 && arm {
		if s.timer == nil {
			s.timer = time.AfterFunc(d, s.idleFired)
		} else {
			s.timer.Reset(d)
		}
	}
	return true
}

// step handles one result of the parser (ok is false when it ended). It
// reports whether s.cur holds a new event; when the stream is over it has
// set s.done and s.err.
func (s *Stream) step(ev sse.Event, err error, ok bool) bool {
	s.mu.Lock()
	s.running = false
	closed, idle := s.closed, s.idle
	s.mu.Unlock()

	switch {
	case closed:
		s.finish(nil, true)
	case idle:
		s.finish(fmt.Errorf("%w: no event for %v", threads.ErrStreamIdle, s.limits.idleTimeout), true)
	case !ok:
		s.finish(s.readFailure(io.ErrUnexpectedEOF), false)
	case err != nil:
		s.finish(s.readFailure(err), false)
	case ev.Data == "" || ev.Type == sse.ErrorEvent:
		// An event without data, or an "error:" line, which the /v1
		// routes never send and the SSE standard ignores.
	default:
		e, ok := decodeFast(&s.scan, ev.Data)
		if !ok {
			e, err = decodeEvent(bytesOf(ev.Data))
		}
		if err != nil {
			s.finish(fmt.Errorf("%w: event %d: %w", threads.ErrStreamFailed, s.index, err), true)
			return false
		}
		s.index++
		s.stopTimer()
		s.obs.Event()
		s.cur = s.apply(e)
		return true
	}
	return false
}

func (s *Stream) stopTimer() {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
}

// apply records what e says and returns it as the caller sees it. A
// terminal event ends the stream here (Next still delivers it).
func (s *Stream) apply(e Event) Event {
	a := &s.acc
	a.other(e) // reasoning, message ends and parents: assembly.go
	switch e := e.(type) {
	case TextMessageContent:
		a.text(e.MessageID, e.Delta)
	case ToolCallArgs:
		a.args(e.ToolCallID, e.Delta)
	case RunStarted:
		s.mu.Lock()
		if s.threadID == "" {
			s.threadID = e.ThreadID
		}
		if s.runID == "" {
			s.runID = e.RunID
		}
		s.mu.Unlock()
	case TextMessageStart:
		a.message(e.MessageID, e.Role, e.Timestamp)
	case ToolCallStart:
		a.call(e.ToolCallID, e.ToolCallName, e.ParentMessageID)
	case AwaitingInput:
		if len(e.PendingToolCalls) > maxItems {
			a.incomplete = true
		}
		a.pending = e.PendingToolCalls[:min(len(e.PendingToolCalls), maxItems)]
	case ComponentStart:
		a.component(e.ComponentID, e.ComponentName, e.MessageID)
	case ComponentPropsDelta:
		a.patch(e.ComponentID, e.Operations)
	case ComponentEnd:
		a.final(e.ComponentID, e.FinalProps, e.FinalState)
	case RunFinished:
		o := OutcomeFinished
		if len(a.pending) > 0 {
			o = OutcomeAwaitingTools
		}
		s.end(o, nil)
	case RunErrorEvent:
		e.Message = s.clean(e.Message)
		if e.Code == CodeCancelled {
			s.end(OutcomeCancelled, nil)
			break
		}
		s.mu.Lock()
		// The ids are server text too (X-Run-Id, RUN_STARTED): cleaned like
		// the message, since Error shows them.
		f := &RunFailedError{ThreadID: s.clean(s.threadID), RunID: s.clean(s.runID), Message: e.Message, Code: s.clean(e.Code), Category: s.clean(e.Category), Retryable: e.Retryable, Status: e.Status}
		s.mu.Unlock()
		s.end(OutcomeFailed, f)
		return e
	}
	return e
}

// end records the run's end and releases the connection, reading what
// follows (the duplicate RUN_ERROR, the end of the chunked body) in the
// background for at most 100 ms so that the connection can be reused.
func (s *Stream) end(o Outcome, failure *RunFailedError) {
	s.mu.Lock()
	s.ended = true
	if s.cancelled {
		o, failure = OutcomeCancelled, nil
	}
	s.outcome = o
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.stopParserLocked() // Next is not inside the parser: apply runs after it
	s.mu.Unlock()
	s.done = true
	if failure != nil {
		s.err = failure
		s.obs.End(failure)
	} else {
		s.obs.End(nil)
	}
	if s.src.Ended() {
		s.cleanup.Stop()
		s.closeBody() // the body already ended: its connection is free
		return
	}
	// What follows the terminal event (normally just the end of the body,
	// or the duplicate RUN_ERROR) is read by the Next that returns false
	// after it, or in the background by Close: see drain. A goroutine per
	// stream here was a fifth of the time of a short run's stream.
	s.mu.Lock()
	s.drain = true
	s.mu.Unlock()
}

// drainNow reads what follows the run's terminal event, for the Next that
// returns false after it: at most 64 KiB for at most 100 ms (Close, from
// any goroutine, ends it at once), so that the connection can be reused,
// then closes the body.
func (s *Stream) drainNow() {
	s.mu.Lock()
	drain := s.drain
	s.drain, s.draining = false, drain
	s.mu.Unlock()
	if drain {
		s.cleanup.Stop()
		s.streamConn.drainAndClose()
	}
}

func (c *streamConn) drainAndClose() {
	t := time.AfterFunc(100*time.Millisecond, c.closeBody)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, c.body, 64<<10)
	c.closeBody()
}

// finish ends the stream before the run's end. byClient says the client
// is the one closing the connection (Close, the context, the idle timeout,
// an event it could not read): the service then cancels the run.
func (s *Stream) finish(err error, byClient bool) {
	// The caller left: Close (err nil) or its context; not the idle
	// timeout or an unreadable event, which end the stream by the client
	// too but are failures (CallEnd.Left, as package threads reports it).
	callerLeft := byClient && err == nil
	if ctxErr := s.ctx.Err(); ctxErr != nil && err != nil {
		err, byClient, callerLeft = ctxErr, true, true
	}
	s.done, s.err, s.cur = true, err, nil
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.stopParserLocked()
	left := !s.ended && callerLeft
	if !s.ended && (byClient || s.cancelled) {
		s.outcome = OutcomeCancelled
	}
	s.mu.Unlock()
	s.cleanup.Stop()
	if left {
		s.obs.Leave()
	}
	s.obs.End(err)
	s.closeBody()
}

// readFailure maps a parser or body error to the stream's error.
func (s *Stream) readFailure(err error) error {
	if errors.Is(err, sse.ErrTooLarge) {
		return fmt.Errorf("%w (%d bytes)", threads.ErrEventTooLarge, s.limits.maxEventSize)
	}
	return fmt.Errorf("%w: the run's stream ended before RUN_FINISHED or RUN_ERROR: %w", threads.ErrStreamTruncated, err)
}

// clean makes server text safe for an error string: the API key (every
// spelling) redacted, then one line of printable text of at most
// maxErrText runes. Only a bounded prefix is looked at.
func (s *Stream) clean(text string) string {
	if text == "" {
		return ""
	}
	if len(text) > 16*maxErrText {
		text = text[:16*maxErrText]
	}
	text = strings.TrimSpace(termtext.Line(s.redact(text)))
	if utf8.RuneCountInString(text) > maxErrText {
		n := 0
		for i := range text {
			if n == maxErrText {
				text = text[:i] + "…"
				break
			}
			n++
		}
	}
	return text
}

// Current returns the event that the last successful Next read; nil
// before the first and after the end.
func (s *Stream) Current() Event {
	if s == nil {
		return nil
	}
	return s.cur
}

// Err returns why the stream ended: nil after RUN_FINISHED, after a
// cancelled run's RUN_ERROR, and after Close; a [*RunFailedError] after a
// failure's RUN_ERROR; the context's error when it ended; or an error
// matching [threads.ErrStreamTruncated] (the stream ended before the run's
// end; also io.ErrUnexpectedEOF or the read error),
// [threads.ErrEventTooLarge], [threads.ErrStreamIdle] or
// [threads.ErrStreamFailed] (an event that is not an AG-UI event; the
// error names its index, never its content). No error holds the API key.
func (s *Stream) Err() error {
	if s == nil {
		return errZeroStream
	}
	return s.err
}

// Close releases the connection at once; a Next blocked in a read returns
// false. Before the run's end this cancels the run on the service, which
// sees the connection close. It is idempotent, safe from any goroutine,
// and returns nil, also on a nil *Stream.
func (s *Stream) Close() error {
	if s == nil || s.streamConn == nil {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		drain, draining := s.drain, s.draining
		s.drain = false
		s.mu.Unlock()
		switch {
		case drain:
			// The run has ended and no Next read what follows: read it
			// in the background so that Close returns at once.
			s.cleanup.Stop()
			go s.streamConn.drainAndClose()
		case draining:
			s.closeBody() // ends Next's drain now
		}
		return nil
	}
	s.closed = true
	left := !s.ended
	if left {
		s.outcome = OutcomeCancelled
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	if !s.running {
		s.stopParserLocked()
	}
	s.mu.Unlock()
	if left {
		s.obs.Leave()
	}
	s.obs.End(nil)
	s.closeBody()
	return nil
}

// Cancel asks the service to cancel the run (DELETE
// /v1/threads/{threadId}/runs/{runId}) and lets the stream read on to the
// run's end, so that the events the service sends until it stops are
// still delivered. Once the service accepted, the run is reported
// [OutcomeCancelled] whichever event ends it (depending on timing the
// service may end a cancelled run with RUN_FINISHED). A run that has
// already ended is not cancelled and Cancel returns nil; so does a 404
// from the service (the run ended meanwhile). Other errors are the
// DELETE's. Safe from any goroutine.
func (s *Stream) Cancel(ctx context.Context) error {
	if s == nil || s.streamConn == nil {
		return errZeroStream
	}
	s.mu.Lock()
	ended, threadID, runID, cancel := s.ended, s.threadID, s.runID, s.cancel
	s.mu.Unlock()
	if ended {
		return nil
	}
	if cancel == nil {
		return errors.New("runs: Stream.Cancel: this stream was not made by a Client's run call")
	}
	if threadID == "" || runID == "" {
		return errors.New("runs: Stream.Cancel: the run's thread or run id is not known yet")
	}
	if err := cancel(ctx, threadID, runID); err != nil {
		if errors.Is(err, threads.ErrNotFound) {
			return nil
		}
		return err
	}
	s.mu.Lock()
	s.cancelled = true
	if s.ended {
		// The DELETE found the run active, though the stream had already
		// read its RUN_FINISHED: the service cancelled it all the same.
		s.outcome = OutcomeCancelled
	}
	s.mu.Unlock()
	return nil
}

// Outcome returns how the run ended, [OutcomeUnknown] until the stream
// knows. Safe from any goroutine.
func (s *Stream) Outcome() Outcome {
	if s == nil || s.streamConn == nil {
		return OutcomeUnknown
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outcome
}

// ThreadID returns the run's thread: the X-Thread-Id header of a run that
// created its thread, else the thread the run was started on, else
// RUN_STARTED's. Safe from any goroutine.
func (s *Stream) ThreadID() string {
	if s == nil || s.streamConn == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threadID
}

// RunID returns the run's id: the X-Run-Id header, else RUN_STARTED's.
// Safe from any goroutine.
func (s *Stream) RunID() string {
	if s == nil || s.streamConn == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runID
}

// All returns an iterator over the stream's events. A failure is yielded
// once, as the last element, with a nil Event. Breaking out of the loop
// closes the stream (cancelling the run if it has not ended).
func (s *Stream) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		defer s.Close()
		if s != nil && s.streamConn != nil && s.next == nil {
			if !s.push(yield) {
				return
			}
		}
		for s.Next() {
			if !yield(s.Current(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// push runs go-sse's iterator directly, without the coroutine that the
// pull form needs. It reports false when the caller said stop.
func (s *Stream) push(yield func(Event, error) bool) bool {
	if s.done || !s.enter(false, true) {
		return true
	}
	for ev, err := range s.src.All() {
		if s.step(ev, err, true) {
			if !yield(s.cur, nil) {
				return false
			}
			if s.done || !s.enter(false, true) {
				return true
			}
			continue
		}
		if s.done || !s.enter(false, false) {
			return true
		}
	}
	s.step(sse.Event{}, nil, false)
	return true
}

// Text returns the text streamed so far for message id (the concatenated
// deltas), and whether the stream kept it.
func (s *Stream) Text(messageID string) (string, bool) {
	if s == nil {
		return "", false
	}
	i, ok := s.acc.byMsg[messageID]
	if !ok {
		return "", false
	}
	return string(s.acc.msgs[i].text), true
}

// ComponentProps returns a copy of the props of component id as its
// events built them: the JSON Patches applied in order, then the final
// props of tambo.component.end, which replace them. It reports false for
// a component the stream did not see or did not keep. A patch operation
// that does not apply (or a "copy", which the stream refuses) leaves the
// props as the operations before it in that event left them.
func (s *Stream) ComponentProps(id string) (map[string]any, bool) {
	if s == nil {
		return nil, false
	}
	i, ok := s.acc.byComp[id]
	if !ok || s.acc.comps[i].dropped {
		return nil, false
	}
	m, _ := cloneValue(s.acc.comps[i].props).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, true
}

// Collect reads the stream to the run's end, closes it, and returns what
// the run produced with the stream's error (as [Stream.Err]). The Result
// is never nil: after a failure it holds what was read before it.
func (s *Stream) Collect() (*Result, error) {
	if s == nil || s.streamConn == nil {
		return &Result{}, errZeroStream
	}
	if s.next == nil {
		// No Next yet: run the parser directly, without the coroutine
		// that the pull form needs.
		s.push(func(Event, error) bool { return true })
	}
	for s.Next() {
	}
	s.Close()
	return s.result(), s.Err()
}

// Result is what a run produced, as its stream told it.
type Result struct {
	ThreadID, RunID string
	Outcome         Outcome
	// Messages are the run's assistant messages in the order they
	// started: ID (the stored msg_… id), Role, CreatedAt (the
	// TEXT_MESSAGE_START time), and Content: a text part with the
	// message's streamed text, when it had any, then a component part
	// (ID, Name, Props) per component rendered in it; ParentMessageID
	// when tambo.message.parent named one.
	Messages []Message
	// Reasoning is the model's reasoning, per message, kept apart from
	// the messages' text (which never includes it).
	Reasoning []Reasoning
	// ToolCalls are the client tool calls the run made, in order, with
	// their arguments as the model wrote them (JSON text).
	ToolCalls []ToolCall
	// PendingToolCalls, for OutcomeAwaitingTools, are the calls whose
	// results the next run must carry.
	PendingToolCalls []PendingToolCall
	// Failure is the RUN_ERROR of OutcomeFailed.
	Failure *RunFailedError
	// Incomplete is set when the stream kept less than it delivered (see
	// the bounds on [Stream]).
	Incomplete bool
}

// ToolCall is a client tool call as the run streamed it.
type ToolCall struct {
	ID, Name string
	// Arguments is the JSON text of the arguments (the TOOL_CALL_ARGS
	// deltas joined).
	Arguments string
	// ParentMessageID is the service's temporary id for the message the
	// call came with, when text preceded it.
	ParentMessageID string
}

func (s *Stream) result() *Result {
	s.mu.Lock()
	r := &Result{ThreadID: s.threadID, RunID: s.runID, Outcome: s.outcome}
	s.mu.Unlock()
	var f *RunFailedError
	if errors.As(s.err, &f) && r.Outcome == OutcomeFailed {
		r.Failure = f
	}
	a := &s.acc
	r.Incomplete = a.incomplete
	r.PendingToolCalls = append([]PendingToolCall(nil), a.pending...)
	for _, m := range a.msgs {
		msg := Message{ID: m.id, Role: Role(m.role), CreatedAt: m.created, ParentMessageID: m.parent}
		if len(m.text) > 0 {
			msg.Content = append(msg.Content, Text(string(m.text)))
		}
		for _, ci := range m.comps {
			msg.Content = append(msg.Content, a.comps[ci].content())
		}
		r.Messages = append(r.Messages, msg)
	}
	r.Reasoning = a.reasoning()
	for _, c := range a.calls {
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args), ParentMessageID: c.parent})
	}
	return r
}
