package threads_test

// WithRequestTimeout against servers that trickle: a JSON call's whole
// answer is bounded, a stream only until its headers.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// trickle writes the headers and then one byte of body every gap, until
// the client goes away.
func trickle(status int, contentType string, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// callWithin runs fn and fails the test when it has not returned within
// limit (the goroutine is then left behind: the old code never returned).
// In a synctest bubble, limit is fake time: a call that never returns
// fails here, not at the suite's deadline.
func callWithin(t *testing.T, limit time.Duration, fn func() error) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(limit):
		t.Fatalf("the call did not return within %v", limit)
		return 0, nil
	}
}

// TestHardenTricklingBodiesEnd: WithRequestTimeout covers a JSON call's
// whole answer: a 2xx body, an error body, and the drain of a 503 that is
// retried, all trickling, end within the timeout per attempt under
// context.Background(). Run in a synctest bubble over an in-memory network,
// so the bound is exact on the fake clock whatever the machine's load.
func TestHardenTricklingBodiesEnd(t *testing.T) {
	t.Parallel()
	const d = time.Second
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		retries int
		call    func(c *threads.Client) error
	}{
		{"json 200", trickle(200, "application/json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
		{"error 400 on a POST", trickle(400, "application/problem+json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p"})
			return err
		}},
		{"error 400 on a stream", trickle(400, "application/problem+json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.AdvanceStream(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
			return err
		}},
		{"503 drained between attempts", trickle(503, "application/json", 50*time.Millisecond), 1, func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				base, tr := pipeServer(t, tc.h)
				c := hardClient(t, base, threads.WithHTTPClient(&http.Client{Transport: tr}),
					threads.WithRequestTimeout(d), threads.WithMaxRetries(tc.retries))
				attempts := time.Duration(1)
				if strings.HasPrefix(tc.name, "503") {
					attempts = time.Duration(tc.retries + 1)
				}
				took, err := callWithin(t, attempts*2*d+time.Second, func() error { return tc.call(c) })
				require.Error(t, err)
				t.Logf("%s: %v after %v of fake time", tc.name, err, took)
				// Each attempt ends at its timeout; the retry waits add at
				// most 2ms each.
				require.LessOrEqual(t, took, attempts*d+time.Duration(tc.retries)*2*time.Millisecond, "took %v", took)
				if tc.name == "json 200" {
					require.ErrorIs(t, err, context.DeadlineExceeded)
				}
			})
		})
	}
}

// TestHardenStreamOutlivesRequestTimeout: a stream whose headers arrived in
// time is not cut by WithRequestTimeout (in a synctest bubble: the server's
// pauses and the timeout run on the fake clock).
func TestHardenStreamOutlivesRequestTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testHardenStreamOutlivesRequestTimeout)
}

func testHardenStreamOutlivesRequestTimeout(t *testing.T) {
	const d = 200 * time.Millisecond
	base, tr := pipeServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, text := range []string{"a", "ab", "abc"} {
			if i > 0 {
				time.Sleep(2 * d)
			}
			fmt.Fprintf(w, "data: {\"responseMessageDto\":{\"id\":\"m1\",\"threadId\":\"thr_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":%q}]},\"generationStage\":\"STREAMING_RESPONSE\"}\n\n", text)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: DONE\n\n")
	}))
	c := hardClient(t, base, threads.WithHTTPClient(&http.Client{Transport: tr}), threads.WithRequestTimeout(d))
	s, err := c.Threads.AdvanceStream(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	defer s.Close()
	start := time.Now()
	var last string
	for s.Next() {
		last = s.Current().Message.Text()
	}
	require.NoError(t, s.Err())
	require.Equal(t, 4*d, time.Since(start), "two pauses of 2d each, on the fake clock")
	require.Equal(t, "abc", last)
}

// A caller's transport may answer with a Body-less response (a test
// double's http.Response literal), which net/http reads as empty: the
// attempt's timeout wrapper must too, not wrap the nil Body and panic on
// the read.
func TestTransportAnswerWithoutBody(t *testing.T) {
	t.Parallel()
	tr := rtFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Request: r}, nil
	})
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example"),
		threads.WithAPIKey(testKey), threads.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	require.NoError(t, c.Threads.Delete(context.Background(), "thr_1"))
	_, err = c.Projects.Current(context.Background())
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	_, err = c.Storage.Upload(context.Background(), strings.NewReader("x"), "text/plain", 1)
	require.Error(t, err)

	// Neither an answer nor an error: an error, as net/http gives.
	c, err = threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example"),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0), threads.WithHTTPClient(&http.Client{Transport: rtFunc(func(*http.Request) (*http.Response, error) { return nil, nil })}))
	require.NoError(t, err)
	_, err = c.Projects.Current(context.Background())
	require.Error(t, err)
}
