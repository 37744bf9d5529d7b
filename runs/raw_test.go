package runs_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/jsonx/rawcheck"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestRawJSONRoundTripEveryAnswer: through a server that adds members the
// SDK does not model to every object of every answer, each value of every
// answer type of package runs gives the answer's bytes as received
// (RawJSON) and exactly the added members (ExtraFields), and its fields
// decode as they do without threads.WithRawJSON: nothing is lost.
func TestRawJSONRoundTripEveryAnswer(t *testing.T) {
	t.Parallel()
	added := map[string]any{"zNew": map[string]any{"k": []int{1}}, "zFlag": true}
	want := map[string]json.RawMessage{"zNew": json.RawMessage(`{"k":[1]}`), "zFlag": json.RawMessage(`true`)}
	srv := threadstest.NewServer(t, threadstest.WithExtraMembers(added))
	var body rawcheck.Body
	u := runs.New(srv.Client(threads.WithRawJSON(), threads.WithMiddleware(body.Middleware))).ForUser("user-1")
	plain := runs.New(srv.Client()).ForUser("user-1")
	ctx := context.Background()
	seen := map[string]bool{}
	checker := rawcheck.Checker{T: t, Body: &body, Extra: want, Seen: seen}
	check := func(name string, v any, same func() (any, error)) {
		t.Helper()
		var other any
		if same != nil {
			var err error
			other, err = same()
			require.NoError(t, err)
		}
		checker.Check(name, v, other)
	}
	must := func(v any, err error) any {
		t.Helper()
		require.NoError(t, err)
		return v
	}

	th := must(u.CreateThread(ctx, runs.CreateThreadParams{InitialMessages: []runs.InitialMessage{{Role: runs.RoleUser,
		Content: []runs.Content{runs.Text("see"), runs.ResourceContent(runs.Resource{URI: "file:///a.txt", Text: "a",
			Annotations: &runs.ResourceAnnotations{Priority: 1}})}}}})).(*runs.Thread)
	check("CreateThread", th, nil)
	srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "Card", Props: map[string]any{"a": 1}}})
	st, err := u.Run(ctx, th.ID, runs.RunParams{Content: []runs.Content{runs.Text("show")}})
	require.NoError(t, err)
	res, err := st.Collect()
	require.NoError(t, err)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "weather", Arguments: map[string]any{"city": "Paris"}}}})
	st, err = u.Run(ctx, th.ID, runs.RunParams{Content: []runs.Content{runs.Text("weather?")}, PreviousRunID: res.RunID,
		ToolDefinitions: []runs.ToolDefinition{{Name: "weather", InputSchema: map[string]any{"type": "object"}}}})
	require.NoError(t, err)
	res, err = st.Collect()
	require.NoError(t, err)
	require.Len(t, res.ToolCalls, 1)
	srv.PushRunScript(threadstest.RunScript{Error: &threadstest.RunFailure{}})
	st, err = u.Run(ctx, th.ID, runs.RunParams{Content: []runs.Content{runs.ToolResult(res.ToolCalls[0].ToolCallID, "sunny")}, PreviousRunID: res.RunID})
	require.NoError(t, err)
	_, _ = st.Collect() // the scripted failure: the thread keeps lastRunError

	got := must(u.GetThread(ctx, th.ID)).(*runs.ThreadWithMessages)
	check("GetThread", got, func() (any, error) { return plain.GetThread(ctx, th.ID) })
	check("ListThreads", must(u.ListThreads(ctx, nil)), func() (any, error) { return plain.ListThreads(ctx, nil) })
	check("UpdateThread", must(u.UpdateThread(ctx, th.ID, runs.UpdateThreadParams{Name: "raw"})), nil)
	check("ListMessages", must(u.ListMessages(ctx, th.ID, nil)), nil)
	msg := got.Messages[0]
	check("GetMessage", must(u.GetMessage(ctx, th.ID, msg.ID)), nil)
	check("GenerateSuggestions", must(u.GenerateSuggestions(ctx, th.ID, msg.ID, runs.GenerateSuggestionsParams{MaxSuggestions: 2})), nil)
	check("ListSuggestions", must(u.ListSuggestions(ctx, th.ID, msg.ID, nil)), nil)
	var generic runs.MessagePage
	require.NoError(t, u.Do(ctx, "GET", "/v1/threads/"+th.ID+"/messages?limit=2", nil, &generic))
	check("Client.Do", &generic, nil)

	for _, typ := range []string{"runs.Thread", "runs.ThreadWithMessages", "runs.RunError", "runs.Message", "runs.Content",
		"runs.Resource", "runs.ResourceAnnotations", "runs.Suggestion", "runs.ThreadPage", "runs.MessagePage",
		"runs.SuggestionPage"} {
		assert.True(t, seen[typ], "no answer held a %s", typ)
	}
}
