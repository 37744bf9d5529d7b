package runs_test

import (
	"context"
	"encoding/json"
	"errors"
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

var update = flag.Bool("update", false, "rewrite testdata/golden")

// The fake drives 3 rounds of 2 tools each, one failing in the second
// round; every continuation carries both results and the fake's thread
// ends idle with nothing pending.
func TestRunToolsAgainstFake(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	for i := range 3 {
		srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
			{Name: "get_weather", Arguments: map[string]any{"city": []string{"Paris", "Lisbon", "Oslo"}[i]}},
			// Not the same call 3 times in a row (MaxRepeats).
			{Name: "pick", Arguments: map[string]any{"color": []string{"red", "green", "red"}[i]}},
		}})
	}
	srv.PushRunScript(threadstest.RunScript{Text: "All done."})
	c := runs.New(srv.Client()).ForUser("user-1")
	pick := threads.NewJSONTool("pick", "Pick a color", func(_ context.Context, a struct {
		Color string `json:"color" enum:"red,green" description:"The color"`
	}) (map[string]string, error) {
		return map[string]string{"picked": a.Color}, nil
	})
	weather := weatherTool(func(city string) (string, error) {
		if city == "Lisbon" {
			return "", errors.New("no weather in Lisbon")
		}
		return "sunny in " + city, nil
	})
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("plan my trip")}}},
		runs.ToolRunner{Tools: []threads.Tool{weather, pick}})
	require.NoError(t, err)
	var results []runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if r, ok := ev.(runs.ToolRunResult); ok {
			results = append(results, r)
		}
	}
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "All done.", text(res))
	assert.Equal(t, 3, ts.Rounds())
	require.Len(t, results, 6)
	for i, r := range results {
		assert.Equal(t, i == 2, r.IsError, "result %d: %+v", i, r)
	}
	assert.Equal(t, `{"picked":"red"}`, results[1].Text)

	var runReqs []*threadstest.RunRequest
	for _, r := range srv.Requests() {
		if rr, err := r.Run(); err == nil {
			runReqs = append(runReqs, rr)
		}
	}
	require.Len(t, runReqs, 4)
	for i, rr := range runReqs[1:] {
		require.Len(t, rr.Message.Content, 2, "continuation %d", i)
		assert.Equal(t, "tool_result", rr.Message.Content[0].Type)
		assert.Equal(t, i == 1, rr.Message.Content[0].IsError)
		assert.NotEmpty(t, rr.PreviousRunID)
	}
	th, err := c.GetThread(t.Context(), ts.ThreadID())
	require.NoError(t, err)
	assert.Empty(t, th.PendingToolCallIDs)
	assert.Equal(t, runs.RunStatusIdle, th.RunStatus)
}

type weatherCard struct {
	City        string  `json:"city" description:"The city"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit,omitempty" enum:"celsius,fahrenheit"`
}

// A component offered to the model and rendered by it: each event decodes
// into the caller's struct, the last with the final props.
func TestComponentAgainstFake(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "WeatherCard",
		Props: map[string]any{"city": "Lisbon", "temperature": 21, "unit": "celsius"}}})
	card := runs.NewComponent[weatherCard]("WeatherCard", "Shows the weather for a city")
	require.NoError(t, card.Err())
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("show Lisbon")}, AvailableComponents: []runs.AvailableComponent{card.Available()},
	}}, runs.ToolRunner{})
	require.NoError(t, err)
	var got []runs.ComponentEvent[weatherCard]
	for ts.Next() {
		if ev, ok := card.Decode(ts, ts.Current()); ok {
			got = append(got, ev)
		}
	}
	require.NoError(t, ts.Err())
	require.GreaterOrEqual(t, len(got), 3)
	assert.Equal(t, weatherCard{}, got[0].Props)
	last := got[len(got)-1]
	assert.True(t, last.Final)
	assert.NoError(t, last.Err)
	assert.Equal(t, weatherCard{City: "Lisbon", Temperature: 21, Unit: "celsius"}, last.Props)
	for _, ev := range got {
		assert.Equal(t, "WeatherCard", ev.Name)
		assert.NotEmpty(t, ev.ComponentID)
	}

	// The state of the rendered component, from a Go value.
	type state struct {
		Expanded bool `json:"expanded"`
	}
	st, err := runs.SetComponentStateOf(t.Context(), c, ts.ThreadID(), last.ComponentID, state{Expanded: true})
	require.NoError(t, err)
	assert.True(t, st.Expanded)

	var offered *threadstest.RunRequest
	for _, r := range srv.Requests() {
		if rr, err := r.Run(); err == nil {
			offered = rr
			break
		}
	}
	require.NotNil(t, offered)
	require.Len(t, offered.AvailableComponents, 1)
	assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string","description":"The city"},"temperature":{"type":"number"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","temperature"]}`,
		string(offered.AvailableComponents[0].PropsSchema))
}

// The events of another component, or of none, are not decoded.
func TestComponentDecodeOthers(t *testing.T) {
	t.Parallel()
	card := runs.NewComponent[weatherCard]("WeatherCard", "")
	var s *runs.Stream
	_, ok := card.Decode(s, runs.ComponentStart{ComponentName: "MapCard"})
	assert.False(t, ok, "another component")
	_, ok = card.Decode(s, runs.ComponentPropsDelta{ComponentID: "message-1"})
	assert.False(t, ok, "a component the stream did not see")
	_, ok = card.Decode(s, runs.TextMessageEnd{})
	assert.False(t, ok, "not a component event")
	_, err := runs.SchemaFor[int]()
	assert.Error(t, err)
	bad := runs.NewComponent[string]("x", "")
	assert.Error(t, bad.Err())
	assert.Equal(t, map[string]any{"type": "object"}, bad.Available().PropsSchema)
}

type ticketArgs struct {
	Title    string   `json:"title" description:"One line that says what is wrong"`
	Priority string   `json:"priority" description:"How urgent: p1 is the most" enum:"p1,p2,p3"`
	Severity int      `json:"severity,omitempty" description:"1 to 3" enum:"1,2,3"`
	Tags     []string `json:"tags,omitempty" description:"Labels"`
	Due      *string  `json:"due" description:"When it must be fixed"`
	Extra    any      `json:"extra,omitempty" description:"Anything else"`
}

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

type tripArgs struct {
	City string `json:"city" description:"Destination city"`
	Pace string `json:"pace" enum:"packed,normal,relaxed" description:"How busy the trip is. relaxed is the most restful."`
}

// Issue 31: on /v1 the service adds two required arguments of its own,
// _tambo_statusMessage and _tambo_completionStatusMessage, to every tool's
// schema and forwards the model's values with the call. Before, NewTool
// refused them as unknown, the tool never ran, and the run still ended
// finished with no error. Now the Go tool runs with its own arguments and
// the status lines are given with the call: on ToolRunStart, on
// ToolRunResult, on the threads.ToolCall a tool receives, and from the
// pending call.
func TestRunToolsServiceStatusArguments(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{Name: "plan_trip", Arguments: map[string]any{
			"_tambo_statusMessage": "Planning your trip to Lisbon…", "_tambo_completionStatusMessage": "Trip planned",
			"city": "Lisbon", "pace": "relaxed",
		}},
		{Name: "log_trip", Arguments: map[string]any{
			"_tambo_statusMessage": "Logging…", "_tambo_completionStatusMessage": "Logged", "note": "ok",
		}},
	}})
	srv.PushRunScript(threadstest.RunScript{Text: "Have a good trip."})
	var got tripArgs
	plan := threads.NewTool("plan_trip", "Plans a trip to a city", func(_ context.Context, a tripArgs) (string, error) {
		got = a
		return "trip planned: " + a.City + " (" + a.Pace + ")", nil
	})
	var handCall threads.ToolCall
	handBuilt := threads.Tool{Name: "log_trip", Description: "Logs", Parameters: []threads.ToolParameter{{Name: "note", Type: "string", IsRequired: true}},
		Call: func(_ context.Context, call threads.ToolCall) (string, error) {
			handCall = call
			return "logged", nil
		}}
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("plan my trip to Lisbon")}}},
		runs.ToolRunner{Tools: []threads.Tool{plan, handBuilt}, Concurrency: 1})
	require.NoError(t, err)
	var starts []runs.ToolRunStart
	var results []runs.ToolRunResult
	var pending []runs.PendingToolCall
	for ev, err := range ts.All() {
		require.NoError(t, err)
		switch ev := ev.(type) {
		case runs.ToolRunStart:
			starts = append(starts, ev)
		case runs.ToolRunResult:
			results = append(results, ev)
		case runs.AwaitingInput:
			pending = ev.PendingToolCalls
		}
	}
	require.NoError(t, ts.Err())
	assert.Equal(t, tripArgs{City: "Lisbon", Pace: "relaxed"}, got, "the tool ran with its own arguments")
	assert.Equal(t, map[string]any{"note": "ok"}, handCall.Arguments, "a hand-built tool's arguments hold only its own")
	assert.Equal(t, "Logging…", handCall.StatusMessage)
	assert.Equal(t, "Logged", handCall.CompletionStatusMessage)

	require.Len(t, starts, 2)
	assert.Equal(t, "Planning your trip to Lisbon…", starts[0].StatusMessage)
	assert.Equal(t, "Trip planned", starts[0].CompletionStatusMessage)
	assert.Contains(t, starts[0].Arguments, "_tambo_statusMessage", "Arguments is the call as the service sent it")
	require.Len(t, results, 2)
	assert.False(t, results[0].IsError, "%s", results[0].Text)
	assert.Equal(t, "trip planned: Lisbon (relaxed)", results[0].Text)
	assert.Equal(t, "Trip planned", results[0].CompletionStatusMessage)
	assert.Equal(t, "Logged", results[1].CompletionStatusMessage)

	require.Len(t, pending, 2)
	status, done := pending[0].StatusMessages()
	assert.Equal(t, "Planning your trip to Lisbon…", status)
	assert.Equal(t, "Trip planned", done)

	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "Have a good trip.", text(res))
}

// A /v1 tool stream whose every call fails the tool's argument checks
// does not end as a silent success: Err and Collect return a
// ToolArgumentsError (errors.Is threads.ErrToolArguments), and each
// ToolRunResult's Err says what was wrong.
func TestRunToolsAllArgumentChecksFailed(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{Name: "plan_trip", Arguments: map[string]any{"city": "Lisbon", "pace": "frantic"}},
	}})
	srv.PushRunScript(threadstest.RunScript{Text: "Sorry, I could not plan it."})
	ran := false
	plan := threads.NewTool("plan_trip", "Plans a trip", func(context.Context, tripArgs) (string, error) { ran = true; return "", nil })
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("plan it")}}},
		runs.ToolRunner{Tools: []threads.Tool{plan}})
	require.NoError(t, err)
	var results []runs.ToolRunResult
	for ts.Next() {
		if r, ok := ts.Current().(runs.ToolRunResult); ok {
			results = append(results, r)
		}
	}
	require.ErrorIs(t, ts.Err(), threads.ErrToolArguments)
	var ae *runs.ToolArgumentsError
	require.ErrorAs(t, ts.Err(), &ae)
	assert.Equal(t, 1, ae.Calls)
	assert.Contains(t, ae.Last, `argument "pace" is frantic`)
	assert.Contains(t, ae.Error(), ae.RunID)
	require.Len(t, results, 1)
	assert.True(t, results[0].IsError)
	assert.ErrorIs(t, results[0].Err, threads.ErrToolArguments)
	assert.False(t, ran)

	res, err := ts.Collect()
	require.ErrorIs(t, err, threads.ErrToolArguments)
	assert.Equal(t, runs.OutcomeFinished, res.Outcome)
	assert.Equal(t, "Sorry, I could not plan it.", text(res))
}

// runRequests decodes the run bodies the fake received.
func runRequests(t *testing.T, srv *threadstest.Server) []*threadstest.RunRequest {
	t.Helper()
	var out []*threadstest.RunRequest
	for _, r := range srv.Requests() {
		if rr, err := r.Run(); err == nil {
			out = append(out, rr)
		}
	}
	return out
}

// A tool whose result is content parts, beside one that returns a string,
// against threadstest: the continuation's tool_result carries the parts
// as they are (a text, a text resource, an image as a base64 blob with its
// MIME type), the string tool's carries one text part as before, and the
// runner's events report both.
func TestRunToolsPartsToolAgainstFake(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_chart", Name: "chart", Arguments: map[string]any{"city": "Paris"}},
		{ID: "call_weather", Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
	}})
	srv.PushRunScript(threadstest.RunScript{Text: "Here it is."})
	chart := threads.NewPartsTool("chart", "A chart of the weather", func(_ context.Context, a weatherArgs) ([]threads.ContentPart, error) {
		text := threads.ResourcePart(threads.Resource{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "sunny",
			Annotations: map[string]any{"audience": []any{"user"}, "priority": 0.5}})
		return []threads.ContentPart{threads.TextPart("The chart of " + a.City), text, threads.BlobPart("chart://paris", "image/png", []byte("PNG"))}, nil
	})
	weather := weatherTool(func(city string) (string, error) { return "sunny in " + city, nil })
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("Paris?")}}},
		runs.ToolRunner{Tools: []threads.Tool{chart, weather}})
	require.NoError(t, err)
	var results []runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if r, ok := ev.(runs.ToolRunResult); ok {
			results = append(results, r)
		}
	}
	require.Len(t, results, 2)
	assert.Equal(t, "The chart of Paris\n"+`<resource uri="file:///notes.txt" mimeType="text/plain">sunny</resource>`+"\n"+
		`<resource uri="chart://paris" mimeType="image/png" bytes="3"/>`, results[0].Text)
	require.Len(t, results[0].Content(), 3)
	assert.Equal(t, "UE5H", results[0].Content()[2].Resource.Blob)
	assert.Equal(t, "sunny in Paris", results[1].Text)
	assert.Nil(t, results[1].Content())

	reqs := runRequests(t, srv)
	require.Len(t, reqs, 2)
	body, err := json.Marshal(reqs[1].Message.Content)
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"type":"tool_result","toolUseId":"call_chart","content":[
			{"type":"text","text":"The chart of Paris"},
			{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"sunny","annotations":{"audience":["user"],"priority":0.5}}},
			{"type":"resource","resource":{"uri":"chart://paris","mimeType":"image/png","blob":"UE5H"}}]},
		{"type":"tool_result","toolUseId":"call_weather","content":[{"type":"text","text":"sunny in Paris"}]}]`, string(body))
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

// Issue 31, as the issue asks it shown: against the fake in live habits,
// which adds the service's two arguments to every /v1 tool call as the
// service does (threadstest.WithServiceToolArguments), a Go tool built
// with NewTool runs with its own arguments only, and the status lines the
// model gave are readable on the start and result events.
func TestRunToolsLiveHabitsServiceArguments(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithLiveHabits(), threadstest.WithThrottle(0))
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{
		Name: "plan_trip", Arguments: map[string]any{"city": "Porto", "pace": "packed"},
		StatusMessage: "Planning Porto…", CompletionStatusMessage: "Porto planned",
	}}})
	srv.PushRunScript(threadstest.RunScript{Text: "Enjoy Porto."})
	var got tripArgs
	plan := threads.NewTool("plan_trip", "Plans a trip to a city", func(_ context.Context, a tripArgs) (string, error) {
		got = a
		return "planned " + a.City, nil
	})
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("plan Porto")}}},
		runs.ToolRunner{Tools: []threads.Tool{plan}})
	require.NoError(t, err)
	var start runs.ToolRunStart
	var result runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		switch ev := ev.(type) {
		case runs.ToolRunStart:
			start = ev
		case runs.ToolRunResult:
			result = ev
		}
	}
	require.NoError(t, ts.Err())
	assert.Contains(t, start.Arguments, "_tambo_statusMessage", "the fake sent the service's arguments, as live")
	assert.Equal(t, tripArgs{City: "Porto", Pace: "packed"}, got)
	assert.Equal(t, "Planning Porto…", start.StatusMessage)
	assert.Equal(t, "Porto planned", result.CompletionStatusMessage)
	assert.False(t, result.IsError, "%s", result.Text)
	assert.Equal(t, "planned Porto", result.Text)
	assert.Equal(t, runs.OutcomeFinished, ts.Outcome())
}
