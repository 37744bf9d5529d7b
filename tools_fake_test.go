package threads_test

import (
	"context"
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
	assert.Equal(t, map[string]int{"get_weather": 2, "get_time": 1, "nope": 1}, reqs[4].ToolCallCounts)
	th, err := c.Threads.Get(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "service down", th.Messages[1].Error, "the error is on the call, as live")
}
