package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// Attack round 4: a tool stream kept every run's text, beyond the 64 MiB
// that one run's stream keeps, with Incomplete false. Nine runs of 8 MiB
// of text each: what Collect keeps of all of them stays within the one
// budget, and Incomplete says that some was left out.
func TestRunToolsOneBudgetAcrossRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("72 MiB over loopback")
	}
	const runCount = 9
	chunk, _ := json.Marshal(strings.Repeat("x", 8<<20))
	sc := newScript(t, func(i int, _ map[string]any) []string {
		id := `"msg_` + strconv.Itoa(i) + `"`
		evs := []string{`{"type":"TEXT_MESSAGE_START","messageId":` + id + `,"role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":` + id + `,"delta":` + string(chunk) + `}`,
			`{"type":"TEXT_MESSAGE_END","messageId":` + id + `}`}
		if i < runCount-1 {
			evs = append(evs, pause("c"+strconv.Itoa(i), "get_weather", fmt.Sprintf(`{"city":"City %d"}`, i))...)
		}
		return evs
	})
	tool := weatherTool(func(string) (string, error) { return "sunny", nil })
	ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
		runs.ToolRunner{Tools: []threads.Tool{tool}})
	require.NoError(t, err)
	// What the stream holds at each message's end, never past the one
	// budget: before, each run's own stream started at zero, so a run
	// held its 8 MiB beside the 56 MiB kept of the runs before it.
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if _, ok := ev.(runs.TextMessageEnd); ok {
			held, budget := runs.HeldBytes(ts)
			require.LessOrEqual(t, held, budget, "bytes held across the runs, at a message's end (round %d)", ts.Rounds())
		}
	}
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, runCount-1, ts.Rounds())
	kept := 0
	for _, m := range res.Messages {
		kept += len(m.Text())
	}
	assert.LessOrEqual(t, kept, 64<<20, "text kept across the runs")
	assert.Greater(t, kept, 0)
	assert.True(t, res.Incomplete, "Incomplete: the runs delivered 72 MiB")
}

// Issue 31: a ToolStream prints a summary with every verb, as the run
// streams do, not its fields (the current run and event, which may echo
// the API key).
func TestToolStreamFormatHidesEvents(t *testing.T) {
	t.Parallel()
	url := serveEvents(t, `{"type":"RUN_STARTED","threadId":"thr_1","runId":"run_1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"msg_1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_1","delta":"the key is `+testKey+`"}`)
	ts, err := client(t, url).RunTools(context.Background(), "thr_1", textParams("hi"), runs.ToolRunner{})
	require.NoError(t, err)
	defer ts.Close()
	for range 3 {
		require.True(t, ts.Next(), "%v", ts.Err())
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		for _, v := range []any{ts, *ts} {
			assert.Equal(t, "runs.ToolStream{rounds:0 done:false}", fmt.Sprintf(verb, v), "%s of a %T", verb, v)
		}
	}
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
