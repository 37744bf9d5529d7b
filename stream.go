package threads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/sse"
	"github.com/threadsapi/threads-go/internal/termtext"
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
	// ErrEventTooLarge means one event exceeded WithMaxEventSize: its
	// bytes, or the memory its JSON would decode into (four times the
	// limit; see WithMaxEventSize).
	ErrEventTooLarge = errors.New("threads: stream event exceeds the size limit")
	// ErrStreamIdle means no snapshot arrived within WithStreamIdleTimeout
	// (events without one, such as keep-alives, do not count).
	ErrStreamIdle = errors.New("threads: stream idle timeout")
)

// StreamError is the service's in-band failure: the stream's "error:" line.
// The live service sends no detail ("Error in streaming response"), whatever
// went wrong: a spent quota, a malformed message, a thread that is still
// processing (Cancel it), or a model failure.
type StreamError struct {
	// Message is the text after "error:", as one line of printable text:
	// control characters and escape sequences removed, the API key and the
	// last few tokens the stream delivered (AdvanceResponse.MCPAccessToken)
	// replaced by [REDACTED], at most 1 KiB.
	Message string
}

// Error returns the service's text.
func (e *StreamError) Error() string { return "threads: stream failed: " + e.Message }

// Is matches ErrStreamFailed.
func (e *StreamError) Is(target error) bool { return target == ErrStreamFailed }

// StreamEvent is one snapshot of a streamed reply.
type StreamEvent struct {
	// AdvanceResponse is the snapshot as sent: ev.Message,
	// ev.GenerationStage, ev.StatusMessage.
	AdvanceResponse
	// TextDelta is the text to append to what this stream has shown of
	// ev.Message.
	TextDelta string `json:"textDelta,omitempty"`
	// TextReset means the message's text was rewritten: it no longer
	// extends what was shown. Discard what was shown of ev.Message;
	// TextDelta is then its whole new text (empty when the new text is
	// white space only).
	TextReset bool `json:"textReset,omitempty"`
}

// LogValue makes log/slog record the event with its token redacted, as
// [AdvanceResponse.LogValue] does, plus its TextDelta and TextReset.
func (e StreamEvent) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("message", e.Message),
		slog.String("generationStage", string(e.GenerationStage)),
		slog.String("statusMessage", e.StatusMessage),
		slog.Any("mcpAccessToken", e.MCPAccessToken),
		slog.String("textDelta", e.TextDelta),
		slog.Bool("textReset", e.TextReset),
	)
}

// Stream reads the snapshots of one streamed reply.
//
// Iterate with Next and Current, then check Err; or range over All. Each
// event is a full snapshot of one message (several messages may follow each
// other). TextDelta and TextReset say what changed in the message's text:
// for each message, applying its events in order (TextReset: replace what
// was shown with TextDelta; otherwise append TextDelta) gives its final
// text. White space alone (the service's placeholder) counts as no text yet,
// and a repeated snapshot adds nothing. Messages returns the latest snapshot
// of each.
//
// The stream's memory is bounded whatever the server sends, and its CPU is
// linear in the bytes received however they are split. A Stream that is
// dropped without Close is released (its connection closed) once the
// garbage collector finds it unreachable; Close it to release it at once.
//
// A Stream is not safe for concurrent use, except Close, which may be called
// from any goroutine, any number of times, also while Next blocks. Only
// streams returned by the SDK work: a zero Stream ends at once with an error.
type Stream struct {
	*streamConn // shared with Close, the idle timer and the cleanup; nil in a zero Stream

	ctx context.Context
	cfg *config

	src  *sse.Reader                     // the body's events (go-sse, through internal/sse)
	next func() (sse.Event, error, bool) // pull form of events, made by the first Next

	dec   snapshotDecoder // decodes s.cur; keeps hints of the last snapshots
	cur   StreamEvent
	err   error
	index int // events decoded so far
	done  bool

	// The latest snapshot of each message, in first-seen order, at most
	// maxMessages of them and about maxRetained bytes of memory (counted
	// by decodedCost, not by the JSON's length): the
	// oldest go first. byID maps an id to its position counted from the
	// stream's first message; messages[0] is at position base.
	messages []Message
	shown    []string // what the events have shown of each message's text
	sizes    []int64  // the decoded size of each kept snapshot (decodedCost)
	retained int64    // sum of sizes
	byID     map[string]int
	base     int
	evicted  bool // some message was dropped: an unknown id may have been shown

	// The last few distinct tokens the service sent on this stream
	// (AdvanceResponse.MCPAccessToken), which clean redacts as it does the
	// API key; tokenNext is where the next one goes.
	tokens    [maxTokens]string
	tokenNext int

	cleanup runtime.Cleanup

	// rounds, when set (by RunStream), continues the stream with further
	// requests: see nextRound. nil for a plain one-request stream.
	rounds streamRounds

	obs *callObs // the call's observation (observe.go); nil-safe
}

// streamRounds continues a Stream with further requests (see
// Stream.nextRound): the Stream declares what it needs, and a runner of
// rounds (RunStream's tool runner in tools.go) plugs in, so that the
// stream never calls up into the code built on it.
type streamRounds interface {
	// next returns the next round's stream, given the finished round's last
	// snapshot; nil when the stream ends cleanly here.
	next(ctx context.Context, last AdvanceResponse) (*Stream, error)
	// stop is called when the stream ends or is closed.
	stop()
}

// Bounds on what a Stream keeps for Messages, and of the tokens it
// redacts from its errors.
const (
	maxMessages = 1024
	maxRetained = 64 << 20
	maxTokens   = 4
	maxTokenLen = 8 << 10
)

// streamConn is what Close, the idle timer and the garbage collector's
// cleanup share with Next. It holds no reference to its Stream, so a
// dropped Stream can become unreachable while its connection is open.
type streamConn struct {
	body io.ReadCloser

	mu      sync.Mutex // guards the fields below
	closed  bool
	running bool // Next is inside the parser
	idle    bool // the idle timer fired
	timer   *time.Timer
	stop    func() // ends the pull iterator
	once    sync.Once
	leaving leaving // WithCancelOnClose's hook (leave.go)
}

var errZeroStream = errors.New("threads: Stream not returned by the SDK (zero or nil)")

func newStream(ctx context.Context, body io.ReadCloser, cfg *config) *Stream {
	s := &Stream{streamConn: &streamConn{body: body}, ctx: ctx, cfg: cfg, byID: make(map[string]int, 2)}
	s.src = sse.New(body, cfg.maxEventSize)
	s.cleanup = runtime.AddCleanup(s, (*streamConn).abandon, s.streamConn)
	return s
}

func (c *streamConn) idleFired() {
	c.mu.Lock()
	c.idle = true
	c.mu.Unlock()
	c.closeBody()
}

func (c *streamConn) closeBody() {
	c.once.Do(func() { c.body.Close() })
}

// abandon releases a Stream that became unreachable without Close.
func (c *streamConn) abandon() {
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.stopParserLocked() // Next cannot be running: the Stream is unreachable
	c.mu.Unlock()
	c.closeBody()
}

// Next advances to the next snapshot, which Current then returns. It
// returns false at the end of the stream or on failure; Err tells which.
// It blocks until an event's bytes have arrived, and no longer.
func (s *Stream) Next() bool {
	if s == nil || s.streamConn == nil {
		if s != nil && s.err == nil {
			s.err, s.done = errZeroStream, true
		}
		return false
	}
	arm := true // the idle clock starts once per Next, not per event read
	for !s.done {
		if !s.enter(true, arm) {
			s.finish(nil)
			return false
		}
		arm = false
		ev, err, ok := s.next()
		if s.step(ev, err, ok) {
			return true
		}
	}
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
	// The idle clock runs only while the caller waits for a snapshot, not
	// while it works on the previous one. Events without a snapshot (an id:
	// line alone, a comment) do not restart it: the idle timeout means "no
	// snapshot for that long".
	if d := s.cfg.idleTimeout; d > 0 && arm {
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
	s.mu.Unlock()

	switch {
	case closed:
		s.finish(nil)
	case idle:
		s.finish(fmt.Errorf("%w: no snapshot for %v", ErrStreamIdle, s.cfg.idleTimeout))
	case !ok:
		s.finish(s.readFailure(io.ErrUnexpectedEOF))
	case err != nil:
		s.finish(s.readFailure(err))
	case ev.Type == sse.ErrorEvent:
		// The filter made this event from the first error line of its
		// event alone; whatever else that event held is dropped.
		s.finish(&StreamError{Message: s.clean(ev.Data, maxErrorText)})
	case ev.Data == "":
		// An event without data, such as a lone id: line.
	case ev.Data == "DONE" || ev.Data == "[DONE]":
		if s.rounds != nil && s.nextRound() {
			return false // the next round's events follow on this stream
		}
		s.finishDone()
	default:
		if err := s.decode(ev.Data); err != nil {
			s.finish(err)
			return false
		}
		s.obs.event()
		s.leaving.saw(s.cur.Message.ThreadID)
		s.stopTimer()
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

// decode parses one snapshot into s.cur and computes its delta.
func (s *Stream) decode(data string) error {
	s.cur = StreamEvent{}
	budget := decodeBudget(int64(s.cfg.maxEventSize))
	// The hand-written decoder takes the service's snapshots; anything it
	// is not sure of is decoded by jsonx (snapshot_decode.go).
	cost, ok := s.dec.decode(data, &s.cur.AdvanceResponse, budget)
	if !ok {
		s.cur = StreamEvent{}
		// jsonx only reads its input and copies what it keeps, so the
		// event's string can be viewed as bytes without a copy.
		b := unsafe.Slice(unsafe.StringData(data), len(data))
		// An event's bytes are bounded by WithMaxEventSize; what they
		// decode into is bounded here, before decoding, as for a JSON
		// answer.
		cost = decodedCost(b)
		if cost > budget {
			return fmt.Errorf("%w: event %d holds too many JSON values to decode within the memory budget (about %d MiB of %d MiB; WithMaxEventSize raises both)",
				ErrEventTooLarge, s.index, cost>>20, budget>>20)
		}
		if err := jsonx.Unmarshal(b, &s.cur.AdvanceResponse); err != nil {
			s.cur = StreamEvent{}
			// The event itself is not quoted, nor any value from it: it may
			// hold a token or other data of the user's.
			return fmt.Errorf("%w: event %d is not a snapshot (%s)", ErrStreamFailed, s.index, jsonx.Describe(err))
		}
	}
	s.index++
	ev := &s.cur
	s.seeToken(ev.MCPAccessToken.Reveal())
	text := ev.Message.Text()
	i, known := s.remember(ev.Message, cost)
	shown := s.shown[i]
	ev.TextDelta, ev.TextReset = textChange(shown, text)
	if !known && s.evicted && !blank(text) {
		// This id may be one that was dropped after it was shown.
		ev.TextReset = true
	}
	if blank(text) {
		s.shown[i] = ""
	} else {
		s.shown[i] = text
	}
	s.trim(i)
	return nil
}

// remember stores m as its message's latest snapshot, which took about
// size bytes of memory, and returns its index in s.messages, and whether
// the id was known.
func (s *Stream) remember(m Message, size int64) (int, bool) {
	if pos, ok := s.byID[m.ID]; ok {
		// An id-less snapshot (the service's synthetic ones) is kept the
		// same way: as the latest id-less message.
		i := pos - s.base
		s.messages[i] = m
		s.retained += size - s.sizes[i]
		s.sizes[i] = size
		return i, true
	}
	s.byID[m.ID] = s.base + len(s.messages)
	s.messages = append(s.messages, m)
	s.shown = append(s.shown, "")
	s.sizes = append(s.sizes, size)
	s.retained += size
	return len(s.messages) - 1, false
}

// trim drops the oldest messages past the bounds, never the one at index
// cur (which shifts as older ones go).
func (s *Stream) trim(cur int) {
	for cur > 0 && (len(s.messages) > maxMessages || s.retained > maxRetained) {
		delete(s.byID, s.messages[0].ID)
		s.retained -= s.sizes[0]
		// Clear before reslicing, so the dropped snapshot can be freed;
		// append copies the rest to a new array when it grows.
		s.messages[0], s.shown[0], s.sizes[0] = Message{}, "", 0
		s.messages, s.shown, s.sizes = s.messages[1:], s.shown[1:], s.sizes[1:]
		s.base++
		s.evicted = true
		cur--
	}
}

// textChange returns what cur changes in a message whose shown text is
// shown (never white space alone). The service opens each message with a
// one-space placeholder and repeats the final text: white space alone is
// "no text yet", and a repeat adds nothing. A snapshot that extends what
// was shown adds the difference; one that does not resets the text to
// itself.
func textChange(shown, cur string) (delta string, reset bool) {
	if blank(cur) {
		return "", shown != ""
	}
	if strings.HasPrefix(cur, shown) {
		return cur[len(shown):], false
	}
	return cur, true
}

func blank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// readFailure maps a parser or body error to the stream's error.
func (s *Stream) readFailure(err error) error {
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, sse.ErrTooLarge) {
		return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, s.cfg.maxEventSize)
	}
	// Read errors come from the transport, not from the server's bytes.
	return fmt.Errorf("%w: %w", ErrStreamTruncated, err)
}

// finishDone ends the stream at "data: DONE" without waiting for the
// server: when the body has not ended yet, it is read to its end (so the
// connection can be reused) in the background, for at most 100 ms.
func (s *Stream) finishDone() {
	s.leaving.done()
	s.obs.end(nil)
	s.done, s.err, s.cur = true, nil, StreamEvent{}
	s.stopParser()
	s.cleanup.Stop()
	if s.src.Ended() {
		s.closeBody() // the body already ended: its connection is free
		return
	}
	c := s.streamConn
	go func() {
		drainFor(c.body, c.closeBody)
		c.closeBody()
	}()
}

// drainFor reads what follows a round's "data: DONE" (normally just the end
// of the chunked body) so that the connection can be reused, but calls
// stop, which must close r, if that takes longer than 100 ms.
func drainFor(r io.Reader, stop func()) {
	t := time.AfterFunc(100*time.Millisecond, stop)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, r, 64<<10)
}

func (s *Stream) finish(err error) {
	if err != nil && s.ctx.Err() != nil && errors.Is(err, s.ctx.Err()) {
		s.obs.leave() // the caller's context ended it
	}
	s.done = true
	s.err = err
	s.cur = StreamEvent{}
	s.release()
	s.leave(err)
	s.obs.end(err)
}

// release stops the parser and the timer and closes the body. Next calls
// it when the stream ends, never while it is inside the parser.
func (s *Stream) release() {
	s.stopParser()
	s.cleanup.Stop()
	s.closeBody()
	if s.rounds != nil {
		s.rounds.stop()
	}
}

func (s *Stream) stopParser() {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.stopParserLocked()
	s.mu.Unlock()
}

// stopParserLocked ends the pull iterator. The parser must not be running.
func (c *streamConn) stopParserLocked() {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
}

// nextRound is RunStream's hook, called at a round's "data: DONE" (from
// Next, outside the parser). It drains the finished body and asks s.rounds
// for the next round with the round's last snapshot; given one, it reads on
// from that stream's body with a new parser and reports true. It reports
// false when the stream ends here, cleanly; on failure it has finished s.
func (s *Stream) nextRound() bool {
	old := s.body
	if !s.src.Ended() {
		drainFor(old, func() { old.Close() })
	}
	if end, err := s.pauseIdle(); end {
		s.finish(err) // no tool runs, nothing is sent
		return true
	}
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
	next.cleanup.Stop() // its body is s's now
	s.body, s.src = next.body, next.src
	s.stopParserLocked()
	s.next = nil // Next pulls from the new parser
	if s.timer != nil {
		s.timer.Reset(s.cfg.idleTimeout) // the next round's silence counts again
	}
	s.mu.Unlock()
	// The observer's calls come after the lock: an observer may call back
	// into the stream (Err, Messages) without deadlocking it.
	next.obs.end(nil) // its events are counted in s's call
	s.obs.toolRound()
	old.Close()
	return true
}

// pauseIdle stops the idle clock while a round's tool runs and the next
// round's request is sent. The idle timeout is about the server's
// silence: the tool's own time is not the server's, and the next
// request's wait for its headers is bounded by WithRequestTimeout, as the
// first request's is. The clock is restarted when the next round's body
// is in place. end reports that the stream is over instead (closed: err
// nil; the clock already fired: ErrStreamIdle), so that no tool runs and
// nothing is sent.
func (s *Stream) pauseIdle() (end bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idle := fmt.Errorf("%w: no snapshot for %v", ErrStreamIdle, s.cfg.idleTimeout)
	switch {
	case s.closed:
		return true, nil
	case s.idle:
		return true, idle
	case s.timer == nil:
		return false, nil
	}
	// Next started the clock (or the last round's swap restarted it), and
	// only a snapshot or Close stops it, so at a round's DONE a Stop that
	// finds it not running means that it fired, even if idleFired has not
	// yet set s.idle.
	if !s.timer.Stop() {
		return true, idle
	}
	return false, nil
}

// Current returns the snapshot that the last successful Next read.
func (s *Stream) Current() StreamEvent {
	if s == nil {
		return StreamEvent{}
	}
	return s.cur
}

// Err returns why the stream ended: nil after "data: DONE" or Close, a
// [*StreamError] for the service's error line, the context's error when it
// was cancelled, a [*ToolRoundsError] (from [ThreadsService.RunStream]), or
// an error matching [ErrStreamTruncated], [ErrEventTooLarge],
// [ErrStreamIdle] or [ErrStreamFailed]. No error string holds the API key
// or a token the stream delivered (the last four distinct ones, of up to
// 8 KiB each), and an event that fails to decode is not quoted: the error
// names its index and what did not fit, without its values.
func (s *Stream) Err() error {
	if s == nil {
		return errZeroStream
	}
	return s.err
}

// Close releases the connection at once; a Next blocked in a read returns
// false. It is idempotent, safe from any goroutine, and returns nil, also
// on a nil *Stream (so defer s.Close() may come before the error check).
// Closing does not stop the service's generation, unless the call had
// [WithCancelOnClose] (Close then waits for that Cancel); otherwise call
// ThreadsService.Cancel for that.
func (s *Stream) Close() error {
	if s == nil || s.streamConn == nil {
		return nil
	}
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
	// Not closed before: the stream had not ended, so the caller left it.
	s.obs.leave()
	s.leave(nil)
	s.obs.end(nil)
	return nil
}

// All returns an iterator over the stream's snapshots. A failure is
// yielded once, as the last element. Breaking out of the loop, or reaching
// the end, closes the stream.
func (s *Stream) All() iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		defer s.Close()
		if s != nil && s.streamConn != nil && s.next == nil && s.rounds == nil { // rounds swap parsers: pull form only
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
	if s.done || !s.enter(false, true) {
		return
	}
	for ev, err := range s.src.All() {
		if s.step(ev, err, true) {
			if !yield(s.cur, nil) {
				s.done = true // the caller stopped; Close follows
				return
			}
			if s.done || !s.enter(false, true) {
				return
			}
			continue
		}
		if s.done || !s.enter(false, false) {
			return
		}
	}
	s.step(sse.Event{}, nil, false) // the parser ended without DONE
}

// maxErrorText caps the text of a stream error, in runes.
const maxErrorText = 1 << 10

// Format prints "threads.Stream{events:N done:B}" whatever the verb, for
// the stream and its value alike: its fields hold the tokens the service
// sent (which Err's text is cleaned of) and the client's settings, which a
// plain %v, %+v or %#v would print.
func (s Stream) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "threads.Stream{events:%d done:%t}", s.index, s.done)
}

// clean makes server text safe for an error string: every spelling of the
// API key and of the tokens seen on this stream replaced, then one line of
// printable text of at most max runes (termtext.OneLine, as Problem.Error uses).
// Only a bounded prefix is looked at, so a huge error line costs no more
// than a short one; it is redacted before it is cut, so that a secret
// which straddles the cut is not shown in part.
func (s *Stream) clean(text string, max int) string {
	key := s.cfg.apiKey.get()
	if n := 8*max + maxTokenLen + len(key); len(text) > n {
		text = text[:n]
	}
	text = redact.String(text, key)
	text = redact.String(text, s.tokens[:]...)
	if len(text) > 8*max {
		text = text[:8*max]
	}
	return termtext.OneLine(text, max)
}

// seeToken adds tok to the tokens that clean redacts, unless it is empty,
// already there, or longer than maxTokenLen (no real token is: they are a
// few hundred bytes). The oldest of maxTokens goes first.
func (s *Stream) seeToken(tok string) {
	if tok == "" || len(tok) > maxTokenLen {
		return
	}
	for _, t := range s.tokens {
		if t == tok {
			return
		}
	}
	s.tokens[s.tokenNext] = tok
	s.tokenNext = (s.tokenNext + 1) % maxTokens
}

// Messages returns the latest snapshot of each message seen so far, in the
// order the messages first appeared; an id-less snapshot (the service's
// synthetic ones) counts as one message, the latest id-less one. The slice
// is the caller's. The stream keeps at most the 1,024 messages it saw
// first most recently, and about 64 MiB of their decoded snapshots
// (estimated from the JSON, as WithMaxEventSize's bound is, so that small
// JSON of many values counts for the memory it takes): past either bound,
// the oldest messages are dropped and no longer returned (their events were
// still delivered). A nil or zero Stream returns nil.
func (s *Stream) Messages() []Message {
	if s == nil {
		return nil
	}
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
	if s.streamConn != nil && s.next == nil && s.rounds == nil {
		// No Next yet: run the parser directly, without the coroutine
		// that the pull form needs (rounds swap parsers: pull form only).
		s.push(func(StreamEvent, error) bool { return true })
	}
	for s.Next() {
	}
	s.Close()
	return s.Messages(), s.Err()
}
