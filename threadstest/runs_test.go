package threadstest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

var weatherTool = runs.ToolDefinition{Name: "get_weather", Description: "Get the weather for a city",
	InputSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}

// rawRun posts a run body and returns the response and its events, each a
// decoded JSON object, read to the end.
func rawRun(t *testing.T, srv *threadstest.Server, path, body string) (*http.Response, []map[string]any, []string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var evs []map[string]any
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &ev), data)
			evs = append(evs, ev)
		}
	}
	return resp, evs, lines
}

func types(evs []map[string]any) []string {
	var out []string
	for _, ev := range evs {
		typ := ev["type"].(string)
		if typ == "CUSTOM" {
			typ += " " + ev["name"].(string)
		}
		out = append(out, typ)
	}
	return out
}

// The wire as capture 26 shows it: 201, the headers, one data line per
// event with a millisecond timestamp, no DONE; then the thread as 27.
func TestRunWire(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	resp, evs, lines := rawRun(t, srv, "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hello there"}]},"thread":{"userKey":"user-1"}}`)
	assert.Equal(t, 201, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	thr, run := resp.Header.Get("X-Thread-Id"), resp.Header.Get("X-Run-Id")
	assert.Regexp(t, `^thr_[A-Za-z0-9]{6,8}\.[0-9a-f]{6}$`, thr)
	assert.Regexp(t, `^run_[A-Za-z0-9]{6,8}\.[0-9a-f]{6}$`, run)
	assert.Equal(t, []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"}, types(evs))
	for _, l := range lines {
		assert.True(t, l == "" || strings.HasPrefix(l, "data: {"), "line %q", l)
		assert.NotContains(t, l, "DONE")
	}
	assert.Equal(t, map[string]any{"type": "RUN_STARTED", "threadId": thr, "runId": run, "timestamp": evs[0]["timestamp"]}, evs[0])
	assert.InDelta(t, float64(time.Now().UnixMilli()), evs[0]["timestamp"], 60_000)
	assert.Equal(t, "assistant", evs[1]["role"])
	var text string
	for _, ev := range evs[2:6] {
		text += ev["delta"].(string)
		assert.Equal(t, evs[1]["messageId"], ev["messageId"])
	}
	assert.Equal(t, "You said: hello there", text)
	assert.Equal(t, map[string]any{"type": "TEXT_MESSAGE_END", "messageId": evs[1]["messageId"], "timestamp": evs[6]["timestamp"]}, evs[6])
	assert.Equal(t, map[string]any{"type": "RUN_FINISHED", "threadId": thr, "runId": run, "timestamp": evs[7]["timestamp"]}, evs[7])

	u := runs.New(srv.Client()).ForUser("user-1")
	got, err := u.GetThread(context.Background(), thr)
	require.NoError(t, err)
	assert.Equal(t, runs.RunStatusIdle, got.RunStatus)
	assert.Equal(t, "Complete", got.StatusMessage)
	assert.Equal(t, run, got.LastCompletedRunID)
	require.Len(t, got.Messages, 2)
	assert.Equal(t, "hello there", got.Messages[0].Text())
	assert.Equal(t, evs[1]["messageId"], got.Messages[1].ID)
	assert.Equal(t, "You said: hello there", got.Messages[1].Text())

	// The stored messages read as capture 27 shows them, keys in order.
	req, _ := http.NewRequest("GET", srv.URL+"/v1/threads/"+thr+"/messages?userKey=user-1", nil)
	req.Header.Set("x-api-key", srv.APIKey)
	mresp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	assert.Contains(t, string(raw), `"role":"user","content":[{"type":"text","text":"hello there"}],"createdAt":`)
	assert.Contains(t, string(raw), `"role":"assistant","content":[{"type":"text","text":"You said: hello there"}],"createdAt":`)

	// X-Thread-Id only on the creating route.
	resp, _, _ = rawRun(t, srv, "/v1/threads/"+thr+"/runs", `{"message":{"role":"user","content":[{"type":"text","text":"again"}]},"userKey":"user-1","previousRunId":"`+run+`"}`)
	assert.Equal(t, 201, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("X-Thread-Id"))
	assert.NotEmpty(t, resp.Header.Get("X-Run-Id"))
}

// The run preconditions (28, 29, 128, 76, 78, 83, 82, 84), in the
// recorded bodies.
func TestRunPreconditions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	res, err := s.Collect()
	require.NoError(t, err)
	require.Equal(t, runs.OutcomeFinished, res.Outcome)

	_, err = u.Run(ctx, res.ThreadID, runs.RunParams{Content: []runs.Content{runs.Text("second")}})
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.ErrorIs(t, err, runs.ErrInvalidPreviousRun)
	assert.Equal(t, "previousRunId is required when continuing a thread with existing messages", p.Detail)
	assert.Equal(t, "application/json; charset=utf-8", p.Header.Get("Content-Type"))

	_, err = u.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: "run_nope.000000", Content: []runs.Content{runs.Text("second")}})
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "previousRunId run_nope.000000 does not match last completed run "+res.RunID, p.Detail)

	fresh, err := u.CreateThread(ctx, runs.CreateThreadParams{})
	require.NoError(t, err)
	_, err = u.Run(ctx, fresh.ID, runs.RunParams{PreviousRunID: res.RunID, Content: []runs.Content{runs.Text("x")}})
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "previousRunId "+res.RunID+" does not match last completed run (none)", p.Detail)

	for body, want := range map[string]string{
		`{"message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"userKey":"user-1"}`:                                     `{"message":["message.role must be one of the following values: user"],"error":"Bad Request","statusCode":400}`,
		`{"message":{"role":"user","content":[{"type":"text","text":""}]},"userKey":"user-1"}`:                                           `{"message":["message.content.0.text should not be empty"],"error":"Bad Request","statusCode":400}`,
		`{"message":{"role":"user","content":[{"type":"text","text":"x"}]},"userKey":"user-1","tools":[{"name":"t","description":"d"}]}`: `{"message":["tools.0.inputSchema must be an object"],"error":"Bad Request","statusCode":400}`,
		`{"message":{"role":"user","content":[{"type":"text","text":"x"}]},"userKey":"user-1","temperature":3}`:                          `{"message":["temperature must not be greater than 2"],"error":"Bad Request","statusCode":400}`,
	} {
		resp, _, lines := rawRun(t, srv, "/v1/threads/"+fresh.ID+"/runs", body)
		assert.Equal(t, 400, resp.StatusCode, body)
		assert.JSONEq(t, want, strings.Join(lines, ""), body)
	}
	// The thread route reads the key from the body only (84); the create
	// route from thread.userKey only.
	resp, _, _ := rawRun(t, srv, "/v1/threads/"+fresh.ID+"/runs?userKey=user-1", `{"message":{"role":"user","content":[{"type":"text","text":"x"}]}}`)
	assert.Equal(t, 400, resp.StatusCode)
	resp, _, _ = rawRun(t, srv, "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"x"}]},"userKey":"user-1"}`)
	assert.Equal(t, 400, resp.StatusCode)
	// Another user's thread is 403, as every thread route.
	_, err = runs.New(srv.Client()).ForUser("user-2").Run(ctx, fresh.ID, runs.RunParams{Content: []runs.Content{runs.Text("x")}})
	assert.ErrorIs(t, err, threads.ErrForbidden)
}

// A client tool round trip (39-46): the default model calls the offered
// tool, the run pauses, the results are checked, and the continuation
// answers with the result.
func TestRunToolPauseAndContinue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Paris")}, ToolDefinitions: []runs.ToolDefinition{weatherTool}}})
	require.NoError(t, err)
	var seen []string
	for ev, err := range s.All() {
		require.NoError(t, err)
		seen = append(seen, ev.EventType())
	}
	assert.Equal(t, []string{"RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_END", "CUSTOM", "RUN_FINISHED"}, seen)
	res, err := s.Collect()
	require.NoError(t, err)
	require.Equal(t, runs.OutcomeAwaitingTools, res.Outcome)
	require.Len(t, res.PendingToolCalls, 1)
	call := res.PendingToolCalls[0]
	assert.Equal(t, "get_weather", call.ToolName)
	assert.JSONEq(t, `{"city":"Paris"}`, call.Arguments)
	require.Len(t, res.ToolCalls, 1)
	assert.Equal(t, call.Arguments, res.ToolCalls[0].Arguments)

	th, err := u.GetThread(ctx, res.ThreadID)
	require.NoError(t, err)
	assert.Equal(t, []string{call.ToolCallID}, th.PendingToolCallIDs)
	assert.Equal(t, "Fetching context...", th.StatusMessage)
	assert.Equal(t, res.RunID, th.LastCompletedRunID)
	require.Len(t, th.Messages, 2)
	reply := th.Messages[1].Content
	require.Len(t, reply, 2)
	assert.Equal(t, " ", reply[0].Text)
	assert.Equal(t, runs.ContentToolUse, reply[1].Type)
	assert.Equal(t, map[string]any{"city": "Paris"}, reply[1].Input)

	next := func(content ...runs.Content) (*runs.Stream, error) {
		return u.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: res.RunID, ToolDefinitions: []runs.ToolDefinition{weatherTool}, Content: content})
	}
	var p *threads.Problem
	_, err = next(runs.Text("never mind"))
	require.ErrorAs(t, err, &p)
	assert.ErrorIs(t, err, runs.ErrInvalidToolResult)
	assert.Equal(t, "Missing tool results for pending tool calls: "+call.ToolCallID, p.Detail)
	assert.Equal(t, "MISSING_RESULTS", p.Code)
	assert.JSONEq(t, `["`+call.ToolCallID+`"]`, string(p.Extensions["missingToolCallIds"]))
	_, err = next(runs.ToolResult("call_unknown", "x"))
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "MISSING_RESULTS", p.Code)
	_, err = next(runs.ToolResult(call.ToolCallID, "sunny"), runs.ToolResult("call_unknown", "x"))
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "EXTRA_RESULTS", p.Code)
	assert.Equal(t, "Tool results provided for unknown tool calls: call_unknown", p.Detail)

	s, err = next(runs.ToolResult(call.ToolCallID, "18°C and cloudy"))
	require.NoError(t, err)
	res2, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeFinished, res2.Outcome)
	require.Len(t, res2.Messages, 1)
	assert.Equal(t, "The tool said: 18°C and cloudy.", res2.Messages[0].Text())

	page, err := u.ListMessages(ctx, res.ThreadID, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 4)
	result := page.Items[2]
	assert.Equal(t, runs.RoleAssistant, result.Role)
	require.Len(t, result.Content, 1)
	assert.Equal(t, runs.ContentToolResult, result.Content[0].Type)
	assert.Equal(t, call.ToolCallID, result.Content[0].ToolUseID)
	assert.Equal(t, "The tool said: 18°C and cloudy.", page.Items[3].Text())
	th, err = u.GetThread(ctx, res.ThreadID)
	require.NoError(t, err)
	assert.Empty(t, th.PendingToolCallIDs)
	assert.Equal(t, "Complete", th.StatusMessage)

	// What the client sent, as the fake read it.
	var rr *threadstest.RunRequest
	for _, r := range srv.Requests() {
		if in, err := r.Run(); err == nil {
			rr = in // the last run's
		}
	}
	require.NotNil(t, rr)
	assert.Equal(t, res.RunID, rr.PreviousRunID)
	require.Len(t, rr.Tools, 1)
	assert.Equal(t, "get_weather", rr.Tools[0].Name)
	assert.Equal(t, "tool_result", rr.Message.Content[0].Type)
	assert.Equal(t, "18°C and cloudy", rr.Message.Content[0].Content[0].Text)
}

// A tool that returns content parts (threads.NewPartsTool), run by
// runs.Client.RunTools: the fake accepts the tool_result with its text
// and resource parts (a text resource, a base64 blob) and stores them as
// sent, listed as an assistant message of their own (46) that a runs
// client reads back part by part; the default model answers from the
// result's text parts. A string tool's result beside it stays one text
// part.
func TestRunToolResultParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_chart", Name: "chart", Arguments: map[string]any{"city": "Paris"}},
		{ID: "call_weather", Name: "weather", Arguments: map[string]any{"city": "Paris"}},
	}})
	type cityArgs struct {
		City string `json:"city"`
	}
	chart := threads.NewPartsTool("chart", "A chart of the weather", func(_ context.Context, a cityArgs) ([]threads.ContentPart, error) {
		return []threads.ContentPart{
			threads.TextPart("The chart of " + a.City),
			threads.ResourcePart(threads.Resource{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "sunny"}),
			threads.BlobPart("chart://paris", "image/png", []byte("PNG")),
		}, nil
	})
	weather := threads.NewTool("weather", "The weather", func(_ context.Context, a cityArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	u := runs.New(srv.Client()).ForUser("user-1")
	th, err := u.CreateThread(ctx, runs.CreateThreadParams{})
	require.NoError(t, err)
	ts, err := u.RunTools(ctx, th.ID, runs.RunParams{Content: []runs.Content{runs.Text("Paris?")}},
		runs.ToolRunner{Tools: []threads.Tool{chart, weather}})
	require.NoError(t, err)
	for _, err := range ts.All() {
		require.NoError(t, err)
	}
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeFinished, res.Outcome)
	assert.Equal(t, "The tool said: The chart of Paris; sunny in Paris.", res.Messages[len(res.Messages)-1].Text())

	page, err := u.ListMessages(ctx, th.ID, nil)
	require.NoError(t, err)
	var results []runs.Content
	for _, m := range page.Items {
		for _, c := range m.Content {
			if c.Type == runs.ContentToolResult {
				assert.Equal(t, runs.RoleAssistant, m.Role)
				assert.Len(t, m.Content, 1)
				results = append(results, c)
			}
		}
	}
	require.Len(t, results, 2)
	assert.Equal(t, "call_chart", results[0].ToolUseID)
	parts := results[0].Content
	require.Len(t, parts, 3)
	assert.Equal(t, runs.Text("The chart of Paris").Text, parts[0].Text)
	require.NotNil(t, parts[1].Resource)
	assert.Equal(t, runs.ContentResource, parts[1].Type)
	assert.Equal(t, "file:///notes.txt", parts[1].Resource.URI)
	assert.Equal(t, "text/plain", parts[1].Resource.MIMEType)
	assert.Equal(t, "sunny", parts[1].Resource.Text)
	require.NotNil(t, parts[2].Resource)
	assert.Equal(t, "chart://paris", parts[2].Resource.URI)
	assert.Equal(t, "image/png", parts[2].Resource.MIMEType)
	assert.Equal(t, "UE5H", parts[2].Resource.Blob) // base64 of "PNG"
	assert.Equal(t, "call_weather", results[1].ToolUseID)
	require.Len(t, results[1].Content, 1)
	assert.Equal(t, runs.ContentText, results[1].Content[0].Type)
	assert.Equal(t, "sunny in Paris", results[1].Content[0].Text)

	// The stored block as the service lists it: "type" first, the
	// resource's keys as live (uri, text, mimeType; 134).
	page, err = u.ListMessages(ctx, th.ID, nil, threads.WithRawJSON())
	require.NoError(t, err)
	raw := string(page.Items[2].Content[0].RawJSON())
	assert.True(t, strings.HasPrefix(raw, `{"type":"tool_result","toolUseId":"call_chart","content":[{"type":"text","text":"The chart of Paris"},`+
		`{"type":"resource","resource":{"uri":"file:///notes.txt","text":"sunny","mimeType":"text/plain"}}`), raw)
}

// A script with text and two tool calls streams them in one model turn,
// as capture 52 and 129 show.
func TestRunScriptTextAndParallelCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{Text: "Let me check.", ToolCalls: []threadstest.RunToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
		{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}},
	}})
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("two cities")}}})
	require.NoError(t, err)
	var seen []string
	var parent string
	for ev, err := range s.All() {
		require.NoError(t, err)
		switch e := ev.(type) {
		case runs.ToolCallStart:
			parent = e.ParentMessageID
		case runs.ToolCallArgs, runs.TextMessageContent:
			continue
		}
		seen = append(seen, ev.EventType())
	}
	assert.Equal(t, []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_START", "TOOL_CALL_END", "TEXT_MESSAGE_END", "CUSTOM", "RUN_FINISHED"}, seen)
	assert.Regexp(t, `^message-[A-Za-z0-9]{21}$`, parent)
	res, err := s.Collect()
	require.NoError(t, err)
	require.Len(t, res.PendingToolCalls, 2)
	assert.Equal(t, "call_a", res.PendingToolCalls[0].ToolCallID)
	assert.Equal(t, "Let me check.", res.Messages[0].Text())

	// Both results are needed (131, 132).
	_, err = u.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: res.RunID, Content: []runs.Content{runs.ToolResult("call_a", "sunny")}})
	assert.ErrorIs(t, err, runs.ErrInvalidToolResult)
	rainy := runs.ToolResult(res.PendingToolCalls[1].ToolCallID, "rainy")
	rainy.IsError = true
	s, err = u.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: res.RunID, Content: []runs.Content{runs.ToolResult("call_a", "sunny"), rainy}})
	require.NoError(t, err)
	res2, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, "The tool said: sunny; rainy.", res2.Messages[0].Text())
}

// Of two tool calls in one turn, the service keeps only the last: both
// stream and must be answered, both results are stored, but the stored
// message has the last call's tool_use alone and the model reads only its
// result (captures-turn5 07-09). The fake does so with WithLastToolCallOnly
// (and WithLiveHabits), and keeps every call without it.
func TestLastToolCallOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  []threadstest.Option
		uses  []string
		reply string
	}{
		{"default", nil, []string{"call_loc", "call_lookup"}, "The tool said: Lisbon; a definition of tea."},
		{"WithLastToolCallOnly", []threadstest.Option{threadstest.WithLastToolCallOnly()}, []string{"call_lookup"}, "The tool said: a definition of tea."},
		{"WithLiveHabits", []threadstest.Option{threadstest.WithLiveHabits(), threadstest.WithThrottle(0)}, []string{"call_lookup"}, "The tool said: a definition of tea."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := threadstest.NewServer(t, tc.opts...)
			srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
				{ID: "call_loc", Name: "get_location"}, {ID: "call_lookup", Name: "lookup", Arguments: map[string]any{"q": "tea"}},
			}})
			u := runs.New(srv.Client()).ForUser("cap5")
			s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("both please")}}})
			require.NoError(t, err)
			res, err := s.Collect()
			require.NoError(t, err)
			require.Len(t, res.PendingToolCalls, 2, "the pause lists both")

			_, err = u.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: res.RunID, Content: []runs.Content{runs.ToolResult("call_lookup", "a definition of tea")}})
			assert.ErrorIs(t, err, runs.ErrInvalidToolResult, "both must be answered")
			s, err = u.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: res.RunID, Content: []runs.Content{
				runs.ToolResult("call_loc", "Lisbon"), runs.ToolResult("call_lookup", "a definition of tea")}})
			require.NoError(t, err)
			res2, err := s.Collect()
			require.NoError(t, err)
			assert.Equal(t, tc.reply, res2.Messages[0].Text())

			page, err := u.ListMessages(ctx, res.ThreadID, nil)
			require.NoError(t, err)
			var uses, results []string
			for _, m := range page.Items {
				for _, part := range m.Content {
					switch part.Type {
					case runs.ContentToolUse:
						uses = append(uses, part.ID)
					case runs.ContentToolResult:
						results = append(results, part.ToolUseID)
					}
				}
			}
			assert.Equal(t, tc.uses, uses)
			assert.Equal(t, []string{"call_loc", "call_lookup"}, results, "both results stored")
		})
	}
}

// A failed run sends RUN_ERROR twice (47, 123); the client reads one
// error, and the thread keeps the cause and a " " reply (48, 124).
func TestRunError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{Text: "partial answer here", ErrorAfter: 3, Error: &threadstest.RunFailure{Cause: "Unknown error"}})
	resp, evs, _ := rawRun(t, srv, "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"x"}]},"thread":{"userKey":"user-1"}}`)
	assert.Equal(t, 201, resp.StatusCode)
	assert.Equal(t, []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "RUN_ERROR", "RUN_ERROR"}, types(evs))
	ev := evs[4]
	delete(ev, "timestamp")
	assert.Equal(t, map[string]any{"type": "RUN_ERROR", "message": "An internal error occurred", "code": "INTERNAL_ERROR", "category": "server_error", "isRetryable": false, "status": 500.0}, ev)

	u := runs.New(srv.Client()).ForUser("user-1")
	th, err := u.GetThread(ctx, resp.Header.Get("X-Thread-Id"))
	require.NoError(t, err)
	require.NotNil(t, th.LastRunError)
	assert.Equal(t, runs.RunError{Code: "INTERNAL_ERROR", Message: "Unknown error"}, *th.LastRunError)
	assert.Equal(t, "Streaming response...", th.StatusMessage)
	assert.Equal(t, " ", th.Messages[1].Text())

	// Through the client: one error, a 400 from the provider (121).
	srv.PushRunScript(threadstest.RunScript{Error: &threadstest.RunFailure{Code: "LLM_CLIENT_ERROR", Message: "fake bad request", Status: 400}})
	s, err := u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: th.LastCompletedRunID, Content: []runs.Content{runs.Text("again")}})
	require.NoError(t, err)
	n := 0
	var failure error
	for _, err := range s.All() {
		if err != nil {
			n++
			failure = err
		}
	}
	assert.Equal(t, 1, n)
	var f *runs.RunFailedError
	require.ErrorAs(t, failure, &f)
	assert.Equal(t, "LLM_CLIENT_ERROR", f.Code)
	assert.Equal(t, "client_error", f.Category)
	assert.ErrorIs(t, failure, threads.ErrBadRequest)
	assert.Equal(t, runs.OutcomeFailed, s.Outcome())

	// Content that passes validation but cannot run fails the same way (77).
	resp, evs, _ = rawRun(t, srv, "/v1/threads/runs", `{"message":{"role":"user","content":[]},"thread":{"userKey":"user-1"}}`)
	assert.Equal(t, 201, resp.StatusCode)
	assert.Equal(t, []string{"RUN_STARTED", "RUN_ERROR", "RUN_ERROR"}, types(evs))
}

// A second run while one is active is 409 concurrent_run naming it (54);
// the thread shows the run streaming with its partial reply (55); DELETE
// cancels it with one RUN_ERROR CANCELLED (53, 57, 58), and cancelling
// again is 404 (59).
func TestRunConcurrentAndCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.PushRunScript(threadstest.RunScript{Text: "word0 word1 word2 word3", Hold: hold, HoldAfter: 3})
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("long story")}}})
	require.NoError(t, err)
	defer s.Close()
	for range 4 { // RUN_STARTED, TEXT_MESSAGE_START, two deltas
		require.True(t, s.Next(), "%v", s.Err())
	}

	_, err = u.Run(ctx, s.ThreadID(), runs.RunParams{Content: []runs.Content{runs.Text("are you there?")}})
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, 409, p.Status)
	assert.ErrorIs(t, err, runs.ErrRunActive)
	assert.JSONEq(t, `"`+s.RunID()+`"`, string(p.Extensions["currentRunId"]))
	assert.JSONEq(t, `"`+s.ThreadID()+`"`, string(p.Extensions["threadId"]))
	assert.Equal(t, "A run is already active on thread "+s.ThreadID(), p.Detail)

	th, err := u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	assert.Equal(t, runs.RunStatusStreaming, th.RunStatus)
	assert.Equal(t, s.RunID(), th.CurrentRunID)
	assert.Equal(t, "word0 word1 ", th.Messages[1].Text())
	_, err = u.SetComponentState(ctx, s.ThreadID(), "message-x", map[string]any{})
	require.ErrorAs(t, err, &p)
	assert.Equal(t, 409, p.Status)

	require.NoError(t, s.Cancel(ctx))
	res, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeCancelled, res.Outcome)
	th, err = u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	assert.Equal(t, runs.RunStatusIdle, th.RunStatus)
	assert.Empty(t, th.CurrentRunID)
	assert.True(t, th.LastRunCancelled)
	assert.Equal(t, s.RunID(), th.LastCompletedRunID)
	assert.True(t, th.Messages[1].IsCancelled)
	assert.Equal(t, "word0 word1", th.Messages[1].Text(), "stored without its trailing space, as live (25)")

	err = u.Cancel(ctx, s.ThreadID(), s.RunID())
	require.ErrorAs(t, err, &p)
	assert.ErrorIs(t, err, threads.ErrNotFound)
	assert.Equal(t, "Run "+s.RunID()+" not found on thread "+s.ThreadID(), p.Detail)

	// A new run continues from the cancelled one (110).
	s2, err := u.Run(ctx, s.ThreadID(), runs.RunParams{PreviousRunID: s.RunID(), Content: []runs.Content{runs.Text("again")}})
	require.NoError(t, err)
	res, err = s2.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeFinished, res.Outcome)
}

// The cancel's wire: exactly one RUN_ERROR CANCELLED, no TEXT_MESSAGE_END
// and no RUN_FINISHED (53).
func TestRunCancelWire(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	hold := make(chan struct{})
	defer close(hold)
	held := make(chan struct{})
	srv.PushRunScript(threadstest.RunScript{Hold: hold, HoldAfter: 2, OnHold: func() { close(held) }})
	done := make(chan []map[string]any)
	hdr := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"a b c"}]},"thread":{"userKey":"u"}}`))
		req.Header.Set("x-api-key", srv.APIKey)
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			hdr <- nil
			close(done)
			return
		}
		hdr <- resp
		defer resp.Body.Close()
		var evs []map[string]any
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev map[string]any
				json.Unmarshal([]byte(data), &ev)
				evs = append(evs, ev)
			}
		}
		done <- evs
	}()
	resp := <-hdr
	require.NotNil(t, resp)
	<-held // the events before the hold are on the wire: the cancel comes after them
	u := runs.New(srv.Client()).ForUser("u")
	require.NoError(t, u.Cancel(context.Background(), resp.Header.Get("X-Thread-Id"), resp.Header.Get("X-Run-Id")))
	evs := <-done
	assert.Equal(t, []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "RUN_ERROR"}, types(evs))
	last := evs[len(evs)-1]
	delete(last, "timestamp")
	assert.Equal(t, map[string]any{"type": "RUN_ERROR", "message": "Run cancelled", "code": "CANCELLED"}, last)
}

// Closing the stream before the end cancels the run on the fake, as a
// disconnect does live (61-63); so does a scripted drop. In a synctest
// bubble the fake's handler has returned once every goroutine is idle.
func TestRunCancelByClose(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		hold := make(chan struct{})
		defer close(hold)
		srv.PushRunScript(threadstest.RunScript{Hold: hold, HoldAfter: 2})
		u := runs.New(srv.Client()).ForUser("user-1")
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("one two three")}}})
		require.NoError(t, err)
		for range 3 {
			require.True(t, s.Next())
		}
		require.NoError(t, s.Close())
		synctest.Wait()
		th, err := u.GetThread(ctx, s.ThreadID())
		require.NoError(t, err)
		assert.Equal(t, runs.RunStatusIdle, th.RunStatus)
		assert.True(t, th.LastRunCancelled)
		assert.True(t, th.Messages[1].IsCancelled)
		assert.Equal(t, "You ", th.Messages[1].Text(), "the one delta sent")
		assert.Equal(t, 0, srv.Count("DELETE", "/v1/threads/"+s.ThreadID()+"/runs/"+s.RunID()), "the close alone cancels")

		srv.PushRunScript(threadstest.RunScript{Drop: true, DropAfter: 1})
		s, err = u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: th.LastCompletedRunID, Content: []runs.Content{runs.Text("again")}})
		require.NoError(t, err)
		_, err = s.Collect()
		assert.ErrorIs(t, err, threads.ErrStreamTruncated)
		synctest.Wait()
		th, err = u.GetThread(ctx, th.ID)
		require.NoError(t, err)
		assert.True(t, th.LastRunCancelled)
		assert.Equal(t, s.RunID(), th.LastCompletedRunID)
	})
}

// A paced run (the live habits' 50ms, or RunScript.Pace) gives a cancel
// something to cancel: cancelled after two deltas, the run ends RUN_ERROR
// CANCELLED and keeps both (the live habits' cancel, as the service's:
// captures-turn4 22-25).
func TestRunPacedCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithLiveHabits())
		u := runs.New(srv.Client()).ForUser("user-1")
		start := time.Now()
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("one two three four five six")}}})
		require.NoError(t, err)
		deltas := 0
		for s.Next() {
			if _, ok := s.Current().(runs.TextMessageContent); ok {
				deltas++
				if deltas == 2 {
					require.NoError(t, s.Cancel(ctx))
				}
			}
		}
		require.NoError(t, s.Err())
		assert.Equal(t, runs.OutcomeCancelled, s.Outcome())
		assert.Equal(t, 2, deltas)
		// RUN_STARTED, then TEXT_MESSAGE_START and two deltas 50ms apart.
		assert.Equal(t, 150*time.Millisecond, time.Since(start))
		th, err := u.GetThread(ctx, s.ThreadID())
		require.NoError(t, err)
		// The service keeps what it streamed, without the trailing space
		// (25).
		assert.Equal(t, "You said:", th.Messages[1].Text())
		assert.True(t, th.LastRunCancelled)

		// Without the live habits the same run is not paced.
		fast := threadstest.NewServer(t, threadstest.WithoutListener())
		start = time.Now()
		s, err = runs.New(fast.Client()).ForUser("u").CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("one two three")}}})
		require.NoError(t, err)
		_, err = s.Collect()
		require.NoError(t, err)
		assert.Zero(t, time.Since(start))
	})
}

// A scripted component (87, 88): start, props deltas, end, then the text
// of the model's second answer; the stored block takes component state.
func TestRunComponent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "WeatherCard"}})
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Lisbon")},
		AvailableComponents: []runs.AvailableComponent{{Name: "WeatherCard", Description: "Weather",
			PropsSchema: map[string]any{"type": "object", "properties": map[string]any{
				"city": map[string]any{"type": "string"}, "temperature": map[string]any{"type": "number"},
				"unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}}}}}},
	}})
	require.NoError(t, err)
	var seen []string
	var compID string
	for ev, err := range s.All() {
		require.NoError(t, err)
		switch e := ev.(type) {
		case runs.ComponentStart:
			seen, compID = append(seen, "start "+e.ComponentName), e.ComponentID
		case runs.ComponentPropsDelta:
			seen = append(seen, "delta")
		case runs.ComponentEnd:
			seen = append(seen, "end")
		case runs.TextMessageContent:
		default:
			seen = append(seen, ev.EventType())
		}
	}
	assert.Equal(t, []string{"RUN_STARTED", "start WeatherCard", "delta", "delta", "delta", "delta", "delta", "end", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "RUN_FINISHED"}, seen)
	want := map[string]any{"city": "Lisbon", "temperature": 1.0, "unit": "celsius"}
	props, ok := s.ComponentProps(compID)
	require.True(t, ok)
	assert.Equal(t, want, props)

	page, err := u.ListMessages(ctx, s.ThreadID(), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 3)
	block := page.Items[1].Content[1]
	assert.Equal(t, runs.ContentComponent, block.Type)
	assert.Equal(t, compID, block.ID)
	assert.Equal(t, want, block.Props)
	assert.Equal(t, "The tool said: Component was rendered.", page.Items[2].Text())
	state, err := u.SetComponentState(ctx, s.ThreadID(), compID, map[string]any{"expanded": true})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"expanded": true}, state)
}

// A scripted component with a final state: tambo.component.end carries
// it, a runs client reads it on ComponentEnd and, through
// Component.Decode, with DecodeState; the stored component has it as its
// state, a copy of the script's map. Without one, the end has no
// finalState member (as capture 87), DecodeState reports none and the
// stored state is {} (88).
func TestRunComponentFinalState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type cardProps struct {
		City string `json:"city"`
	}
	type cardState struct {
		Expanded bool     `json:"expanded"`
		Rows     []string `json:"rows"`
	}
	card := runs.NewComponent[cardProps]("WeatherCard", "Weather")
	require.NoError(t, card.Err())
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	run := func(comp threadstest.RunComponent) (string, runs.ComponentEnd, runs.ComponentEvent[cardProps]) {
		t.Helper()
		srv.PushRunScript(threadstest.RunScript{Component: &comp})
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
			Content: []runs.Content{runs.Text("weather")}, AvailableComponents: []runs.AvailableComponent{card.Available()}}})
		require.NoError(t, err)
		var end runs.ComponentEnd
		var ev runs.ComponentEvent[cardProps]
		var ends int
		for e, err := range s.All() {
			require.NoError(t, err)
			if ce, ok := e.(runs.ComponentEnd); ok {
				ends++
				end = ce
				ev, ok = card.Decode(s, e)
				require.True(t, ok)
			}
		}
		require.Equal(t, 1, ends)
		return s.ThreadID(), end, ev
	}
	stored := func(threadID string) any {
		t.Helper()
		page, err := u.ListMessages(ctx, threadID, nil)
		require.NoError(t, err)
		for _, m := range page.Items {
			for _, c := range m.Content {
				if c.Type == runs.ContentComponent {
					return c.State
				}
			}
		}
		t.Fatal("no component stored")
		return nil
	}

	final := map[string]any{"expanded": true, "rows": []any{"a", "b"}}
	threadID, end, ev := run(threadstest.RunComponent{Name: "WeatherCard", Props: map[string]any{"city": "Lisbon"}, FinalState: final})
	assert.Equal(t, final, end.FinalState)
	assert.Equal(t, map[string]any{"city": "Lisbon"}, end.FinalProps)
	assert.True(t, ev.Final)
	assert.Equal(t, "Lisbon", ev.Props.City)
	var st cardState
	ok, err := ev.DecodeState(&st)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, cardState{Expanded: true, Rows: []string{"a", "b"}}, st)
	final["expanded"] = false // the fake stored its own copy
	assert.Equal(t, map[string]any{"expanded": true, "rows": []any{"a", "b"}}, stored(threadID))

	// An empty final state is sent as {}, and decodes as one.
	_, end, ev = run(threadstest.RunComponent{Name: "WeatherCard", Props: map[string]any{"city": "Faro"}, FinalState: map[string]any{}})
	assert.Equal(t, map[string]any{}, end.FinalState)
	ok, err = ev.DecodeState(&cardState{})
	assert.True(t, ok)
	assert.NoError(t, err)

	threadID, end, ev = run(threadstest.RunComponent{Name: "WeatherCard", Props: map[string]any{"city": "Porto"}})
	assert.Nil(t, end.FinalState)
	ok, err = ev.DecodeState(&st)
	assert.False(t, ok)
	assert.NoError(t, err)
	assert.Equal(t, map[string]any{}, stored(threadID))

	// On the wire: no finalState member when the script has none.
	srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "WeatherCard", Props: map[string]any{"city": "Braga"}}})
	_, evs, _ := rawRun(t, srv, "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"x"}]},"thread":{"userKey":"user-1"}}`)
	var value map[string]any
	for _, e := range evs {
		if e["name"] == "tambo.component.end" {
			value = e["value"].(map[string]any)
		}
	}
	require.NotNil(t, value)
	assert.NotContains(t, value, "finalState")
	assert.Contains(t, value, "finalProps")
}

// Deleting a thread while its run streams is allowed (126) and fails the
// run with the RUN_ERROR pair (125).
func TestRunThreadDeletedMidRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.PushRunScript(threadstest.RunScript{Hold: hold})
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("x")}}})
	require.NoError(t, err)
	require.True(t, s.Next())
	require.NoError(t, u.DeleteThread(ctx, s.ThreadID()))
	_, err = s.Collect()
	var f *runs.RunFailedError
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, "INTERNAL_ERROR", f.Code)
}

// A run POST is a write: a 503 before it acted is retried, but a run that
// started and lost its connection is never re-sent (the fake's faults
// apply to /v1 as to the spec's routes).
func TestRunFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	srv.Inject(threadstest.Fault{Method: "POST", Path: "/v1/threads/runs", Status: 503})
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	assert.Equal(t, 2, srv.Count("POST", "/v1/threads/runs"))

	srv.Inject(threadstest.Fault{Method: "POST", Path: "/v1/threads/runs", ActThenReset: true})
	_, err = u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("again")}}})
	require.Error(t, err)
	assert.Equal(t, 3, srv.Count("POST", "/v1/threads/runs"), "not re-sent")
	page, err := u.ListThreads(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Items, 2, "the reset run created its thread")
}

// A user's test written the obvious way (issue 30): a held run, left at
// its first delta by breaking out of All, and the thread read at once,
// while the fake's handler is still winding the run down. Under -race this
// reported a data race inside the fake (the run's end writing the reply
// that the GET was encoding). The variants leave the run held, released
// right after the break, and not held at all (the run goes on writing
// deltas while the GET encodes).
func TestRunLeftAtFirstDeltaThenRead(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"held", "released", "unheld"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			for range 20 {
				leaveAtFirstDeltaThenRead(t, mode)
			}
		})
	}
}

func leaveAtFirstDeltaThenRead(t *testing.T, mode string) {
	ctx := context.Background()
	srv := threadstest.NewServer(t)
	hold := make(chan struct{})
	sc := threadstest.RunScript{Text: strings.Repeat("word ", 200)}
	if mode != "unheld" {
		sc.Hold, sc.HoldAfter = hold, 2
	}
	srv.PushRunScript(sc)
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	for ev, err := range s.All() {
		require.NoError(t, err)
		if _, ok := ev.(runs.TextMessageContent); ok {
			break
		}
	}
	if mode == "released" {
		close(hold)
	}
	th, err := u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	require.Len(t, th.Messages, 2)
	assert.Equal(t, "hi", th.Messages[0].Text())
	msgs, err := u.ListMessages(ctx, s.ThreadID(), &runs.ListMessagesParams{})
	require.NoError(t, err)
	assert.Len(t, msgs.Items, 2)
	if mode == "held" {
		close(hold)
	}
}

// The pause window (RunScript.PauseWindow): the pause is sent, the run is
// not yet complete, a continuation inside the window is refused 400
// invalid_previous_run as the service refuses it (captures-turn5 30);
// once released, the run completes and the same continuation is accepted.
// A client that leaves inside the window cancels the run.
func TestRunPauseWindow(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		u := runs.New(srv.Client()).ForUser("user-1")
		ctx := context.Background()
		call := []threadstest.RunToolCall{{ID: "call_w", Name: "lookup", Arguments: map[string]any{"q": "tea"}}}
		window := make(chan struct{})
		srv.PushRunScript(threadstest.RunScript{ToolCalls: call, PauseWindow: window})
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)
		for s.Next() {
			if _, ok := s.Current().(runs.AwaitingInput); ok {
				break
			}
		}
		cont := runs.RunParams{PreviousRunID: s.RunID(), Content: []runs.Content{runs.ToolResult("call_w", "green")}}
		_, err = u.Run(ctx, s.ThreadID(), cont)
		var p *threads.Problem
		require.ErrorAs(t, err, &p)
		assert.Equal(t, 400, p.Status)
		assert.Contains(t, p.Detail, "does not match last completed run (none)")

		close(window)
		_, err = s.Collect()
		require.NoError(t, err)
		assert.Equal(t, runs.OutcomeAwaitingTools, s.Outcome())
		next, err := u.Run(ctx, s.ThreadID(), cont)
		require.NoError(t, err, "after the window the continuation is accepted")
		_, err = next.Collect()
		require.NoError(t, err)

		// Leaving inside the window cancels the run.
		srv.PushRunScript(threadstest.RunScript{ToolCalls: call, PauseWindow: make(chan struct{})})
		s, err = u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)
		for s.Next() {
			if _, ok := s.Current().(runs.AwaitingInput); ok {
				break
			}
		}
		s.Close()
		synctest.Wait()
		th, err := u.GetThread(ctx, s.ThreadID())
		require.NoError(t, err)
		assert.True(t, th.LastRunCancelled)
	})
}

// A script's usage is sent as AG-UI 1.0's on RUN_FINISHED (and on a
// failure's RUN_ERROR) and reaches a runs client's Result, summed per
// model; a run's resume entries are recorded as sent.
func TestRunScriptUsageAndResume(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	usage := []threadstest.TokenUsage{{Provider: "openai", Model: "gpt-5", InputTokens: 12, OutputTokens: 3, TotalTokens: 15}}
	srv.PushRunScript(threadstest.RunScript{Text: "Hi.", Usage: usage})
	srv.PushRunScript(threadstest.RunScript{Error: &threadstest.RunFailure{Code: "LLM_CLIENT_ERROR"}, Usage: usage})
	u := runs.New(srv.Client()).ForUser("user-1")
	ctx := t.Context()
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")},
		Resume: []runs.ResumeEntry{{InterruptID: "int_1", Status: runs.ResumeResolved, Payload: map[string]any{"approved": true}}}}})
	require.NoError(t, err)
	r, err := s.Collect()
	require.NoError(t, err)
	want := []runs.TokenUsage{{Provider: "openai", Model: "gpt-5", InputTokens: 12, OutputTokens: 3, TotalTokens: 15}}
	assert.Equal(t, want, r.Usage)
	in, err := srv.Requests()[len(srv.Requests())-1].Run()
	require.NoError(t, err)
	require.Len(t, in.Resume, 1)
	assert.Equal(t, "int_1", in.Resume[0].InterruptID)
	assert.Equal(t, "resolved", in.Resume[0].Status)
	assert.JSONEq(t, `{"approved":true}`, string(in.Resume[0].Payload))

	s, err = u.Run(ctx, r.ThreadID, runs.RunParams{Content: []runs.Content{runs.Text("again")}, PreviousRunID: r.RunID})
	require.NoError(t, err)
	r, err = s.Collect()
	require.ErrorIs(t, err, runs.ErrRunFailed)
	assert.Equal(t, want, r.Usage, "a failed run's usage")
}

// A script's interrupts end its run with AG-UI 1.0's interrupt outcome,
// which a runs client reads from the RUN_FINISHED (ids and reasons
// defaulted where the script left them out); the run still finished, and
// the next run's resume entries answering them are recorded as sent.
func TestRunScriptInterrupts(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{Text: "I need to ask.", Interrupts: []threadstest.RunInterrupt{
		{Message: "Refund 50 euros?"},
		{ID: "approve_b2", Reason: "tool_call", ToolCallID: "call_9", ExpiresAt: "2026-12-02T03:00:00Z",
			ResponseSchema: map[string]any{"type": "object"}, Metadata: map[string]any{"k": "v"}},
	}})
	u := runs.New(srv.Client()).ForUser("user-1")
	ctx := t.Context()
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("refund B2")}}})
	require.NoError(t, err)
	var end *runs.RunEnding
	for s.Next() {
		if f, ok := s.Current().(runs.RunFinished); ok {
			end = f.Ending
		}
	}
	require.NoError(t, s.Err())
	assert.Equal(t, runs.OutcomeFinished, s.Outcome())
	require.NotNil(t, end, "the RUN_FINISHED has an outcome")
	assert.Equal(t, runs.EndingInterrupt, end.Outcome)
	assert.Equal(t, []runs.Interrupt{
		{ID: "int_1", Reason: "input_required", Message: "Refund 50 euros?"},
		{ID: "approve_b2", Reason: "tool_call", ToolCallID: "call_9", ExpiresAt: "2026-12-02T03:00:00Z",
			ResponseSchema: map[string]any{"type": "object"}, Metadata: map[string]any{"k": "v"}},
	}, end.Interrupts)

	answers := []runs.ResumeEntry{
		{InterruptID: "int_1", Status: runs.ResumeResolved, Payload: map[string]any{"approved": true}},
		{InterruptID: "approve_b2", Status: runs.ResumeCancelled},
	}
	s, err = u.Run(ctx, s.ThreadID(), runs.RunParams{Content: []runs.Content{runs.Text("answered")}, PreviousRunID: s.RunID(), Resume: answers})
	require.NoError(t, err)
	r, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeFinished, r.Outcome, "the next run goes on with the default model")
	in, err := srv.Requests()[len(srv.Requests())-1].Run()
	require.NoError(t, err)
	require.Len(t, in.Resume, 2)
	assert.Equal(t, "int_1", in.Resume[0].InterruptID)
	assert.Equal(t, "cancelled", in.Resume[1].Status)
}
