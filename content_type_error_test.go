package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// A 2xx the SDK cannot read is reported with its Content-Type; that header
// is server text like any other: an error shows it without the key, on one
// line of printable text, and bounded, whatever its length.
func TestUnreadable2xxContentTypeIsBoundedRedactedOneLine(t *testing.T) {
	t.Parallel()
	hostile := "text/html; note=" + testKey + " \u202e" + strings.Repeat("a", 64<<10) + " " + testKey
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", hostile)
		_, _ = w.Write([]byte("<html>captive portal</html>"))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	ctx := context.Background()

	_, getErr := c.Threads.Get(ctx, "thr_1.a")
	_, streamErr := c.Threads.AdvanceStream(ctx, "thr_1.a", threads.AdvanceParams{Message: threads.UserMessage("hi")})
	for name, err := range map[string]error{"Get": getErr, "AdvanceStream": streamErr} {
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, name)
		msg := err.Error()
		assert.NotContains(t, msg, testKey, name)
		assert.NotContains(t, msg, "\u202e", name)
		assert.NotContains(t, msg, "\x1b", name)
		assert.NotContains(t, msg, "\n", name)
		assert.Less(t, len(msg), 1024, name)
		assert.Contains(t, msg, "text/html", name)
	}
}

// A response header the transport cannot parse fails the call with an error
// that quotes the header line: the key and control bytes in it must not
// reach Error(), and the quote is bounded.
func TestMalformedResponseHeaderErrorIsRedacted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; note="+testKey+"\x1b[31m\u202e"+strings.Repeat("b", 64<<10))
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.Error(t, err)
	msg := err.Error()
	assert.NotContains(t, msg, testKey)
	assert.NotContains(t, msg, "\u202e")
	assert.NotContains(t, msg, "\x1b")
	assert.Less(t, len(msg), 2048)
}
