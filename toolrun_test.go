package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

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

// With WithToolRunResults, the stream shows what RunStream sent for each
// call, as runs' tool stream does: a result event per call, after the round's snapshots, with the
// text sent (a parts tool's parts flattened, a failure's "Error: " text)
// and the error; its snapshot is the message that asked for the tool, and
// it adds no text. Each result event's text is the tool message the fake
// received.
func TestRunStreamShowsEachResultSent(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	id := fakeThread(t, srv, c)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "chart", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_weather", Arguments: map[string]any{"city": 7}},
		{Name: "get_time", Arguments: map[string]any{"zone": "Europe/Paris"}},
	}})
	chart := threads.NewPartsTool("chart", "A chart of the weather", func(_ context.Context, a weatherArgs) ([]threads.ContentPart, error) {
		return []threads.ContentPart{threads.TextPart("The chart of " + a.City),
			threads.BlobPart("chart://paris", "image/png", []byte("\x89PNG fake image"))}, nil
	})
	clock := threads.NewTool("get_time", "time", func(context.Context, timeArgs) (string, error) { return "", errors.New("no clock") })
	st, err := c.Threads.RunStream(context.Background(), id, threads.AdvanceParams{Message: threads.UserMessage("Paris?")},
		[]threads.Tool{chart, weatherTool(), clock}, threads.WithToolRunResults())
	require.NoError(t, err)
	var results []threads.ToolRunResult
	var asked []string
	for st.Next() {
		ev := st.Current()
		if ev.ToolRunResult == nil {
			continue
		}
		results = append(results, *ev.ToolRunResult)
		asked = append(asked, ev.Message.ToolCallID)
		assert.Empty(t, ev.TextDelta, "a result event adds no text")
	}
	require.NoError(t, st.Err())
	require.Len(t, results, 3)

	reqs := advances(t, srv)
	require.Len(t, reqs, 4)
	for i, r := range results {
		sent := reqs[i+1].MessageToAppend
		assert.Equal(t, i+1, r.Round)
		assert.Equal(t, sent.ToolCallID, r.ToolCallID)
		assert.Equal(t, r.ToolCallID, asked[i], "the event's snapshot is the message that asked")
		assert.Equal(t, sent.Text(), r.Text, "the result event has the text sent")
		assert.Equal(t, sent.Error != "", r.IsError)
	}
	assert.Equal(t, "chart", results[0].ToolName)
	assert.Equal(t, "The chart of Paris\n"+`<resource uri="chart://paris" mimeType="image/png" bytes="15"/>`, results[0].Text)
	assert.NoError(t, results[0].Err)
	assert.ErrorIs(t, results[1].Err, threads.ErrToolArguments)
	assert.True(t, strings.HasPrefix(results[1].Text, "Error: invalid arguments for tool \"get_weather\""), results[1].Text)
	assert.EqualError(t, results[2].Err, "no clock")
	assert.Equal(t, "Error: no clock", results[2].Text)
}
