package runs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// A hostile model that calls a tool forever is stopped by the round cap:
// exactly MaxRounds continuations are sent.
func TestRunToolsRoundCap(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(i int, _ map[string]any) []string {
		return pause("c"+strconv.Itoa(i), "get_weather", fmt.Sprintf(`{"city":"City %d"}`, i))
	})
	calls := 0
	tool := weatherTool(func(string) (string, error) { calls++; return "sunny", nil })
	ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
		runs.ToolRunner{Tools: []threads.Tool{tool}, MaxRounds: 3})
	require.NoError(t, err)
	res, err := ts.Collect()
	require.ErrorIs(t, err, threads.ErrToolRounds)
	var re *threads.ToolRoundsError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 3, re.Max)
	assert.Equal(t, "run_3", re.RunID)
	assert.Equal(t, "thr_script", re.ThreadID)
	require.Len(t, re.Calls, 1)
	assert.Equal(t, "c3", re.Calls[0].ID)
	assert.Equal(t, re.Calls[0], re.Call)
	assert.Equal(t, map[string]any{"city": "City 3"}, re.Call.Arguments)
	assert.Contains(t, err.Error(), `"get_weather"`)
	bodies, _ := sc.requests()
	assert.Len(t, bodies, 4, "the first run and 3 continuations")
	assert.Equal(t, 3, calls)
	assert.Equal(t, runs.OutcomeAwaitingTools, res.Outcome)
	assert.Len(t, res.PendingToolCalls, 1)
}

// The same call (same tool, same arguments as JSON values) in MaxRepeats
// pauses in a row stops the run; different arguments do not.
func TestRunToolsRepeatGuard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		repeats int
		want    int // requests
	}{{"default", 0, 3}, {"four", 4, 4}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := newScript(t, func(i int, _ map[string]any) []string {
				args := `{"city":"Paris"}`
				if i%2 == 1 {
					args = `{ "city" : "Paris" }` // the same value, spelled otherwise
				}
				return pause("c"+strconv.Itoa(i), "get_weather", args)
			})
			tool := weatherTool(func(string) (string, error) { return "sunny", nil })
			ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
				runs.ToolRunner{Tools: []threads.Tool{tool}, MaxRepeats: tc.repeats})
			require.NoError(t, err)
			_, err = ts.Collect()
			require.ErrorIs(t, err, runs.ErrToolRepeated)
			var re *runs.ToolRepeatError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, "get_weather", re.ToolName)
			bodies, _ := sc.requests()
			assert.Len(t, bodies, tc.want)
		})
	}
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		sc := newScript(t, func(i int, _ map[string]any) []string {
			return pause("c"+strconv.Itoa(i), "get_weather", `{"city":"Paris"}`)
		})
		tool := weatherTool(func(string) (string, error) { return "sunny", nil })
		ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
			runs.ToolRunner{Tools: []threads.Tool{tool}, MaxRepeats: -1, MaxRounds: 5})
		require.NoError(t, err)
		_, err = ts.Collect()
		require.ErrorIs(t, err, threads.ErrToolRounds)
		bodies, _ := sc.requests()
		assert.Len(t, bodies, 6)
	})
}

// What goes wrong in a call is answered with isError and a bounded text:
// a 1 MiB tool name, a 1 MiB argument, a 1 MiB unknown parameter name,
// arguments that are not an object, a panic. Each continuation is at most
// a constant larger than the first request.
func TestRunToolsBoundsServerText(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 1<<20)
	hugeArg, _ := json.Marshal(map[string]string{"city": huge})
	hugeParam, _ := json.Marshal(map[string]string{huge: "Paris", "city": "Paris"})
	cases := map[string][]string{
		"unknown tool":     {"c", huge, `{}`},
		"huge argument":    {"c", "get_weather", string(hugeArg)},
		"unknown param":    {"c", "get_weather", string(hugeParam)},
		"not an object":    {"c", "get_weather", `[` + strings.Repeat(`"`+huge[:1000]+`",`, 1000) + `1]`},
		"enum value":       {"c", "pick", `{"color":"` + huge + `"}`},
		"panic":            {"c", "boom", `{}`},
		"many huge errors": {"c", "get_weather", string(hugeArg), "d", huge, `{}`},
	}
	type pickArgs struct {
		Color string `json:"color" enum:"red,green"`
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := newScript(t, func(i int, _ map[string]any) []string {
				if i == 0 {
					return pause(call...)
				}
				return reply("ok")
			})
			tools := []threads.Tool{
				weatherTool(func(city string) (string, error) {
					if len(city) > 100 {
						return "", fmt.Errorf("no such city: %s", city) // the tool itself quotes it: cut at 4 KiB
					}
					return "sunny", nil
				}),
				threads.NewTool("pick", "Picks", func(context.Context, pickArgs) (string, error) { return "ok", nil }),
				threads.NewTool("boom", "Panics", func(context.Context, struct{}) (string, error) { panic(huge) }),
			}
			ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}}, runs.ToolRunner{Tools: tools})
			require.NoError(t, err)
			_, err = ts.Collect()
			if name == "unknown param" || name == "not an object" || name == "enum value" {
				// No tool ran and the run finished: not in silence.
				require.ErrorIs(t, err, threads.ErrToolArguments)
				assert.Less(t, len(err.Error()), 1<<10)
			} else {
				require.NoError(t, err)
			}
			bodies, sizes := sc.requests()
			require.Len(t, bodies, 2)
			trs := toolResults(bodies[1])
			require.Len(t, trs, len(call)/3)
			for _, tr := range trs {
				text := resultText(tr)
				assert.Equal(t, true, tr["isError"], "%.200s", text)
				assert.LessOrEqual(t, len(text), 4<<10, "%.200s", text)
				if name == "unknown tool" || name == "unknown param" || name == "enum value" {
					// The SDK's own words, quoting the server's at most 64 runes.
					assert.Less(t, len(text), 1<<10, "%.200s", text)
				}
			}
			// 4 KiB of error text and a little JSON per call.
			assert.LessOrEqual(t, sizes[1], sizes[0]+len(call)/3*(4<<10+256), "continuation bytes")
		})
	}
}

// A call id longer than 1 KiB cannot be echoed whole: the pause is not
// answered.
func TestRunToolsRefusesHugeCallID(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(int, map[string]any) []string {
		return pause(strings.Repeat("i", 2<<10), "get_weather", `{"city":"Paris"}`)
	})
	ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
		runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(string) (string, error) { return "sunny", nil })}})
	require.NoError(t, err)
	_, err = ts.Collect()
	require.ErrorIs(t, err, threads.ErrStreamFailed)
	assert.Less(t, len(err.Error()), 300)
	bodies, _ := sc.requests()
	assert.Len(t, bodies, 1)
}

// Tools are checked before anything is sent.
func TestRunToolsChecksTools(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(int, map[string]any) []string { return reply("no") })
	c := client(t, sc.srv.URL)
	ok := weatherTool(func(string) (string, error) { return "", nil })
	for name, r := range map[string]runs.ToolRunner{
		"bad args":    {Tools: []threads.Tool{threads.NewTool("t", "", func(context.Context, int) (string, error) { return "", nil })}},
		"no name":     {Tools: []threads.Tool{{Call: ok.Call}}},
		"no call":     {Tools: []threads.Tool{{Name: "t"}}},
		"twice":       {Tools: []threads.Tool{ok, ok}},
		"repeats 1":   {Tools: []threads.Tool{ok}, MaxRepeats: 1},
		"rounds < 0":  {Tools: []threads.Tool{ok}, MaxRounds: -1},
		"conc < 0":    {Tools: []threads.Tool{ok}, Concurrency: -2},
		"nil json fn": {Tools: []threads.Tool{threads.NewJSONTool[weatherArgs, int]("j", "", nil)}},
	} {
		_, err := c.RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}}, r)
		assert.Error(t, err, name)
	}
	bodies, _ := sc.requests()
	assert.Empty(t, bodies)
}

// Captures 129 -> 132 -> 135: both results of a two-call pause are sent,
// and the service, as observed, stores only the last of the two tool_use
// blocks beside both tool_result messages (RunTools' doc says so). The
// thread's messages read back as recorded.
func TestRunToolsTwoCallsStoredAsObserved(t *testing.T) {
	t.Parallel()
	rp := newReplay(t, loadCapture(t, "129"), loadCapture(t, "132"), loadCapture(t, "135"))
	c := client(t, rp.URL)
	tool := weatherTool(func(city string) (string, error) { return "18°C in " + city, nil })
	ts, err := c.CreateAndRunTools(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("[two] weather in Paris and Lisbon?")}}},
		runs.ToolRunner{Tools: []threads.Tool{tool}, Concurrency: 2})
	require.NoError(t, err)
	res, err := ts.Collect()
	require.NoError(t, err)
	page, err := c.ListMessages(context.Background(), res.ThreadID, nil)
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
	assert.Equal(t, []string{"call_fake_1_b"}, uses, "one tool_use stored of the two called")
	assert.ElementsMatch(t, []string{"call_fake_1_a", "call_fake_1_b"}, results, "both results stored")
	reqs := rp.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "GET", reqs[2].Method)
	assert.Equal(t, "/v1/threads/"+res.ThreadID+"/messages", reqs[2].Path)
}

// A /v1 tool that panics is answered with the panic as its error, and the
// panic is logged with its stack on the client's logger, as on the spec's
// routes (before, /v1 logged nothing).
func TestRunToolsPanicIsLogged(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(i int, _ map[string]any) []string {
		if i == 0 {
			return pause("c", "boom", `{}`)
		}
		return reply("ok")
	})
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{mu: &mu, w: &logs}, nil))
	boom := threads.NewTool("boom", "Panics", func(context.Context, struct{}) (string, error) { panic("no clock") })
	ts, err := client(t, sc.srv.URL, threads.WithLogger(logger)).RunTools(t.Context(), "thr_script",
		runs.RunParams{Content: []runs.Content{runs.Text("hi")}}, runs.ToolRunner{Tools: []threads.Tool{boom}})
	require.NoError(t, err)
	var results []runs.ToolRunResult
	for ts.Next() {
		if r, ok := ts.Current().(runs.ToolRunResult); ok {
			results = append(results, r)
		}
	}
	require.NoError(t, ts.Err())
	require.Len(t, results, 1)
	assert.Equal(t, `tool "boom" failed: panic: no clock`, results[0].Text)
	mu.Lock()
	defer mu.Unlock()
	var line map[string]any
	for l := range strings.Lines(logs.String()) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		if m["msg"] == "threads: a tool panicked" {
			line = m
		}
	}
	require.NotNil(t, line, "no panic logged: %s", logs.String())
	assert.Equal(t, "boom", line["tool"])
	assert.Equal(t, "no clock", line["panic"])
	assert.Contains(t, line["stack"], "runtime/debug.Stack")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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
	assert.Equal(t, 1, ae.FailedCalls)
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

type refundArgs struct {
	Order  string  `json:"order" description:"The order to refund"`
	Amount float64 `json:"amount" description:"The sum to refund, in euros"`
}

// refundTool refunds orders, counting each refund in n; a refund above
// 20 euros needs a person's approval.
func refundTool(n *atomic.Int32) threads.Tool {
	t := threads.NewTool("refund", "Refund an order", func(_ context.Context, a refundArgs) (string, error) {
		n.Add(1)
		return "refunded " + a.Order, nil
	})
	t.NeedsApproval = func(call threads.ToolCall) bool {
		amount, _ := call.Arguments["amount"].(float64)
		return amount > 20
	}
	return t
}

// guardedRuns runs scripts through RunTools with tools and the guards
// against the fake (without the live habit that keeps a pause's last call
// only), and returns the tool results of each continuation, by call id,
// and the stream's result events.
func guardedRuns(t *testing.T, scripts []threadstest.RunScript, tools []threads.Tool, g threads.ToolGuards, opts ...threads.ClientOption) ([]map[string]threadstest.RunContent, []runs.ToolRunResult) {
	t.Helper()
	srv := threadstest.NewServer(t)
	for _, sc := range scripts {
		srv.PushRunScript(sc)
	}
	srv.PushRunScript(threadstest.RunScript{Text: "Done."})
	c := runs.New(srv.Client(opts...)).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("go")}}},
		runs.ToolRunner{Tools: tools, Guards: g})
	require.NoError(t, err)
	var events []runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if r, ok := ev.(runs.ToolRunResult); ok {
			events = append(events, r)
		}
	}
	var sent []map[string]threadstest.RunContent
	for _, r := range runRequests(t, srv)[1:] {
		m := map[string]threadstest.RunContent{}
		for _, part := range r.Message.Content {
			if part.Type == "tool_result" {
				m[part.ToolUseID] = part
			}
		}
		sent = append(sent, m)
	}
	return sent, events
}

func resultOf(p threadstest.RunContent) string {
	return threadstest.RunMessage{Content: p.Content}.Text()
}

// Two refunds in one pause: 10 euros runs without asking; 50 is asked
// about with the thread and the run that paused: refused, it does not run
// and the model reads the reason; approved, it runs.
func TestRunToolsApproval(t *testing.T) {
	t.Parallel()
	pause := threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "c_small", Name: "refund", Arguments: map[string]any{"order": "A1", "amount": 10}},
		{ID: "c_big", Name: "refund", Arguments: map[string]any{"order": "B2", "amount": 50}},
	}}
	for _, approve := range []bool{false, true} {
		var n atomic.Int32
		var asked []threads.ApprovalRequest
		approver := func(_ context.Context, req threads.ApprovalRequest) (threads.Approval, error) {
			asked = append(asked, req)
			return threads.Approval{Approved: approve, Reason: "over the agent's limit", DecidedBy: "carol"}, nil
		}
		obs := &recorder{}
		sent, events := guardedRuns(t, []threadstest.RunScript{pause}, []threads.Tool{refundTool(&n)}, threads.ToolGuards{Approver: approver},
			threads.WithObserver(obs))
		// The decision is reported on the run that carries the results.
		require.Len(t, obs.calls, 2)
		assert.Empty(t, obs.calls[0].approvals)
		assert.Equal(t, []string{fmt.Sprintf("refund %t by carol", approve)}, obs.calls[1].approvals, "with who decided")
		require.Len(t, sent, 1)
		require.Len(t, asked, 1, "only the big refund is asked about")
		assert.Equal(t, "c_big", asked[0].Call.ID)
		assert.NotEmpty(t, asked[0].ThreadID)
		assert.NotEmpty(t, asked[0].RunID, "the run that paused")
		assert.Equal(t, "refunded A1", resultOf(sent[0]["c_small"]))
		big := sent[0]["c_big"]
		if approve {
			assert.Equal(t, int32(2), n.Load())
			assert.Equal(t, "refunded B2", resultOf(big))
			continue
		}
		assert.Equal(t, int32(1), n.Load(), "a refused call does not run")
		assert.True(t, big.IsError)
		assert.Equal(t, "the call was not approved: over the agent's limit", resultOf(big))
		require.Len(t, events, 2)
		assert.ErrorIs(t, events[1].Err, threads.ErrToolRefused)
	}
}

// An approver that does not answer in time is a refusal that says so.
func TestRunToolsApprovalTimeout(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	waits := func(ctx context.Context, _ threads.ApprovalRequest) (threads.Approval, error) {
		<-ctx.Done() // a person who never answers
		return threads.Approval{}, ctx.Err()
	}
	sent, _ := guardedRuns(t, []threadstest.RunScript{{ToolCalls: []threadstest.RunToolCall{
		{ID: "c1", Name: "refund", Arguments: map[string]any{"order": "B2", "amount": 50}}}}},
		[]threads.Tool{refundTool(&n)}, threads.ToolGuards{Approver: waits, ApprovalTimeout: time.Millisecond})
	assert.Equal(t, "the call was not run: no one approved it within 1ms", resultOf(sent[0]["c1"]))
	assert.True(t, sent[0]["c1"].IsError)
	assert.Zero(t, n.Load())
}

// A tool past its deadline is answered with a timeout while its sibling's
// result goes in the same continuation; the tool, which ignores its
// context, is left to return by itself.
func TestRunToolsDeadlineWithSibling(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	stuck := threads.NewTool("stuck", "ignores its context", func(context.Context, refundArgs) (string, error) {
		<-release
		return "too late", nil
	})
	var n atomic.Int32
	// The sibling has a deadline of its own, an hour: under the guards'
	// 1ms a loaded machine could leave it unscheduled past it.
	refund := refundTool(&n)
	refund.Timeout = time.Hour
	sent, events := guardedRuns(t, []threadstest.RunScript{{ToolCalls: []threadstest.RunToolCall{
		{ID: "c_stuck", Name: "stuck", Arguments: map[string]any{"order": "A1", "amount": 1}},
		{ID: "c_ok", Name: "refund", Arguments: map[string]any{"order": "A1", "amount": 10}},
	}}}, []threads.Tool{stuck, refund}, threads.ToolGuards{Timeout: time.Millisecond})
	require.Len(t, sent, 1)
	assert.True(t, sent[0]["c_stuck"].IsError)
	assert.Equal(t, "the call timed out: it did not return within 1ms", resultOf(sent[0]["c_stuck"]))
	assert.Equal(t, "refunded A1", resultOf(sent[0]["c_ok"]), "the sibling's result is in the same continuation")
	require.Len(t, events, 2)
	assert.ErrorIs(t, events[0].Err, threads.ErrToolTimeout)
}

// A pause delivered twice (the fake's PauseTwice: the same run and call
// ids) runs each tool once: the repeat is answered with the results sent
// the first time.
func TestRunToolsPauseDeliveredTwiceRunsOnce(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	sent, _ := guardedRuns(t, []threadstest.RunScript{{PauseTwice: true, ToolCalls: []threadstest.RunToolCall{
		{ID: "c1", Name: "refund", Arguments: map[string]any{"order": "A1", "amount": 10}},
		{ID: "c2", Name: "refund", Arguments: map[string]any{"order": "C3", "amount": 5}},
	}}}, []threads.Tool{refundTool(&n)}, threads.ToolGuards{})
	require.Len(t, sent, 2, "two continuations of the one pause")
	for _, id := range []string{"c1", "c2"} {
		assert.Equal(t, resultOf(sent[0][id]), resultOf(sent[1][id]))
	}
	assert.Equal(t, "refunded A1", resultOf(sent[1]["c1"]))
	assert.Equal(t, int32(2), n.Load(), "each refund ran once")
}

// A call record that fails refuses the call rather than risk running it
// twice.
func TestRunToolsRecordDownRefuses(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	sent, events := guardedRuns(t, []threadstest.RunScript{{ToolCalls: []threadstest.RunToolCall{
		{ID: "c1", Name: "refund", Arguments: map[string]any{"order": "A1", "amount": 10}}}}},
		[]threads.Tool{refundTool(&n)}, threads.ToolGuards{Calls: downRecord{}})
	assert.True(t, sent[0]["c1"].IsError)
	assert.Contains(t, resultOf(sent[0]["c1"]), "its record is unavailable (store down)")
	assert.ErrorIs(t, events[0].Err, threads.ErrToolNotRun)
	assert.Zero(t, n.Load())
}

type downRecord struct{}

func (downRecord) SetNX(context.Context, string, []byte, time.Duration) (bool, error) {
	return false, errors.New("store down")
}
func (downRecord) Set(context.Context, string, []byte, time.Duration) error {
	return errors.New("store down")
}
func (downRecord) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("store down")
}
