package threads_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// closeCounter counts response bodies the client closed.
type closeCounter struct {
	next   http.RoundTripper
	closed atomic.Int32
}

func (c *closeCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.closed}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n    *atomic.Int32
	done atomic.Bool
}

func (b *countingBody) Close() error {
	if b.done.CompareAndSwap(false, true) {
		b.n.Add(1)
	}
	return b.ReadCloser.Close()
}

// sseServer answers every request with the transcript's bytes as an event
// stream, then ends the response (or cuts it, for a transcript without DONE).
func sseServer(t *testing.T, transcript []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(transcript)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// TestCollect: one call reads a reply to its end and closes the stream,
// for a text reply, the service's error: line and a dropped connection.
func TestCollect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file     string
		wantText string
		wantErr  error
	}{
		{"live/stream-plain.sse", "", nil},
		{"live/stream-error-after-placeholder.sse", "", threads.ErrStreamFailed},
		{"stream-truncated.sse", "", threads.ErrStreamTruncated},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			transcript := readTestdata(t, tc.file)
			srv := sseServer(t, transcript)
			cc := &closeCounter{next: http.DefaultTransport}
			c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
				threads.WithAPIKey("sk-test-123456"), threads.WithHTTPClient(&http.Client{Transport: cc}))
			require.NoError(t, err)
			s, err := c.Threads.AdvanceStream(context.Background(), "thr_1.a", threads.AdvanceParams{Message: threads.UserMessage("hi")})
			require.NoError(t, err)
			msgs, err := s.Collect()
			if tc.wantErr == nil {
				require.NoError(t, err)
				require.NotEmpty(t, msgs)
				last := msgs[len(msgs)-1]
				assert.NotEmpty(t, strings.TrimSpace(last.Text()), "the final snapshot's text")
				assert.Contains(t, string(transcript), last.Text())
			} else {
				assert.ErrorIs(t, err, tc.wantErr)
			}
			assert.Equal(t, int32(1), cc.closed.Load(), "the stream's body is closed")
			assert.False(t, s.Next(), "a collected stream has no more events")
			assert.Equal(t, err, s.Err())
		})
	}
	var s *threads.Stream
	_, err := s.Collect()
	assert.Error(t, err, "Collect on a nil stream is an error, not a panic")
}
