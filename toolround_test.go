package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
	"go.uber.org/goleak"
)

func (c *byteCounter) client(t testing.TB, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(c.URL), threads.WithAPIKey(testKey), threads.WithMaxRetries(0)}
	cl, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return cl
}

// requests returns the request bodies received so far.
func (c *byteCounter) requests() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.bodies...)
}

// totals returns the bytes uploaded and downloaded so far.
func (c *byteCounter) totals() (up, down int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.bodies {
		up += len(b)
	}
	for _, n := range c.down {
		down += n
	}
	return up, down
}

func (s *toolServer) requests() []advanceRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]advanceRequest(nil), s.reqs...)
}

func (s *toolServer) client(t *testing.T, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(),
		threads.WithBaseURL(s.URL),
		threads.WithAPIKey("test-key"),
		threads.WithMaxRetries(0),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// Whatever goes wrong with a call reaches the model as a tool error, and
// the run completes.
func TestRunStreamToolErrorsReachTheModel(t *testing.T) {
	t.Parallel()
	failing := threads.NewTool("get_weather", "weather", func(context.Context, weatherArgs) (string, error) {
		return "", errors.New("the weather service is down")
	})
	panicking := threads.NewTool("get_weather", "weather", func(context.Context, weatherArgs) (string, error) {
		panic("boom")
	})
	type numArgs struct {
		N     int      `json:"n"`
		Tags  []string `json:"tags,omitempty"`
		Limit *int     `json:"limit"`
	}
	numbers := threads.NewTool("count", "count", func(_ context.Context, a numArgs) (string, error) {
		return fmt.Sprint(a.N), nil
	})
	for _, tc := range []struct {
		name  string
		tool  threads.Tool
		call  round
		error []string // substrings of the error the model reads
	}{
		{"tool error", failing, callTool("msg_A", "call_1", "get_weather", "city", "Paris"),
			[]string{"the weather service is down"}},
		{"panic", panicking, callTool("msg_A", "call_1", "get_weather", "city", "Paris"),
			[]string{`tool "get_weather" failed: panic: boom`}},
		{"unknown tool", weatherTool(), callTool("msg_A", "call_1", "get_wether", "city", "Paris"),
			[]string{`there is no tool named "get_wether"`, "get_weather"}},
		{"wrong type", numbers, callTool("msg_A", "call_1", "count", "n", "three"),
			[]string{`invalid arguments for tool "count"`, `argument "n" is a JSON string, want integer`, "n (integer)", "tags (array, optional)"}},
		{"missing and unknown", numbers, callTool("msg_A", "call_1", "count", "m", 3.0),
			[]string{`the required argument "n" is missing`, `there is no parameter "m"`}},
		{"fraction for integer", numbers, callTool("msg_A", "call_1", "count", "n", 2.5),
			[]string{`argument "n" is a JSON number 2.5, want integer`}},
		{"wrong element", numbers, callTool("msg_A", "call_1", "count", "n", 1.0, "tags", []any{"a", 2.0}),
			[]string{`argument "tags`, "want string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newToolServer(t, tc.call, quoteResult("msg_B"))
			st, err := srv.client(t).Threads.RunStream(context.Background(), testThread,
				threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tc.tool})
			require.NoError(t, err)
			msgs, err := st.Collect()
			require.NoError(t, err, "the run completes")
			require.Len(t, msgs, 2)
			reqs := srv.requests()
			require.Len(t, reqs, 2)
			m := reqs[1].Message
			assert.Equal(t, "tool", m.Role)
			assert.Equal(t, "call_1", m.ToolCallID)
			assert.Equal(t, "Error: "+m.Error, reqs[1].text())
			for _, want := range tc.error {
				assert.Contains(t, m.Error, want)
			}
			// The call is counted under the tool's name, unless the model
			// named no tool of ours: a made-up name is never counted.
			want := 1
			if tc.name == "unknown tool" {
				want = 0
			}
			assert.Equal(t, want, reqs[1].ToolCallCounts[reqs[0].ClientTools[0].Name])
			assert.NotContains(t, reqs[1].ToolCallCounts, "get_wether")
			assert.True(t, strings.HasPrefix(msgs[1].Text(), "The tool failed: Error: "), msgs[1].Text())
		})
	}
}

// A model that keeps calling tools is stopped at the bound with the typed
// error; the last call is left for the caller.
func TestRunStreamBound(t *testing.T) {
	t.Parallel()
	var rounds []round
	for i := range 5 {
		rounds = append(rounds, callTool(fmt.Sprintf("msg_%d", i), fmt.Sprintf("call_%d", i), "get_weather", "city", "Paris"))
	}
	srv := newToolServer(t, rounds...)
	calls := 0
	tool := threads.NewTool("get_weather", "weather", func(context.Context, weatherArgs) (string, error) {
		calls++
		return "sunny", nil
	})
	st, err := srv.client(t).Threads.RunStream(context.Background(), testThread,
		threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool}, threads.WithMaxToolRounds(3))
	require.NoError(t, err)
	msgs, err := st.Collect()
	require.ErrorIs(t, err, threads.ErrToolRounds)
	var re *threads.ToolRoundsError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 3, re.Max)
	assert.Equal(t, threads.ToolCall{ID: "call_3", Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}, re.Call)
	assert.Equal(t, 3, calls)
	assert.Len(t, msgs, 4)
	assert.Len(t, srv.requests(), 4)
	assert.Equal(t, map[string]int{"get_weather": 3}, srv.requests()[3].ToolCallCounts)

	_, err = srv.client(t).Threads.RunStream(context.Background(), testThread,
		threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool}, threads.WithMaxToolRounds(0))
	require.ErrorContains(t, err, "WithMaxToolRounds(0)")
}

// The default bound is DefaultMaxToolRounds.
func TestRunStreamDefaultBound(t *testing.T) {
	t.Parallel()
	var rounds []round
	for i := range threads.DefaultMaxToolRounds + 1 {
		rounds = append(rounds, callTool(fmt.Sprintf("msg_%d", i), fmt.Sprintf("call_%d", i), "get_weather", "city", "Paris"))
	}
	srv := newToolServer(t, rounds...)
	st, err := srv.client(t).Threads.RunStream(context.Background(), testThread,
		threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{weatherTool()})
	require.NoError(t, err)
	_, err = st.Collect()
	require.ErrorIs(t, err, threads.ErrToolRounds)
	assert.Len(t, srv.requests(), threads.DefaultMaxToolRounds+1)
}

// Cancelling the context while a tool runs stops the run: the tool sees
// it, no further request is sent, Err is the context's, and no goroutine
// is left behind. Closing the stream does the same, with a nil Err.
func TestRunStreamStopMidTool(t *testing.T) {
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			srv := newToolServer(t, callTool("msg_A", "call_1", "slow", "city", "Paris"))
			started, toolErr := make(chan struct{}), make(chan error, 1)
			// The tool returns only when its context ends: no clock that a
			// busy machine could run out. Were the cancel never passed on,
			// Collect would wait until the test binary's -timeout, whose
			// report names this test.
			tool := threads.NewTool("slow", "slow", func(ctx context.Context, _ weatherArgs) (string, error) {
				close(started)
				<-ctx.Done()
				toolErr <- ctx.Err()
				return "", ctx.Err()
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := srv.client(t)
			st, err := c.Threads.RunStream(ctx, testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
			require.NoError(t, err)
			go func() {
				<-started
				if how == "cancel" {
					cancel()
				} else {
					st.Close()
				}
			}()
			_, err = st.Collect()
			if how == "cancel" {
				require.ErrorIs(t, err, context.Canceled)
			} else {
				require.NoError(t, err)
			}
			require.ErrorIs(t, <-toolErr, context.Canceled, "the tool's context is cancelled")
			assert.Len(t, srv.requests(), 1, "no tool result is sent")
			srv.Close() // before goleak looks: the server's own goroutines end with it
		})
	}
}

// byteCounter is a service for the tool runner's bound tests: request i to
// advancestream is answered with replies[i] (the last one repeats), and the
// bytes of each request body (up) and of each answer (down) are counted.
type byteCounter struct {
	*httptest.Server
	replies []string

	mu     sync.Mutex
	bodies [][]byte
	down   []int
}

func newByteCounter(t testing.TB, replies ...string) *byteCounter {
	t.Helper()
	c := &byteCounter{replies: replies}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		i := len(c.bodies)
		c.bodies = append(c.bodies, body)
		c.mu.Unlock()
		reply := c.replies[min(i, len(c.replies)-1)]
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		n, _ := io.WriteString(w, reply)
		c.mu.Lock()
		c.down = append(c.down, n)
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

// bareToolCall is a round that asks for a tool call with one snapshot
// (the final FETCHING_CONTEXT one), then DONE. args alternate name, value.
func bareToolCall(msgID, callID, tool string, args ...any) string {
	params := []any{}
	for i := 0; i+1 < len(args); i += 2 {
		params = append(params, map[string]any{"parameterName": args[i], "parameterValue": args[i+1]})
	}
	req := map[string]any{"toolName": tool, "parameters": params}
	return snapshot(msgID, " ", "FETCHING_CONTEXT", "Fetching context...",
		map[string]any{"actionType": "tool_call", "toolCallRequest": req, "tool_call_id": callID}, nil) + "data: DONE\n\n"
}

// Whatever the server puts in a tool call (a huge tool name, argument
// name or value, many arguments), every round's request is at most a
// constant larger than the first one, and the bytes uploaded stay below
// the bytes downloaded plus that constant per round: nothing the server
// sent is multiplied on its way back (issue 21, items 1 and 9).
func TestRunStreamEchoBounded(t *testing.T) {
	t.Parallel()
	many := []any{}
	for i := range 5000 {
		many = append(many, fmt.Sprintf("p%05d", i), "<<<<")
	}
	cases := []struct {
		name string
		call string // one round's answer: a tool call
	}{
		{"unknown tool named by 1 MiB of <", bareToolCall("msg_1", "call_1", strings.Repeat("<", 1<<20))},
		{"unknown tool named by 2 MiB of ‹", bareToolCall("msg_1", "call_1", strings.Repeat("‹", 2<<20/3))},
		{"1 MiB enum value of <", bareToolCall("msg_1", "call_1", "prioritize", "priority", strings.Repeat("<", 1<<20))},
		{"2 MiB parameter name", bareToolCall("msg_1", "call_1", "prioritize", strings.Repeat("‹", 2<<20/3), "x")},
		{"5000 unknown parameters", bareToolCall("msg_1", "call_1", "prioritize", many...)},
		{"1 KiB call id of <", bareToolCall("msg_1", strings.Repeat("<", 1<<10), strings.Repeat("<", 1<<20))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const rounds = 4
			replies := make([]string, 0, rounds+1)
			for range rounds {
				replies = append(replies, tc.call)
			}
			replies = append(replies, textReply("msg_9", "Done."))
			srv := newByteCounter(t, replies...)
			c := srv.client(t)
			tool := threads.NewTool("prioritize", "Set a priority", func(_ context.Context, a priorityArgs) (string, error) { return a.Priority, nil })
			s, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
			require.NoError(t, err)
			_, err = s.Collect()
			require.NoError(t, err)

			reqs := srv.requests()
			require.Len(t, reqs, rounds+1)
			for i, body := range reqs[1:] {
				assert.LessOrEqual(t, len(body), len(reqs[0])+perRound, "round %d's request: %d bytes, the first's %d", i+1, len(body), len(reqs[0]))
				var got struct {
					Message struct {
						Error string `json:"error"`
					} `json:"messageToAppend"`
					ToolCallCounts map[string]int `json:"toolCallCounts"`
				}
				require.NoError(t, json.Unmarshal(body, &got))
				assert.NotEmpty(t, got.Message.Error, "the model is told what went wrong")
				for name := range got.ToolCallCounts {
					assert.Equal(t, "prioritize", name, "only the caller's tools are counted")
				}
			}
			up, down := srv.totals()
			assert.LessOrEqual(t, up, down+(rounds+1)*(len(reqs[0])+perRound), "uploaded %d bytes for %d downloaded", up, down)
		})
	}
}

// A call id longer than the bound is not echoed: the stream ends with an
// error (matching ErrStreamFailed) and no tool message is sent.
func TestRunStreamRefusesHugeCallID(t *testing.T) {
	t.Parallel()
	srv := newByteCounter(t, bareToolCall("msg_1", strings.Repeat("c", 1<<10+1), "prioritize", "priority", "low"), textReply("msg_2", "Done."))
	c := srv.client(t)
	ran := false
	tool := threads.NewTool("prioritize", "Set a priority", func(_ context.Context, a priorityArgs) (string, error) { ran = true; return a.Priority, nil })
	s, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
	require.NoError(t, err)
	_, err = s.Collect()
	require.ErrorIs(t, err, threads.ErrStreamFailed)
	assert.Contains(t, err.Error(), "tool call id is 1025 bytes")
	assert.NotContains(t, err.Error(), "cccc", "the id is not quoted")
	assert.False(t, ran, "the tool did not run")
	assert.Len(t, srv.requests(), 1, "no tool message was sent")

	// An id of the bound's length is answered.
	srv = newByteCounter(t, bareToolCall("msg_1", strings.Repeat("c", 1<<10), "prioritize", "priority", "low"), textReply("msg_2", "Done."))
	s, err = srv.client(t).Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	assert.Len(t, srv.requests(), 2)
}

// A tool's own error is sent cut to 4 KiB, without the API key.
func TestRunStreamToolErrorBounded(t *testing.T) {
	t.Parallel()
	srv := newByteCounter(t, bareToolCall("msg_1", "call_1", "fail"), textReply("msg_2", "Done."))
	c := srv.client(t)
	tool := threads.Tool{Name: "fail", Call: func(context.Context, threads.ToolCall) (string, error) {
		return "", errors.New(testKey + " " + strings.Repeat("é", 1<<20))
	}}
	s, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	reqs := srv.requests()
	require.Len(t, reqs, 2)
	var got struct {
		Message struct {
			Error string `json:"error"`
		} `json:"messageToAppend"`
	}
	require.NoError(t, json.Unmarshal(reqs[1], &got))
	assert.LessOrEqual(t, len(got.Message.Error), 4<<10)
	assert.True(t, strings.HasSuffix(got.Message.Error, "é…"), "cut on a rune boundary, marked")
	assert.False(t, strings.Contains(string(reqs[1]), testKey), "the API key is not sent back")
}

// The cost of a run whose service names a made-up tool with 1 MiB of "<"
// (6 MiB of JSON) in each of two rounds: the bytes sent stay a few hundred
// per round (up-B/op) against the bytes received (down-B/op), and the
// memory allocated (B/op) follows what was received.
//
//	go test -run '^$' -bench BenchmarkRunStreamEcho -benchmem .
func BenchmarkRunStreamEcho(b *testing.B) {
	call := bareToolCall("msg_1", "call_1", strings.Repeat("<", 1<<20))
	srv := newByteCounter(b, call, call, textReply("msg_9", "Done."))
	c := srv.client(b)
	tool := threads.NewTool("prioritize", "Set a priority", func(_ context.Context, a priorityArgs) (string, error) { return a.Priority, nil })
	b.ReportAllocs()
	for b.Loop() {
		srv.mu.Lock()
		srv.bodies, srv.down = nil, nil
		srv.mu.Unlock()
		s, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tool})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Collect(); err != nil {
			b.Fatal(err)
		}
	}
	up, down := srv.totals()
	b.ReportMetric(float64(up), "up-B/op")
	b.ReportMetric(float64(down), "down-B/op")
}

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

// RunStream's bound on tool rounds, against a hostile server.

// TestToolRoundsErrorShowsServerNamesOnOneLine: the unanswered call's id and name come
// from the server; the error shows them on one short line, without the key.
func TestToolRoundsErrorShowsServerNamesOnOneLine(t *testing.T) {
	t.Parallel()
	// As long as RunStream echoes (1 KiB): a longer id is refused before
	// the rounds are counted.
	id := "call\x1b]0;pwned\x07\x1b[2J\r\nFAKE LOG LINE " + atkKey + " " + strings.Repeat("A", 900)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		jid, _ := json.Marshal(id)
		fmt.Fprintf(w, "data: {\"responseMessageDto\":{\"id\":\"m\",\"threadId\":\"t\",\"role\":\"assistant\",\"content\":[],\"tool_call_id\":%s,\"toolCallRequest\":{\"toolName\":\"x\",\"parameters\":[]}},\"generationStage\":\"FETCHING_CONTEXT\"}\n\ndata: DONE\n\n", jid)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	tool := threads.Tool{Name: "x", Call: func(context.Context, threads.ToolCall) (string, error) { return "ok", nil }}
	st, err := c.Threads.RunStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")}, []threads.Tool{tool}, threads.WithMaxToolRounds(1))
	require.NoError(t, err)
	_, err = st.Collect()
	var tre *threads.ToolRoundsError
	require.ErrorAs(t, err, &tre)
	s := err.Error()
	assert.Less(t, len(s), 1024, "the error is cut short")
	assert.NotContains(t, s, "\x1b")
	assert.NotContains(t, s, "\r")
	assert.NotContains(t, s, "\n")
	assert.False(t, redact.Contains(s, atkKey), "the key is in %q", s)
	assert.Equal(t, id, tre.Call.ID, "the field keeps the id as sent")
}
