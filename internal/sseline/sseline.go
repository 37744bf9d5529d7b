// Package sseline hands go-sse one whole event at a time, with the live
// service's non-standard "error:" line rewritten into standard fields.
//
// Why whole events: go-sse (through bufio.Scanner) re-scans everything it
// has buffered for an unfinished event on each read, so an event that
// arrives in many small reads costs time quadratic in its size (a 15 MiB
// event in 1 KiB reads: 14x the CPU of the same event in one read). The
// filter finds the end of each event in one linear pass and gives the
// parser the event only when it is complete, so the parser scans it once.
//
// What the filter changes, and nothing else:
//   - A UTF-8 byte order mark at the very start of the stream is dropped
//     (the SSE standard strips it; go-sse does too, but only after this
//     filter has looked for "error:" at the first line).
//   - Blank lines before an event are dropped: they dispatch nothing, and
//     so they never count toward the event size limit.
//   - An event with an "error: <text>" line (a field name the SSE standard,
//     and so go-sse, silently drops) becomes one event of type ErrorEvent
//     whose data is the text of its first error line; the event's other
//     lines are discarded, so a snapshot sharing the event with an error
//     line never turns into the error's message.
//   - An event larger than the limit ends the stream with ErrTooLarge.
//
// The filter never reads ahead: it reads from the source only while it has
// no complete event to give, so an event reaches the parser as soon as its
// last byte arrives. It buffers what the read that completed an event
// returned beyond it: a read returns what has arrived, and asks for more
// room only while reads fill what they are given (a body that arrives
// faster than it is read), so that a fast stream takes few large reads
// and a slow one small ones.
//
// It is read in one of two ways: as an io.Reader (Read, one whole event
// per call), or event by event (Take, and Fill when Take has none).
package sseline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrorEvent is the event type that marks a rewritten error line. It holds a
// character no server sends in an event name by accident.
const ErrorEvent = "threads-go:error"

// Overhead is how many bytes the rewriting may add to an event: a parser
// fed by a Filter with limit n needs a limit of n+Overhead.
const Overhead = len(rewritten) + 2

// ErrTooLarge is returned (wrapped) when one event exceeds the limit.
var ErrTooLarge = errors.New("sseline: event exceeds the size limit")

const rewritten = "event:" + ErrorEvent + "\ndata:"

var (
	errorField = []byte("error:")
	bom        = []byte("\xEF\xBB\xBF")
)

// minRead is the least free space a read gets: small, so that a stream of
// short events (the /v1 run events, about 200 bytes) keeps a small buffer;
// the buffer doubles for larger ones.
const minRead = 512

// maxRead is the most free space a read asks for when reads keep filling
// what they are given: a body that is already there (a fast server, a
// loopback one) is then read in a few large reads rather than many small
// ones (each a system call), as bufio's 64 KiB scanner buffer of a
// hand-written client does.
const maxRead = 64 << 10

// keepBuf is the largest buffer kept while the filter holds nothing: a
// stream that waits for the server keeps no more than this (a buffer that
// fits its events, which a live stream's reads bring one at a time, but
// not the room a fast body's reads took).
const keepBuf = 16 << 10

// maxEmptyReads is how many reads in a row may return nothing (0, nil)
// before Fill gives up with io.ErrNoProgress, as bufio.Scanner does.
const maxEmptyReads = 100

// Filter is an io.Reader over an event stream that yields whole events.
// The zero value is not usable; call New.
type Filter struct {
	src io.Reader
	max int

	buf        []byte // buf[start:end] was read from src and not yet handed on
	start, end int
	scan       int  // buf[start:scan] holds complete lines of the current event
	seen       int  // buf[scan:seen] is a line start already searched for its end
	cr         bool // the byte before buf[scan] was a '\r' that ended a line
	errText    []byte
	hasErr     bool // the current event has an error line; errText is its text
	began      bool // the BOM check is done

	out []byte // the next event to hand on (a slice of buf, or rewritten)
	err error  // from src, returned once the buffer is empty

	want  int // the free space the next read gets (minRead to maxRead; 0: minRead)
	empty int // reads in a row that returned nothing
}

// New returns a Filter reading from src whose events may be at most max
// bytes (counted from the first byte of the event to the end of the blank
// line that ends it); max <= 0 means no limit.
func New(src io.Reader, max int) *Filter {
	return &Filter{src: src, max: max}
}

// Read implements io.Reader.
func (f *Filter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.next() {
			continue
		}
		if f.err != nil {
			if f.start < f.end {
				// The source ended inside an event: hand on what there is,
				// for the parser to judge (a last line without its blank
				// line is still an event; a cut line is a truncation).
				f.finish(f.end)
				continue
			}
			return 0, f.err
		}
		if !f.fill() {
			// A source that returns (0, nil): let the caller retry rather
			// than spin here (bufio.Scanner gives up after 100).
			return 0, nil
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// Take hands on the next complete event the filter holds, without reading
// from the source; once the source has ended, what is left of an
// unfinished event, as the last one. ok is false when it holds none: call
// Fill, unless Err says the source has ended. The event is a slice of the
// filter's buffer (or of a rewritten event), valid until the next Fill.
// Do not mix with Read.
func (f *Filter) Take() (ev []byte, ok bool) {
	if len(f.out) == 0 && !f.next() {
		if f.err == nil || f.start == f.end {
			return nil, false
		}
		f.finish(f.end)
	}
	ev, f.out = f.out, nil
	return ev, true
}

// Fill makes one read from the source, for Take: it blocks until some
// bytes arrive or the source ends (Err then says how). A source that
// returns nothing maxEmptyReads times in a row ends with io.ErrNoProgress.
func (f *Filter) Fill() {
	if f.err != nil {
		return
	}
	if f.fill() {
		f.empty = 0
		return
	}
	if f.empty++; f.empty >= maxEmptyReads {
		f.err = io.ErrNoProgress
	}
}

// Err reports what ended the source (io.EOF at its end), once the filter
// has seen it, and nil before.
func (f *Filter) Err() error { return f.err }

// Buffered reports how many bytes were read from the source and not yet
// handed on.
func (f *Filter) Buffered() int { return len(f.out) + f.end - f.start }

// fill makes one read from the source into the buffer. It reports
// whether the read gave bytes or an error.
func (f *Filter) fill() bool {
	if f.start == f.end {
		f.start, f.end, f.scan, f.seen = 0, 0, 0, 0
		if len(f.buf) > keepBuf && f.want <= keepBuf {
			// Nothing buffered, and the reads have caught up with the
			// server: do not keep a large event's or a fast body's buffer
			// while the stream waits.
			f.buf = nil
		}
	}
	want := max(f.want, minRead)
	if len(f.buf)-f.end < want {
		if f.start > 0 && f.start >= len(f.buf)/2 {
			// Move the current event to the front rather than grow.
			n := copy(f.buf, f.buf[f.start:f.end])
			f.scan -= f.start
			f.seen -= f.start
			f.start, f.end = 0, n
		}
		// Grow (doubling: a large event arriving in many reads is copied
		// a linear number of bytes in all) when the room left is short by
		// more than a quarter of what the read should get.
		if len(f.buf)-f.end < max(want-want/4, minRead) {
			grown := make([]byte, max(2*len(f.buf), f.end-f.start+want))
			n := copy(grown, f.buf[f.start:f.end])
			f.scan -= f.start
			f.seen -= f.start
			f.buf, f.start, f.end = grown, 0, n
		}
	}
	free := len(f.buf) - f.end
	n, err := f.src.Read(f.buf[f.end:])
	f.end += n
	if err != nil {
		f.err = err
	}
	switch {
	case n == free:
		// The read filled all it was given: more is waiting, so the next
		// read gets more room.
		f.want = min(2*free, maxRead)
	case n < free/4:
		// The reads have caught up with the server: small ones again.
		f.want = minRead
	}
	return n > 0 || err != nil
}

// next scans the buffered bytes for the end of the current event. It
// reports whether f.out now holds an event.
func (f *Filter) next() bool {
	if !f.began {
		if f.end-f.start < len(bom) && f.err == nil && bytes.HasPrefix(bom, f.buf[f.start:f.end]) {
			return false // maybe a BOM: wait for three bytes
		}
		f.began = true
		if bytes.HasPrefix(f.buf[f.start:f.end], bom) {
			f.start += len(bom)
			f.scan = f.start
		}
	}
	for f.scan < f.end {
		c := f.buf[f.scan]
		if f.cr && c == '\n' {
			// The LF of a CRLF whose CR ended the previous line.
			f.cr = false
			f.scan++
			if f.scan-1 == f.start {
				f.start++ // at the start of an event: nothing to keep
			}
			continue
		}
		f.cr = false
		if c == '\n' || c == '\r' {
			f.cr = c == '\r'
			f.scan++
			if f.scan-1 == f.start {
				// A blank line before any field: it dispatches nothing.
				f.start = f.scan
				continue
			}
			// A blank line after fields: the event ends here.
			f.finish(f.scan)
			return true
		}
		// A line with content: find its end, searching each byte once
		// however many reads the line takes.
		line := f.buf[f.scan:f.end]
		from := max(f.seen-f.scan, 0)
		i := lineEnd(line[from:])
		if i >= 0 {
			i += from
		}
		n := i
		if n < 0 {
			n = len(line)
		}
		if f.max > 0 && f.scan-f.start+n > f.max {
			f.tooLarge()
			return false
		}
		if i < 0 {
			f.seen = f.end
			return false // the line is not complete yet; keep scan at its start
		}
		if !f.hasErr && bytes.HasPrefix(line, errorField) {
			f.hasErr = true
			f.errText = append(f.errText[:0], line[len(errorField):i]...)
		}
		f.cr = line[i] == '\r'
		f.scan += i + 1
	}
	return false
}

// finish hands on buf[start:end] as one event, rewritten if it had an
// error line.
func (f *Filter) finish(end int) {
	if f.hasErr {
		out := make([]byte, 0, len(rewritten)+len(f.errText)+2)
		out = append(out, rewritten...)
		out = append(out, f.errText...)
		f.out = append(out, '\n', '\n')
		f.hasErr = false
	} else {
		f.out = f.buf[f.start:end:end]
	}
	f.start = end
	f.scan = end
}

func (f *Filter) tooLarge() {
	f.err = fmt.Errorf("%w (%d bytes)", ErrTooLarge, f.max)
	f.start, f.end, f.scan, f.seen = 0, 0, 0, 0
	f.buf = nil // release the event
}

// lineEnd returns the index of the first '\n' or '\r' in b, or -1. Two
// IndexByte calls (vectorised) beat bytes.IndexAny (byte by byte).
func lineEnd(b []byte) int {
	n := bytes.IndexByte(b, '\n')
	if n < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if r := bytes.IndexByte(b[:n], '\r'); r >= 0 {
		return r
	}
	return n
}
