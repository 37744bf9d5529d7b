// Package sseline rewrites the live service's non-standard "error:" line
// into standard SSE fields before go-sse parses the stream.
//
// The service ends a failed stream with "error: <text>", a field name that
// the SSE standard (and so go-sse) silently drops. The filter turns such a
// line into "event:" ErrorEvent and "data: <text>", which the parser keeps.
// Every other byte passes through unchanged, and the filter never reads
// ahead: each Read of the filter makes at most one Read of the source, so an
// event is available as soon as its bytes are.
package sseline

import (
	"bytes"
	"io"
)

// ErrorEvent is the event type that marks a rewritten error line. It holds a
// character no server sends in an event name by accident.
const ErrorEvent = "threads-go:error"

var (
	errorField = []byte("error:")
	rewritten  = []byte("event:" + ErrorEvent + "\ndata:")
)

// Filter is an io.Reader that rewrites error lines. The zero value is not
// usable; call New.
type Filter struct {
	src       io.Reader
	buf       []byte // what was read from src and not yet processed
	out       []byte // processed bytes; out[off:] not yet returned
	off       int
	held      []byte // the start of a line that may still become "error:"
	lineStart bool
	err       error
}

// New returns a Filter reading from src.
func New(src io.Reader) *Filter {
	return &Filter{src: src, lineStart: true}
}

// Read implements io.Reader.
func (f *Filter) Read(p []byte) (int, error) {
	if f.off == len(f.out) && f.err == nil && len(f.held) == 0 && len(p) > 0 {
		// Fast path: read straight into p and leave it as it is when no
		// line in it starts like "error:", which is every chunk but one.
		n, err := f.src.Read(p)
		start := f.lineStart
		if f.plain(p[:n]) {
			if err != nil {
				f.err = err
				if n == 0 {
					return 0, err
				}
			}
			return n, nil
		}
		f.lineStart = start
		f.out, f.off = f.process(f.out[:0], p[:n]), 0
		f.err = err
	}
	for f.off == len(f.out) {
		f.out, f.off = f.out[:0], 0
		if f.err != nil {
			if len(f.held) > 0 {
				// The source ended inside a line start; it was not an error line.
				f.out = append(f.out, f.held...)
				f.held = f.held[:0]
				break
			}
			return 0, f.err
		}
		if f.buf == nil {
			f.buf = make([]byte, 4<<10)
		}
		n, err := f.src.Read(f.buf)
		f.out = f.process(f.out, f.buf[:n])
		if err != nil {
			f.err = err
		} else if n == 0 && len(f.out) == 0 {
			// Let a source that returns (0, nil) be retried by the caller
			// rather than spinning here.
			return 0, nil
		}
	}
	n := copy(p, f.out[f.off:])
	f.off += n
	return n, nil
}

// plain reports whether chunk needs no rewriting, tracking line starts as
// process does. The caller restores lineStart when it returns false.
func (f *Filter) plain(chunk []byte) bool {
	for len(chunk) > 0 {
		if f.lineStart {
			c := chunk[0]
			if c == '\n' || c == '\r' {
				chunk = chunk[1:]
				continue
			}
			if c == 'e' {
				return false // maybe "error:"; let process decide
			}
			f.lineStart = false
		}
		i := lineEnd(chunk)
		if i < 0 {
			return true
		}
		chunk = chunk[i+1:]
		f.lineStart = true
	}
	return true
}

// process appends chunk to out, rewriting error lines.
func (f *Filter) process(out, chunk []byte) []byte {
	for len(chunk) > 0 {
		if !f.lineStart {
			i := lineEnd(chunk)
			if i < 0 {
				return append(out, chunk...)
			}
			out = append(out, chunk[:i+1]...)
			chunk = chunk[i+1:]
			f.lineStart = true
			continue
		}
		if len(f.held) == 0 && (chunk[0] == '\n' || chunk[0] == '\r') {
			// A blank line (or the LF of a CRLF): still at a line start.
			out = append(out, chunk[0])
			chunk = chunk[1:]
			continue
		}
		need := len(errorField) - len(f.held)
		take := min(need, len(chunk))
		if !bytes.Equal(chunk[:take], errorField[len(f.held):len(f.held)+take]) {
			out = append(out, f.held...)
			f.held = f.held[:0]
			f.lineStart = false
			continue
		}
		if take < need {
			f.held = append(f.held, chunk...)
			return out
		}
		out = append(out, rewritten...)
		f.held = f.held[:0]
		f.lineStart = false
		chunk = chunk[take:]
	}
	return out
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
