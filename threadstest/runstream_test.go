package threadstest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// callArgs joins a stream's TOOL_CALL_ARGS deltas, and returns the
// arguments its tambo.run.awaiting_input lists for the first call.
func callArgs(evs []map[string]any) (streamed, awaiting string) {
	for _, ev := range evs {
		switch {
		case ev["type"] == "TOOL_CALL_ARGS":
			streamed += ev["delta"].(string)
		case ev["name"] == "tambo.run.awaiting_input":
			calls := ev["value"].(map[string]any)["pendingToolCalls"].([]any)
			awaiting = calls[0].(map[string]any)["arguments"].(string)
		}
	}
	return streamed, awaiting
}

// Captures 01 and 03: with the service's tool arguments (a live habit), a
// /v1 tool call's arguments hold _tambo_statusMessage and
// _tambo_completionStatusMessage first, then the tool's own, in
// TOOL_CALL_ARGS, in tambo.run.awaiting_input and in the stored tool_use
// input. Before, the fake sent only city and pace.
func TestCapturedServiceToolArguments(t *testing.T) {
	t.Parallel()
	c01, c03 := turn4(t, "01"), turn4(t, "03")
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithLiveHabits(), threadstest.WithThrottle(0))
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_fake_3", Name: "plan_trip",
		Arguments: map[string]any{"city": "urgent", "pace": "relaxed"}, StatusMessage: "urgent", CompletionStatusMessage: "urgent"}}})
	status, _, body, want := replay(t, srv, c01, nil)
	require.Equal(t, c01.status, status, body)
	got, live := sseEvents(t, body), sseEvents(t, want)
	assert.Equal(t, types(live), types(got))
	gotArgs, gotAwaiting := callArgs(got)
	liveArgs, liveAwaiting := callArgs(live)
	assert.JSONEq(t, liveArgs, gotArgs)
	assert.Equal(t, keysInOrder(t, liveArgs), keysInOrder(t, gotArgs))
	assert.JSONEq(t, liveAwaiting, gotAwaiting)
	assert.Equal(t, keysInOrder(t, liveAwaiting), keysInOrder(t, gotAwaiting))

	// 03: the stored tool_use block's input holds them too.
	u := runs.New(srv.Client()).ForUser("user-1")
	page, err := u.ListMessages(context.Background(), got[0]["threadId"].(string), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	var stored struct {
		Messages []struct {
			Content []struct {
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(c03.body), &stored))
	in, err := json.Marshal(page.Items[1].Content[1].Input)
	require.NoError(t, err)
	assert.JSONEq(t, string(stored.Messages[1].Content[1].Input), string(in))
}

// The default model fills the service's two arguments as any string, with
// the user's text, as a strict model fills every required argument; the
// schema it reads (RunToolDefinition.ModelSchema) requires them. Without the option,
// or with RunScript.WithoutServiceArguments, a call has only the tool's
// own arguments.
func TestServiceToolArgumentsDefaultModel(t *testing.T) {
	t.Parallel()
	c01 := turn4(t, "01")
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithServiceToolArguments())
	_, _, body, _ := replay(t, srv, c01, nil)
	args, _ := callArgs(sseEvents(t, body))
	assert.Equal(t, []string{"_tambo_statusMessage", "_tambo_completionStatusMessage", "city", "pace"}, keysInOrder(t, args))
	text := "[enum] plan my trip to Lisbon"
	assert.JSONEq(t, `{"_tambo_statusMessage":"`+text+`","_tambo_completionStatusMessage":"`+text+`","city":"`+text+`","pace":"packed"}`, args)

	in, err := threadstest.Request{Method: "POST", Path: "/v1/threads/runs", Body: []byte(c01.reqBody)}.Run()
	require.NoError(t, err)
	sch := in.Tools[0].ModelSchema()
	assert.Equal(t, []any{"_tambo_statusMessage", "_tambo_completionStatusMessage", "city", "pace"}, sch["required"])
	props := sch["properties"].(map[string]any)
	assert.Equal(t, "string", props["_tambo_statusMessage"].(map[string]any)["type"])
	assert.Equal(t, "string", props["_tambo_completionStatusMessage"].(map[string]any)["type"])
	assert.Contains(t, props, "city")

	srv.PushRunScript(threadstest.RunScript{WithoutServiceArguments: true})
	_, _, body, _ = replay(t, srv, c01, nil)
	args, _ = callArgs(sseEvents(t, body))
	assert.Equal(t, []string{"city", "pace"}, keysInOrder(t, args))

	plain := threadstest.NewServer(t, threadstest.WithoutListener())
	_, _, body, _ = replay(t, plain, c01, nil)
	args, _ = callArgs(sseEvents(t, body))
	assert.False(t, strings.Contains(args, "_tambo_"), args)

	// A call that sets the values carries them whatever the options.
	plain.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "plan_trip", StatusMessage: "Planning…"}}})
	_, _, body, _ = replay(t, plain, c01, nil)
	args, _ = callArgs(sseEvents(t, body))
	assert.JSONEq(t, `{"_tambo_statusMessage":"Planning…","_tambo_completionStatusMessage":"[enum] plan my trip to Lisbon"}`, args)
}
