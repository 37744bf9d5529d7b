// Package jsonscan is the one small JSON reader of the SDK's hand-written
// decoders of stream events (the spec stream's snapshots, runs' AG-UI
// events), which decode the same few shapes thousands of times per stream
// where reflection costs the most.
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
	"encoding/binary"
	"math/bits"
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
	seen uint64 // the names of the object Object reads (Once)
}

// Reset starts reading data.
func (s *Scanner) Reset(data string) { s.data, s.i, s.seen = data, 0, 0 }

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.data)
}

// Pos is the offset read to, for Since and Rewind.
func (s *Scanner) Pos() int { return s.i }

// Since returns the data read since offset pos.
func (s *Scanner) Since(pos int) string { return s.data[pos:s.i] }

// Rewind reads again from offset pos (one Pos returned).
func (s *Scanner) Rewind(pos int) { s.i = pos }

// OpenObject consumes the '{' of an object.
func (s *Scanner) OpenObject() bool {
	s.ws()
	return s.eat('{')
}

// OpenArray consumes the '[' of an array.
func (s *Scanner) OpenArray() bool {
	s.ws()
	return s.eat('[')
}

// Element reads up to the next element of an array; done reports the
// array's end instead. first says no element was read yet.
func (s *Scanner) Element(first bool) (done, ok bool) {
	s.ws()
	if s.eat(']') {
		return true, true
	}
	if !first {
		if !s.eat(',') {
			return false, false
		}
		s.ws()
	}
	return false, true
}

// Empty consumes an empty object (open '{') or array (open '['), white
// space inside it allowed; nothing when the value is anything else.
func (s *Scanner) Empty(open byte) bool {
	close := byte('}')
	if open == '[' {
		close = ']'
	}
	j := s.i
	if j >= len(s.data) || s.data[j] != open {
		return false
	}
	j++
	for j < len(s.data) && isSpace(s.data[j]) {
		j++
	}
	if j >= len(s.data) || s.data[j] != close {
		return false
	}
	s.i = j + 1
	return true
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

// Object reads an object member by member: member decodes the value of
// the member it is given the name of, and returns false for a name it
// does not know or a value it does not take (member calls Once for each
// name it takes, so that a name sent twice gives up). Object returns
// false when member did, or on a syntax error.
func (s *Scanner) Object(member func(name string) bool) bool {
	if !s.OpenObject() {
		return false
	}
	outer := s.seen // an object within a member's value has its own
	s.seen = 0
	for first := true; ; first = false {
		name, done, ok := s.Member(first)
		if !ok || done || !member(name) {
			s.seen = outer
			return ok && done
		}
	}
}

// Once records that the object Object reads had the member of index bit
// (under 64, one per name its member func knows), and reports whether
// that is new: a decoder built on Scanner gives up on a name sent twice
// (jsonx's rules for it apply).
func (s *Scanner) Once(bit uint) bool {
	if s.seen&(1<<bit) != 0 {
		return false
	}
	s.seen |= 1 << bit
	return true
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
	if len(lit) <= 15 {
		// An integer of at most 15 digits (a millisecond timestamp) is
		// below 2^53: its float64 is exact, as ParseFloat's would be.
		n := uint64(0)
		for i := 0; i < len(lit); i++ {
			c := lit[i]
			if c < '0' || c > '9' {
				n = ^uint64(0)
				break
			}
			n = n*10 + uint64(c-'0')
		}
		if n != ^uint64(0) {
			return float64(n), true
		}
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
func (s *Scanner) String() (string, bool) { return s.str(nil) }

// HintedString is String for data that repeats what came before, as a
// stream of snapshots does (each repeats the message so far), with the
// hints h keeps of the strings it decoded (see Hints).
func (s *Scanner) HintedString(h *Hints) (string, bool) { return s.str(h) }

// Hints are what HintedString keeps of the strings it decoded, so that
// the next data's strings cost what they add:
//
//   - The text data repeats is compared, not re-read: a string that
//     starts with the last long string decoded is checked only past that
//     prefix (a vectorised compare, then the new bytes).
//   - An escaped string that extends the last escaped one is unescaped
//     only in its new part, appended to the bytes of the last one (an
//     append-only buffer: the strings already returned are prefixes of it
//     that no append touches).
//
// Hints hold substrings of earlier data: the same rule applies (nobody
// modifies it). The zero value is ready to use.
type Hints struct {
	last    string // the last long plain string decoded
	escRaw  string // the last escaped string, quoted, as sent
	escStr  string // its unescaped value: arena[:len(escStr)]
	arena   []byte
	scratch []byte
}

// minHint is the length from which a string is remembered as a hint:
// shorter ones cost little to check again.
const minHint = 32

func (s *Scanner) str(h *Hints) (string, bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return "", false
	}
	start := s.i + 1
	from := start
	if h != nil && h.last != "" && strings.HasPrefix(s.data[start:], h.last) {
		from += len(h.last) // checked when it was decoded: plain, whole runes
	}
	// Most strings (names, ids, a delta, the new part of a repeated text)
	// are short, plain ASCII: one pass over at most shortScan bytes finds
	// the closing quote and checks the bytes before it, where the general
	// path below takes three (two searches and a check).
	if j := shortEnd(s.data, from); j < len(s.data) && s.data[j] == '"' {
		v := s.data[start:j]
		s.i = j + 1
		if h != nil && len(v) >= minHint {
			h.last = v
		}
		return v, true
	}
	q := strings.IndexByte(s.data[from:], '"')
	if q < 0 {
		return "", false
	}
	end := from + q
	if tail := s.data[from:end]; strings.IndexByte(tail, '\\') < 0 && Plain(tail) {
		v := s.data[start:end]
		s.i = end + 1
		if h != nil && len(v) >= minHint {
			h.last = v
		}
		return v, true
	}
	end = StringEnd(s.data, start)
	if end == len(s.data) {
		return "", false
	}
	raw := s.data[start-1 : end+1]
	if h != nil {
		v, ok := h.unquote(raw)
		s.i = end + 1
		return v, ok
	}
	b, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return "", false // invalid UTF-8 or escapes: jsonx's rules apply
	}
	s.i = end + 1
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// unquote decodes raw, a quoted string with escapes (or bytes Plain does
// not pass), with the hints.
func (h *Hints) unquote(raw string) (string, bool) {
	if raw == h.escRaw {
		return h.escStr, true
	}
	// The new string extends the last one: unescape only its new part.
	// The last one's content ends with a whole character or escape, unless
	// its last escape is half of a surrogate pair that the new part may
	// complete.
	if p := h.escRaw; len(p) > 2 && strings.HasPrefix(raw, p[:len(p)-1]) && !highSurrogateEnd(p[:len(p)-1]) {
		h.scratch = append(append(h.scratch[:0], '"'), raw[len(p)-1:]...)
		b, err := jsontext.AppendUnquote(h.arena[:len(h.escStr)], h.scratch)
		if err != nil {
			return "", false
		}
		h.arena = b
	} else {
		b, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return "", false
		}
		h.arena = b
	}
	h.escRaw = raw
	h.escStr = unsafe.String(unsafe.SliceData(h.arena), len(h.arena))
	if len(h.arena) == 0 {
		h.escStr = ""
	}
	return h.escStr, true
}

// highSurrogateEnd reports whether s may end with a \uD800-\uDBFF escape.
func highSurrogateEnd(s string) bool {
	if len(s) < 6 {
		return false
	}
	e := s[len(s)-6:]
	return e[0] == '\\' && e[1] == 'u' && (e[2] == 'd' || e[2] == 'D') && strings.IndexByte("89abAB", e[3]) >= 0
}

// Str decodes a string into *p (with h, as HintedString does); null
// leaves *p as it is, the zero value of a decoder's fresh target.
func Str[T ~string](s *Scanner, h *Hints, p *T) bool {
	if s.Null() {
		return true
	}
	v, ok := s.str(h)
	*p = T(v)
	return ok
}

// Boolean decodes true or false into *p; null leaves it as it is.
func Boolean(s *Scanner, p *bool) bool {
	if s.Null() {
		return true
	}
	v, ok := s.Bool()
	*p = v
	return ok
}

// Float64 decodes a number into *p as Float does; null leaves it as it
// is.
func Float64(s *Scanner, p *float64) bool {
	if s.Null() {
		return true
	}
	v, ok := s.Float()
	*p = v
	return ok
}

// shortScan is how far shortEnd looks: past it, the vectorised searches of
// the general path are faster than its 8 bytes a step.
const shortScan = 64

// shortEnd returns the index of the first byte at or after d[i] (within
// shortScan bytes) that is a quote, a backslash, a control character or
// not ASCII; an index past that window (or len(d)) when there is none in
// it. Eight bytes are looked at a time: a byte's high bit flags it in t,
// and the lowest flag is exact (a false flag can only sit above a true
// one, from a borrow).
func shortEnd(d string, i int) int {
	end := min(len(d), i+shortScan)
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= end; i += 8 {
		// Little-endian whatever the machine: the lowest flag is then the
		// first byte in d.
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(d[i:]), 8))
		q := w ^ (ones * '"')
		b := w ^ (ones * '\\')
		t := ((w - ones*0x20) | w | (q-ones)&^q | (b-ones)&^b) & highs
		if t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for ; i < end; i++ {
		if c := d[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return end
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

// Space skips white space.
func (s *Scanner) Space() { s.ws() }

func (s *Scanner) ws() {
	for s.i < len(s.data) && isSpace(s.data[s.i]) {
		s.i++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *Scanner) eat(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}
