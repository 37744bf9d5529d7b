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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

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

// perRound is what a round's request may add to the first request's size,
// whatever the server sent: the error text twice (the text and the error
// member, each JSON-escaped at worst 6 bytes a byte) and a call id.
const perRound = 2*6*(4<<10) + 6*(1<<10) + 1<<10

type priorityArgs struct {
	Priority string `json:"priority" description:"How urgent" enum:"low,high"`
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

// Whatever a call's name, argument names and values, the error NewTool's
// Call gives the model stays within a constant size.
func FuzzNewToolArgumentError(f *testing.F) {
	f.Add("prioritize", "priority", "urgent")
	f.Add(strings.Repeat("<", 300), strings.Repeat("‹", 300), strings.Repeat("\x1b[2J", 100))
	f.Add("", "", "\xff\xfe")
	tool := threads.NewTool("prioritize", "Set a priority", func(_ context.Context, a priorityArgs) (string, error) { return a.Priority, nil })
	f.Fuzz(func(t *testing.T, name, param, value string) {
		args := map[string]any{"priority": value, param: value, param + "2": []any{value}, param + "3": map[string]any{value: value}}
		_, err := tool.Call(context.Background(), threads.ToolCall{Name: name, Arguments: args})
		if err != nil && len(err.Error()) > 4<<10 {
			t.Fatalf("the error is %d bytes", len(err.Error()))
		}
	})
}
