package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingReader yields n bytes of b and counts what was read.
type countingReader struct {
	b    byte
	n    int
	read int
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.read)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.read += k
	return k, nil
}

// keyServer records the Authorization header of each request.
func keyServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[],"total":0,"offset":0,"limit":10,"count":0}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auths...)
	}
}

// --api-key-stdin reads at most 4 KiB looking for the key's line: a stdin
// without a newline (32 MiB here) is refused with a clear usage error, not
// read whole and sent as the key (issue 21, item 12).
func TestAPIKeyStdinBounded(t *testing.T) {
	srv, auths := keyServer(t)
	in := &countingReader{b: 'k', n: 32 << 20}
	var out, errOut bytes.Buffer
	code := run([]string{"list", "--api-key-stdin", "--base-url", srv.URL}, &env{stdin: in, stdout: &out, stderr: &errOut, interrupt: make(chan os.Signal)})
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut.String(), "--api-key-stdin: reading the key from stdin: the first line is longer than 4096 bytes")
	assert.NotContains(t, errOut.String(), "kkkk", "what was read is not quoted")
	assert.LessOrEqual(t, in.read, 8<<10, "stdin is read no further than the bound")
	assert.Empty(t, auths(), "nothing was sent")
}

// A key line of exactly 4096 bytes (with or without its newline, with a
// CRLF) is read and sent.
func TestAPIKeyStdinAtBound(t *testing.T) {
	key := strings.Repeat("k", 4096)
	for _, input := range []string{key + "\n", key, key + "\r\n", "  " + key[2:] + "\nrest of stdin"} {
		srv, auths := keyServer(t)
		var out, errOut bytes.Buffer
		code := run([]string{"list", "--api-key-stdin", "--base-url", srv.URL}, &env{stdin: strings.NewReader(input), stdout: &out, stderr: &errOut, interrupt: make(chan os.Signal)})
		require.Equal(t, exitOK, code, errOut.String())
		got := auths()
		require.NotEmpty(t, got)
		assert.Equal(t, "Bearer "+strings.TrimSpace(strings.SplitN(input, "\n", 2)[0]), got[0])
	}
	for input, want := range map[string]string{
		" \n":          "empty",
		key + "k\n":    "the first line is longer than 4096 bytes",
		key + "\rk":    "the first line is longer than 4096 bytes",
		key + "\r\r\n": "the first line is longer than 4096 bytes",
		"":             "empty",
	} {
		var errOut bytes.Buffer
		code := run([]string{"list", "--api-key-stdin", "--base-url", "http://127.0.0.1:1"}, &env{stdin: strings.NewReader(input), stdout: io.Discard, stderr: &errOut, interrupt: make(chan os.Signal)})
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errOut.String(), "--api-key-stdin: reading the key from stdin: "+want)
	}
}

// A flag the command does not know is reported without the escape
// sequences it may carry (issue 21, item 13).
func TestFlagErrorTerminalSafe(t *testing.T) {
	for _, args := range [][]string{
		{"list", "-" + evil},
		{"list", "--limit", "x" + evil},
		{"get", "--" + evil + "=1", "thr_1"},
	} {
		var out, errOut bytes.Buffer
		code := run(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, interrupt: make(chan os.Signal)})
		assert.Equal(t, exitUsage, code)
		assert.False(t, unsafe.MatchString(errOut.String()), "stderr holds a control sequence: %q", errOut.String())
		assert.Contains(t, errOut.String(), "EVIL", "the text around the sequences is kept")
		assert.Contains(t, errOut.String(), `run "threads `+args[0]+` --help" for usage`)
	}
}

// "-" reads the message from stdin less the one line break that ends it
// (send stored it before, v1-run dropped every trailing line break), and
// refuses a message over the bound instead of cutting it.
func TestReadMessage(t *testing.T) {
	for in, want := range map[string]string{
		"hello\n":         "hello",
		"hello\r\n":       "hello",
		"hello":           "hello",
		"hello\n\n":       "hello\n",
		"hello\r\n\r\n":   "hello\r\n",
		"two\nlines\n":    "two\nlines",
		"  spaced  \n":    "  spaced  ",
		"tab\t\n":         "tab\t",
		"ends in cr\r":    "ends in cr\r",
		"\n":              "",
		"":                "",
		"ünïcödé ✓\n":     "ünïcödé ✓",
		"no newline\r\nx": "no newline\r\nx",
	} {
		got, err := readMessage(strings.NewReader(in))
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	at := strings.Repeat("m", maxMessage)
	for _, in := range []string{at, at + "\n", at + "\r\n"} {
		got, err := readMessage(strings.NewReader(in))
		require.NoError(t, err)
		assert.Equal(t, at, got)
	}
	for _, in := range []string{at + "x", at + "\nx", at + "\r\nx", at + "\n\n", at + "xyz\n"} {
		_, err := readMessage(strings.NewReader(in))
		assert.ErrorContains(t, err, "the message is longer than 1 MiB", "%d bytes", len(in))
	}
	r := &countingReader{b: 'm', n: 64 << 20}
	_, err := readMessage(r)
	assert.ErrorContains(t, err, "the message is longer than 1 MiB")
	assert.LessOrEqual(t, r.read, maxMessage+3, "stdin is read no further than the bound")
}
