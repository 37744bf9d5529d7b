// Package jsonscan is a small JSON reader for the SDK's hand-written
// decoders of stream events (runs' AG-UI events), which decode the same
// few shapes thousands of times per stream where reflection costs the most.
//
// It reads a string as one event's data and decodes only what it is sure
// of, strictly: any syntax it does not accept, a string with invalid UTF-8,
// a number out of range, makes the caller give up and decode the event with
// internal/jsonx as before, so that the result never differs from jsonx's
// (each decoder built on it has an equivalence test and a fuzz target
// against jsonx). A string without escapes is returned as a substring of
// the data, without a copy: the data must be a string nobody modifies (an
// event's own string from internal/sse).
package jsonscan

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// Scanner reads one JSON document. The zero value reads an empty one.
type Scanner struct {
	data string
	i    int
}

// Reset starts reading data.
func (s *Scanner) Reset(data string) { s.data, s.i = data, 0 }

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.data)
}

// OpenObject consumes the '{' of an object.
func (s *Scanner) OpenObject() bool {
	s.ws()
	return s.eat('{')
}

// Member reads up to the next member's value and returns its name; done
// reports the object's end instead. first says no member was read yet.
func (s *Scanner) Member(first bool) (name string, done, ok bool) {
	s.ws()
	if s.eat('}') {
		return "", true, true
	}
	if !first {
		if !s.eat(',') {
			return "", false, false
		}
		s.ws()
	}
	name, ok = s.String()
	if !ok {
		return "", false, false
	}
	s.ws()
	if !s.eat(':') {
		return "", false, false
	}
	s.ws()
	return name, false, true
}

// Null consumes a null literal.
func (s *Scanner) Null() bool { return s.literal("null") }

// Bool decodes true or false (not null).
func (s *Scanner) Bool() (v, ok bool) {
	if s.literal("true") {
		return true, true
	}
	return false, s.literal("false")
}

func (s *Scanner) literal(lit string) bool {
	if !strings.HasPrefix(s.data[s.i:], lit) {
		return false
	}
	j := s.i + len(lit)
	if j < len(s.data) {
		switch s.data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return false // "nullx"
		}
	}
	s.i = j
	return true
}

// Number returns a JSON number's literal, checked against JSON's grammar.
func (s *Scanner) Number() (string, bool) {
	d, i := s.data, s.i
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return "", false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return "", false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return "", false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.i = i
	return d[start:i], true
}

// Float decodes a number into a float64 as JSON v2 does (out of range
// fails).
func (s *Scanner) Float() (float64, bool) {
	lit, ok := s.Number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(lit, 64)
	return f, err == nil
}

// Skip returns the next value as sent, finding only its extent: the
// caller must have it checked (by jsonx).
func (s *Scanner) Skip() (string, bool) {
	start := s.i
	end, ok := SkipValue(s.data, s.i)
	s.i = end
	if !ok {
		return "", false
	}
	return s.data[start:end], true
}

// SkipValue finds the extent of the value that starts at data[i] (no
// white space before it): it returns the index just past it. It checks
// only that strings close and brackets balance; ok is false otherwise or
// when there is no value there.
func SkipValue(data string, i int) (end int, ok bool) {
	start, depth := i, 0
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			e := StringEnd(data, i+1)
			if e == len(data) {
				return e, false
			}
			i = e + 1
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			if depth == 0 {
				return i, i > start
			}
			depth--
			i++
		case c == ',' && depth == 0:
			return i, i > start
		default:
			i++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return i, true
		}
	}
	return i, depth == 0 && i > start
}

// String decodes a JSON string: without escapes, a substring of the data.
func (s *Scanner) String() (string, bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return "", false
	}
	start := s.i + 1
	q := strings.IndexByte(s.data[start:], '"')
	if q < 0 {
		return "", false
	}
	end := start + q
	if v := s.data[start:end]; strings.IndexByte(v, '\\') < 0 && Plain(v) {
		s.i = end + 1
		return v, true
	}
	end = StringEnd(s.data, start)
	if end == len(s.data) {
		return "", false
	}
	b, err := jsontext.AppendUnquote(nil, s.data[start-1:end+1])
	if err != nil {
		return "", false // invalid UTF-8 or escapes: jsonx's rules apply
	}
	s.i = end + 1
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// Plain reports whether v may stand as a JSON string's content as it is,
// quotes and backslashes aside: no control characters, valid UTF-8. Eight
// ASCII bytes are checked at a time.
func Plain(v string) bool {
	i := 0
	for ; i+8 <= len(v); i += 8 {
		w := *(*uint64)(unsafe.Pointer(unsafe.StringData(v[i:])))
		// Zero when every byte is in 0x20-0x7F: a byte under 0x20 borrows
		// into its high bit, a byte over 0x7F has it set.
		if ((w-0x2020202020202020)|w)&0x8080808080808080 != 0 {
			return plainSlow(v[i:])
		}
	}
	return plainSlow(v[i:])
}

func plainSlow(v string) bool {
	ascii := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 {
			return false
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	return ascii || utf8.ValidString(v)
}

// StringEnd returns the index of the quote that closes the string whose
// content starts at d[i], or len(d) when it does not close: the first
// quote not escaped by an odd run of backslashes before it. Each byte is
// looked at a bounded number of times (a run of backslashes only by the
// quote right after it).
func StringEnd(d string, i int) int {
	for {
		k := strings.IndexByte(d[i:], '"')
		if k < 0 {
			return len(d)
		}
		j := i + k
		n := 0
		for b := j - 1; b >= i && d[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
		i = j + 1
	}
}

func (s *Scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *Scanner) eat(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}
