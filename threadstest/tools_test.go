package threadstest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

var weatherTools = []threads.ClientTool{
	{Name: "get_weather", Description: "Get the weather for a city", Parameters: []threads.ToolParameter{{Name: "city", Type: "string", Description: "City name", IsRequired: true}}},
	{Name: "get_time", Description: "Local time", Parameters: []threads.ToolParameter{{Name: "tz", Type: "string", Description: "Zone", IsRequired: true}}},
}

// lastEvent reads a stream to its end and returns the last snapshot.
func lastEvent(t *testing.T, s *threads.Stream) threads.StreamEvent {
	t.Helper()
	var last threads.StreamEvent
	for ev, err := range s.All() {
		require.NoError(t, err)
		last = ev
	}
	return last
}

func TestScriptedToolCalls(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_time", Arguments: map[string]any{"tz": "Europe/Paris"}},
	}})

	params := threads.AdvanceParams{Message: threads.UserMessage("weather in Paris?"), ClientTools: weatherTools}
	s, err := c.Threads.CreateAndAdvanceStream(ctx, params)
	require.NoError(t, err)
	ev := lastEvent(t, s)
	assert.Equal(t, threads.GenerationStageFetchingContext, ev.GenerationStage)
	assert.Equal(t, "Fetching context...", ev.StatusMessage)
	require.NotNil(t, ev.Message.ToolCallRequest)
	assert.Equal(t, "get_weather", ev.Message.ToolCallRequest.ToolName)
	assert.Equal(t, "Paris", ev.Message.ToolCallRequest.Parameters[0].ParameterValue)
	first := ev.Message.ToolCallID
	require.NotEmpty(t, first)
	threadID := ev.Message.ThreadID

	// The tool result, with the counts a client keeps.
	params.Message = threads.ToolResult(first, `{"tempC":21}`)
	params.ToolCallCounts = map[string]int{"get_weather": 1}
	s, err = c.Threads.AdvanceStream(ctx, threadID, params)
	require.NoError(t, err)
	ev = lastEvent(t, s)
	require.NotNil(t, ev.Message.ToolCallRequest)
	assert.Equal(t, "get_time", ev.Message.ToolCallRequest.ToolName)
	second := ev.Message.ToolCallID
	assert.NotEqual(t, first, second)

	// A failed tool: the error is sent, and the answer quotes both results.
	params.Message = threads.ToolResult(second, "no clock")
	params.Message.Error = "clock unavailable"
	params.ToolCallCounts = map[string]int{"get_weather": 1, "get_time": 1}
	s, err = c.Threads.AdvanceStream(ctx, threadID, params)
	require.NoError(t, err)
	ev = lastEvent(t, s)
	assert.Equal(t, threads.GenerationStageComplete, ev.GenerationStage)
	assert.Equal(t, `The tool returned: {"tempC":21}; no clock`, ev.Message.Text())

	// What the client sent, as a test asserts it.
	var advances []*threadstest.AdvanceRequest
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "advancestream") {
			a, err := r.Advance()
			require.NoError(t, err)
			advances = append(advances, a)
		}
	}
	require.Len(t, advances, 3)
	assert.Equal(t, "user", advances[0].MessageToAppend.Role)
	assert.Equal(t, []string{"get_weather", "get_time"}, []string{advances[0].ClientTools[0].Name, advances[0].ClientTools[1].Name})
	assert.True(t, advances[0].ClientTools[0].Parameters[0].IsRequired)
	assert.Equal(t, "tool", advances[1].MessageToAppend.Role)
	assert.Equal(t, first, advances[1].MessageToAppend.ToolCallID)
	assert.Equal(t, `{"tempC":21}`, advances[1].MessageToAppend.Text())
	assert.Equal(t, map[string]int{"get_weather": 1}, advances[1].ToolCallCounts)
	assert.Equal(t, second, advances[2].MessageToAppend.ToolCallID)
	assert.Equal(t, "clock unavailable", advances[2].MessageToAppend.Error)

	// History as live (capture 47): the call keeps " " as its text, has
	// actionType tool_call, and carries the tool reply's error.
	th, err := c.Threads.Get(ctx, threadID)
	require.NoError(t, err)
	var roles []string
	for _, m := range th.Messages {
		roles = append(roles, string(m.Role))
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "assistant", "tool", "assistant"}, roles)
	assert.Equal(t, " ", th.Messages[1].Content[0].Text)
	assert.Equal(t, first, th.Messages[2].ToolCallID)
	assert.Equal(t, "clock unavailable", th.Messages[3].Error, "copied onto the call")
	assert.Equal(t, "clock unavailable", th.Messages[4].Error)
}

// TestToolCallWire checks the snapshots byte for byte against the shapes of
// capture 45: partial arguments in component.toolCallRequest with an empty
// toolCallId, and top-level tool fields only on the final snapshot.
func TestToolCallWire(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}})
	req, err := http.NewRequest("POST", srv.URL+"/threads/advancestream", strings.NewReader(
		`{"messageToAppend":{"role":"user","content":[{"type":"text","text":"weather in Paris?"}]},"clientTools":[{"name":"get_weather","description":"d","parameters":[{"name":"city","type":"string","description":"City name","isRequired":true}]}]}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 201, resp.StatusCode)

	type snap struct {
		Message struct {
			Content         []struct{ Text string }
			ToolCallRequest json.RawMessage `json:"toolCallRequest"`
			ToolCallID      *string         `json:"tool_call_id"`
			ActionType      string          `json:"actionType"`
			Component       struct {
				ToolCallRequest *struct {
					ToolName   string `json:"toolName"`
					Parameters []struct {
						ParameterName  string `json:"parameterName"`
						ParameterValue any    `json:"parameterValue"`
					} `json:"parameters"`
				} `json:"toolCallRequest"`
				ToolCallID *string `json:"toolCallId"`
			} `json:"component"`
		} `json:"responseMessageDto"`
		GenerationStage string `json:"generationStage"`
		StatusMessage   string `json:"statusMessage"`
	}
	var snaps []snap
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		lines = append(lines, line)
		if line == "data: DONE" {
			break
		}
		var s snap
		require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &s), line)
		snaps = append(snaps, s)
	}
	require.Equal(t, "data: DONE", lines[len(lines)-1])
	var seen []string
	for i, s := range snaps {
		assert.Equal(t, " ", s.Message.Content[0].Text, "a tool call keeps the placeholder text")
		final := i == len(snaps)-1
		if !final {
			assert.Equal(t, "STREAMING_RESPONSE", s.GenerationStage)
			assert.Nil(t, s.Message.ToolCallRequest, "intermediate snapshots hide the top-level call")
			assert.Nil(t, s.Message.ToolCallID)
		}
		if tc := s.Message.Component.ToolCallRequest; tc != nil {
			desc := fmt.Sprint(len(tc.Parameters))
			for _, p := range tc.Parameters {
				desc += fmt.Sprintf(" %s=%v", p.ParameterName, p.ParameterValue)
			}
			desc += " id=" + *s.Message.Component.ToolCallID
			seen = append(seen, desc)
		} else {
			seen = append(seen, "placeholder")
		}
	}
	assert.Equal(t, []string{"placeholder", "0 id=", "1 city=Pa id=", "1 city=Paris id=", "1 city=Paris id=call_1", "1 city=Paris id=call_1"}, seen)
	last := snaps[len(snaps)-1]
	assert.Equal(t, "FETCHING_CONTEXT", last.GenerationStage)
	assert.Equal(t, "Fetching context...", last.StatusMessage)
	assert.Equal(t, "tool_call", last.Message.ActionType)
	assert.JSONEq(t, `{"toolName":"get_weather","parameters":[{"parameterName":"city","parameterValue":"Paris"}]}`, string(last.Message.ToolCallRequest))
	assert.Equal(t, "call_1", *last.Message.ToolCallID)
}

// TestDefaultToolCall keeps the default: the first client tool, every
// parameter set to the user's text, then "The tool returned: ...".
func TestDefaultToolCall(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	params := threads.AdvanceParams{Message: threads.UserMessage("Lyon"), ClientTools: weatherTools[:1]}
	s, err := c.Threads.CreateAndAdvanceStream(ctx, params)
	require.NoError(t, err)
	ev := lastEvent(t, s)
	require.NotNil(t, ev.Message.ToolCallRequest)
	assert.Equal(t, "get_weather", ev.Message.ToolCallRequest.ToolName)
	assert.Equal(t, "Lyon", ev.Message.ToolCallRequest.Parameters[0].ParameterValue)
	params.Message = threads.ToolResult(ev.Message.ToolCallID, "sunny")
	s, err = c.Threads.AdvanceStream(ctx, ev.Message.ThreadID, params)
	require.NoError(t, err)
	assert.Equal(t, "The tool returned: sunny", lastEvent(t, s).Message.Text())

	// A tool message without tool_call_id fails in-band (captures 19, 23).
	status, body := send(t, srv, "POST", "/threads/"+ev.Message.ThreadID+"/advancestream",
		http.Header{"Authorization": {"Bearer " + srv.APIKey}}, `{"messageToAppend":{"role":"tool","content":[]}}`)
	assert.Equal(t, 201, status)
	assert.Equal(t, "error: Error in streaming response\n\ndata: DONE\n\n", body)
}
