package sseline

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func filterAll(t *testing.T, r io.Reader) string {
	t.Helper()
	out, err := io.ReadAll(New(r, 0))
	require.NoError(t, err)
	return string(out)
}

func TestFilter(t *testing.T) {
	t.Parallel()
	rw := "event:" + ErrorEvent + "\ndata:"
	for in, want := range map[string]string{
		"data: {}\n\n": "data: {}\n\n",
		"error: Error in streaming response\n\ndata: DONE\n\n": rw + " Error in streaming response\n\ndata: DONE\n\n",
		// An error line ends its event: the event's other lines are dropped.
		"data: x\r\nerror: boom\r\n\r\n":            rw + " boom\n\n",
		"data: x\rerror: boom\r\r":                  rw + " boom\n\n",
		"data: {\"a\":1}\nerror: e1\nerror: e2\n\n": rw + " e1\n\n",
		"data: error: not a field\n\n":              "data: error: not a field\n\n",
		"errors: close\n\n":                         "errors: close\n\n",
		"err":                                       "err",
		"error:":                                    "error:",
		": comment error:\n\n":                      ": comment error:\n\n",
		"\n\nerror:x\n":                             rw + "x\n\n",
		// A BOM at the start is dropped, so an error line after it counts.
		"\xEF\xBB\xBFerror: x\n\n":            rw + " x\n\n",
		"\xEF\xBB\xBFdata: a\n\n":             "data: a\n\n",
		"\xEF\xBBdata: a\n\n":                 "\xEF\xBBdata: a\n\n",
		"data: a\n\n\xEF\xBB\xBFerror: x\n\n": "data: a\n\n\xEF\xBB\xBFerror: x\n\n",
		// Blank lines between events are dropped.
		"\n\n\n\ndata: a\n\n\r\n\r\ndata: b\r\n\r\n": "data: a\n\ndata: b\r\n\r",
		"data: a\r\n\r\n\r\ndata: b\n\n":             "data: a\r\n\rdata: b\n\n",
		"id: 1\n\n: c\n\ndata: DONE\n":               "id: 1\n\n: c\n\ndata: DONE\n",
	} {
		assert.Equal(t, want, filterAll(t, bytes.NewReader([]byte(in))), "%q", in)
		assert.Equal(t, want, filterAll(t, iotest.OneByteReader(bytes.NewReader([]byte(in)))), "bytewise %q", in)
	}
}

// TestFilterWholeEvents: however the source splits the stream, each Read
// of the filter returns exactly one whole event (given room for it).
func TestFilterWholeEvents(t *testing.T) {
	t.Parallel()
	events := []string{"data: 1\n\n", "data: " + strings.Repeat("x", 10000) + "\n\n", ": c\r\n\r", "data: DONE\n\n"}
	f := New(iotest.OneByteReader(strings.NewReader(strings.Join(events, ""))), 0)
	buf := make([]byte, 1<<20)
	for _, want := range events {
		n, err := f.Read(buf)
		require.NoError(t, err)
		assert.Equal(t, want, string(buf[:n]))
	}
	_, err := f.Read(buf)
	assert.Equal(t, io.EOF, err)
}

// TestFilterSizeLimit: an event over the limit fails; blank lines, however
// many, never count toward it.
func TestFilterSizeLimit(t *testing.T) {
	t.Parallel()
	blank := strings.Repeat("\n", 3<<20) + strings.Repeat("\r\n", 1<<20)
	out, err := io.ReadAll(New(strings.NewReader(blank+"data: ok\n\n"+blank), 1<<10))
	require.NoError(t, err)
	assert.Equal(t, "data: ok\n\n", string(out))

	big := "data: " + strings.Repeat("y", 2000) + "\n\n"
	_, err = io.ReadAll(New(strings.NewReader("data: a\n\n"+big), 1<<10))
	assert.ErrorIs(t, err, ErrTooLarge)
	// Many short lines add up.
	_, err = io.ReadAll(New(strings.NewReader(strings.Repeat("data: a\n", 200)+"\n"), 1<<10))
	assert.ErrorIs(t, err, ErrTooLarge)
	out, err = io.ReadAll(New(strings.NewReader(big), 4<<10))
	require.NoError(t, err)
	assert.Equal(t, big, string(out))
}

// TestFilterNoReadAhead: one Read of the filter makes at most one Read of
// the source when the source has something to give.
func TestFilterNoReadAhead(t *testing.T) {
	t.Parallel()
	src := &countingReader{chunks: [][]byte{[]byte("data: 1\n\n"), []byte("data: 2\n\n")}}
	f := New(src, 0)
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

// sizes records the room each Read is given, and fills it all (full: a
// body that is already there, as net/http's chunked reader gives it) or
// gives one short event per Read.
type sizes struct {
	full bool
	got  []int
	body []byte
}

func (s *sizes) Read(p []byte) (int, error) {
	s.got = append(s.got, len(p))
	if len(s.body) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if !s.full {
		n = bytes.IndexByte(s.body, '\n') + 2
	}
	n = copy(p, s.body[:min(n, len(s.body))])
	s.body = s.body[n:]
	return n, nil
}

// The room a read gets grows while reads fill it (a body already there is
// read in few large reads, up to maxRead), and stays small while each read
// brings one short event (a stream that waits for the server keeps a small
// buffer).
func TestFilterReadSize(t *testing.T) {
	t.Parallel()
	for _, full := range []bool{true, false} {
		src := &sizes{full: full, body: bytes.Repeat([]byte("data: 0123456789\n\n"), 20000)}
		f := New(src, 0)
		n := 0
		for {
			if _, ok := f.Take(); ok {
				n++
				continue
			}
			if f.Err() != nil {
				break
			}
			f.Fill()
		}
		require.Equal(t, io.EOF, f.Err())
		require.Equal(t, 20000, n)
		most := slices.Max(src.got)
		if full {
			assert.GreaterOrEqual(t, most, maxRead/2, "reads that fill their room")
			assert.LessOrEqual(t, most, 2*maxRead, "reads that fill their room")
			assert.Less(t, len(src.got), 50, "reads that fill their room")
		} else {
			assert.LessOrEqual(t, most, 2*minRead, "one short event per read")
		}
	}
}

// Fill gives up on a source that returns nothing, as bufio.Scanner does.
func TestFilterNoProgress(t *testing.T) {
	t.Parallel()
	f := New(iotest.ErrReader(nil), 0)
	for f.Err() == nil {
		f.Fill()
	}
	assert.Equal(t, io.ErrNoProgress, f.Err())
}
