package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/jsonscan"
	"github.com/threadsapi/threads-go/internal/sse"
	"github.com/threadsapi/threads-go/internal/stream"
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
	// route from elsewhere ([Client.Cancel], another client), or because
	// this client closed the connection before the run's end
	// ([Stream.Close], the context, the idle timeout, a failure to read an
	// event), which makes the service cancel it.
	//
	// A cancel from elsewhere ends the stream with RUN_ERROR CANCELLED, or
	// sometimes with a plain RUN_FINISHED that comes while a text message
	// is still open (no TEXT_MESSAGE_END), which a finished run never
	// sends: both read as cancelled, with no error and no extra request.
	// Where the stream cannot tell (a cancel that lands after the run's
	// last message ended, then RUN_FINISHED), the run reads as finished;
	// the thread says so ([Thread].LastRunCancelled, [Message].IsCancelled).
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
// call Collect for the whole reply. The stream assembles each message's
// text, each tool call's arguments, each component's props
// ([Stream.ComponentProps]) and the run's [Outcome], in bounded memory
// (the package doc's "Streams"). Closing it, or ending the call's context,
// before the run's end cancels the run on the service; [Stream.Cancel]
// cancels it and reads on to its end.
//
// A Stream is not safe for concurrent use, except Close, Cancel, Outcome,
// ThreadID and RunID, which may be called from any goroutine, also while
// Next blocks. Its counterpart on the spec's routes is [threads.Stream].
type Stream struct {
	// eng is the connection and its state: Next, Close, the idle timer, the
	// drain after the run's end, the observer's hooks (internal/stream).
	// The zero Engine is a zero Stream's.
	eng    stream.Engine
	run    *runState // shared with Close, Cancel, Outcome, ThreadID, RunID; nil in a zero Stream
	limits limits
	redact func(s string, extra ...string) string

	scan jsonscan.Scanner // decodeFast's
	cur  Event
	raw  string // the data of the event decoded last (EventJSON, eventjson.go)
	// refused is set when the stream ended on an event it could not
	// decode, whose data raw keeps (EventJSON).
	refused bool
	index   int      // events decoded so far
	open    openText // text messages started and not ended

	acc assembly
}

// runState is what the run's end, Cancel, Close and the accessors share,
// from any goroutine.
type runState struct {
	mu       sync.Mutex // guards the fields below
	threadID string
	runID    string
	outcome  Outcome
	ended    bool // the run's terminal event was read
	// cancelled: Cancel was called (its DELETE sent, then accepted): the
	// run is reported cancelled whichever event ends it.
	cancelled bool
	// stored: CheckCancelled read the thread, which says this run was
	// cancelled: the run's end as the service stored it.
	stored bool
	cancel func(ctx context.Context, threadID, runID string) error
	thread func(ctx context.Context, threadID string) (*ThreadWithMessages, error)
}

// limits are the settings a Stream honours (core.Limits' stream part).
type limits struct {
	maxEventSize int
	idleTimeout  time.Duration
}

// Default bounds of what a Stream keeps for Collect.
const (
	maxItems    = 1024
	maxRetained = 64 << 20
	maxErrText  = 1 << 10 // runes of a RUN_ERROR message
)

var errZeroStream = errors.New("runs: Stream not returned by the SDK (zero or nil)")

// newStream reads a run's events from body. threadID and runID are the
// response's X-Thread-Id and X-Run-Id, when sent. The caller then sets
// the call's observation (s.eng.Observe) and what Stream.Cancel calls
// (s.run.cancel), if any.
func newStream(ctx context.Context, body io.ReadCloser, l limits, redact func(string, ...string) string, threadID, runID string) *Stream {
	if l.maxEventSize <= 0 {
		l.maxEventSize = 16 << 20 // threads' default (WithMaxEventSize)
	}
	if redact == nil {
		redact = func(s string, _ ...string) string { return s }
	}
	// The ids come from the server (headers, RUN_STARTED) and reach the
	// caller's logs and a relay's headers: they are kept redacted, as
	// every other server text is.
	s := &Stream{run: &runState{threadID: redact(threadID), runID: redact(runID)}, limits: l, redact: redact}
	stream.Start(&s.eng, ctx, body, (*runEvents)(s), stream.Config{MaxEventSize: l.maxEventSize, IdleTimeout: l.idleTimeout})
	return s
}

// runEvents is a Stream as the engine sees it: the decoder of its events
// (internal/stream's Decoder, whose methods a Stream does not show).
type runEvents Stream

// Decode reads one AG-UI event and records what it says.
func (d *runEvents) Decode(ev sse.Event) (stream.Verdict, error) {
	s := (*Stream)(d)
	if ev.Data == "" || ev.Type == sse.ErrorEvent {
		// An event without data, or an "error:" line, which the /v1
		// routes never send and the SSE standard ignores.
		return stream.Skip, nil
	}
	s.raw = ev.Data
	e, ok := decodeFast(&s.scan, ev.Data)
	var err error
	if !ok {
		e, err = decodeEvent(bytesOf(ev.Data))
	}
	if err != nil {
		s.refused = true // EventJSON keeps the event's JSON
		return stream.Refused, fmt.Errorf("%w: event %d: %w", threads.ErrStreamFailed, s.index, err)
	}
	s.index++
	return s.apply(e)
}

// ReadFailure maps a parser or body error to the stream's error.
func (d *runEvents) ReadFailure(err error) error {
	if errors.Is(err, sse.ErrTooLarge) {
		return fmt.Errorf("%w (%d bytes)", threads.ErrEventTooLarge, d.limits.maxEventSize)
	}
	return fmt.Errorf("%w: the run's stream ended before RUN_FINISHED or RUN_ERROR: %w", threads.ErrStreamTruncated, err)
}

// IdleFailure is the error of a stream the idle timer ended.
func (d *runEvents) IdleFailure() error {
	return fmt.Errorf("%w: no event for %v", threads.ErrStreamIdle, d.limits.idleTimeout)
}

// Ended records a run left before its end as cancelled: the client closed
// the connection (Close, the context, the idle timeout, an event it could
// not read), which makes the service cancel it; or Cancel was accepted.
func (d *runEvents) Ended(how stream.End, _ error) {
	if how == stream.Clean {
		return // the terminal event recorded the outcome (end)
	}
	r := d.run
	r.mu.Lock()
	if !r.ended && (how == stream.ByClient || r.cancelled) {
		r.outcome = OutcomeCancelled
	}
	r.mu.Unlock()
}

// Next advances to the next event, which Current then returns. It returns
// false after the run's terminal event (RUN_FINISHED or RUN_ERROR, which
// Next does deliver) or on failure; Err tells which. It blocks until an
// event's bytes have arrived, and no longer; except that the Next after
// the run's terminal event reads what the server sends after it (normally
// nothing but the body's end) for at most 100 ms, so that the connection
// can be reused.
func (s *Stream) Next() bool {
	if s == nil {
		return false
	}
	ok := s.eng.Next()
	if !ok {
		s.cur = nil
	}
	return ok
}

// Buffered reports whether the next event (or the stream's end) has
// already arrived, so that Next will return it without waiting for the
// network. A relay uses it to write the events that have arrived as one
// batch, and to flush only when Next would wait ([proxy.Relay]).
func (s *Stream) Buffered() bool {
	return s == nil || s.eng.Buffered()
}

// engine is s's engine; nil for a nil Stream (whose methods work, as a
// zero Stream's).
func (s *Stream) engine() *stream.Engine {
	if s == nil {
		return nil
	}
	return &s.eng
}

// nextRun makes s read next's run after its own, which ended cleanly: a
// tool stream's next run, a call of its own whose events follow on s.
// next's body, ids, observation and cancel hook become s's, and what s kept
// of its run is dropped (the tool stream took its Result). It reports false
// when s was closed meanwhile: next's body is then closed, which cancels
// its run on the service.
func (s *Stream) nextRun(next *Stream, held int64) bool {
	n := next.run
	n.mu.Lock()
	threadID, runID, cancel, thread := n.threadID, n.runID, n.cancel, n.thread
	n.mu.Unlock()
	if !s.eng.Continue(next.eng.Detach()) {
		return false
	}
	r := s.run
	r.mu.Lock()
	if threadID != "" {
		r.threadID = threadID
	}
	r.runID, r.cancel, r.thread = runID, cancel, thread
	r.outcome, r.ended, r.cancelled, r.stored = OutcomeUnknown, false, false, false
	r.mu.Unlock()
	// held: what the caller keeps of the runs before, so that all the
	// runs of a tool stream share one budget (maxRetained).
	s.cur, s.index, s.open, s.acc = nil, 0, openText{}, assembly{retained: held, base: held}
	return true
}

// apply records what e says and makes it the current event. A terminal
// event ends the stream (Next still delivers it).
func (s *Stream) apply(e Event) (stream.Verdict, error) {
	a := &s.acc
	a.chunk(e) // AG-UI's chunk events: assembly.go
	a.other(e) // reasoning, message ends and parents
	switch e := e.(type) {
	case TextMessageContent:
		a.text(e.MessageID, e.Delta)
	case ToolCallArgs:
		a.args(e.ToolCallID, e.Delta)
	case RunStarted:
		r := s.run
		r.mu.Lock()
		if r.threadID == "" {
			r.threadID = s.redact(e.ThreadID)
		}
		if r.runID == "" {
			r.runID = s.redact(e.RunID)
		}
		r.mu.Unlock()
	case TextMessageStart:
		a.message(e.MessageID, e.Role, e.Timestamp)
		s.open.start(e.MessageID)
	case TextMessageEnd:
		s.open.end(e.MessageID)
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
		s.cur = e
		s.usage(e.Usage)
		o := OutcomeFinished
		switch {
		case e.Ending != nil && e.Ending.Outcome == EndingCancelled:
			o = OutcomeCancelled // AG-UI 1.0's cancelled outcome
		case s.open.any():
			// A finished run ends every text message it started: this
			// RUN_FINISHED ends a run cancelled from elsewhere, as the
			// service sometimes does (captures-turn4 26; its thread then
			// says lastRunCancelled).
			o = OutcomeCancelled
		case len(a.pending) > 0:
			o = OutcomeAwaitingTools
		}
		s.end(o)
		return stream.DeliverLast, nil
	case RunErrorEvent:
		e.Message = s.clean(e.Message)
		s.cur = e
		s.usage(e.Usage)
		if e.Code == CodeCancelled {
			s.end(OutcomeCancelled)
			return stream.DeliverLast, nil
		}
		r := s.run
		r.mu.Lock()
		// The ids are server text too (X-Run-Id, RUN_STARTED): cleaned like
		// the message, since Error shows them.
		f := &RunFailedError{ThreadID: s.clean(r.threadID), RunID: s.clean(r.runID), Message: e.Message, Code: s.clean(e.Code), Category: s.clean(e.Category), Retryable: e.Retryable, Status: e.Status}
		r.mu.Unlock()
		if s.end(OutcomeFailed) != OutcomeFailed {
			return stream.DeliverLast, nil // Cancel was accepted: a cancel, not a failure
		}
		return stream.DeliverLast, f
	}
	s.cur = e
	return stream.Deliver, nil
}

// end records the run's end, with outcome o unless Cancel was accepted
// (then cancelled), and returns the outcome recorded.
func (s *Stream) end(o Outcome) Outcome {
	r := s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	if r.cancelled {
		o = OutcomeCancelled
	}
	r.outcome = o
	return o
}

// openText is the text messages the run started and has not ended
// (TEXT_MESSAGE_START without its TEXT_MESSAGE_END), kept as hashes of
// their ids: at most a few at once (a run streams one message at a time),
// so that a flood of ids costs nothing. One past that is not kept, so the
// check can miss a cancel in such a run but never reports one that was
// not: a finished run ends every message it started.
type openText struct {
	ids [4]uint64
	n   int
}

func (o *openText) start(id string) {
	if o.n < len(o.ids) {
		o.ids[o.n] = idHash(id)
		o.n++
	}
}

func (o *openText) end(id string) {
	h := idHash(id)
	for i := range o.ids[:o.n] {
		if o.ids[i] == h {
			o.n--
			o.ids[i] = o.ids[o.n]
			return
		}
	}
}

func (o *openText) any() bool { return o.n > 0 }

// idHash is FNV-1a: a server that makes two ids collide can only hide a
// cancel from the check, which the thread then still tells.
func idHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
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

// Close releases the connection at once; a Next blocked in a read returns
// false. Before the run's end this cancels the run on the service, which
// sees the connection close. After the run's end, unless a Next did, Close
// first reads what the server still sends (normally only the end of the
// body) for at most 100 ms, so that the connection can be reused. It is
// idempotent, safe from any goroutine, and returns nil, also on a nil
// *Stream.
func (s *Stream) Close() error {
	s.engine().Close()
	return nil
}

// Cancel asks the service to cancel the run (DELETE
// /v1/threads/{threadId}/runs/{runId}) and lets the stream read on to the
// run's end, so that the events the service sends until it stops are
// still delivered. From the moment Cancel is called, the run is reported
// [OutcomeCancelled] whichever event ends it: the service ends a cancelled
// run with RUN_ERROR CANCELLED, or, when the cancel meets the run's end,
// with RUN_FINISHED or RUN_ERROR INTERNAL_ERROR. A run that has already
// ended is not cancelled and Cancel returns nil; so does a 404 from the
// service (the run ended meanwhile). Other errors are the DELETE's (the
// run is then reported as it ends, unless it ended while the DELETE was
// under way). The DELETE is re-sent once after a 500 (see
// [Client.Cancel]). Safe from any goroutine.
func (s *Stream) Cancel(ctx context.Context) error {
	if s == nil || s.run == nil {
		return errZeroStream
	}
	r := s.run
	r.mu.Lock()
	ended, threadID, runID, cancel := r.ended, r.threadID, r.runID, r.cancel
	if !ended && cancel != nil && threadID != "" && runID != "" {
		r.cancelled = true // an end that comes while the DELETE is under way is the cancel's
	}
	r.mu.Unlock()
	if ended {
		return nil
	}
	if cancel == nil {
		return errors.New("runs: Stream.Cancel: this stream was not made by a Client's run call")
	}
	if threadID == "" || runID == "" {
		return errors.New("runs: Stream.Cancel: the run's thread or run id is not known yet")
	}
	err := cancel(ctx, threadID, runID)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil:
		if r.ended {
			// The DELETE found the run active, though the stream had
			// already read its end: the service cancelled it all the same.
			r.outcome = OutcomeCancelled
		}
		return nil
	case errors.Is(err, threads.ErrNotFound):
		if !r.ended {
			r.cancelled = false // the run ended before the DELETE: its end is its own
		}
		return nil
	}
	if !r.ended {
		r.cancelled = false
	}
	return err
}

// CodeInternalError is the RUN_ERROR code of a run the service failed
// itself; a cancel that meets the run's end can end it so too (see
// [Stream.CheckCancelled]).
const CodeInternalError = "INTERNAL_ERROR"

// CheckCancelled reads the thread once (GET /v1/threads/{threadId}) after
// a run that ended with RUN_FINISHED or RUN_ERROR INTERNAL_ERROR, ends
// that may hide a cancel from elsewhere: a cancel that meets the run's end
// can make the service end the run so while it stores the run as
// cancelled. When the thread says so (lastRunCancelled, this run its last
// completed run), the stream reports [OutcomeCancelled] from then on and
// Err nil, and CheckCancelled returns true. Without that evidence the
// run's end stands (an INTERNAL_ERROR stays a failure). Any other end, or
// a run not ended yet, sends nothing and returns false. It is opt-in: the
// command line calls it after every such run.
func (s *Stream) CheckCancelled(ctx context.Context) (bool, error) {
	if s == nil || s.run == nil {
		return false, errZeroStream
	}
	r := s.run
	r.mu.Lock()
	ended, outcome, threadID, runID, thread := r.ended, r.outcome, r.threadID, r.runID, r.thread
	r.mu.Unlock()
	if !ended || thread == nil || threadID == "" || runID == "" {
		return false, nil
	}
	switch outcome {
	case OutcomeFinished, OutcomeAwaitingTools: // RUN_FINISHED
	case OutcomeFailed:
		var f *RunFailedError
		if !errors.As(s.engine().Err(errZeroStream), &f) || f.Code != CodeInternalError {
			return false, nil
		}
	default:
		return outcome == OutcomeCancelled, nil
	}
	th, err := thread(ctx, threadID)
	if err != nil {
		return false, err
	}
	if !th.LastRunCancelled || th.LastCompletedRunID != runID {
		return false, nil
	}
	r.mu.Lock()
	r.outcome, r.stored = OutcomeCancelled, true
	r.mu.Unlock()
	return true, nil
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
	if s != nil && s.run != nil {
		s.run.mu.Lock()
		stored := s.run.stored
		s.run.mu.Unlock()
		if stored {
			return nil // CheckCancelled: a cancel, not a failure
		}
	}
	return s.engine().Err(errZeroStream)
}

// Outcome returns how the run ended, [OutcomeUnknown] until the stream
// knows. Safe from any goroutine.
func (s *Stream) Outcome() Outcome {
	if s == nil || s.run == nil {
		return OutcomeUnknown
	}
	s.run.mu.Lock()
	defer s.run.mu.Unlock()
	return s.run.outcome
}

// ThreadID returns the run's thread: the X-Thread-Id header of a run that
// created its thread, else the thread the run was started on, else
// RUN_STARTED's. Safe from any goroutine.
func (s *Stream) ThreadID() string {
	if s == nil || s.run == nil {
		return ""
	}
	s.run.mu.Lock()
	defer s.run.mu.Unlock()
	return s.run.threadID
}

// RunID returns the run's id: the X-Run-Id header, else RUN_STARTED's.
// Safe from any goroutine.
func (s *Stream) RunID() string {
	if s == nil || s.run == nil {
		return ""
	}
	s.run.mu.Lock()
	defer s.run.mu.Unlock()
	return s.run.runID
}

// All returns an iterator over the stream's events. A failure is yielded
// once, as the last element, with a nil Event. Breaking out of the loop
// closes the stream (cancelling the run if it has not ended).
func (s *Stream) All() iter.Seq2[Event, error] {
	return stream.All(s.engine(), s.Next, s.Current, s.Err)
}

// Format prints "runs.Stream{events:N done:B outcome:O}" whatever the
// verb, for the stream and its value alike: its fields hold the events
// the service sent (which may echo the API key or an end user's token)
// and the redaction function, which a plain %v, %+v or %#v would print.
func (s Stream) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "runs.Stream{events:%d done:%t outcome:%s}", s.index, s.eng.Done(), s.Outcome())
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
	if s == nil || s.eng.Zero() {
		return &Result{}, errZeroStream
	}
	s.eng.Collect(s.Next)
	return s.result(), s.Err()
}

// Result is what a run produced, as its stream told it.
//
// After a cancel ([OutcomeCancelled]) it holds what the stream delivered,
// which may be more than the service stored: the stored message (marked
// [Message].IsCancelled) can lack the last text delta that was streamed
// before the cancel took effect (the live service kept "word0 word1" of a
// stream that delivered "word0 word1 word2 "). Read the thread's messages
// ([Client.ListMessages]) for what the next run's model will see.
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
	ToolCalls []StreamedToolCall
	// PendingToolCalls, for OutcomeAwaitingTools, are the calls whose
	// results the next run must carry.
	PendingToolCalls []PendingToolCall
	// Failure is the RUN_ERROR of OutcomeFailed.
	Failure *RunFailedError
	// Incomplete is set when the stream kept less than it delivered (see
	// the bounds on [Stream]).
	Incomplete bool
	// Usage is the tokens the run spent, as its RUN_FINISHED or RUN_ERROR
	// said (AG-UI 1.0's usage), summed per provider and model; nil when
	// the run said none, as the service does not today.
	Usage []TokenUsage
}

// StreamedToolCall is a client tool call as the run streamed it. It is
// not [threads.ToolCall], what a tool's Call receives in both API
// generations (arguments decoded, the status lines apart).
type StreamedToolCall struct {
	ToolCallID, ToolName string
	// Arguments is the JSON text of the arguments (the TOOL_CALL_ARGS
	// deltas joined).
	Arguments string
	// ParentMessageID is the service's temporary id for the message the
	// call came with, when text preceded it.
	ParentMessageID string
}

func (s *Stream) result() *Result {
	s.run.mu.Lock()
	r := &Result{ThreadID: s.run.threadID, RunID: s.run.runID, Outcome: s.run.outcome}
	s.run.mu.Unlock()
	var f *RunFailedError
	if errors.As(s.Err(), &f) && r.Outcome == OutcomeFailed {
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
	r.Usage = append([]TokenUsage(nil), a.usage...)
	for _, c := range a.calls {
		r.ToolCalls = append(r.ToolCalls, StreamedToolCall{ToolCallID: c.id, ToolName: c.name, Arguments: string(c.args), ParentMessageID: c.parent})
	}
	return r
}

// usage records a run's reported usage: in the Result, and for the call's
// observer (threads.CallEnd.Usage).
func (s *Stream) usage(u []TokenUsage) {
	s.acc.addUsage(u)
	obs := s.eng.Observation()
	for _, t := range u[:min(len(u), maxItems)] {
		obs.Usage(core.TokenUsage{Provider: t.Provider, Model: t.Model, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens,
			TotalTokens: t.TotalTokens, ReasoningTokens: t.ReasoningTokens, CachedInputTokens: t.CachedInputTokens, CacheWrite: t.CacheWriteInputTokens})
	}
}
