package termtext_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/threadsapi/threads-go/internal/termtext"
)

// OneLine is what error strings show of server text: one line, each dropped
// sequence leaving a space (no two words join), cut to n runes.
func TestOneLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 10, ""},
		{"  plain  text ", 100, "plain text"},
		{"Bad\r\nInjected: yes\x1b[31mRED\x1b[0m\x1b]0;title\x07\x00\u202e\u2028x", 100, "Bad Injected: yes RED x"},
		{"a\x1b[2Jb", 10, "a b"},
		{"C\nODE\u009b2J", 10, "C ODE"},
		{"tab\there", 10, "tab here"},
		{"éééé", 3, "ééé…"},
		{"ab   cd", 3, "ab…"},
	} {
		assert.Equal(t, tc.want, termtext.OneLine(tc.in, tc.n), "%q", tc.in)
	}
}
