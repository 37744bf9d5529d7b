package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

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
