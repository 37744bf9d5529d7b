// Package echo bounds what the SDK's tool runners send back of the
// server's own words, one rule for both API generations: every string that
// came from the server and goes back to it (a tool or parameter name, an
// argument's value, an error that quotes them) is quoted at most MaxRunes
// runes long, once; an error text is cut at MaxErrorText bytes with the
// secrets removed first; a call id, which must be echoed whole, is
// refused past MaxCallID bytes. So what a round sends is at most a
// constant per call more than the first round, whatever the server sent.
package echo

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/threadsapi/threads-go/internal/termtext"
)

// The bounds.
const (
	MaxRunes     = 64      // runes of server text quoted in a message to the model
	MaxErrorText = 4 << 10 // bytes of a tool's error text
	MaxCallID    = 1 << 10 // bytes of a call id, which is echoed whole
)

// Quote quotes server text for a message to the model: one line of
// printable text, at most MaxRunes runes ("…" when cut), in Go quotes.
func Quote(s string) string { return strconv.Quote(termtext.OneLine(s, MaxRunes)) }

// ErrorText is the text a tool result carries for err: clean (which
// removes the secrets) applied to a bounded prefix of MaxErrorText+slack
// bytes (slack at least the longest secret's length, so that none
// straddles the prefix's end), made valid UTF-8, then cut at MaxErrorText
// bytes on a rune boundary with "…" added.
func ErrorText(err error, slack int, clean func(string) string) string {
	text := err.Error()
	if n := MaxErrorText + slack; len(text) > n {
		text = text[:n]
	}
	text = strings.ToValidUTF8(clean(text), "\uFFFD")
	if len(text) > MaxErrorText {
		text = Cut(text, MaxErrorText-len("…")) + "…"
	}
	return text
}

// Cut returns at most n bytes of s, on a rune boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
