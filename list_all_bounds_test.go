package threads_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// endlessPages serves GET /threads as a server that never sends an empty
// page: every offset gets limit fresh threads (padded to pad bytes each),
// as a bare array (no total). With sameEveryTime it ignores the offset and
// repeats the first page.
func endlessPages(t *testing.T, pad int, sameEveryTime bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		if sameEveryTime {
			offset = 0
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteByte('[')
		for i := range 10 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"thr_%d.a","name":%q}`, offset+i, strings.Repeat("n", pad))
		}
		b.WriteByte(']')
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func allOf(t *testing.T, srv *httptest.Server, opts ...threads.RequestOption) (int, error) {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	n := 0
	for _, err := range c.Threads.All(context.Background(), nil, opts...) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// All against a server that never sends an empty page stops at its page
// bound with ErrPagingLimit, after yielding what it read.
func TestAllStopsAtThePageBound(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 0, false)
	n, err := allOf(t, srv, threads.WithPagingLimit(50, 1<<30))
	require.ErrorIs(t, err, threads.ErrPagingLimit)
	assert.Equal(t, int64(50), requests.Load())
	assert.Equal(t, 500, n)
}

// ... and at its byte bound, counted over the bodies it read.
func TestAllStopsAtTheByteBound(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 1000, false) // about 10 KB a page
	n, err := allOf(t, srv, threads.WithPagingLimit(1_000_000, 100<<10))
	require.ErrorIs(t, err, threads.ErrPagingLimit)
	assert.LessOrEqual(t, requests.Load(), int64(11))
	assert.GreaterOrEqual(t, requests.Load(), int64(10))
	assert.Equal(t, 10*int(requests.Load()), n)
}

// A server that ignores the offset repeats its page: no progress, and All
// stops at the second repeat in a row instead of paging forever (one
// repeat can be threads created meanwhile, shifting the offsets).
func TestAllStopsOnARepeatedPage(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 0, true)
	n, err := allOf(t, srv)
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.Contains(t, err.Error(), "same threads")
	assert.Equal(t, int64(3), requests.Load())
	assert.Equal(t, 20, n)
}

// The default bound: a server that never ends stops with ErrPagingLimit
// within DefaultMaxPagingBytes of bodies (here pages of about 1 MB).
func TestAllDefaultBound(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 100<<10, false)
	_, err := allOf(t, srv)
	require.ErrorIs(t, err, threads.ErrPagingLimit)
	assert.LessOrEqual(t, requests.Load()*10*(100<<10), int64(threads.DefaultMaxPagingBytes)+(20<<20))
}
