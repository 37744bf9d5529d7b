package termtext_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/threadsapi/threads-go/internal/termtext"
)

func TestFilter(t *testing.T) {
	for _, tc := range []struct {
		name, in, text, line string
	}{
		{"plain", "hello, wörld 👋", "hello, wörld 👋", "hello, wörld 👋"},
		{"emoji ZWJ sequence", "👩\u200d💻", "👩\u200d💻", "👩\u200d💻"},
		{"review payload", "\x1b]0;pwned\x07\x1b[2J\r\nEVIL", "\nEVIL", "  EVIL"},
		{"newline and tab", "a\tb\nc", "a\tb\nc", "a b c"},
		{"CR", "a\rb", "ab", "a b"},
		{"CRLF", "a\r\nb", "a\nb", "a  b"},
		{"CSI colour", "\x1b[1;31mred\x1b[0m", "red", "red"},
		{"CSI private", "\x1b[?1049hx\x1b[?25l", "x", "x"},
		{"CSI intermediate", "\x1b[0 qx", "x", "x"},
		{"CSI cut by control", "\x1b[12\nx", "\nx", " x"},
		{"CSI cut by non-ASCII", "\x1b[1é", "é", "é"},
		{"C1 CSI", "\u009b2Jx", "x", "x"},
		{"OSC BEL", "\x1b]0;title\x07x", "x", "x"},
		{"OSC ST", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link", "link"},
		{"OSC C1 ST", "\x1b]52;c;AAAA\u009cx", "x", "x"},
		{"C1 OSC", "\u009d0;t\u0007x", "x", "x"},
		{"OSC with newline inside", "\x1b]0;a\nb\x07x", "x", "x"},
		{"OSC aborted by CAN", "\x1b]0;a\x18x", "x", "x"},
		{"OSC ESC then new sequence", "\x1b]0;a\x1b[2Jx", "x", "x"},
		{"unterminated OSC", "a\x1b]0;rest", "a", "a"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\x", "x", "x"},
		{"APC PM SOS", "\x1b_a\x1b\\\x1b^b\x1b\\\x1bXc\x1b\\x", "x", "x"},
		{"two-byte ESC", "\x1b7a\x1b8\x1bcb\x1bMc", "abc", "abc"},
		{"ESC intermediate", "\x1b(Bx\x1b#8y", "xy", "xy"},
		{"ESC then control", "\x1b\nx", "\nx", " x"},
		{"ESC ESC", "\x1b\x1b[2Jx", "x", "x"},
		{"trailing ESC", "x\x1b", "x", "x"},
		{"C0", "a\x00\x07\x08\x0b\x0c\x7fb", "ab", "ab"},
		{"C1", "a\u0085\u0084\u008eb", "ab", "ab"},
		{"bidi", "a\u202eevil\u202c\u2066x\u2069\u200fb", "aevilxb", "aevilxb"},
		{"zero width, BOM", "a\u200b\ufeffb", "ab", "ab"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc", "a b c"},
		{"invalid UTF-8, raw C1 byte", "a\x9b2Jb\xff", "a\ufffd2Jb\ufffd", "a\ufffd2Jb\ufffd"},
		{"cut UTF-8 at the end", "a\xe2\x80", "a\ufffd\ufffd", "a\ufffd\ufffd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.text, termtext.Text(tc.in), "Text")
			assert.Equal(t, tc.line, termtext.Line(tc.in), "Line")
			// Fed in pieces at every split point, the result is the same.
			for i := 0; i <= len(tc.in); i++ {
				for _, line := range []bool{false, true} {
					f := termtext.Filter{Line: line}
					got := f.Write(tc.in[:i]) + f.Write(tc.in[i:]) + f.Flush()
					want := tc.text
					if line {
						want = tc.line
					}
					assert.Equal(t, want, got, "split at %d, Line %v", i, line)
				}
			}
		})
	}
}

// TestFilterBytewise feeds every payload one byte at a time.
func TestFilterBytewise(t *testing.T) {
	in := "ok \x1b]0;pwned\x07\x1b[2J\r\nEVIL \u009b31m\u202e é 👋"
	var f termtext.Filter
	var got strings.Builder
	for i := range len(in) {
		got.WriteString(f.Write(in[i : i+1]))
	}
	got.WriteString(f.Flush())
	assert.Equal(t, "ok \nEVIL  é 👋", got.String())
}

// FuzzFilter: whatever the input and however it is cut, the output has no
// control or format character (but '\n' and '\t' in Text) and is valid UTF-8.
func FuzzFilter(f *testing.F) {
	f.Add("\x1b]0;pwned\x07\x1b[2J\r\nEVIL", 3)
	f.Add("\u009b2J\u202e", 1)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		for _, line := range []bool{false, true} {
			fl := termtext.Filter{Line: line}
			out := fl.Write(s[:cut]) + fl.Write(s[cut:]) + fl.Flush()
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8: %q", out)
			}
			for _, r := range out {
				if (r == '\n' || r == '\t') && !line {
					continue
				}
				if unicode.IsControl(r) || (unicode.Is(unicode.Cf, r) && r != '\u200d') || r == '\u2028' || r == '\u2029' {
					t.Fatalf("Line %v: %U in %q (from %q)", line, r, out, s)
				}
			}
		}
	})
}
