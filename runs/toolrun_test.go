package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

type weatherArgs struct {
	City string `json:"city" description:"City name"`
}

// captureRequest returns the method, path and JSON body of the request a
// capture recorded.
func captureRequest(t *testing.T, num string) (method, path string, body any) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "captures", num+"-*.txt"))
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	_, req, _ := strings.Cut(string(b), "===== REQUEST")
	req, _, _ = strings.Cut(req, "===== RESPONSE HEAD")
	lines := strings.Split(req, "\n")
	f := strings.Fields(lines[1])
	var raw string
	for i, l := range lines {
		if strings.HasPrefix(l, "{") {
			raw = strings.Join(lines[i:], "\n")
			break
		}
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(raw)), &body), "capture %s", num)
	return f[0], f[1], body
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	return v
}

// assertRequests checks that the replay received the requests of the
// captures nums, in order, as JSON values.
func assertRequests(t *testing.T, got []recorded, nums ...string) {
	t.Helper()
	require.Len(t, got, len(nums))
	for i, n := range nums {
		method, path, body := captureRequest(t, n)
		assert.Equal(t, method, got[i].Method, "request %d (capture %s)", i, n)
		assert.Equal(t, path, got[i].Path, "request %d (capture %s)", i, n)
		assert.Equal(t, body, jsonValue(t, got[i].Body), "request %d (capture %s)", i, n)
		assert.Equal(t, testKey, got[i].Header.Get("X-Api-Key"))
	}
}

func weatherTool(fn func(city string) (string, error)) threads.Tool {
	return threads.NewTool("get_weather", "Get the weather for a city", func(_ context.Context, a weatherArgs) (string, error) {
		return fn(a.City)
	})
}

func text(r *runs.Result) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Text())
	}
	return b.String()
}

// kinds names the events, the runner's own with their call and outcome.
func kinds(evs []runs.Event) []string {
	var out []string
	for _, e := range evs {
		switch e := e.(type) {
		case runs.ToolRunStart:
			out = append(out, fmt.Sprintf("start(%d %s %s)", e.Round, e.ToolCallID, e.Arguments))
		case runs.ToolRunResult:
			out = append(out, fmt.Sprintf("result(%d %s %q error=%v)", e.Round, e.ToolCallID, e.Text, e.IsError))
		default:
			out = append(out, e.EventType())
		}
	}
	return out
}

// Captures 39 -> 43 (a tool call answered) and 44 -> 45 (a tool that
// fails, answered with isError): the runner sends the recorded requests.
func TestRunToolsReplaysOneToolCaptures(t *testing.T) {
	t.Parallel()
	rp := newReplay(t, loadCapture(t, "39"), loadCapture(t, "43"), loadCapture(t, "44"), loadCapture(t, "45"))
	c := client(t, rp.URL)
	ctx := context.Background()

	paris := runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(city string) (string, error) {
		return "18°C and cloudy in " + city, nil
	})}}
	ts, err := c.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("weather in Paris?")}}}, paris)
	require.NoError(t, err)
	var evs []runs.Event
	for ts.Next() {
		evs = append(evs, ts.Current())
	}
	require.NoError(t, ts.Err())
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "The tool said: 18°C and cloudy in Paris.", text(res))
	assert.Equal(t, "thr_laprDVaY.911890", ts.ThreadID())
	assert.Equal(t, "run_GYyQilX.801080", res.RunID)
	assert.Equal(t, runs.OutcomeFinished, res.Outcome)
	assert.Equal(t, 1, ts.Rounds())
	assert.Equal(t, []string{"RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_END", "CUSTOM", "RUN_FINISHED",
		`start(1 call_fake_3 {"city": "Paris"})`, `result(1 call_fake_3 "18°C and cloudy in Paris" error=false)`,
		"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"}, kinds(evs))

	failing := runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(string) (string, error) {
		return "", errors.New("weather service unavailable")
	})}}
	ts, err = c.RunTools(ctx, "thr_laprDVaY.911890", runs.RunParams{Content: []runs.Content{runs.Text("and weather in Lisbon?")}, PreviousRunID: res.RunID}, failing)
	require.NoError(t, err)
	var results []runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if r, ok := ev.(runs.ToolRunResult); ok {
			results = append(results, r)
		}
	}
	res, err = ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "The tool said: weather service unavailable.", text(res))
	require.Len(t, results, 1)
	assert.True(t, results[0].IsError)
	assert.EqualError(t, results[0].Err, "weather service unavailable")

	assertRequests(t, rp.Requests(), "39", "43", "44", "45")
}

// Captures 129 -> 132: two calls in one pause, both answered in one
// message, in the pause's order, whichever finishes first.
func TestRunToolsReplaysTwoToolCaptures(t *testing.T) {
	t.Parallel()
	rp := newReplay(t, loadCapture(t, "129"), loadCapture(t, "132"))
	c := client(t, rp.URL)
	lisbonDone := make(chan struct{})
	tool := weatherTool(func(city string) (string, error) {
		switch city {
		case "Paris":
			<-lisbonDone // Paris finishes last: the results keep the pause's order
			return "18°C in Paris", nil
		default:
			defer close(lisbonDone)
			return "24°C in Lisbon", nil
		}
	})
	ts, err := c.CreateAndRunTools(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("[two] weather in Paris and Lisbon?")}}},
		runs.ToolRunner{Tools: []threads.Tool{tool}, Concurrency: 2})
	require.NoError(t, err)
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "The tool said: 24°C in Lisbon.", text(res))
	assert.Len(t, res.ToolCalls, 2)
	assertRequests(t, rp.Requests(), "129", "132")
}

// Captures-turn4 01 -> 02, the live service's bytes: the pending call's
// arguments hold the service's _tambo_statusMessage and
// _tambo_completionStatusMessage beside the tool's city and pace. The Go
// tool runs with its own two arguments (before: refused as unknown, never
// run), its result goes back as recorded, and the status lines are read.
func TestRunToolsReplaysServiceStatusArguments(t *testing.T) {
	t.Parallel()
	rp := newReplay(t, loadCapture(t, "t401"), loadCapture(t, "t402"))
	type tripArgs struct {
		City string `json:"city" description:"Destination city"`
		Pace string `json:"pace" enum:"packed,normal,relaxed" description:"How busy the trip is. relaxed is the most restful."`
	}
	var status, completion string
	plan := threads.NewTool("plan_trip", "Plans a trip to a city", func(_ context.Context, a tripArgs) (string, error) {
		return "trip planned: " + a.City + " (" + a.Pace + ")", nil
	})
	ts, err := client(t, rp.URL).CreateAndRunTools(context.Background(),
		runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("[enum] plan my trip to Lisbon")}}},
		runs.ToolRunner{Tools: []threads.Tool{plan}})
	require.NoError(t, err)
	var evs []runs.Event
	for ts.Next() {
		evs = append(evs, ts.Current())
		if s, ok := ts.Current().(runs.ToolRunStart); ok {
			status, completion = s.StatusMessage, s.CompletionStatusMessage
		}
	}
	require.NoError(t, ts.Err())
	assert.Contains(t, kinds(evs), `result(1 call_fake_3 "trip planned: urgent (relaxed)" error=false)`)
	assert.Equal(t, "urgent", status)
	assert.Equal(t, "urgent", completion)
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "The tool said: trip planned: urgent (relaxed).", text(res))
	assertRequests(t, rp.Requests(), "t401", "t402")
}

// script is a scripted /v1 run service: answer(i, body) gives the events
// of the i-th run (from 0); it counts and keeps the requests.
type script struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	sizes  []int
}

func newScript(t *testing.T, answer func(i int, body map[string]any) []string) *script {
	s := &script{t: t}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var raw []byte
		raw = make([]byte, 0, 1024)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Body.Read(buf)
			raw = append(raw, buf[:n]...)
			if err != nil {
				break
			}
		}
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		i := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.sizes = append(s.sizes, len(raw))
		s.mu.Unlock()
		runID := "run_" + strconv.Itoa(i)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Thread-Id", "thr_script")
		w.Header().Set("X-Run-Id", runID)
		w.WriteHeader(201)
		fmt.Fprintf(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thr_script\",\"runId\":%q,\"timestamp\":1}\n\n", runID)
		for _, e := range answer(i, body) {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
		fmt.Fprintf(w, "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"thr_script\",\"runId\":%q,\"timestamp\":2}\n\n", runID)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *script) requests() ([]map[string]any, []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...), append([]int(nil), s.sizes...)
}

// pause is the events of a run that calls tools: calls are (id, name,
// arguments) triples.
func pause(calls ...string) []string {
	var evs []string
	var pending []map[string]string
	for i := 0; i+2 < len(calls); i += 3 {
		id, name, args := calls[i], calls[i+1], calls[i+2]
		b, _ := json.Marshal(map[string]any{"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name})
		a, _ := json.Marshal(map[string]any{"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": args})
		evs = append(evs, string(b), string(a), fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":%q}`, id))
		pending = append(pending, map[string]string{"toolCallId": id, "toolName": name, "arguments": args})
	}
	b, _ := json.Marshal(map[string]any{"type": "CUSTOM", "name": "tambo.run.awaiting_input", "value": map[string]any{"pendingToolCalls": pending}})
	return append(evs, string(b))
}

func reply(text string) []string {
	return []string{`{"type":"TEXT_MESSAGE_START","messageId":"msg_1","role":"assistant"}`,
		fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_1","delta":%q}`, text),
		`{"type":"TEXT_MESSAGE_END","messageId":"msg_1"}`}
}

// toolResults returns the tool_result parts of a run request.
func toolResults(body map[string]any) []map[string]any {
	var out []map[string]any
	msg, _ := body["message"].(map[string]any)
	parts, _ := msg["content"].([]any)
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok && m["type"] == "tool_result" {
			out = append(out, m)
		}
	}
	return out
}

func resultText(part map[string]any) string {
	c, _ := part["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	s, _ := c[0].(map[string]any)["text"].(string)
	return s
}

// Three rounds of two calls each (run at once), one tool failing in the
// second: every continuation carries both results, the failure as
// isError, and the right previousRunId.
func TestRunToolsThreeRoundsTwoToolsOneFailing(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(i int, _ map[string]any) []string {
		if i < 3 {
			n := strconv.Itoa(i)
			return pause("a"+n, "add", fmt.Sprintf(`{"x":%d,"y":1}`, i), "b"+n, "lookup", fmt.Sprintf(`{"key":"k%d"}`, i))
		}
		return reply("done")
	})
	type addArgs struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	type sum struct {
		Sum int `json:"sum"`
	}
	// The two calls of a round meet: run one after the other, neither
	// would return (the deadline only turns a hang into a failure).
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	meet := make(chan struct{})
	rendezvous := func() error {
		select {
		case meet <- struct{}{}:
		case <-meet:
		case <-ctx.Done():
			return errors.New("the other call of the round did not run at the same time")
		}
		return nil
	}
	var rounds sync.Mutex
	round := 0
	add := threads.NewJSONTool("add", "Adds", func(_ context.Context, a addArgs) (sum, error) {
		if err := rendezvous(); err != nil {
			return sum{}, err
		}
		return sum{a.X + a.Y}, nil
	})
	lookup := threads.NewTool("lookup", "Looks up", func(_ context.Context, a struct {
		Key string `json:"key"`
	}) (string, error) {
		if err := rendezvous(); err != nil {
			return "", err
		}
		rounds.Lock()
		round++
		r := round
		rounds.Unlock()
		if r == 2 {
			return "", errors.New("lookup failed for " + a.Key)
		}
		return "value of " + a.Key, nil
	})
	c := client(t, sc.srv.URL)
	ts, err := c.RunTools(ctx, "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("go")}, PreviousRunID: "run_prev", ToolChoice: "required"},
		runs.ToolRunner{Tools: []threads.Tool{add, lookup}, Concurrency: 2})
	require.NoError(t, err)
	var starts, results int
	for ev, err := range ts.All() {
		require.NoError(t, err)
		switch ev.(type) {
		case runs.ToolRunStart:
			starts++
		case runs.ToolRunResult:
			results++
		}
	}
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.Equal(t, "done", text(res))
	assert.Equal(t, 3, ts.Rounds())
	assert.Equal(t, 6, starts)
	assert.Equal(t, 6, results)

	bodies, _ := sc.requests()
	require.Len(t, bodies, 4)
	assert.Equal(t, "required", bodies[0]["toolChoice"])
	for i := 1; i < 4; i++ {
		b := bodies[i]
		assert.Equal(t, "run_"+strconv.Itoa(i-1), b["previousRunId"], "request %d", i)
		assert.Nil(t, b["toolChoice"], "toolChoice goes with the first run only")
		assert.Len(t, b["tools"], 2)
		trs := toolResults(b)
		require.Len(t, trs, 2, "request %d", i)
		n := strconv.Itoa(i - 1)
		assert.Equal(t, "a"+n, trs[0]["toolUseId"])
		assert.Equal(t, fmt.Sprintf(`{"sum":%d}`, i), resultText(trs[0]))
		assert.Nil(t, trs[0]["isError"])
		assert.Equal(t, "b"+n, trs[1]["toolUseId"])
		if i == 2 {
			assert.Equal(t, true, trs[1]["isError"])
			assert.Equal(t, "lookup failed for k1", resultText(trs[1]))
		} else {
			assert.Nil(t, trs[1]["isError"])
			assert.Equal(t, "value of k"+n, resultText(trs[1]))
		}
	}
}

// A pause that calls a tool the caller declared itself (RunParams.ToolDefinitions)
// ends the stream cleanly, unanswered, for the caller.
func TestRunToolsLeavesCallersOwnTools(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(int, map[string]any) []string {
		return pause("a", "get_weather", `{"city":"Paris"}`, "b", "mine", `{}`)
	})
	ran := false
	ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{
		Content:         []runs.Content{runs.Text("hi")},
		ToolDefinitions: []runs.ToolDefinition{{Name: "mine", Description: "the caller's", InputSchema: map[string]any{"type": "object"}}},
	}, runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(string) (string, error) { ran = true; return "", nil })}})
	require.NoError(t, err)
	res, err := ts.Collect()
	require.NoError(t, err)
	assert.False(t, ran)
	assert.Equal(t, runs.OutcomeAwaitingTools, res.Outcome)
	assert.Len(t, res.PendingToolCalls, 2)
	bodies, _ := sc.requests()
	require.Len(t, bodies, 1)
	assert.Len(t, bodies[0]["tools"], 2)
}

// Closing the stream while a tool runs cancels the tool's context, sends
// nothing more, and reports no error.
func TestRunToolsCloseWhileToolRuns(t *testing.T) {
	t.Parallel()
	sc := newScript(t, func(int, map[string]any) []string { return pause("a", "get_weather", `{"city":"Paris"}`) })
	started := make(chan struct{})
	var ts *runs.ToolStream
	tool := threads.NewTool("get_weather", "", func(ctx context.Context, _ weatherArgs) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	})
	ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}}, runs.ToolRunner{Tools: []threads.Tool{tool}})
	require.NoError(t, err)
	go func() { <-started; ts.Close() }()
	_, err = ts.Collect()
	require.NoError(t, err)
	bodies, _ := sc.requests()
	assert.Len(t, bodies, 1)
}

// Attack round 4: with 64 queued calls and concurrency 1, 63 still
// started after Close returned. Now no call starts once Close has
// returned: the one running finishes, the rest never run.
func TestRunToolsNoCallStartsAfterClose(t *testing.T) {
	t.Parallel()
	const n = 64
	sc := newScript(t, func(int, map[string]any) []string {
		var calls []string
		for i := range n {
			calls = append(calls, "c"+strconv.Itoa(i), "get_weather", fmt.Sprintf(`{"city":"City %d"}`, i))
		}
		return pause(calls...)
	})
	started := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int64
	tool := threads.NewTool("get_weather", "", func(context.Context, weatherArgs) (string, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-release // the first call holds its slot until Close has returned
		}
		return "sunny", nil
	})
	ts, err := client(t, sc.srv.URL).RunTools(t.Context(), "thr_script", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
		runs.ToolRunner{Tools: []threads.Tool{tool}, Concurrency: 1})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := ts.Collect()
		done <- err
	}()
	<-started
	require.NoError(t, ts.Close())
	close(release)
	require.NoError(t, <-done)
	assert.Equal(t, int64(1), calls.Load(), "calls started after Close returned")
	bodies, _ := sc.requests()
	assert.Len(t, bodies, 1, "no continuation after Close")
}

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
