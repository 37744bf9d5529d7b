package threads

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"time"
	"unsafe"

	sse "github.com/tmaxmax/go-sse"

	"github.com/threadsapi/threads-go/internal/sseline"
)

// Stream failures, matched with errors.Is against Stream.Err.
var (
	// ErrStreamFailed matches a *StreamError (the service's error: line)
	// and an event whose data is not a snapshot.
	ErrStreamFailed = errors.New("threads: stream failed")
	// ErrStreamTruncated means the stream ended without "data: DONE": the
	// connection was lost. It comes wrapped with io.ErrUnexpectedEOF or the
	// read error.
	ErrStreamTruncated = errors.New("threads: stream ended without DONE")
	// ErrEventTooLarge means one event exceeded WithMaxEventSize.
	ErrEventTooLarge = errors.New("threads: stream event exceeds the size limit")
	// ErrStreamIdle means no event arrived within WithStreamIdleTimeout.
	ErrStreamIdle = errors.New("threads: stream idle timeout")
)

// StreamError is the service's in-band failure: the stream's "error:" line.
// The live service sends no detail ("Error in streaming response"), whatever
// went wrong: a spent quota, a malformed message, a thread that is still
// processing (Cancel it), or a model failure.
type StreamError struct {
	Message string // the text after "error:"
}

// Error returns the service's text.
func (e *StreamError) Error() string { return "threads: stream failed: " + e.Message }

// Is matches ErrStreamFailed.
func (e *StreamError) Is(target error) bool { return target == ErrStreamFailed }

// StreamEvent is one snapshot of a streamed reply.
type StreamEvent struct {
	AdvanceResponse        // the snapshot as sent: ev.Message, ev.GenerationStage, ev.StatusMessage
	TextDelta       string // text added to ev.Message since its previous snapshot in this stream
}

// Stream reads the snapshots of one streamed reply.
//
// Iterate with Next and Current, then check Err; or range over All. Each
// event is a full snapshot of one message (several messages may follow each
// other); TextDelta holds just the new text, so joining a message's deltas
// gives its final text. Messages returns the latest snapshot of each.
//
// A Stream is not safe for concurrent use, except Close, which may be called
// from any goroutine, any number of times, also while Next blocks.
type Stream struct {
	body io.ReadCloser
	ctx  context.Context
	cfg  *config

	events iter.Seq2[sse.Event, error]     // go-sse's parser over the filtered body
	next   func() (sse.Event, error, bool) // pull form of events, made by the first Next
	stop   func()

	cur      StreamEvent
	err      error
	index    int // events decoded so far
	done     bool
	messages []Message
	byID     map[string]int // message id -> index in messages

	mu      sync.Mutex // guards the fields below, shared with Close
	closed  bool
	running bool // Next is inside the parser
	idle    bool // the idle timer fired
	timer   *time.Timer
	once    sync.Once // closes body

	// rounds, when set (by RunStream), continues the stream with further
	// requests: see nextRound. nil for a plain one-request stream.
	rounds streamRounds
}

func newStream(ctx context.Context, body io.ReadCloser, cfg *config) *Stream {
	s := &Stream{body: body, ctx: ctx, cfg: cfg, byID: make(map[string]int, 2)}
	s.events = iter.Seq2[sse.Event, error](sse.Read(sseline.New(body), &sse.ReadConfig{MaxEventSize: cfg.maxEventSize}))
	return s
}

func (s *Stream) idleFired() {
	s.mu.Lock()
	s.idle = true
	s.mu.Unlock()
	s.closeBody()
}

func (s *Stream) closeBody() {
	s.once.Do(func() { s.body.Close() })
}

// Next advances to the next snapshot, which Current then returns. It
// returns false at the end of the stream or on failure; Err tells which.
// It blocks until an event's bytes have arrived, and no longer.
func (s *Stream) Next() bool {
	for !s.done {
		if !s.enter(true) {
			s.finish(nil)
			return false
		}
		ev, err, ok := s.next()
		if s.step(ev, err, ok) {
			return true
		}
	}
	return false
}

// enter marks the parser as running, unless the stream was closed. pull
// makes the pull iterator on first use.
func (s *Stream) enter(pull bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if pull && s.next == nil {
		s.next, s.stop = iter.Pull2(s.events)
	}
	s.running = true
	// The idle clock runs only while the caller waits for an event, not
	// while it works on the previous one.
	if d := s.cfg.idleTimeout; d > 0 {
		if s.timer == nil {
			s.timer = time.AfterFunc(d, s.idleFired)
		} else {
			s.timer.Reset(d)
		}
	}
	return true
}

// step handles one result of the parser (ok is false when it ended). It
// reports whether s.cur holds a new snapshot; when the stream is over it
// has set s.done and s.err.
func (s *Stream) step(ev sse.Event, err error, ok bool) bool {
	s.mu.Lock()
	s.running = false
	closed, idle := s.closed, s.idle
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()

	switch {
	case closed:
		s.finish(nil)
	case idle:
		s.finish(fmt.Errorf("%w: no event for %v", ErrStreamIdle, s.cfg.idleTimeout))
	case !ok:
		s.finish(s.readFailure(io.ErrUnexpectedEOF))
	case err != nil:
		s.finish(s.readFailure(err))
	case ev.Type == sseline.ErrorEvent:
		msg, _, _ := strings.Cut(ev.Data, "\n")
		s.finish(&StreamError{Message: strings.TrimSpace(msg)})
	case ev.Data == "":
		// An event without data, such as a lone id: line.
	case ev.Data == "DONE":
		if s.rounds != nil && s.nextRound() {
			return false // the next round's events follow on this stream
		}
		s.drain()
		s.finish(nil)
	default:
		if err := s.decode(ev.Data); err != nil {
			s.finish(err)
			return false
		}
		return true
	}
	return false
}

// decode parses one snapshot and computes its delta.
func (s *Stream) decode(data string) error {
	var ev StreamEvent
	// json.Unmarshal only reads its input and copies what it keeps, so the
	// event's string can be viewed as bytes without a copy.
	if err := json.Unmarshal(unsafe.Slice(unsafe.StringData(data), len(data)), &ev.AdvanceResponse); err != nil {
		return fmt.Errorf("%w: event %d is not a snapshot (%v): %s", ErrStreamFailed, s.index, err, excerpt([]byte(data), 80))
	}
	s.index++
	text := ev.Message.Text()
	prev := ""
	if id := ev.Message.ID; id != "" {
		if i, ok := s.byID[id]; ok {
			prev = s.messages[i].Text()
			s.messages[i] = ev.Message
		} else {
			s.byID[id] = len(s.messages)
			s.messages = append(s.messages, ev.Message)
		}
	} else {
		// Synthetic snapshots (id "") are never merged with each other.
		s.messages = append(s.messages, ev.Message)
	}
	ev.TextDelta = delta(prev, text)
	s.cur = ev
	return nil
}

// delta returns the text that cur adds to prev. The service opens each
// message with a one-space placeholder and repeats the final text: white
// space alone is "no text yet", and a repeat adds nothing. A snapshot that
// does not extend the previous one is new text as a whole.
func delta(prev, cur string) string {
	if blank(cur) {
		return ""
	}
	if blank(prev) {
		return cur
	}
	if strings.HasPrefix(cur, prev) {
		return cur[len(prev):]
	}
	return cur
}

func blank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// readFailure maps a parser or body error to the stream's error.
func (s *Stream) readFailure(err error) error {
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, s.cfg.maxEventSize)
	}
	if errors.Is(err, sse.ErrUnexpectedEOF) {
		err = io.ErrUnexpectedEOF // the input ended inside an event
	}
	return fmt.Errorf("%w: %w", ErrStreamTruncated, err)
}

// drain reads what follows DONE (normally just the end of the chunked body)
// so the connection can be reused, but never waits long for it.
func (s *Stream) drain() {
	t := time.AfterFunc(100*time.Millisecond, s.closeBody)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, s.body, 64<<10)
}

func (s *Stream) finish(err error) {
	s.done = true
	s.err = err
	s.cur = StreamEvent{}
	s.release()
}

// release stops the parser and the timer and closes the body. Next calls
// it when the stream ends, never while it is inside the parser.
func (s *Stream) release() {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.stopParserLocked()
	s.mu.Unlock()
	s.closeBody()
	if s.rounds != nil {
		s.rounds.stop()
	}
}

// stopParserLocked ends the pull iterator. The parser must not be running.
func (s *Stream) stopParserLocked() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// nextRound is RunStream's hook, called at a round's "data: DONE" (from
// Next, outside the parser). It drains the finished body and asks s.rounds
// for the next round with the round's last snapshot; given one, it reads on
// from that stream's body with a new parser and reports true. It reports
// false when the stream ends here, cleanly; on failure it has finished s.
func (s *Stream) nextRound() bool {
	old := s.body
	t := time.AfterFunc(100*time.Millisecond, func() { old.Close() })
	_, _ = io.CopyN(io.Discard, old, 64<<10)
	t.Stop()
	last := s.cur.AdvanceResponse
	s.cur = StreamEvent{} // a round without snapshots has no "last" one
	next, err := s.rounds.next(s.ctx, last)
	s.mu.Lock()
	closed := s.closed
	if closed || err != nil || next == nil {
		s.mu.Unlock()
		if next != nil {
			next.Close()
		}
		switch {
		case closed:
			s.finish(nil) // Close was called while the tool ran
		case err != nil:
			s.finish(err)
		}
		return closed || err != nil
	}
	s.body, s.events = next.body, next.events
	s.stopParserLocked()
	s.next = nil // Next pulls from the new parser
	s.mu.Unlock()
	old.Close()
	return true
}

// Current returns the snapshot that the last successful Next read.
func (s *Stream) Current() StreamEvent { return s.cur }

// Err returns why the stream ended: nil after "data: DONE" or Close, a
// *StreamError for the service's error line, the context's error when it
// was cancelled, or an error matching ErrStreamTruncated, ErrEventTooLarge,
// ErrStreamIdle or ErrStreamFailed.
func (s *Stream) Err() error { return s.err }

// Close releases the connection at once; a Next blocked in a read returns
// false. It is idempotent and safe from any goroutine. Closing does not
// stop the service's generation: call ThreadsService.Cancel for that.
func (s *Stream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	if !s.running {
		// Next is not inside the parser, so it can be stopped here;
		// otherwise Next stops it when its read returns.
		s.stopParserLocked()
	}
	s.mu.Unlock()
	s.closeBody()
	if s.rounds != nil {
		s.rounds.stop() // cancels a tool call in progress
	}
	return nil
}

// All returns an iterator over the stream's snapshots. A failure is
// yielded once, as the last element. Breaking out of the loop, or reaching
// the end, closes the stream.
func (s *Stream) All() iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		defer s.Close()
		if s.next == nil && s.rounds == nil { // rounds swap parsers: pull form only
			s.push(yield)
		}
		// Mixed with Next, or after it: continue in pull form.
		for s.Next() {
			if !yield(s.Current(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(StreamEvent{}, err)
		}
	}
}

// push runs go-sse's iterator directly, without the coroutine that the
// pull form needs. It returns with s.done set, or when yield said stop.
func (s *Stream) push(yield func(StreamEvent, error) bool) {
	if s.done || !s.enter(false) {
		return
	}
	for ev, err := range s.events {
		if s.step(ev, err, true) && !yield(s.cur, nil) {
			s.done = true // the caller stopped; Close follows
			return
		}
		if s.done || !s.enter(false) {
			return
		}
	}
	s.step(sse.Event{}, nil, false) // the parser ended without DONE
}

// Messages returns the latest snapshot of each message seen so far, in the
// order the messages first appeared. The slice is the caller's.
func (s *Stream) Messages() []Message {
	return append([]Message(nil), s.messages...)
}

// Collect reads the stream to its end, closes it, and returns the latest
// snapshot of each message (as [Stream.Messages]) with the stream's error
// (as [Stream.Err]): nil after "data: DONE". Use it when a program wants
// the whole reply rather than its events. The messages read before a
// failure are returned with the error.
func (s *Stream) Collect() ([]Message, error) {
	if s == nil {
		return nil, errors.New("threads: Collect on a nil *Stream")
	}
	for s.Next() {
	}
	s.Close()
	return s.Messages(), s.Err()
}
