package sseline

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func filterAll(t *testing.T, r io.Reader) string {
	t.Helper()
	out, err := io.ReadAll(New(r))
	require.NoError(t, err)
	return string(out)
}

func TestFilter(t *testing.T) {
	t.Parallel()
	rw := "event:" + ErrorEvent + "\ndata:"
	for in, want := range map[string]string{
		"data: {}\n\n": "data: {}\n\n",
		"error: Error in streaming response\n\ndata: DONE\n\n": rw + " Error in streaming response\n\ndata: DONE\n\n",
		"data: x\r\nerror: boom\r\n\r\n":                       "data: x\r\n" + rw + " boom\r\n\r\n",
		"data: x\rerror: boom\r\r":                             "data: x\r" + rw + " boom\r\r",
		"data: error: not a field\n\n":                         "data: error: not a field\n\n",
		"errors: close\n\n":                                    "errors: close\n\n",
		"err":                                                  "err",
		"error:":                                               rw,
		": comment error:\n\n":                                 ": comment error:\n\n",
		"\n\nerror:x\n":                                        "\n\n" + rw + "x\n",
	} {
		assert.Equal(t, want, filterAll(t, bytes.NewReader([]byte(in))), "%q", in)
		assert.Equal(t, want, filterAll(t, iotest.OneByteReader(bytes.NewReader([]byte(in)))), "bytewise %q", in)
	}
}

// TestFilterNoReadAhead: one Read of the filter makes at most one Read of
// the source when the source has something to give.
func TestFilterNoReadAhead(t *testing.T) {
	t.Parallel()
	src := &countingReader{chunks: [][]byte{[]byte("data: 1\n\n"), []byte("data: 2\n\n")}}
	f := New(src)
	buf := make([]byte, 64)
	n, err := f.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "data: 1\n\n", string(buf[:n]))
	assert.Equal(t, 1, src.reads)
}

type countingReader struct {
	chunks [][]byte
	reads  int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks = c.chunks[1:]
	return n, nil
}
