package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	threads "github.com/threadsapi/threads-go"
)

// rawEvents reads a run's events from the service's body and finds, per
// event, only what a relay needs: where it ends, its data and its type
// (see take). It reads only when it holds no whole event (never ahead of
// one), so an event is passed on as soon as its last byte arrives.
type rawEvents struct {
	r   io.Reader
	max int // an event's most bytes; <= 0: no bound

	buf        []byte
	start, end int // buf[start:end] was read and not taken
	scan       int // buf[start:scan] holds no event's end
	grow       bool
	err        error
}

// The read buffer: reads start small (an idle relay keeps little) and get
// twice the room, up to maxReadBuf, while they fill what they are given
// (a body that is already there is read in a few large reads).
const (
	minReadBuf = 4 << 10
	maxReadBuf = 64 << 10
)

var errTooLarge = errors.New("event too large")

// take returns the next whole event held, from its first byte through
// the blank line that ends it, without reading; false when none is held
// (fill, then take again).
func (e *rawEvents) take() ([]byte, bool) {
	if e.start == e.end {
		return nil, false
	}
	b := e.buf[e.scan:e.end]
	i := bytes.Index(b, []byte("\n\n"))
	var n int // the event's length from start; 0: not whole
	if i >= 0 {
		n = e.scan - e.start + i + 2
	}
	ev := e.buf[e.start:e.end]
	if n > 0 {
		ev = ev[:n]
	}
	if bytes.IndexByte(ev, '\r') >= 0 {
		// CR line ends, which the service does not send: line by line.
		n = eventEnd(e.buf[e.start:e.end])
	}
	if n == 0 {
		e.scan = max(e.end-1, e.start) // the last '\n' may start a blank line
		return nil, false
	}
	if e.max > 0 && n > e.max {
		e.err, e.start, e.end = errTooLarge, 0, 0
		return nil, false
	}
	ev = e.buf[e.start : e.start+n]
	e.start += n
	e.scan = e.start
	return ev, true
}

// eventEnd returns the length of the first event of b, through the blank
// line that ends it, with lines ended by "\n", "\r\n" or "\r"; 0 when b
// holds no whole event.
func eventEnd(b []byte) int {
	lineStart := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			continue
		}
		if c == '\r' {
			if i+1 == len(b) {
				return 0 // a '\n' may follow
			}
			if b[i+1] == '\n' {
				i++
			}
		}
		if i+1-lineStart <= 2 && isBlank(b[lineStart:i+1]) && lineStart > 0 {
			return i + 1
		}
		lineStart = i + 1
	}
	return 0
}

func isBlank(line []byte) bool {
	return len(bytes.Trim(line, "\r\n")) == 0
}

// fill reads once from the body into the buffer, after moving what is
// held to its start; false when the body has ended or failed (err).
func (e *rawEvents) fill() bool {
	held := e.end - e.start
	if e.max > 0 && held > e.max {
		e.err = errTooLarge // what is held is no whole event
	}
	if e.err != nil {
		return false
	}
	size := len(e.buf)
	switch {
	case size == 0:
		size = minReadBuf
	case e.grow:
		if size < maxReadBuf {
			size *= 2
		}
	case held == 0 && size > 16<<10:
		size = minReadBuf // a relay that waits keeps little
	}
	for size-held < held/2+minReadBuf/2 {
		size *= 2 // room for the rest of a large event
	}
	if size != len(e.buf) {
		nb := make([]byte, size)
		copy(nb, e.buf[e.start:e.end])
		e.buf = nb
	} else if e.start > 0 {
		copy(e.buf, e.buf[e.start:e.end])
	}
	e.scan -= e.start
	e.start, e.end = 0, held
	n, err := e.r.Read(e.buf[e.end:])
	e.end += n
	e.grow = e.end == len(e.buf)
	if err != nil {
		e.err = err
		return n > 0
	}
	return true
}

// release drops the read buffer (between two runs: nothing is held).
func (e *rawEvents) release() { e.buf, e.start, e.end, e.scan = nil, 0, 0, 0 }

// rawEvent is what the relay reads of one event.
type rawEvent struct {
	wire bool   // the event is "data: <data>\n\n": it goes out as it came
	data []byte // the data (the JSON)
	typ  []byte // its type member (empty when there is none)
}

// parse reads ev (as take returns it). data is a slice of ev for an event
// in the service's own form; else (several data lines, comments, other
// fields, CR line ends) the data lines' values joined with "\n", appended
// to scratch. typ is read from the front when the JSON starts with its
// type, as the service writes it; else from the decoded JSON.
func parse(ev, scratch []byte) (rawEvent, []byte) {
	var re rawEvent
	if line := len(ev) - 2; bytes.HasPrefix(ev, []byte("data: ")) && bytes.IndexByte(ev, '\n') == line && ev[line+1] == '\n' && bytes.IndexByte(ev, '\r') < 0 {
		re.wire, re.data = true, ev[len("data: "):line]
	} else {
		start := len(scratch)
		first := true
		for len(ev) > 0 {
			n := bytes.IndexAny(ev, "\r\n")
			if n < 0 {
				n = len(ev)
			}
			line := ev[:n]
			ev = ev[n:]
			if len(ev) > 0 && ev[0] == '\r' {
				ev = ev[1:]
			}
			if len(ev) > 0 && ev[0] == '\n' {
				ev = ev[1:]
			}
			name, val, _ := bytes.Cut(line, []byte(":"))
			if string(name) != "data" {
				continue // a comment, another field, a blank line
			}
			val = bytes.TrimPrefix(val, []byte(" "))
			if !first {
				scratch = append(scratch, '\n')
			}
			scratch = append(scratch, val...)
			first = false
		}
		if first {
			return re, scratch // no data: not an event
		}
		re.data = scratch[start:]
	}
	const head = `{"type":"`
	if d := re.data; bytes.HasPrefix(d, []byte(head)) {
		if n := bytes.IndexByte(d[len(head):], '"'); n >= 0 && bytes.IndexByte(d[len(head):len(head)+n], '\\') < 0 {
			re.typ = d[len(head) : len(head)+n]
			return re, scratch
		}
	}
	typ, _ := member(re.data, "type")
	re.typ = []byte(typ)
	return re, scratch
}

// member returns the top-level string member name of JSON object data.
func member(data []byte, name string) (string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if !enter(dec, '{') || !seek(dec, name) {
		return "", false
	}
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '"' {
		return "", false
	}
	return tok.String(), true
}

// rawFailure is the stream's error for a body that ended or failed
// before the run's end, as [runs.Stream.Err] words it.
func rawFailure(err error, maxEvent int) error {
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("%w (%d bytes)", threads.ErrEventTooLarge, maxEvent)
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: the run's stream ended before RUN_FINISHED or RUN_ERROR: %w", threads.ErrStreamTruncated, err)
}
