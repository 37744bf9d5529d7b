package threadstest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestWithoutListenerFakeTime: in a synctest bubble the in-memory server
// paces a stream on the bubble's clock, so the pacing is asserted exactly,
// and no real time passes.
func TestWithoutListenerFakeTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithLiveHabits())
		assert.Equal(t, "http://threadstest.invalid", srv.URL)
		c := srv.Client()
		start := time.Now()
		s, err := c.Threads.CreateAndAdvanceStream(t.Context(), threads.AdvanceParams{Message: threads.UserMessage("one two")})
		require.NoError(t, err)
		n := 0
		for _, err := range s.All() {
			require.NoError(t, err)
			n++
		}
		// The placeholder, "You", "You said:", "You said: one", "You said:
		// one two", the repeat and the closing snapshot.
		require.Equal(t, 7, n)
		assert.Equal(t, time.Duration(n-1)*50*time.Millisecond, time.Since(start), "50ms between two snapshots, on the fake clock")
		assert.Equal(t, 0, srv.Connections(), "no socket")
		assert.Len(t, srv.ThreadIDs(), 1)
	})
}

// TestTransportWithListener: Transport reaches a server that also listens,
// without opening a connection.
func TestTransportWithListener(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client(threads.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	th, err := c.Threads.Create(t.Context(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	got, err := c.Threads.Get(t.Context(), th.ID)
	require.NoError(t, err)
	assert.Equal(t, th.ID, got.ID)
	assert.Equal(t, 0, srv.Connections())
	assert.Equal(t, 1, srv.Count(http.MethodGet, "/threads/"+th.ID))
}

// TestTransportFaults: the in-memory transport carries the faults a test
// injects: a retried 503, a reset (a connection error, so a GET is retried
// and a POST is not), a stream cut mid-way (truncated), an answer held
// until the request's context ends.
func TestTransportFaults(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener())
	c := srv.Client()
	ctx := t.Context()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)

	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads/*", Status: 503})
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads/*", Reset: true})
	_, err = c.Threads.Get(ctx, th.ID)
	require.NoError(t, err, "the 503 and the reset are retried")
	assert.Equal(t, 3, srv.Count(http.MethodGet, "/threads/"+th.ID))

	srv.Inject(threadstest.Fault{Method: "POST", Path: "/threads", ActThenReset: true})
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.Error(t, err, "a POST that reached the server is not re-sent")
	assert.Equal(t, 2, srv.Count(http.MethodPost, "/threads"))
	assert.Len(t, srv.ThreadIDs(), 2, "the create acted once")

	srv.PushScript(threadstest.Script{Drop: true, DropAfter: 2})
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	_, err = s.Collect()
	assert.ErrorIs(t, err, threads.ErrStreamTruncated)

	stall := make(chan struct{}) // never closed: the context ends the wait
	srv.Inject(threadstest.Fault{Path: "/projects", Stall: stall})
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Projects.Current(cctx)
		errc <- err
	}()
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
}

// TestTransportCancelWhileHeld: a request whose context ends while the
// handler holds it fails with the context's error. The handler, its
// request ended, returns without writing anything; that is never handed
// to the caller as an empty 200 (it was, when the transport picked at
// random between the two ready cases: TestTransportFaults read "200:
// unexpected end of JSON input" about once in 40 runs under load).
func TestTransportCancelWhileHeld(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener())
	srv.Inject(threadstest.Fault{Path: "/projects", Stall: make(chan struct{}), Times: -1}) // never released
	tr := srv.Transport()
	for i := range 500 {
		ctx, cancel := context.WithCancel(t.Context())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/projects", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		errc := make(chan error, 1)
		go func() {
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
				err = fmt.Errorf("an answer: %s", resp.Status)
			}
			errc <- err
		}()
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled, "request %d", i)
	}
}

// TestTransportBodyCloseEndsHandler: closing a stream early ends the
// handler's request, as a disconnect does: once the handler has returned
// (synctest.Wait), the thread is no longer generating and takes the next
// message.
func TestTransportBodyCloseEndsHandler(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		c := srv.Client()
		hold := make(chan struct{}) // never closed: only the hang-up ends the hold
		srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: 1})
		s, err := c.Threads.CreateAndAdvanceStream(t.Context(), threads.AdvanceParams{Message: threads.UserMessage("hi")})
		require.NoError(t, err)
		require.True(t, s.Next(), "the placeholder arrives before the hold")
		require.NoError(t, s.Close())
		synctest.Wait() // the handler has seen the hang-up and returned

		id := srv.ThreadIDs()[0]
		s2, err := c.Threads.AdvanceStream(t.Context(), id, threads.AdvanceParams{Message: threads.UserMessage("again")})
		require.NoError(t, err)
		msgs, err := s2.Collect()
		require.NoError(t, err, "not refused in-band as a thread still generating")
		require.Len(t, msgs, 1)
		assert.Equal(t, "You said: again", msgs[0].Text())
	})
}

// TestTransportAfterClose: a closed server refuses in-memory requests.
func TestTransportAfterClose(t *testing.T) {
	t.Parallel()
	srv := threadstest.Start(threadstest.WithoutListener())
	srv.Close()
	resp, err := srv.Transport().RoundTrip(mustRequest(t, "GET", srv.URL+"/projects", ""))
	if resp != nil {
		resp.Body.Close()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "closed")
}

// TestTransportRawRequest: HTTPClient of an in-memory server sends raw
// requests, and the answer's headers and body are the handler's.
func TestTransportRawRequest(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener())
	req := mustRequest(t, "GET", srv.URL+"/projects", "")
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, string(body), srv.ProjectID)
	assert.Equal(t, "gzip", srv.Requests()[0].Header.Get("Accept-Encoding"), "asked for gzip, as net/http's transport does")
}

func mustRequest(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	return req
}
