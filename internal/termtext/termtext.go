// Package termtext makes text from the service safe to print on a terminal:
// what it returns contains no escape or control sequence a terminal would
// act on, only text to show.
//
// It drops escape sequences (CSI "ESC [ ... final", OSC, DCS, SOS, PM and
// APC strings up to BEL or ST, and the other ESC sequences), the C0 and C1
// control characters and DEL, and the Unicode format characters
// (unicode.Cf: bidi marks, overrides and isolates, zero-width spaces...)
// but the zero-width joiner, which emoji sequences need.
// [Text] keeps '\n' and '\t' for multi-line text; [Line] is for one-line
// fields (ids, names, table columns): '\n', '\r', '\t' and the line and
// paragraph separators become a space. Invalid UTF-8 becomes U+FFFD.
//
// A [Filter] does the same over text that arrives in pieces (a streamed
// reply): a sequence split between two pieces is still dropped whole.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s safe to print as multi-line text: '\n' and '\t' stay.
func Text(s string) string {
	f := Filter{}
	return f.Write(s) + f.Flush()
}

// Line returns s safe to print as (part of) one line.
func Line(s string) string {
	f := Filter{Line: true}
	return f.Write(s) + f.Flush()
}

type state uint8

const (
	ground     state = iota
	esc              // after ESC
	escInter         // ESC, intermediates (0x20-0x2F), until the final byte
	csi              // in a control sequence, until its final byte
	str              // in an OSC, DCS, SOS, PM or APC string, until BEL or ST
	strEsc           // ESC in a string: ST if '\' follows
	maxPending = utf8.UTFMax - 1
)

// Filter filters text that arrives in pieces. The zero Filter filters
// multi-line text; set Line for one-line text.
type Filter struct {
	// Line makes '\n', '\r', '\t' and U+2028, U+2029 a space.
	Line bool
	// gap makes each dropped sequence or character a space (OneLine).
	gap bool

	st      state
	pending []byte // the start of a UTF-8 sequence cut at the end of a piece
}

// Write returns what of s can be printed now; the state of a sequence not
// yet ended carries over to the next call.
func (f *Filter) Write(s string) string {
	if len(f.pending) > 0 {
		s = string(f.pending) + s
		f.pending = f.pending[:0]
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 && !utf8.FullRuneInString(s[i:]) && len(s)-i <= maxPending {
			f.pending = append(f.pending, s[i:]...)
			break
		}
		i += n
		f.rune(&b, r)
	}
	return b.String()
}

// Flush ends the text: a UTF-8 sequence left incomplete becomes U+FFFD and
// an escape sequence left open is dropped. The Filter can then be reused.
func (f *Filter) Flush() string {
	var b strings.Builder
	f.st = ground
	for range f.pending {
		f.ground(&b, utf8.RuneError) // as utf8.DecodeRune reads a cut sequence
	}
	f.pending = f.pending[:0]
	return b.String()
}

// Reset drops any sequence in progress and starts afresh.
func (f *Filter) Reset() {
	f.st = ground
	f.pending = f.pending[:0]
}

func (f *Filter) rune(b *strings.Builder, r rune) {
	switch f.st {
	case esc:
		switch {
		case r == '[':
			f.st = csi
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			f.st = str
		case r >= 0x20 && r <= 0x2F:
			f.st = escInter
		case r >= 0x30 && r <= 0x7E:
			f.st = ground // a two-byte sequence: ESC 7, ESC c...
		default:
			f.st = ground // not a sequence: the ESC goes, r is text
			f.ground(b, r)
		}
	case escInter:
		switch {
		case r >= 0x20 && r <= 0x2F:
		case r >= 0x30 && r <= 0x7E:
			f.st = ground
		default:
			f.st = ground
			f.ground(b, r)
		}
	case csi:
		switch {
		case r >= 0x20 && r <= 0x3F: // parameters and intermediates
		case r >= 0x40 && r <= 0x7E:
			f.st = ground
		default: // not part of a control sequence: end it here
			f.st = ground
			f.ground(b, r)
		}
	case str:
		switch r {
		case 0x07, 0x9C: // BEL, ST
			f.st = ground
		case 0x1B:
			f.st = strEsc
		case 0x18, 0x1A: // CAN, SUB abort the string
			f.st = ground
		}
	case strEsc:
		if r == '\\' {
			f.st = ground
		} else {
			f.st = esc
			f.rune(b, r)
		}
	default:
		f.ground(b, r)
	}
}

func (f *Filter) ground(b *strings.Builder, r rune) {
	switch {
	case r == 0x1B:
		f.st = esc
		f.drop(b)
	case r == 0x9B: // C1 CSI
		f.st = csi
		f.drop(b)
	case r == 0x90 || r == 0x98 || r == 0x9D || r == 0x9E || r == 0x9F: // C1 DCS, SOS, OSC, PM, APC
		f.st = str
		f.drop(b)
	case r == '\n' || r == '\t':
		if f.Line {
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	case r == '\r':
		if f.Line {
			b.WriteByte(' ')
		}
	case r == '\u2028' || r == '\u2029': // line and paragraph separators
		if f.Line {
			b.WriteByte(' ')
		} else {
			b.WriteByte('\n')
		}
	case r < 0x20 || (r >= 0x7F && r <= 0x9F): // C0, DEL, C1
		f.drop(b)
	case r == '\u200D' && !f.gap: // the zero-width joiner of emoji sequences: harmless
		b.WriteRune(r)
	case unicode.Is(unicode.Cf, r): // bidi and other format characters
		f.drop(b)
	default:
		b.WriteRune(r)
	}
}

// drop marks where a sequence or character was dropped: a space in
// OneLine, nothing otherwise.
func (f *Filter) drop(b *strings.Builder) {
	if f.gap {
		b.WriteByte(' ')
	}
}

// OneLine returns s as one line of printable text of at most n runes, for
// an error string or a log value. It filters as [Line] does, except that
// each dropped sequence or character (and the zero-width joiner) leaves a
// space, so that no two pieces of text join into a new word; runs of white
// space become one space and none leads or trails. Longer text is cut to n
// runes followed by "…".
func OneLine(s string, n int) string {
	if s == "" {
		return ""
	}
	f := Filter{Line: true, gap: true}
	t := f.Write(s) + f.Flush()
	var b strings.Builder
	space := true // at the start: drop leading spaces
	runes := 0
	for _, r := range t {
		if unicode.IsSpace(r) {
			if space {
				continue
			}
			space, r = true, ' '
		} else {
			space = false
		}
		if runes == n {
			return strings.TrimRight(b.String(), " ") + "…"
		}
		b.WriteRune(r)
		runes++
	}
	return strings.TrimRight(b.String(), " ")
}
