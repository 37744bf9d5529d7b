package threads_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
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
