package runs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	var re *runs.ToolRoundsError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 3, re.Max)
	assert.Equal(t, "run_3", re.RunID)
	assert.Equal(t, "c3", re.Pending[0].ToolCallID)
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
