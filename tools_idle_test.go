package threads_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// servePipe serves h on an in-memory network and returns a client for it;
// both are shut down when the bubble's function returns.
func servePipe(t *testing.T, h http.HandlerFunc, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	url, tr := pipeServer(t, h)
	base := []threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0), threads.WithHTTPClient(&http.Client{Transport: tr})}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// servePipeRounds is servePipe for a handler that answers by round: h gets
// the request's number, from 1, with its body read; requests says how
// many came.
func servePipeRounds(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request), opts ...threads.ClientOption) (*threads.Client, func() int) {
	var mu sync.Mutex
	count := 0
	c := servePipe(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		count++
		n := count
		mu.Unlock()
		h(n, w, r)
	}, opts...)
	return c, func() int {
		mu.Lock()
		defer mu.Unlock()
		return count
	}
}

// writeSSE answers with an event-stream body.
func writeSSE(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, body)
}

// A tool that takes longer than WithStreamIdleTimeout does not fail the
// run: the idle timeout is about the server's silence, and the clock stops
// while the tool runs. Before, it fired during the tool, the result was
// sent all the same (starting a generation on the service), and the stream
// ended with ErrStreamIdle without reading the answer (issue 21, item 10).
func TestRunStreamIdleClockStopsWhileToolRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, requests := servePipeRounds(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				writeSSE(w, bareToolCall("msg_1", "call_1", "slow"))
				return
			}
			writeSSE(w, textReply("msg_2", "Done."))
		}, threads.WithStreamIdleTimeout(time.Second))
		tool := threads.Tool{Name: "slow", Call: func(ctx context.Context, _ threads.ToolCall) (string, error) {
			time.Sleep(time.Minute) // the bubble's clock: no real wait
			return "finished", nil
		}}
		s, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
		require.NoError(t, err)
		msgs, err := s.Collect()
		require.NoError(t, err)
		require.NotEmpty(t, msgs)
		assert.Equal(t, "Done.", msgs[len(msgs)-1].Text(), "the answer to the tool's result was read")
		assert.Equal(t, 2, requests())
	})
}

// The clock starts again for the next round: a server that goes silent
// after the tool's result ends the stream with ErrStreamIdle.
func TestRunStreamIdleClockRestartsForNextRound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, requests := servePipeRounds(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				writeSSE(w, bareToolCall("msg_1", "call_1", "quick"))
				return
			}
			writeSSE(w, snapshot("msg_2", " ", "STREAMING_RESPONSE", "Streaming response...", nil, nil))
			w.(http.Flusher).Flush()
			<-r.Context().Done() // silent until the client hangs up
		}, threads.WithStreamIdleTimeout(time.Second))
		tool := threads.Tool{Name: "quick", Call: func(context.Context, threads.ToolCall) (string, error) { return "ok", nil }}
		s, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
		require.NoError(t, err)
		_, err = s.Collect()
		require.ErrorIs(t, err, threads.ErrStreamIdle)
		assert.Equal(t, 2, requests())
	})
}
