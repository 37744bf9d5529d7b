package threads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strings"
	"unsafe"

	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/sse"
	"github.com/threadsapi/threads-go/internal/stream"
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
	// ToolRunResult is set on an event of a [ThreadsService.RunStream]
	// runner's own, with [WithToolRunResults]: the result it sent for a
	// tool call, after the round's last snapshot and before the reply to
	// the result. That event's AdvanceResponse is the round's last
	// snapshot again (the message that asked for the tool), with no
	// TextDelta. Nil on every snapshot the service sent.
	ToolRunResult *ToolRunResult `json:"-"`
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
// text. Messages returns the latest snapshot of each. Its memory is bounded
// whatever the server sends; a Stream dropped without Close is released
// once the garbage collector finds it unreachable.
//
// A Stream is not safe for concurrent use, except Close, which may be called
// from any goroutine, any number of times, also while Next blocks. A zero
// Stream ends at once with an error. Its /v1 counterpart is runs.Stream.
type Stream struct {
	// eng is the connection and its state: Next, Close, the idle timer, the
	// drain after DONE, the observer's hooks (internal/stream). The zero
	// Engine is a zero Stream's.
	eng stream.Engine

	cfg *config

	dec   snapshotDecoder // decodes s.cur; keeps hints of the last snapshots
	cur   StreamEvent
	index int // events decoded so far

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

	leaving *leaving // WithCancelOnClose's hook (leave.go), shared with Close; nil in a zero Stream

	// tools, for RunStream, answers the tool call that ends a round: the
	// engine pauses at the round's "data: DONE", and Next continues it
	// with the reply to the result. Nil for any other stream.
	tools *toolRunner
}

// Bounds on what a Stream keeps for Messages, and of the tokens it
// redacts from its errors.
const (
	maxMessages = 1024
	maxRetained = 64 << 20
	maxTokens   = 4
	maxTokenLen = 8 << 10
)

var errZeroStream = errors.New("threads: Stream not returned by the SDK (zero or nil)")

// newStream reads the snapshots of body; o is the call's observation
// (nil: nobody observes it), which the stream ends.
func newStream(ctx context.Context, body io.ReadCloser, cfg *config, o *callObs) *Stream {
	s := &Stream{cfg: cfg, byID: make(map[string]int, 2), leaving: &leaving{}}
	stream.Start(&s.eng, ctx, body, (*snapshots)(s), stream.Config{MaxEventSize: cfg.maxEventSize, IdleTimeout: cfg.idleTimeout})
	if o != nil {
		s.eng.Observe(observation{o})
	}
	return s
}

// snapshots is a Stream as the engine sees it: the decoder of its events
// (internal/stream's Decoder, whose methods a Stream does not show).
type snapshots Stream

// Decode reads one event: a snapshot, "data: DONE", or the service's
// "error:" line.
func (d *snapshots) Decode(ev sse.Event) (stream.Verdict, error) {
	s := (*Stream)(d)
	switch {
	case ev.Type == sse.ErrorEvent:
		// The filter made this event from the first error line of its
		// event alone; whatever else that event held is dropped.
		return stream.Failed, &StreamError{Message: s.clean(ev.Data, maxErrorText)}
	case ev.Data == "":
		return stream.Skip, nil // an event without data, such as a lone id: line
	case ev.Data == "DONE" || ev.Data == "[DONE]":
		if s.tools != nil {
			return stream.Pause, nil // a round's end: Next answers its call, if any
		}
		return stream.Last, nil
	}
	if err := s.decode(ev.Data); err != nil {
		return stream.Refused, err
	}
	s.leaving.saw(s.cur.Message.ThreadID)
	return stream.Deliver, nil
}

// ReadFailure maps a parser or body error to the stream's error.
func (d *snapshots) ReadFailure(err error) error {
	if errors.Is(err, sse.ErrTooLarge) {
		return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, d.cfg.maxEventSize)
	}
	// Read errors come from the transport, not from the server's bytes.
	return fmt.Errorf("%w: %w", ErrStreamTruncated, err)
}

// IdleFailure is the error of a stream the idle timer ended.
func (d *snapshots) IdleFailure() error {
	return fmt.Errorf("%w: no snapshot for %v", ErrStreamIdle, d.cfg.idleTimeout)
}

// Ended runs WithCancelOnClose's hook: disarmed at DONE, run when the
// caller left or the stream failed on the client's side.
func (d *snapshots) Ended(how stream.End, err error) {
	if how == stream.Clean {
		d.leaving.done()
		return
	}
	(*Stream)(d).leave(err)
}

// Next advances to the next snapshot, which Current then returns. It
// returns false at the end of the stream or on failure; Err tells which.
// It blocks until an event's bytes have arrived, and no longer. On a
// [ThreadsService.RunStream] stream it runs the tools at each round's end.
func (s *Stream) Next() bool {
	if s == nil {
		return false
	}
	for {
		if s.eng.Next() {
			return true
		}
		if !s.eng.Paused() {
			break
		}
		// A round ended: its last snapshot may ask for a tool. A round
		// without snapshots has no "last" one: the one before it (which
		// the result event repeats) is not asked again.
		var last AdvanceResponse
		if s.cur.ToolRunResult == nil {
			last = s.cur.AdvanceResponse
		}
		s.cur = StreamEvent{}
		next, res, err := s.tools.next(last)
		switch {
		case err != nil || next == nil:
			s.eng.EndPause(err)
		case s.eng.Continue(next.eng.Detach()) && s.tools.show:
			s.cur = StreamEvent{AdvanceResponse: last, ToolRunResult: res}
			return true
		}
	}
	s.cur = StreamEvent{}
	s.tools.stop()
	return false
}

// engine is s's engine; nil for a nil Stream (whose methods work, as a
// zero Stream's).
func (s *Stream) engine() *stream.Engine {
	if s == nil {
		return nil
	}
	return &s.eng
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
	return s.engine().Err(errZeroStream)
}

// Close releases the connection at once; a Next blocked in a read returns
// false. It is idempotent, safe from any goroutine, and returns nil, also
// on a nil *Stream (so defer s.Close() may come before the error check).
// After "data: DONE", Close first reads what the server still sends,
// normally only the end of the body, for at most 100 ms, so that the
// connection can be reused (the Next that saw DONE returned at once).
// Closing does not stop the service's generation, unless the call had
// [WithCancelOnClose] (Close then waits for that Cancel); otherwise call
// ThreadsService.Cancel for that.
func (s *Stream) Close() error {
	s.engine().Close()
	if s != nil {
		s.tools.stop() // a tool that runs, or a round's request, returns
	}
	return nil
}

// All returns an iterator over the stream's snapshots. A failure is
// yielded once, as the last element. Breaking out of the loop, or reaching
// the end, closes the stream.
func (s *Stream) All() iter.Seq2[StreamEvent, error] {
	return stream.All(s.engine(), s.Next, s.Current, s.Err)
}

// maxErrorText caps the text of a stream error, in runes.
const maxErrorText = 1 << 10

// Format prints "threads.Stream{events:N done:B}" whatever the verb, for
// the stream and its value alike: its fields hold the tokens the service
// sent (which Err's text is cleaned of) and the client's settings, which a
// plain %v, %+v or %#v would print.
func (s Stream) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "threads.Stream{events:%d done:%t}", s.index, s.eng.Done())
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
	s.eng.Collect(s.Next)
	return s.Messages(), s.Err()
}
