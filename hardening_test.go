package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

const hardKey = "sk_hard/9f8e+7d6c5b4a"

// hardServer serves every request with h and counts the requests.
func hardServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func hardClient(t *testing.T, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url), threads.WithAPIKey(hardKey),
		threads.WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// TestHardenNoRetryOf2xxOr410: x-should-retry overrides the status rule
// for failures only. A 2xx has acted: retrying it created three threads.
// A 410 is final too.
func TestHardenNoRetryOf2xxOr410(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
	}{
		{201, `{"id":"thr_1","projectId":"p_1","name":"x"}`},
		{200, `{"id":"thr_1","projectId":"p_1","name":"x"}`},
		{410, `{"title":"Gone","code":"SOMETHING_ELSE"}`},
		{410, `{"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"nonsense"}}`},
	} {
		srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Should-Retry", "true")
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		})
		c := hardClient(t, srv.URL, threads.WithMaxRetries(2))
		_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1", Name: "x"})
		if tc.status < 300 {
			require.NoError(t, err)
		} else {
			require.Error(t, err)
		}
		require.EqualValues(t, 1, n.Load(), "status %d with x-should-retry: true was sent %d times", tc.status, n.Load())
	}
	// The override still works for a failure.
	srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(500)
	})
	c := hardClient(t, srv.URL, threads.WithMaxRetries(2))
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"})
	require.ErrorIs(t, err, threads.ErrServer)
	require.EqualValues(t, 3, n.Load())
}
