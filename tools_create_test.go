package threads_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

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
