package runs_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// One tool definition, both wire forms: the spec routes' clientTools entry
// and /v1's tool with its inputSchema. The enum values and descriptions of
// the struct reach both.
func TestToolDefinitionGolden(t *testing.T) {
	t.Parallel()
	tool := threads.NewTool("file_ticket", "File a ticket", func(context.Context, ticketArgs) (string, error) { return "", nil })
	def, err := runs.DefineTool(tool)
	require.NoError(t, err)
	spec := threads.ClientTool{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters}
	card := runs.NewComponent[weatherCard]("WeatherCard", "Shows the weather for a city")
	got := map[string]any{"spec clientTools[]": spec, "v1 tools[]": def, "v1 availableComponents[]": card.Available()}
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	b = append(b, '\n')
	path := filepath.Join("testdata", "golden", "tool-definitions.json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(b))

	schema := def.InputSchema.(map[string]any)
	prio := schema["properties"].(map[string]any)["priority"].(map[string]any)
	assert.Equal(t, []any{"p1", "p2", "p3"}, prio["enum"])
	assert.Equal(t, "How urgent: p1 is the most", prio["description"])
	assert.Equal(t, []string{"title", "priority"}, schema["required"])
}

// A tool with a whole JSON Schema is declared with it as it is; one whose
// schema is not an object, or that sets Parameters too, is refused before
// anything is sent; a part that no tool_result carries is the tool's
// failure (isError), not a crash.
func TestRunToolsInputSchemaAgainstFake(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_1", Name: "search", Arguments: map[string]any{"q": "go"}}}})
	srv.PushRunScript(threadstest.RunScript{Text: "Done."})
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1}},"anyOf":[{"required":["q"]}]}`)
	var got map[string]any
	search := threads.Tool{Name: "search", InputSchema: schema, CallParts: func(_ context.Context, call threads.ToolCall) ([]threads.ContentPart, error) {
		got = call.Arguments
		return []threads.ContentPart{{Type: threads.ContentPartTypeInputAudio, InputAudio: &threads.InputAudio{Data: "AAAA", Format: "wav"}}}, nil
	}}
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("find")}}},
		runs.ToolRunner{Tools: []threads.Tool{search}})
	require.NoError(t, err)
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "Done.", text(res))
	assert.Equal(t, map[string]any{"q": "go"}, got)
	reqs := runRequests(t, srv)
	require.Len(t, reqs, 2)
	assert.JSONEq(t, string(schema), string(reqs[0].Tools[0].InputSchema), "sent as it is")
	tr := reqs[1].Message.Content[0]
	assert.True(t, tr.IsError)
	require.Len(t, tr.Content, 1)
	assert.Contains(t, tr.Content[0].Text, `part 1 of the tool's result is a "input_audio" part`)

	for _, tc := range []struct {
		tool threads.Tool
		want string
	}{
		{threads.Tool{Name: "list", CallParts: search.CallParts, InputSchema: []int{1}}, `runs: tool "list": its InputSchema is not a JSON Schema object (it encodes as an array)`},
		{threads.Tool{Name: "both", Call: func(context.Context, threads.ToolCall) (string, error) { return "", nil }, InputSchema: schema,
			Parameters: []threads.ToolParameter{{Name: "q", Type: "string"}}}, `runs: tool "both" sets both Parameters and InputSchema; set one`},
	} {
		_, err := runs.DefineTool(tc.tool)
		assert.ErrorContains(t, err, tc.want)
		_, err = c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("x")}}},
			runs.ToolRunner{Tools: []threads.Tool{tc.tool}})
		assert.ErrorContains(t, err, tc.want)
	}
	assert.Len(t, runRequests(t, srv), 2, "nothing more was sent")
}

var update = flag.Bool("update", false, "rewrite testdata/golden")

type weatherCard struct {
	City        string  `json:"city" description:"The city"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit,omitempty" enum:"celsius,fahrenheit"`
}

type ticketArgs struct {
	Title    string   `json:"title" description:"One line that says what is wrong"`
	Priority string   `json:"priority" description:"How urgent: p1 is the most" enum:"p1,p2,p3"`
	Severity int      `json:"severity,omitempty" description:"1 to 3" enum:"1,2,3"`
	Tags     []string `json:"tags,omitempty" description:"Labels"`
	Due      *string  `json:"due" description:"When it must be fixed"`
	Extra    any      `json:"extra,omitempty" description:"Anything else"`
}

type tripArgs struct {
	City string `json:"city" description:"Destination city"`
	Pace string `json:"pace" enum:"packed,normal,relaxed" description:"How busy the trip is. relaxed is the most restful."`
}
