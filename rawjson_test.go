package threads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/jsonx/rawcheck"
	"github.com/threadsapi/threads-go/threadstest"
)

// rawExtra are the members the server adds to every object it answers,
// and what each value must give in ExtraFields.
var rawExtra = map[string]any{"zNew": map[string]any{"k": []int{1}}, "zFlag": true}
var rawExtraJSON = map[string]json.RawMessage{"zNew": json.RawMessage(`{"k":[1]}`), "zFlag": json.RawMessage(`true`)}

// unmodeled are the members the service sends (and the fake with it) that
// package threads has no field for, by type and answer: ExtraFields is
// where a caller finds them.
var unmodeled = map[string][]string{
	// The encrypted key, left out on purpose (projects.go).
	"threads.ProviderKey Projects.ProviderKeys": {"providerKeyEncrypted"},
	// PUT /threads/{id} answers the stored row, /v1 state included
	// (captures-routes 02); the spec's Thread does not name it.
	"threads.Thread Threads.Update": {"runStatus", "currentRunId", "lastCompletedRunId", "lastRunCancelled",
		"lastRunError", "pendingToolCallIds", "sdkVersion"},
}

// TestRawJSONRoundTripEveryAnswer: through a server that adds members the
// SDK does not model to every object of every answer, each value of every
// answer type of package threads gives the answer's bytes as received
// (RawJSON) and exactly the added members (ExtraFields), and its fields
// decode as they do without WithRawJSON: nothing is lost.
func TestRawJSONRoundTripEveryAnswer(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(testKey), threadstest.WithExtraMembers(rawExtra))
	var body rawcheck.Body
	c := srv.Client(threads.WithRawJSON(), threads.WithMiddleware(body.Middleware))
	plain := srv.Client()
	ctx := context.Background()
	seen := map[string]bool{}
	checker := rawcheck.Checker{T: t, Body: &body, Extra: rawExtraJSON, Unmodeled: unmodeled, Seen: seen}
	check := func(name string, v any, same func() any) {
		t.Helper()
		var plain any
		if same != nil {
			plain = same()
		}
		checker.Check(name, v, plain)
	}
	must := func(v any, err error) any {
		t.Helper()
		require.NoError(t, err)
		return v
	}

	p := must(c.Projects.Current(ctx)).(*threads.Project)
	check("Projects.Current", p, func() any { return must(plain.Projects.Current(ctx)) })
	check("Projects.Get", must(c.Projects.Get(ctx, p.ID)), nil)
	check("Projects.APIKeys", must(c.Projects.APIKeys(ctx, p.ID)), nil)
	check("Projects.ProviderKeys", must(c.Projects.ProviderKeys(ctx, p.ID)), nil)

	th := must(c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: p.ID, Name: "raw"})).(*threads.Thread)
	check("Threads.Create", th, nil)
	msg := must(c.Messages.Create(ctx, th.ID, threads.MessageRequest{Role: threads.RoleUser, Content: []threads.ContentPart{
		{Type: threads.ContentPartTypeText, Text: "hi"},
		{Type: threads.ContentPartTypeImageURL, ImageURL: &threads.ImageURL{URL: "https://example.com/a.png"}},
		{Type: threads.ContentPartTypeInputAudio, InputAudio: &threads.InputAudio{Data: "AAAA", Format: "wav"}},
		{Type: threads.ContentPartTypeResource, Resource: &threads.Resource{URI: "file:///a.txt", Text: "a"}},
	}})).(*threads.Message)
	check("Messages.Create", msg, nil)

	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{{Name: "weather", Arguments: map[string]any{"city": "Paris"}}}})
	st, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("weather?")})
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)

	check("Threads.Get", must(c.Threads.Get(ctx, th.ID)), func() any { return must(plain.Threads.Get(ctx, th.ID)) })
	check("Threads.List", must(c.Threads.List(ctx, &threads.ListParams{ProjectID: p.ID})), nil)
	check("Threads.Update", must(c.Threads.Update(ctx, th.ID, threads.UpdateThreadParams{ProjectID: p.ID, Name: "raw2"})), nil)
	check("Threads.GenerateName", must(c.Threads.GenerateName(ctx, th.ID)), nil)
	msgs := must(c.Messages.List(ctx, th.ID)).([]threads.Message)
	check("Messages.List", msgs, nil)
	check("Messages.GenerateSuggestions", must(c.Messages.GenerateSuggestions(ctx, th.ID, msgs[len(msgs)-1].ID, threads.GenerateSuggestionsParams{})), nil)
	check("Messages.Suggestions", must(c.Messages.Suggestions(ctx, th.ID, msgs[len(msgs)-1].ID)), nil)
	check("Messages.UpdateComponentState", must(c.Messages.UpdateComponentState(ctx, th.ID, msgs[len(msgs)-1].ID,
		threads.UpdateComponentStateParams{State: map[string]any{"a": 1}})), nil)
	check("Threads.Cancel", must(c.Threads.Cancel(ctx, th.ID)), nil)
	// Content parts the fake does not store (it keeps text only): a
	// message list in the service's format, with the same members added.
	parts, err := jsonx.AddMembers([]byte(`[{"id":"m1","threadId":"`+th.ID+`","role":"user","createdAt":"2026-01-02T03:04:05Z","content":[`+
		`{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}},`+
		`{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}},`+
		`{"type":"resource","resource":{"uri":"file:///a.txt","text":"a","annotations":{"priority":1}}}]}]`), must(json.Marshal(rawExtra)).([]byte),
		func(name string) bool { return name == "annotations" })
	require.NoError(t, err)
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads/" + th.ID + "/messages", Status: 200,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: string(parts)})
	check("Messages.List (parts)", must(c.Messages.List(ctx, th.ID)), nil)

	var generic threads.ThreadWithMessages
	require.NoError(t, c.Do(ctx, "GET", "/threads/"+th.ID, nil, &generic))
	check("Client.Do", &generic, nil)

	for _, typ := range []string{"threads.Project", "threads.APIKey", "threads.ProviderKey", "threads.Thread",
		"threads.ThreadWithMessages", "threads.ThreadPage", "threads.Message", "threads.ContentPart", "threads.ImageURL",
		"threads.InputAudio", "threads.Resource", "threads.ComponentDecision", "threads.ToolCallRequest",
		"threads.ToolCallParameter", "threads.Suggestion"} {
		assert.True(t, seen[typ], "no answer held a %s", typ)
	}
}

// BenchmarkGetRawJSON is BenchmarkGet's call with and without WithRawJSON:
// what recording every value's bytes costs a Get of 50 messages.
func BenchmarkGetRawJSON(b *testing.B) {
	srv := getServer(b)
	defer srv.Close()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, raw := range []bool{false, true} {
		var opts []threads.RequestOption
		if raw {
			opts = append(opts, threads.WithRawJSON())
		}
		b.Run(fmt.Sprintf("raw=%v", raw), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, err := c.Threads.Get(ctx, "thr_iSp004Xf.f4a5d7", opts...)
				if err != nil || len(t.Messages) != 50 || (raw && t.Messages[49].RawJSON() == nil) {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAnswersPrintTheirFieldsAlone: a thread, a message and a tool call's
// parameter print their fields with %v, %+v and %#v, and nothing of the
// Raw they embed, whether or not the call recorded its JSON. Before, every
// answer printed as {{{<nil> 0 <nil>}} ...}, and with WithRawJSON as
// {{{0xc000... 359 0xb13860}} ...}.
func TestAnswersPrintTheirFieldsAlone(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	ctx := context.Background()
	c := srv.Client()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "printed"})
	require.NoError(t, err)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{{Name: "weather", Arguments: map[string]any{"city": "Paris"}}}})
	st, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("weather?")})
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)

	for name, opts := range map[string][]threads.RequestOption{"plain": nil, "WithRawJSON": {threads.WithRawJSON()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Threads.Get(ctx, th.ID, opts...)
			require.NoError(t, err)
			i := slices.IndexFunc(got.Messages, func(m threads.Message) bool { return m.ToolCallRequest != nil })
			require.GreaterOrEqual(t, i, 0, "the thread holds the tool call")
			msg := got.Messages[i]
			param := msg.ToolCallRequest.Parameters[0]
			require.Equal(t, len(opts) > 0, param.RawJSON() != nil)
			for _, v := range []any{got, *got, msg, param} {
				assert.Empty(t, rawcheck.Internals(v))
			}
			assert.Equal(t, "{city Paris}", fmt.Sprintf("%v", param))
			assert.Equal(t, "{ParameterName:city ParameterValue:Paris}", fmt.Sprintf("%+v", param))
			assert.Equal(t, `threads.ToolCallParameter{ParameterName:"city", ParameterValue:"Paris"}`, fmt.Sprintf("%#v", param))
			assert.Contains(t, fmt.Sprintf("%+v", got), "ID:"+th.ID+" ")
			assert.Contains(t, fmt.Sprintf("%v", msg), " {weather [{city Paris}]} ")
		})
	}
}

// A pointer deeper than MaxJSONPointerDepth is refused before any work
// (before, a 64 KiB pointer took 2.5 s and a 4 MB one overflowed the
// stack); one at the bound sets the member, with the objects on its way,
// and deletes it again.
func TestJSONPointerDepthBounded(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	n := len(srv.Requests())
	deep := strings.Repeat("/a", 2<<20) // 4 MB
	_, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID}, threads.WithJSONSet(deep, 1))
	assert.ErrorContains(t, err, fmt.Sprintf("WithJSONSet: the JSON pointer has %d tokens; at most %d", 2<<20, threads.MaxJSONPointerDepth))
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID}, threads.WithJSONDelete(deep))
	assert.ErrorContains(t, err, "WithJSONDelete: the JSON pointer has")
	assert.Equal(t, n, len(srv.Requests()), "nothing was sent")

	atBound := "/metadata" + strings.Repeat("/a", threads.MaxJSONPointerDepth-2) + "/b"
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID}, threads.WithJSONSet(atBound, 1))
	require.NoError(t, err)
	reqs := srv.Requests()
	want := `{"b":1}`
	for range threads.MaxJSONPointerDepth - 2 {
		want = `{"a":` + want + `}`
	}
	var sent struct{ Metadata json.RawMessage }
	require.NoError(t, json.Unmarshal(reqs[len(reqs)-1].Body, &sent))
	assert.JSONEq(t, want, string(sent.Metadata))

	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Metadata: map[string]any{"k": 1}},
		threads.WithJSONSet(atBound, 1), threads.WithJSONDelete(atBound))
	require.NoError(t, err)
	reqs = srv.Requests()
	require.NoError(t, json.Unmarshal(reqs[len(reqs)-1].Body, &sent))
	deleted := `{}`
	for range threads.MaxJSONPointerDepth - 3 {
		deleted = `{"a":` + deleted + `}`
	}
	assert.JSONEq(t, `{"k":1,"a":`+deleted+`}`, string(sent.Metadata))
}
