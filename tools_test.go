package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/threadstest"
	"go.uber.org/goleak"
)

type weatherArgs struct {
	City string `json:"city" description:"City name"`
}

type timeArgs struct {
	Zone string `json:"zone" description:"IANA time zone"`
}

func weatherTool() threads.Tool {
	return threads.NewTool("get_weather", "Get the weather for a city", func(_ context.Context, a weatherArgs) (string, error) {
		return fmt.Sprintf(`{"city":%q,"tempC":21}`, a.City), nil
	})
}

func timeTool() threads.Tool {
	return threads.NewTool("get_time", "The time in a zone", func(_ context.Context, a timeArgs) (string, error) {
		return a.Zone + " 14:05", nil
	})
}

// A reply that calls two tools in sequence completes with one RunStream
// call; every request carries the tools, the echoed ids and the counts.
func TestRunStreamTwoToolsInSequence(t *testing.T) {
	t.Parallel()
	srv := newToolServer(t,
		callTool("msg_A.1", "call_1", "get_weather", "city", "Paris"),
		callTool("msg_B.2", "call_2", "get_time", "zone", "Europe/Paris"),
		func(req advanceRequest) string {
			return textReply("msg_C.3", "It is 21°C in Paris at "+req.text()+".")
		},
	)
	c := srv.client(t)
	own := threads.ClientTool{Name: "ask_user", Description: "Ask the user", Parameters: []threads.ToolParameter{}}
	params := threads.AdvanceParams{
		Message:         threads.UserMessage("weather and time in Paris?"),
		ClientTools:     []threads.ClientTool{own},
		ToolCallCounts:  map[string]int{"get_weather": 2},
		ForceToolChoice: "get_weather",
		ContextKey:      "user-1",
	}
	st, err := c.Threads.RunStream(context.Background(), testThread, params, []threads.Tool{weatherTool(), timeTool()})
	require.NoError(t, err)

	// The deltas of each message, applied in order, give its final text,
	// across rounds.
	shown := map[string]string{}
	var stages []threads.GenerationStage
	for ev, err := range st.All() {
		require.NoError(t, err)
		shown[ev.Message.ID] += ev.TextDelta
		stages = append(stages, ev.GenerationStage)
	}
	require.NoError(t, st.Err())
	final := "It is 21°C in Paris at Europe/Paris 14:05."
	assert.Equal(t, map[string]string{"msg_A.1": "", "msg_B.2": "", "msg_C.3": final}, shown)
	assert.Contains(t, stages, threads.GenerationStageFetchingContext)
	assert.Equal(t, threads.GenerationStageComplete, stages[len(stages)-1])

	msgs := st.Messages()
	require.Len(t, msgs, 3)
	assert.Equal(t, "get_weather", msgs[0].ToolCallRequest.ToolName)
	assert.Equal(t, "get_time", msgs[1].ToolCallRequest.ToolName)
	assert.Equal(t, final, msgs[2].Text())

	reqs := srv.requests()
	require.Len(t, reqs, 3)
	for i, r := range reqs {
		assert.Equal(t, "/threads/"+testThread+"/advancestream", r.Path, "request %d", i)
		assert.Equal(t, []string{"ask_user", "get_weather", "get_time"}, r.toolNames(), "request %d", i)
		assert.Equal(t, "user-1", r.ContextKey, "request %d", i)
	}
	assert.Equal(t, "get_weather", reqs[0].ForceToolChoice)
	assert.Empty(t, reqs[1].ForceToolChoice, "a forced tool is forced with the first request only")
	assert.Equal(t, threads.ToolParameter{Name: "city", Type: "string", Description: "City name", IsRequired: true,
		Schema: map[string]any{"type": "string", "description": "City name"}}, reqs[0].ClientTools[1].Parameters[0])

	assert.Equal(t, "user", reqs[0].Message.Role)
	assert.Equal(t, map[string]int{"get_weather": 2}, reqs[0].ToolCallCounts)

	assert.Equal(t, "tool", reqs[1].Message.Role)
	assert.Equal(t, "call_1", reqs[1].Message.ToolCallID)
	assert.Equal(t, `{"city":"Paris","tempC":21}`, reqs[1].text())
	assert.Empty(t, reqs[1].Message.Error)
	assert.Equal(t, map[string]int{"get_weather": 3}, reqs[1].ToolCallCounts)

	assert.Equal(t, "tool", reqs[2].Message.Role)
	assert.Equal(t, "call_2", reqs[2].Message.ToolCallID)
	assert.Equal(t, "Europe/Paris 14:05", reqs[2].text())
	assert.Equal(t, map[string]int{"get_weather": 3, "get_time": 1}, reqs[2].ToolCallCounts)

	assert.Equal(t, map[string]int{"get_weather": 2}, params.ToolCallCounts, "the caller's map is not changed")
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

// A call of a tool the caller declared itself ends the stream cleanly at
// FETCHING_CONTEXT, so the caller can answer it.
func TestRunStreamCallersOwnTool(t *testing.T) {
	t.Parallel()
	srv := newToolServer(t, callTool("msg_A", "call_1", "ask_user", "question", "Which city?"))
	own := threads.ClientTool{Name: "ask_user", Description: "Ask the user", Parameters: []threads.ToolParameter{{Name: "question", Type: "string", Description: "q", IsRequired: true}}}
	st, err := srv.client(t).Threads.RunStream(context.Background(), testThread,
		threads.AdvanceParams{Message: threads.UserMessage("go"), ClientTools: []threads.ClientTool{own}}, []threads.Tool{weatherTool()})
	require.NoError(t, err)
	var last threads.StreamEvent
	for st.Next() {
		last = st.Current()
	}
	require.NoError(t, st.Err())
	assert.Equal(t, threads.GenerationStageFetchingContext, last.GenerationStage)
	assert.Equal(t, "call_1", last.Message.ToolCallID)
	assert.Len(t, srv.requests(), 1)
}

// A reply without a tool call, and a failed round, end the run as
// AdvanceStream would.
func TestRunStreamEnds(t *testing.T) {
	t.Parallel()
	srv := newToolServer(t,
		raw(textReply("msg_A", "No tools needed.")),
		callTool("msg_B", "call_1", "get_weather", "city", "Paris"),
		raw("error: Error in streaming response\n\ndata: DONE\n\n"),
	)
	c := srv.client(t)
	st, err := c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("hi")}, []threads.Tool{weatherTool()})
	require.NoError(t, err)
	msgs, err := st.Collect()
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, "No tools needed.", msgs[0].Text())

	st, err = c.Threads.RunStream(context.Background(), testThread, threads.AdvanceParams{Message: threads.UserMessage("hi")}, []threads.Tool{weatherTool()})
	require.NoError(t, err)
	msgs, err = st.Collect()
	var se *threads.StreamError
	require.ErrorAs(t, err, &se)
	assert.Len(t, msgs, 1)
	assert.Len(t, srv.requests(), 3)
}

// The tools are checked before anything is sent.
func TestRunStreamChecksTools(t *testing.T) {
	t.Parallel()
	srv := newToolServer(t)
	c := srv.client(t)
	call := func(context.Context, threads.ToolCall) (string, error) { return "", nil }
	for _, tc := range []struct {
		name   string
		params threads.AdvanceParams
		tools  []threads.Tool
		want   string
	}{
		{"empty name", threads.AdvanceParams{}, []threads.Tool{{Name: " ", Call: call}}, "tools[0] has no Name"},
		{"nil call", threads.AdvanceParams{}, []threads.Tool{{Name: "a"}}, `tool "a" has no Call`},
		{"twice", threads.AdvanceParams{}, []threads.Tool{{Name: "a", Call: call}, {Name: "a", Call: call}}, `tool "a" is declared twice`},
		{"beside ClientTools", threads.AdvanceParams{ClientTools: []threads.ClientTool{{Name: "a"}}}, []threads.Tool{{Name: "a", Call: call}}, `tool "a" is declared twice`},
		{"not a struct", threads.AdvanceParams{}, []threads.Tool{threads.NewTool("n", "d", func(context.Context, int) (string, error) { return "", nil })},
			`tool "n": NewTool: Args must be a struct or a pointer to one, not int`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.params.Message = threads.UserMessage("hi")
			st, err := c.Threads.RunStream(context.Background(), testThread, tc.params, tc.tools)
			require.ErrorContains(t, err, tc.want)
			assert.Nil(t, st)
		})
	}
	assert.Empty(t, srv.requests())

	bad := threads.NewTool("n", "d", func(context.Context, map[string]any) (string, error) { return "", nil })
	_, err := bad.Call(context.Background(), threads.ToolCall{})
	require.ErrorContains(t, err, "Args must be a struct")
}

// Replaying the live tool round trip (captures 45 and 46) through RunStream
// sends the request the live client sent and gives the live final text.
func TestRunStreamLiveReplay(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "live", name))
		require.NoError(t, err)
		return string(b)
	}
	srv := newToolServer(t, raw(read("stream-tool-call-45.sse")), raw(read("stream-tool-result-46.sse")))
	tool := threads.NewTool("get_weather", "Get the weather for a city", func(_ context.Context, a weatherArgs) (string, error) {
		if a.City != "Paris" {
			return "", fmt.Errorf("city %q", a.City)
		}
		return `{"tempC":21}`, nil
	})
	st, err := srv.client(t).Threads.RunStream(context.Background(), testThread,
		threads.AdvanceParams{Message: threads.UserMessage("weather in Paris?")}, []threads.Tool{tool})
	require.NoError(t, err)
	var text strings.Builder
	for ev, err := range st.All() {
		require.NoError(t, err)
		text.WriteString(ev.TextDelta)
	}
	assert.Equal(t, "Hello from the fake model.", text.String())
	msgs := st.Messages()
	require.Len(t, msgs, 2)
	assert.Equal(t, "msg_XPa1dsLK.67dae4", msgs[0].ID)
	assert.Equal(t, "Hello from the fake model.", msgs[1].Text())

	// The requests are the live ones, by JSON value.
	srv.mu.Lock()
	sent := srv.raw
	srv.mu.Unlock()
	require.Len(t, sent, 2)
	// Apart from each parameter's JSON Schema, which the client adds so
	// that the model sees the description (tools_schema_test.go).
	assert.JSONEq(t, read("request-tool-call-45.json"), withoutSchemas(t, sent[0]))
	assert.JSONEq(t, read("request-tool-result-46.json"), withoutSchemas(t, sent[1]))
}

// Captures-turn4 05, the spec route's bytes: the service took its own
// status arguments out of toolCallRequest and sent them as
// component.statusMessage and completionStatusMessage. The tool gets the
// call's own arguments, and the status lines on ToolCall, as on /v1.
func TestRunStreamToolCallStatusMessages(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "live", "stream-tool-call-turn4-05.sse"))
	require.NoError(t, err)
	srv := newToolServer(t, raw(string(b)), quoteResult("msg_2"))
	var got threads.ToolCall
	tool := threads.Tool{Name: "plan_trip", Description: "Plans a trip to a city",
		Parameters: []threads.ToolParameter{{Name: "city", Type: "string", IsRequired: true}, {Name: "pace", Type: "enum", EnumValues: []string{"packed", "normal", "relaxed"}, IsRequired: true}},
		Call: func(_ context.Context, call threads.ToolCall) (string, error) {
			got = call
			return "planned", nil
		}}
	st, err := srv.client(t).Threads.RunStream(context.Background(), testThread,
		threads.AdvanceParams{Message: threads.UserMessage("[enum] plan my trip to Lisbon")}, []threads.Tool{tool})
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)
	assert.Equal(t, "call_fake_5", got.ID)
	assert.Equal(t, map[string]any{"city": "urgent", "pace": "relaxed"}, got.Arguments)
	assert.Equal(t, "urgent", got.StatusMessage)
	assert.Equal(t, "urgent", got.CompletionStatusMessage)
	reqs := srv.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "planned", reqs[1].text())
}

// A NewTool tool never takes the service's status arguments for its own,
// even when a caller passes them in Arguments (answering a /v1 call by
// hand): they are neither checked nor decoded, and the caller's map is
// left as it was. Anything else unknown is still refused, and the refusal
// matches ErrToolArguments.
func TestNewToolIgnoresServiceStatusArguments(t *testing.T) {
	t.Parallel()
	var got weatherArgs
	tool := threads.NewTool("get_weather", "", func(_ context.Context, a weatherArgs) (string, error) { got = a; return "ok", nil })
	args := map[string]any{"city": "Paris", "_tambo_statusMessage": "Looking…", "_tambo_completionStatusMessage": "Done"}
	_, err := tool.Call(context.Background(), threads.ToolCall{Name: "get_weather", Arguments: args})
	require.NoError(t, err)
	assert.Equal(t, weatherArgs{City: "Paris"}, got)
	assert.Len(t, args, 3, "the caller's map is not changed")

	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "get_weather", Arguments: map[string]any{"city": "Paris", "_tambo_other": "x"}})
	require.ErrorIs(t, err, threads.ErrToolArguments)
	assert.Contains(t, err.Error(), `there is no parameter "_tambo_other"`)
}

// ToolResultText's rule, part by part: text as it is, a text resource
// inline, a blob by its decoded size only, a URI alone; attributes
// escaped; a part no tool result carries refused, naming it.
func TestToolResultText(t *testing.T) {
	t.Parallel()
	got, err := threads.ToolResultText([]threads.ContentPart{
		threads.TextPart("a\nb"),
		threads.ResourcePart(threads.Resource{URI: `file:///"x"&<y>`, Text: "t"}),
		threads.BlobPart("", "image/png", make([]byte, 1000)),
		threads.ResourcePart(threads.Resource{URI: "https://example.com/doc"}),
	})
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n"+`<resource uri="file:///&#34;x&#34;&amp;&lt;y&gt;">t</resource>`+"\n"+
		`<resource mimeType="image/png" bytes="1000"/>`+"\n"+`<resource uri="https://example.com/doc"/>`, got)

	got, err = threads.ToolResultText(nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = threads.ToolResultText([]threads.ContentPart{{Type: threads.ContentPartTypeResource}})
	assert.EqualError(t, err, "part 1 of the tool's result is a resource part without a resource")
	_, err = threads.ToolResultText([]threads.ContentPart{threads.TextPart("x"), {Type: "video\x1b[2J"}})
	assert.ErrorContains(t, err, `part 2 of the tool's result is a "video" part`, "the escape sequence is left out")
}

// NewPartsTool checks and decodes its arguments as NewTool does, and is
// refused (not a panic) with an unusable Args or a nil function.
func TestNewPartsTool(t *testing.T) {
	t.Parallel()
	tool := threads.NewPartsTool("w", "", func(_ context.Context, a weatherArgs) ([]threads.ContentPart, error) {
		return []threads.ContentPart{threads.TextPart(a.City)}, nil
	})
	require.NoError(t, tool.Err())
	require.Len(t, tool.Parameters, 1)
	_, err := tool.CallParts(context.Background(), threads.ToolCall{Name: "w", Arguments: map[string]any{"town": "x"}})
	assert.ErrorIs(t, err, threads.ErrToolArguments)
	parts, err := tool.CallParts(context.Background(), threads.ToolCall{Name: "w", Arguments: map[string]any{"city": "Oslo"}})
	require.NoError(t, err)
	assert.Equal(t, []threads.ContentPart{threads.TextPart("Oslo")}, parts)

	bad := threads.NewPartsTool("b", "", func(context.Context, int) ([]threads.ContentPart, error) { return nil, nil })
	assert.ErrorContains(t, bad.Err(), "NewPartsTool: Args must be a struct")
	assert.ErrorContains(t, threads.NewPartsTool[weatherArgs]("n", "", nil).Err(), "NewPartsTool: nil function")
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

// CreateAndRunStream creates the thread with the first request and sends
// every tool result to it; NewJSONTool's result reaches the model as its
// JSON text.
func TestCreateAndRunStreamJSONTool(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
	}})
	type forecast struct {
		City  string  `json:"city"`
		TempC float64 `json:"tempC"`
	}
	tool := threads.NewJSONTool("get_weather", "Get the weather", func(_ context.Context, a weatherArgs) (forecast, error) {
		return forecast{a.City, 21.5}, nil
	})
	st, err := c.Threads.CreateAndRunStream(context.Background(), threads.AdvanceParams{
		Message: threads.UserMessage("Paris?"), InitialMessages: []threads.MessageRequest{threads.UserMessage("hello")},
	}, []threads.Tool{tool})
	require.NoError(t, err)
	msgs, err := st.Collect()
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	assert.Equal(t, `The tool returned: {"city":"Paris","tempC":21.5}`, msgs[len(msgs)-1].Text())

	var paths []string
	var bodies []*threadstest.AdvanceRequest
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "advancestream") {
			paths = append(paths, r.Path)
			a, err := r.Advance()
			require.NoError(t, err)
			bodies = append(bodies, a)
		}
	}
	require.Len(t, paths, 2)
	assert.Equal(t, "/threads/advancestream", paths[0])
	threadID := msgs[0].ThreadID
	assert.Equal(t, "/threads/"+threadID+"/advancestream", paths[1])
	assert.Len(t, bodies[0].InitialMessages, 1)
	assert.Empty(t, bodies[1].InitialMessages, "initial messages go with the creation only")
}

// A result that does not encode is the tool's failure, reported to the
// model; a nil function is refused before anything is sent.
func TestNewJSONToolErrors(t *testing.T) {
	t.Parallel()
	bad := threads.NewJSONTool("t", "", func(context.Context, weatherArgs) (func(), error) { return func() {}, nil })
	_, err := bad.Call(context.Background(), threads.ToolCall{Name: "t", Arguments: map[string]any{"city": "x"}})
	assert.ErrorContains(t, err, "does not encode as JSON")
	raw := threads.NewJSONTool("r", "", func(context.Context, weatherArgs) (json.RawMessage, error) { return json.RawMessage(`[1,2]`), nil })
	out, err := raw.Call(context.Background(), threads.ToolCall{Name: "r", Arguments: map[string]any{"city": "x"}})
	require.NoError(t, err)
	assert.Equal(t, `[1,2]`, out)
	s := threads.NewJSONTool("s", "", func(context.Context, weatherArgs) (string, error) { return "hi", nil })
	out, err = s.Call(context.Background(), threads.ToolCall{Name: "s", Arguments: map[string]any{"city": "x"}})
	require.NoError(t, err)
	assert.Equal(t, `"hi"`, out)
	nilFn := threads.NewJSONTool[weatherArgs, int]("n", "", nil)
	assert.Error(t, nilFn.Err())
}

// RunStream's own mistakes name RunStream, not the AdvanceStream it is
// built on, and a nil context is an error, not a panic; nothing is sent.
func TestRunStreamErrorsNameRunStream(t *testing.T) {
	t.Parallel()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey("sk_tools_errors_key"))
	require.NoError(t, err)
	p := threads.AdvanceParams{Message: threads.UserMessage("hi")}

	_, err = c.Threads.RunStream(context.Background(), "", p, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RunStream")
	assert.NotContains(t, err.Error(), "AdvanceStream")

	p.InitialMessages = []threads.MessageRequest{threads.UserMessage("earlier")}
	_, err = c.Threads.RunStream(context.Background(), "thr_1", p, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RunStream:")

	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err = c.Threads.RunStream(nil, "thr_1", threads.AdvanceParams{Message: threads.UserMessage("hi")}, nil) //nolint:staticcheck
	assert.ErrorContains(t, err, "nil context")
}

// A nil context given to a tool run is an error naming it, never a panic,
// and nothing reaches the server, for RunStream and CreateAndRunStream
// alike, also on a zero ThreadsService (issue 21, item 11: RunStream(nil,
// …) panicked).
func TestRunStreamNilContextSendsNothing(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	tool := threads.NewTool("echo", "echoes", func(_ context.Context, args struct{ Text string }) (string, error) { return args.Text, nil })
	p := threads.AdvanceParams{Message: threads.UserMessage("hi")}
	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err := c.Threads.RunStream(nil, "thr_1.a", p, []threads.Tool{tool}) //nolint:staticcheck
	assert.ErrorContains(t, err, "nil context")
	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err = c.Threads.CreateAndRunStream(nil, p, []threads.Tool{tool}) //nolint:staticcheck
	assert.ErrorContains(t, err, "nil context")
	assert.Empty(t, srv.Requests())

	var zero threads.ThreadsService
	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err = zero.RunStream(nil, "thr_1.a", p, []threads.Tool{tool}) //nolint:staticcheck
	assert.Error(t, err)
}

// advances decodes the advancestream bodies the fake received.
func advances(t *testing.T, srv *threadstest.Server) []*threadstest.AdvanceRequest {
	t.Helper()
	var out []*threadstest.AdvanceRequest
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/advancestream") {
			a, err := r.Advance()
			require.NoError(t, err)
			out = append(out, a)
		}
	}
	return out
}

func fakeThread(t *testing.T, srv *threadstest.Server, c *threads.Client) string {
	t.Helper()
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	return th.ID
}

// Against threadstest: a scripted reply that calls two tools in sequence
// completes with one RunStream call, and the fake received the tools, the
// echoed ids and the counts.
func TestRunStreamFakeTwoTools(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_time", Arguments: map[string]any{"zone": "Europe/Paris"}},
	}})
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("Paris?")},
		[]threads.Tool{weatherTool(), timeTool()})
	require.NoError(t, err)
	msgs, err := st.Collect()
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	assert.Equal(t, `The tool returned: {"city":"Paris","tempC":21}; Europe/Paris 14:05`, msgs[2].Text())

	reqs := advances(t, srv)
	require.Len(t, reqs, 3)
	for _, r := range reqs {
		var names []string
		for _, ct := range r.ClientTools {
			names = append(names, ct.Name)
		}
		assert.Equal(t, []string{"get_weather", "get_time"}, names)
	}
	assert.Equal(t, "user", reqs[0].MessageToAppend.Role)
	assert.Equal(t, msgs[0].ToolCallID, reqs[1].MessageToAppend.ToolCallID)
	assert.Equal(t, msgs[1].ToolCallID, reqs[2].MessageToAppend.ToolCallID)
	assert.NotEqual(t, reqs[1].MessageToAppend.ToolCallID, reqs[2].MessageToAppend.ToolCallID)
	assert.Equal(t, map[string]int{"get_weather": 1}, reqs[1].ToolCallCounts)
	assert.Equal(t, map[string]int{"get_weather": 1, "get_time": 1}, reqs[2].ToolCallCounts)

	// The thread holds the round trip as the live one does (capture 47).
	th, err := c.Threads.Get(context.Background(), id)
	require.NoError(t, err)
	var roles []threads.Role
	for _, m := range th.Messages {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []threads.Role{"user", "assistant", "tool", "assistant", "tool", "assistant"}, roles)
}

// Against threadstest: a failing tool and a panicking one reach the model as
// tool errors (the fake copies the error onto the call, as live), and the
// run completes.
func TestRunStreamFakeToolErrors(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_time", Arguments: map[string]any{"zone": "Mars"}},
		{Name: "get_weather", Arguments: map[string]any{"city": 7}},
		{Name: "nope", Arguments: map[string]any{}},
	}})
	weather := threads.NewTool("get_weather", "weather", func(context.Context, weatherArgs) (string, error) {
		return "", errors.New("service down")
	})
	clock := threads.NewTool("get_time", "time", func(context.Context, timeArgs) (string, error) { panic("no clock") })
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("go")},
		[]threads.Tool{weather, clock})
	require.NoError(t, err)
	msgs, err := st.Collect()
	require.NoError(t, err)
	require.Len(t, msgs, 5)
	reqs := advances(t, srv)
	require.Len(t, reqs, 5)
	for i, want := range []string{"service down", `tool "get_time" failed: panic: no clock`,
		`argument "city" is a JSON number, want string`, `there is no tool named "nope"`} {
		m := reqs[i+1].MessageToAppend
		assert.Equal(t, "tool", m.Role)
		assert.Contains(t, m.Error, want)
		assert.Equal(t, "Error: "+m.Error, m.Text())
	}
	assert.Equal(t, map[string]int{"get_weather": 2, "get_time": 1}, reqs[4].ToolCallCounts, "the made-up tool is not counted")
	th, err := c.Threads.Get(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "service down", th.Messages[1].Error, "the error is on the call, as live")
}

// A tool whose result is content parts, beside one that returns a string,
// against threadstest: the tool message of the parts tool is their text
// by ToolResultText's rule (the spec's routes carry text only), the
// string tool's message is its string as before, and the Tool's Call gives
// the same text as the runner sent.
func TestRunStreamFakePartsTool(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "chart", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
	}})
	chart := threads.NewPartsTool("chart", "A chart of the weather", func(_ context.Context, a weatherArgs) ([]threads.ContentPart, error) {
		return []threads.ContentPart{
			threads.TextPart("The chart of " + a.City),
			threads.ResourcePart(threads.Resource{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "sunny & warm"}),
			threads.BlobPart("chart://paris", "image/png", []byte("\x89PNG fake image")),
		}, nil
	})
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("Paris?")},
		[]threads.Tool{chart, weatherTool()})
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)

	reqs := advances(t, srv)
	require.Len(t, reqs, 3)
	want := "The chart of Paris\n" +
		`<resource uri="file:///notes.txt" mimeType="text/plain">sunny & warm</resource>` + "\n" +
		`<resource uri="chart://paris" mimeType="image/png" bytes="15"/>`
	m := reqs[1].MessageToAppend
	assert.Equal(t, "tool", m.Role)
	assert.Empty(t, m.Error)
	require.Len(t, m.Content, 1)
	assert.Equal(t, want, m.Text())
	assert.Equal(t, `{"city":"Paris","tempC":21}`, reqs[2].MessageToAppend.Text(), "a string tool is answered as before")

	got, err := chart.Call(context.Background(), threads.ToolCall{Name: "chart", Arguments: map[string]any{"city": "Paris"}})
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A part that no tool result carries (here an image_url) is the tool's
// failure as the model reads it, not a crash; the run completes.
func TestRunStreamFakePartsToolBadPart(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{{Name: "pic", Arguments: map[string]any{}}}})
	pic := threads.Tool{Name: "pic", CallParts: func(context.Context, threads.ToolCall) ([]threads.ContentPart, error) {
		return []threads.ContentPart{threads.TextPart("a picture:"), {Type: threads.ContentPartTypeImageURL, ImageURL: &threads.ImageURL{URL: "https://example.com/a.png"}}}, nil
	}}
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{pic})
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)
	reqs := advances(t, srv)
	require.Len(t, reqs, 2)
	assert.Equal(t, `part 2 of the tool's result is a "image_url" part; a tool result holds text and resource parts (an image is a resource part with a base64 blob and its MIME type)`,
		reqs[1].MessageToAppend.Error)
}

// A tool with a whole JSON Schema (as an MCP tool has) is declared on the
// spec's routes with one parameter per property, in the schema's order,
// each carrying its property's schema as it is; the call's arguments reach
// Call as the model sent them.
func TestRunStreamFakeInputSchema(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "search", Arguments: map[string]any{"query": "go", "limit": 3}},
	}})
	// A json.RawMessage keeps the properties' order (a map's keys encode
	// sorted).
	schema := json.RawMessage(`{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema",
		"properties":{"query":{"type":"string","description":"What to find","minLength":1},
			"limit":{"type":["integer","null"],"maximum":50},
			"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},
			"mode":{"enum":["fast","deep"]}},
		"required":["query"],"additionalProperties":false}`)
	var got map[string]any
	search := threads.Tool{Name: "search", Description: "Search", InputSchema: schema,
		Call: func(_ context.Context, call threads.ToolCall) (string, error) {
			got = call.Arguments
			return "found", nil
		}}
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("find go")}, []threads.Tool{search})
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"query": "go", "limit": float64(3)}, got)

	reqs := advances(t, srv)
	require.NotEmpty(t, reqs)
	params := reqs[0].ClientTools[0].Parameters
	var names, types []string
	var required []bool
	for _, p := range params {
		names, types, required = append(names, p.Name), append(types, p.Type), append(required, p.IsRequired)
	}
	assert.Equal(t, []string{"query", "limit", "tags", "mode"}, names, "the schema's order")
	assert.Equal(t, []string{"string", "integer", "array", "string"}, types)
	assert.Equal(t, []bool{true, false, false, false}, required)
	assert.Equal(t, "string", params[2].Items.Type)
	assert.Equal(t, []string{"fast", "deep"}, params[3].EnumValues)
	assert.JSONEq(t, `{"type":"string","description":"What to find","minLength":1}`, string(params[0].Schema), "the property's schema as it is")
	assert.JSONEq(t, `{"type":["integer","null"],"maximum":50}`, string(params[1].Schema))
}

// A schema that the spec's routes' parameters cannot express is refused
// before anything is sent, with an error naming the tool and the keyword;
// so is a tool that sets both Parameters and InputSchema.
func TestRunStreamRefusesUnmappableInputSchema(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	call := func(context.Context, threads.ToolCall) (string, error) { return "", nil }
	for _, tc := range []struct {
		tool threads.Tool
		want string
	}{
		{threads.Tool{Name: "pick", Call: call, InputSchema: map[string]any{"type": "object", "anyOf": []any{map[string]any{"required": []any{"a"}}}}},
			`threads: RunStream: tool "pick": the spec's routes cannot declare it: its InputSchema uses "anyOf" at its top level`},
		{threads.Tool{Name: "ref", Call: call, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`)},
			`its InputSchema's property "a" uses $ref (at #/$ref)`},
		{threads.Tool{Name: "arr", Call: call, InputSchema: map[string]any{"type": "array"}},
			`its InputSchema has type "array"`},
		{threads.Tool{Name: "list", Call: call, InputSchema: []string{"a"}},
			`its InputSchema is not a JSON Schema object (it encodes as an array)`},
		{threads.Tool{Name: "both", Call: call, InputSchema: map[string]any{"type": "object"}, Parameters: []threads.ToolParameter{{Name: "a", Type: "string"}}},
			`tool "both": it sets both Parameters and InputSchema; set one`},
	} {
		_, err := c.Threads.RunStream(context.Background(), "thr_x", threads.AdvanceParams{Message: threads.UserMessage("go")}, []threads.Tool{tc.tool})
		require.Error(t, err, tc.tool.Name)
		assert.Contains(t, err.Error(), tc.want)
	}
	assert.Empty(t, srv.Requests(), "nothing was sent")
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// tripArgs has a field of every kind NewTool maps.
type tripArgs struct {
	Destination string    `json:"destination" description:"Where to go"`
	Nights      int       `json:"nights" description:"How many nights"`
	Budget      float64   `json:"budget,omitempty" description:"Most to spend, in euros"`
	Pets        bool      `json:"pets" description:"Whether pets come along"`
	Class       string    `json:"class" description:"Travel class" enum:"economy,business,first"`
	Travelers   []string  `json:"travelers" description:"Names of the travelers"`
	Ratings     []float64 `json:"ratings,omitempty"`
	Start       time.Time `json:"start" description:"Departure time"`
	Return      *string   `json:"return" description:"Return date, if any"`
	Hotel       hotel     `json:"hotel" description:"The hotel"`
	Stops       []stop    `json:"stops,omitzero" description:"Stops on the way"`
	Notes       map[string]string
	Ignored     string `json:"-"`
	internal    string
	paging
}

type hotel struct {
	Name  string `json:"name" description:"Hotel name"`
	Stars *int   `json:"stars" description:"1 to 5" enum:"1,2,3,4,5"`
	Room  struct {
		Beds int  `json:"beds"`
		View bool `json:"view,omitempty"`
	} `json:"room"`
}

type stop struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty"`
}

type paging struct {
	Page int `json:"page,omitempty" description:"Result page"`
}

// NewTool's parameter list for a struct with every kind of field, byte for
// byte (go test -run TestNewToolGolden -update rewrites it).
func TestNewToolGolden(t *testing.T) {
	t.Parallel()
	tool := threads.NewTool("plan_trip", "Plan a trip", func(context.Context, tripArgs) (string, error) { return "", nil })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(tool.Parameters))
	path := filepath.Join("testdata", "golden", "newtool-parameters.json")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())
	_ = tripArgs{}.internal
}

// The arguments of a call decode into the struct, nested values included.
func TestNewToolDecodes(t *testing.T) {
	t.Parallel()
	var got tripArgs
	tool := threads.NewTool("plan_trip", "Plan a trip", func(_ context.Context, a tripArgs) (string, error) {
		got = a
		return "ok", nil
	})
	args := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(`{
		"destination":"Lisbon","nights":3,"pets":false,"class":"first","travelers":["Ana","Bo"],
		"start":"2026-12-01T08:00:00Z","return":null,"hotel":{"name":"Sol","stars":4,"room":{"beds":2}},
		"stops":[{"city":"Porto","days":1}],"Notes":{"a":"b"},"page":2}`), &args))
	out, err := tool.Call(context.Background(), threads.ToolCall{ID: "c", Name: "plan_trip", Arguments: args})
	require.NoError(t, err)
	assert.Equal(t, "ok", out)
	assert.Equal(t, "Lisbon", got.Destination)
	assert.Equal(t, 3, got.Nights)
	assert.Equal(t, []string{"Ana", "Bo"}, got.Travelers)
	assert.Equal(t, 4, *got.Hotel.Stars)
	assert.Equal(t, 2, got.Hotel.Room.Beds)
	assert.Equal(t, []stop{{"Porto", 1}}, got.Stops)
	assert.Equal(t, 2, got.Page)
	assert.Nil(t, got.Return)
	assert.True(t, got.Start.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)))

	// A pointer Args works too, and an unknown nested field is refused.
	ptr := threads.NewTool("p", "p", func(_ context.Context, a *stop) (string, error) { return a.City, nil })
	out, err = ptr.Call(context.Background(), threads.ToolCall{Name: "p", Arguments: map[string]any{"city": "Faro"}})
	require.NoError(t, err)
	assert.Equal(t, "Faro", out)
	args["hotel"] = map[string]any{"name": "Sol", "room": map[string]any{"beds": 1}, "pool": true}
	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "plan_trip", Arguments: args})
	require.ErrorContains(t, err, `there is no field "pool"`)
}

// A value outside an enum tag's list is refused, naming the list.
func TestNewToolEnum(t *testing.T) {
	t.Parallel()
	type args struct {
		Class string `json:"class" enum:"economy, business"`
	}
	tool := threads.NewTool("book", "Book", func(_ context.Context, a args) (string, error) { return a.Class, nil })
	out, err := tool.Call(context.Background(), threads.ToolCall{Name: "book", Arguments: map[string]any{"class": "business"}})
	require.NoError(t, err)
	assert.Equal(t, "business", out)
	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "book", Arguments: map[string]any{"class": "first"}})
	require.ErrorContains(t, err, `argument "class" is first, want one of: economy, business`)
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

// withoutSchemas returns the JSON request body with every clientTools
// parameter's "schema" removed, re-encoded.
func withoutSchemas(t *testing.T, body []byte) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(body, &v))
	tools, _ := v["clientTools"].([]any)
	for _, tool := range tools {
		params, _ := tool.(map[string]any)["parameters"].([]any)
		for _, p := range params {
			delete(p.(map[string]any), "schema")
		}
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

type ticketArgs struct {
	Title    string     `json:"title" description:"One line that says what is wrong"`
	Priority string     `json:"priority" description:"How urgent: p1 is the most" enum:"p1,p2,p3"`
	Severity int        `json:"severity,omitempty" description:"1 to 3" enum:"1,2,3"`
	Tags     []string   `json:"tags,omitempty" description:"Labels"`
	Due      *time.Time `json:"due" description:"When it must be fixed"`
	Extra    any        `json:"extra,omitempty" description:"Anything else"`
}

// golden compares got with testdata/golden/name (go test -update rewrites
// it).
func golden(t *testing.T, name string, got any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(got))
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())
}

// The tool definitions as the fake recorded them, and the JSON Schema the
// service hands the model for each parameter (threadstest's ModelSchema):
// every parameter's type, enum values and description reach the model,
// for a NewTool tool, a hand-built Tool (Type "enum" and a plain string),
// and a ClientTool the caller answers itself. Before, the model saw
// "priority": {"type": "string"}, without the enum or the description
// (issue 21).
func TestToolDefinitionsReachTheModel(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	ticket := threads.NewTool("file_ticket", "File a ticket", func(_ context.Context, a ticketArgs) (string, error) { return "filed " + a.Priority, nil })
	handBuilt := threads.Tool{Name: "set_mood", Description: "Set the mood", Parameters: []threads.ToolParameter{
		{Name: "mood", Type: "enum", Description: "The mood", IsRequired: true, EnumValues: []string{"calm", "busy"}},
		{Name: "note", Type: "string", Description: "Why", IsRequired: false},
		{Name: "ids", Type: "array", Description: "Which ones", Items: &threads.ToolParameterItems{Type: "integer"}},
	}, Call: func(context.Context, threads.ToolCall) (string, error) { return "ok", nil }}
	external := threads.ClientTool{Name: "pick_color", Description: "Ask the user for a color", Parameters: []threads.ToolParameter{
		{Name: "palette", Type: "string", Description: "Which palette", IsRequired: true, EnumValues: []string{"warm", "cold"}},
	}}
	s, err := c.Threads.RunStream(context.Background(), th.ID, threads.AdvanceParams{
		Message:     threads.UserMessage("file a ticket"),
		ClientTools: []threads.ClientTool{external},
	}, []threads.Tool{ticket, handBuilt})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)

	var first *threadstest.AdvanceRequest
	for _, r := range srv.Requests() {
		if a, err := r.Advance(); err == nil {
			first = a
			break
		}
	}
	require.NotNil(t, first, "an advance request was recorded")
	golden(t, "tool-definitions-sent.json", first.ClientTools)

	type modelTool struct {
		Name       string                    `json:"name"`
		Properties map[string]map[string]any `json:"properties"`
	}
	var seen []modelTool
	for _, tool := range first.ClientTools {
		m := modelTool{Name: tool.Name, Properties: map[string]map[string]any{}}
		for _, p := range tool.Parameters {
			m.Properties[p.Name] = p.ModelSchema()
		}
		seen = append(seen, m)
	}
	golden(t, "tool-definitions-model.json", seen)

	// What the golden files show, said plainly.
	byName := map[string]map[string]map[string]any{}
	for _, m := range seen {
		byName[m.Name] = m.Properties
	}
	assert.Equal(t, map[string]any{"type": "string", "description": "How urgent: p1 is the most", "enum": []any{"p1", "p2", "p3"}}, byName["file_ticket"]["priority"])
	assert.Equal(t, []any{1.0, 2.0, 3.0}, byName["file_ticket"]["severity"]["enum"], "an integer enum is sent as numbers")
	assert.Equal(t, map[string]any{"type": "string", "description": "The mood", "enum": []any{"calm", "busy"}}, byName["set_mood"]["mood"])
	assert.Equal(t, map[string]any{"type": "array", "description": "Which ones", "items": map[string]any{"type": "integer"}}, byName["set_mood"]["ids"])
	assert.Equal(t, map[string]any{"type": "string", "description": "Which palette", "enum": []any{"warm", "cold"}}, byName["pick_color"]["palette"])
	assert.Equal(t, map[string]any{"description": "Anything else"}, byName["file_ticket"]["extra"])
}

// MarshalJSON adds the schema to the JSON only: the caller's ToolParameter
// and its Schema map are left as they were, and a schema the caller set
// keeps its members, gaining only a missing description and enum.
func TestToolParameterMarshalKeepsCallerSchema(t *testing.T) {
	t.Parallel()
	mine := map[string]any{"type": "string", "pattern": "^[a-z]+$"}
	p := threads.ToolParameter{Name: "slug", Type: "string", Description: "A slug", EnumValues: []string{"a", "b"}, Schema: mine}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var got struct {
		Schema map[string]any `json:"schema"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, map[string]any{"type": "string", "pattern": "^[a-z]+$", "description": "A slug", "enum": []any{"a", "b"}}, got.Schema)
	assert.Equal(t, map[string]any{"type": "string", "pattern": "^[a-z]+$"}, mine, "the caller's map is not changed")

	b, err = json.Marshal(threads.ToolParameter{Name: "any"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "schema", "nothing to say: no schema")
}

// toolServer is a hand-scripted service for the tool runner's tests: each
// POST .../advancestream is answered by the next round of its script, in
// the live service's snapshot shapes (captures 45 and 46), and recorded.
type toolServer struct {
	*httptest.Server
	t *testing.T

	mu     sync.Mutex
	rounds []round
	reqs   []advanceRequest
	raw    [][]byte
}

// round answers one advance request with an SSE body.
type round func(req advanceRequest) string

// advanceRequest is an advance body as the server received it.
type advanceRequest struct {
	Path    string `json:"-"`
	Message struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Error      string `json:"error"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messageToAppend"`
	ClientTools     []threads.ClientTool `json:"clientTools"`
	ToolCallCounts  map[string]int       `json:"toolCallCounts"`
	ForceToolChoice string               `json:"forceToolChoice"`
	ContextKey      string               `json:"contextKey"`
}

func (r advanceRequest) text() string {
	var b strings.Builder
	for _, p := range r.Message.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (r advanceRequest) toolNames() []string {
	var out []string
	for _, t := range r.ClientTools {
		out = append(out, t.Name)
	}
	return out
}

func newToolServer(t *testing.T, rounds ...round) *toolServer {
	t.Helper()
	s := &toolServer{t: t, rounds: rounds}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *toolServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req advanceRequest
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/advancestream") || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"statusCode":400,"message":"bad request","error":"Bad Request"}`, http.StatusBadRequest)
		return
	}
	req.Path = r.URL.EscapedPath()
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.raw = append(s.raw, body)
	var next round
	if len(s.rounds) > 0 {
		next, s.rounds = s.rounds[0], s.rounds[1:]
	}
	s.mu.Unlock()
	if next == nil {
		s.t.Errorf("toolServer: unexpected request %d: %s", len(s.reqs), body)
		http.Error(w, "no round left", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusCreated)
	// One chunk per event, as the live service writes them.
	for _, ev := range strings.SplitAfter(next(req), "\n\n") {
		if ev == "" {
			continue
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
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

const testThread = "thr_gpEaoTNQ.ead732"

// snapshot renders one data: line in the live shape.
func snapshot(msgID, text, stage, status string, extra map[string]any, component map[string]any) string {
	comp := map[string]any{"message": text, "componentName": "", "props": nil, "componentState": nil, "role": "assistant"}
	for k, v := range component {
		comp[k] = v
	}
	msg := map[string]any{
		"id": msgID, "threadId": testThread, "isCancelled": false, "createdAt": "2026-11-21T23:59:45.607Z",
		"additionalContext": map[string]any{}, "componentState": map[string]any{},
		"content": []any{map[string]any{"type": "text", "text": text}}, "component": comp,
		"role": "assistant", "reasoning": []any{},
	}
	for k, v := range extra {
		msg[k] = v
	}
	b, err := json.Marshal(map[string]any{"responseMessageDto": msg, "generationStage": stage, "statusMessage": status})
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

// textReply streams text as the live service does: the placeholder, growing
// snapshots, the full text repeated, COMPLETE, DONE.
func textReply(msgID, text string) string {
	var b strings.Builder
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	words := strings.SplitAfter(text, " ")
	for i := range words {
		b.WriteString(snapshot(msgID, strings.Join(words[:i+1], ""), "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	}
	b.WriteString(snapshot(msgID, text, "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	b.WriteString(snapshot(msgID, text, "COMPLETE", "Complete", nil, nil))
	b.WriteString("data: DONE\n\n")
	return b.String()
}

// toolCallReply streams a client tool call as capture 45 does: the
// placeholder, component.toolCallRequest with the arguments growing and an
// empty toolCallId, then the final FETCHING_CONTEXT snapshot with the
// top-level toolCallRequest and tool_call_id. args alternate name, value.
func toolCallReply(msgID, callID, tool string, args ...any) string {
	var b strings.Builder
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	params := []any{}
	req := func() map[string]any {
		return map[string]any{"toolName": tool, "parameters": append([]any{}, params...)}
	}
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, map[string]any{"toolCallRequest": req(), "toolCallId": ""}))
	for i := 0; i+1 < len(args); i += 2 {
		if s, ok := args[i+1].(string); ok && len(s) > 1 {
			partial := append(params, map[string]any{"parameterName": args[i], "parameterValue": s[:len(s)/2]})
			b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil,
				map[string]any{"toolCallRequest": map[string]any{"toolName": tool, "parameters": partial}, "toolCallId": ""}))
		}
		params = append(params, map[string]any{"parameterName": args[i], "parameterValue": args[i+1]})
		b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, map[string]any{"toolCallRequest": req(), "toolCallId": ""}))
	}
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, map[string]any{"toolCallRequest": req(), "toolCallId": callID}))
	b.WriteString(snapshot(msgID, " ", "FETCHING_CONTEXT", "Fetching context...",
		map[string]any{"actionType": "tool_call", "toolCallRequest": req(), "tool_call_id": callID},
		map[string]any{"toolCallRequest": req(), "toolCallId": callID}))
	b.WriteString("data: DONE\n\n")
	return b.String()
}

// callTool is a round that asks for a tool call.
func callTool(msgID, callID, tool string, args ...any) round {
	return func(advanceRequest) string { return toolCallReply(msgID, callID, tool, args...) }
}

// quoteResult is a round that answers a tool message by quoting it, as
// the fake model does.
func quoteResult(msgID string) round {
	return func(req advanceRequest) string {
		if req.Message.Error != "" {
			return textReply(msgID, fmt.Sprintf("The tool failed: %s", req.text()))
		}
		return textReply(msgID, "The tool returned: "+req.text())
	}
}

// raw is a round that sends body as it is.
func raw(body string) round { return func(advanceRequest) string { return body } }
