package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
)

// wireEvent is what a test reads of a relayed event.
type wireEvent struct {
	Type, Name, RunID, ThreadID, Delta string
	Value                              struct {
		PendingToolCalls []struct{ ToolCallID, ToolName, Arguments string }
	}
}

func parse(t *testing.T, body string) []wireEvent {
	t.Helper()
	var out []wireEvent
	for _, d := range events(body) {
		var ev wireEvent
		require.NoError(t, json.Unmarshal([]byte(d), &ev), d)
		out = append(out, ev)
	}
	return out
}

func types(evs []wireEvent) []string {
	var out []string
	for _, ev := range evs {
		s := ev.Type
		if ev.Name != "" {
			s += " " + ev.Name
		}
		out = append(out, s)
	}
	return out
}

// lastRun is the run id the official client sends next as previousRunId:
// the last RUN_STARTED's.
func lastRun(evs []wireEvent) string {
	var id string
	for _, ev := range evs {
		if ev.Type == "RUN_STARTED" {
			id = ev.RunID
		}
	}
	return id
}

// lookup is a server-side tool that records its calls.
type lookup struct {
	mu    sync.Mutex
	calls []map[string]any
}

func (l *lookup) tool() threads.Tool {
	return threads.Tool{
		Name: "lookup", Description: "Looks a word up in the backend's database",
		Parameters: []threads.ToolParameter{{Name: "q", Type: "string", IsRequired: true}},
		Call: func(_ context.Context, c threads.ToolCall) (string, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.calls = append(l.calls, c.Arguments)
			return fmt.Sprintf("found %v", c.Arguments["q"]), nil
		},
	}
}

const browserTool = `{"name":"get_location","description":"Where the user is","inputSchema":{"type":"object","properties":{}}}`

// A run that pauses only for a server-side tool completes in one response:
// the handler runs the tool and continues, the browser sees both runs'
// events and no pause, and its next run (previousRunId the last
// RUN_STARTED's) is accepted.
func TestServerToolPauseInOneResponse(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnv(t, nil, proxy.WithTools(l.tool()))
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"define proxy"}]}}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	evs := parse(t, w.Body.String())
	ts := types(evs)
	assert.Equal(t, "RUN_STARTED", ts[0])
	assert.Equal(t, "RUN_FINISHED", ts[len(ts)-1])
	assert.Equal(t, 2, strings.Count(strings.Join(ts, "|"), "RUN_STARTED"), ts)
	assert.Equal(t, 2, strings.Count(strings.Join(ts, "|"), "RUN_FINISHED"), ts)
	assert.NotContains(t, ts, "CUSTOM tambo.run.awaiting_input", "the browser never sees the server's pause")
	assert.Contains(t, w.Body.String(), `"delta":"found `, "the second run read the tool's result")
	require.Len(t, l.calls, 1)
	assert.Equal(t, "define proxy", l.calls[0]["q"])

	threadID := w.Header().Get("X-Thread-Id")
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[{"type":"text","text":"thanks"}]},"previousRunId":"`+lastRun(evs)+`"}`)
	require.Equal(t, http.StatusCreated, w.Code, "the client's next run is accepted: %s", w.Body.String())
	assert.Empty(t, e.logs.failures())
}

// Server-side tools are offered on every run beside the browser's own; a
// browser tool of a server tool's name is not.
func TestServerToolsOfferedBesideBrowserTools(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnv(t, nil, proxy.WithTools(l.tool()))
	e.fake.PushRunScript(threadstest.RunScript{Text: "hello"})
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+
		browserTool+`,{"name":"lookup","description":"the browser's","inputSchema":{"type":"object"}}]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	req, err := e.last(t).Run()
	require.NoError(t, err)
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name+": "+tl.Description)
	}
	assert.Equal(t, []string{"get_location: Where the user is", "lookup: Looks a word up in the backend's database"}, names)
}

// A pause that mixes both: the browser gets only its own call, the
// server's runs at once, and the browser's continuation carries both
// results.
func TestMixedPause(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnv(t, nil, proxy.WithTools(l.tool()))
	w := e.startRun(t, "s-alice", firstMessage("hi", browserTool),
		locationCall("call_b"), threadstest.RunToolCall{ID: "call_s", Name: "lookup", Arguments: map[string]any{"q": "tea", "_tambo_statusMessage": "Looking tea up"}})
	evs := parse(t, w.Body.String())
	var pending []string
	for _, ev := range evs {
		for _, c := range ev.Value.PendingToolCalls {
			pending = append(pending, c.ToolCallID+" "+c.ToolName)
		}
	}
	assert.Equal(t, []string{"call_b get_location"}, pending, "only the browser's call")
	require.Len(t, l.calls, 1, "the server's call ran at the pause")
	assert.Equal(t, map[string]any{"q": "tea"}, l.calls[0], "the service's status line is not an argument")

	threadID := w.Header().Get("X-Thread-Id")
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}]},"previousRunId":"`+lastRun(evs)+`","tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	req, err := e.last(t).Run()
	require.NoError(t, err)
	var results []string
	for _, c := range req.Message.Content {
		results = append(results, c.ToolUseID+"="+c.Content[0].Text)
	}
	assert.ElementsMatch(t, []string{"call_s=found tea", "call_b=Lisbon"}, results)
	assert.Empty(t, e.logs.failures())

	// Sent once: the same continuation again carries only the browser's.
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[{"type":"text","text":"more"}]},"previousRunId":"`+lastRun(parse(t, w.Body.String()))+`"}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	req, err = e.last(t).Run()
	require.NoError(t, err)
	assert.Len(t, req.Message.Content, 1)
}

// Two instances of a backend share a Store: the pause is served by
// one, the browser's continuation by the other.
func TestMixedPauseAcrossInstances(t *testing.T) {
	t.Parallel()
	var l lookup
	e, e2, store := twoInstances(t, &l)
	w := e.startRun(t, "s-alice", firstMessage("hi", browserTool), locationCall("call_b"), lookupCall("call_s", "x"))
	assert.Equal(t, 2, store.Len(), "the results, and the call's record (once per call)")

	w = e2.do(t, "s-alice", "POST", "/v1/threads/"+w.Header().Get("X-Thread-Id")+"/runs",
		`{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"here"}]}]},"previousRunId":"`+lastRun(parse(t, w.Body.String()))+`"}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Equal(t, 1, store.Len(), "the results deleted once the service took them; the call's record stays")

	// Another user cannot consume them: the key includes the user.
	e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_b2", Name: "get_location"}, {ID: "call_s2", Name: "lookup", Arguments: map[string]any{"q": "y"}},
	}})
	w = e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, w.Code)
	w = e2.do(t, "s-bob", "POST", "/v1/threads/"+w.Header().Get("X-Thread-Id")+"/runs",
		`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"previousRunId":"`+lastRun(parse(t, w.Body.String()))+`"}`)
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Equal(t, 3, store.Len(), "alice's results stay (and both calls' records)")
}

// One user's unanswered mixed pauses cannot push another user's stored
// server result out of the default memory store: 70 pauses of ~1 MiB by
// bob (more than the store's 64 MiB), then alice's continuation still
// carries her server result; bob's pauses over his share are kept as
// error results that say why. (Failed before: the store dropped its
// oldest entries, alice's first, to make room.)
func TestPendingResultsBoundedPerUser(t *testing.T) {
	t.Parallel()
	var l lookup
	big := threads.Tool{Name: "big", Description: "returns a lot", Call: func(context.Context, threads.ToolCall) (string, error) {
		return strings.Repeat("x", proxy.MaxPendingResults-200), nil
	}}
	e := newEnv(t, nil, proxy.WithTools(l.tool(), big))
	mixed := func(session, server string) (threadID, runID string) {
		t.Helper()
		w := e.startRun(t, session, firstMessage("hi", browserTool),
			locationCall("call_b"), threadstest.RunToolCall{ID: "call_s", Name: server, Arguments: map[string]any{"q": "tea"}})
		return w.Header().Get("X-Thread-Id"), lastRun(parse(t, w.Body.String()))
	}
	cont := func(session, threadID, runID string) map[string]string {
		t.Helper()
		w := e.do(t, session, "POST", "/v1/threads/"+threadID+"/runs",
			`{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}]},"previousRunId":"`+runID+`","tools":[`+browserTool+`]}`)
		require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
		req, err := e.last(t).Run()
		require.NoError(t, err)
		out := map[string]string{}
		for _, c := range req.Message.Content {
			out[c.ToolUseID] = c.Content[0].Text
		}
		return out
	}
	herThread, herRun := mixed("s-alice", "lookup")
	var bobs [][2]string
	for range 70 {
		th, run := mixed("s-bob", "big")
		bobs = append(bobs, [2]string{th, run})
	}
	assert.Equal(t, map[string]string{"call_s": "found tea", "call_b": "Lisbon"}, cont("s-alice", herThread, herRun), "her server result is still there")

	got := cont("s-bob", bobs[0][0], bobs[0][1])
	assert.Len(t, got["call_s"], proxy.MaxPendingResults-200, "a pause within his share keeps its result")
	got = cont("s-bob", bobs[69][0], bobs[69][1])
	assert.Contains(t, got["call_s"], "too many pending results for this user", "a pause over his share is answered with an error result")
}

// A server-side tool that fails or panics is answered to the model as an
// error result, in a pause the handler answers and in a mixed one.
func TestServerToolFailsOrPanics(t *testing.T) {
	t.Parallel()
	fails := threads.Tool{Name: "fails", Description: "Fails", Call: func(context.Context, threads.ToolCall) (string, error) {
		return "", errors.New("database is down")
	}}
	panics := threads.Tool{Name: "panics", Description: "Panics", Call: func(context.Context, threads.ToolCall) (string, error) {
		panic("nil map")
	}}
	e := newEnv(t, nil, proxy.WithTools(fails, panics))

	// Only server calls: the handler answers and continues.
	w := e.startRun(t, "s-alice", firstMessage("hi"),
		threadstest.RunToolCall{ID: "c1", Name: "fails"}, threadstest.RunToolCall{ID: "c2", Name: "panics"})
	assert.Equal(t, "RUN_FINISHED", types(parse(t, w.Body.String()))[len(parse(t, w.Body.String()))-1])
	req, err := e.last(t).Run()
	require.NoError(t, err)
	require.Len(t, req.Message.Content, 2)
	for _, c := range req.Message.Content {
		assert.True(t, c.IsError, c.ToolUseID)
	}
	assert.Contains(t, req.Message.Content[0].Content[0].Text, "database is down")
	assert.Contains(t, req.Message.Content[1].Content[0].Text, "panic")

	// Mixed: the panic is kept as an error result for the continuation.
	e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "c3", Name: "get_location"}, {ID: "c4", Name: "panics"}, {ID: "c5", Name: "nobody_has_it"}}})
	threadID := w.Header().Get("X-Thread-Id")
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[{"type":"text","text":"again"}]},"previousRunId":"`+lastRun(parse(t, w.Body.String()))+`","tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	evs := parse(t, w.Body.String())
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"c3","content":[{"type":"text","text":"here"}]}]},"previousRunId":"`+lastRun(evs)+`"}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	req, err = e.last(t).Run()
	require.NoError(t, err)
	got := map[string]string{}
	for _, c := range req.Message.Content {
		got[c.ToolUseID] = fmt.Sprint(c.IsError, " ", c.Content[0].Text)
	}
	assert.Equal(t, "false here", got["c3"])
	assert.Contains(t, got["c4"], "true tool \"panics\" failed: panic: nil map")
	assert.Contains(t, got["c5"], "true there is no tool named")
	assert.Empty(t, e.logs.failures())
}

// A pause the tool runner's bounds leave unanswered (the same call in 3
// pauses in a row) does not strand the thread: the user's next run
// carries an error result for it.
func TestServerToolBoundAnsweredNextRun(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnv(t, nil, proxy.WithTools(l.tool()))
	for range 3 {
		e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "lookup", Arguments: map[string]any{"q": "again"}}}})
	}
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	evs := parse(t, w.Body.String())
	assert.Equal(t, 3, strings.Count(strings.Join(types(evs), "|"), "RUN_STARTED"))
	assert.Len(t, l.calls, 2, "the third repeat is not run")
	assert.Len(t, e.logs.failures(), 1, "the stop is logged")

	w = e.do(t, "s-alice", "POST", "/v1/threads/"+w.Header().Get("X-Thread-Id")+"/runs",
		`{"message":{"role":"user","content":[{"type":"text","text":"go on"}]},"previousRunId":"`+lastRun(evs)+`"}`)
	require.Equal(t, http.StatusCreated, w.Code, "the pending call is answered with the user's next run: %s", w.Body.String())
	req, err := e.last(t).Run()
	require.NoError(t, err)
	require.Len(t, req.Message.Content, 2)
	assert.True(t, req.Message.Content[0].IsError)
	assert.Contains(t, req.Message.Content[0].Content[0].Text, "not run: ")
	assert.Equal(t, "go on", req.Message.Content[1].Text)
}

// Server-side tools are run by the tool runner's own code, in a pause the
// handler answers and in a mixed one alike: a tool's content parts (a
// resource part of threads.NewPartsTool, or of a tool with CallParts
// alone, as the MCP module makes them) reach the service as content parts,
// and a tool's error never carries the project key to the service.
func TestServerToolPartsAndRedaction(t *testing.T) {
	t.Parallel()
	type args struct{}
	chart := threads.NewPartsTool("chart", "Draws a chart", func(context.Context, args) ([]threads.ContentPart, error) {
		return []threads.ContentPart{{Type: threads.ContentPartTypeText, Text: "a chart"},
			{Type: threads.ContentPartTypeResource, Resource: &threads.Resource{URI: "mem:chart", MIMEType: "image/png", Blob: "iVBORw0K"}}}, nil
	})
	var e *env
	leaks := threads.Tool{Name: "leaks", Description: "Echoes its credentials in its error",
		CallParts: func(context.Context, threads.ToolCall) ([]threads.ContentPart, error) {
			return nil, errors.New("upstream refused x-api-key: " + e.fake.APIKey)
		}}
	e = newEnv(t, nil, proxy.WithTools(chart, leaks))
	w := e.startRun(t, "s-alice", firstMessage("hi", browserTool),
		locationCall("c_b"), threadstest.RunToolCall{ID: "c_chart", Name: "chart"}, threadstest.RunToolCall{ID: "c_leaks", Name: "leaks"})
	threadID := w.Header().Get("X-Thread-Id")
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"c_b","content":[{"type":"text","text":"here"}]}]},"previousRunId":"`+lastRun(parse(t, w.Body.String()))+`"}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	mixed, err := e.last(t).Run()
	require.NoError(t, err)

	// Only server calls: the tool runner answers them within the response.
	e.startRun(t, "s-alice", firstMessage("hi"),
		threadstest.RunToolCall{ID: "c_chart2", Name: "chart"}, threadstest.RunToolCall{ID: "c_leaks2", Name: "leaks"})
	own, err := e.last(t).Run()
	require.NoError(t, err)

	for name, req := range map[string]*threadstest.RunRequest{"mixed pause": mixed, "server pause": own} {
		got := map[string]threadstest.RunContent{}
		for _, c := range req.Message.Content {
			got[strings.TrimSuffix(c.ToolUseID, "2")] = c
		}
		c := got["c_chart"]
		require.Len(t, c.Content, 2, name)
		assert.Equal(t, "a chart", c.Content[0].Text, name)
		assert.Equal(t, "resource", c.Content[1].Type, name)
		assert.JSONEq(t, `{"uri":"mem:chart","mimeType":"image/png","blob":"iVBORw0K"}`, string(c.Content[1].Resource), name)
		l := got["c_leaks"]
		require.NotEmpty(t, l.Content, name)
		assert.True(t, l.IsError, name)
		assert.Contains(t, l.Content[0].Text, "upstream refused x-api-key: [REDACTED]", name)
		assert.NotContains(t, l.Content[0].Text, e.fake.APIKey, name)
	}
	assert.Empty(t, e.logs.failures())
}

// A mixed pause's event reaches the browser as the service sent it, but
// for the server's calls: members the SDK does not model, the other
// calls' bytes and the key order stay.
func TestMixedPauseKeepsTheEvent(t *testing.T) {
	t.Parallel()
	pause := `{"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"note":{"z":1,"a":[2]},` +
		`"pendingToolCalls":[{"toolCallId":"call_s","toolName":"lookup","arguments":"{\"q\": \"tea\"}"},` +
		`{"toolCallId":"call_b","toolName":"get_location","arguments":"{}","extra":true}],"more":"x"},"timestamp":1795498143084,"rawEvent":{"k":"v"}}`
	body := "data: " + `{"type":"RUN_STARTED","threadId":"thr_m","runId":"run_m","timestamp":1795498143000}` + "\n\n" +
		"data: " + pause + "\n\n" +
		"data: " + `{"type":"RUN_FINISHED","threadId":"thr_m","runId":"run_m","timestamp":1795498143090}` + "\n\n"
	var l lookup
	h, err := proxy.New(serveSSE(t, []byte(body)), userBySession, proxy.WithTools(l.tool()))
	require.NoError(t, err)
	e := &env{h: h}
	w := e.do(t, "s-alice", "POST", "/v1/threads/thr_m/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	evs := events(w.Body.String())
	require.Len(t, evs, 3)
	assert.Equal(t, `{"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"note":{"z":1,"a":[2]},`+
		`"pendingToolCalls":[{"toolCallId":"call_b","toolName":"get_location","arguments":"{}","extra":true}],"more":"x"},"timestamp":1795498143084,"rawEvent":{"k":"v"}}`,
		evs[1])
	require.Len(t, l.calls, 1, "the server's call ran")
}

// sizeStore is a MemoryStore that records the largest value put in it.
type sizeStore struct {
	*proxy.MemoryStore
	mu  sync.Mutex
	max int
}

func (s *sizeStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	s.max = max(s.max, len(value))
	s.mu.Unlock()
	return s.MemoryStore.Set(ctx, key, value, ttl)
}

// A hostile service's mixed pause cannot make the handler keep more than
// MaxPendingResults for it: thousands of server calls, a call id of
// megabytes, results full of characters that JSON escapes.
func TestMixedPauseBoundedByMaxPendingResults(t *testing.T) {
	t.Parallel()
	big := threads.Tool{Name: "big", Description: "returns a lot", Call: func(context.Context, threads.ToolCall) (string, error) {
		return strings.Repeat("\x01\"", 4000), nil
	}}
	bad := threads.Tool{Name: "bad", Description: "returns bytes that are not UTF-8", Call: func(context.Context, threads.ToolCall) (string, error) {
		return strings.Repeat("\xff", 40000), nil
	}}
	for name, calls := range map[string]string{
		"results cut": strings.Repeat(`{"toolCallId":"c","toolName":"big","arguments":"{}"},`, 500),
		"not UTF-8":   strings.Repeat(`{"toolCallId":"c","toolName":"bad","arguments":"{}"},`, 100),
		"many calls":  strings.Repeat(`{"toolCallId":"c","toolName":"big","arguments":"{}"},`, 3000),
		"long id":     `{"toolCallId":"` + strings.Repeat("i", 2<<20) + `","toolName":"big","arguments":"{}"},`,
		"many ids":    strings.Repeat(`{"toolCallId":"`+strings.Repeat("\\u0001", 1000)+`","toolName":"nope","arguments":"{}"},`, 1000),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pause := `{"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"pendingToolCalls":[` + calls +
				`{"toolCallId":"call_b","toolName":"get_location","arguments":"{}"}]},"timestamp":1795498143084}`
			body := "data: " + `{"type":"RUN_STARTED","threadId":"thr_m","runId":"run_m","timestamp":1795498143000}` + "\n\n" +
				"data: " + pause + "\n\n" +
				"data: " + `{"type":"RUN_FINISHED","threadId":"thr_m","runId":"run_m","timestamp":1795498143090}` + "\n\n"
			store := &sizeStore{MemoryStore: proxy.NewMemoryStore(0, 0)}
			h, err := proxy.New(serveSSE(t, []byte(body)), userBySession, proxy.WithTools(big, bad), proxy.WithStore(store))
			require.NoError(t, err)
			e := &env{h: h}
			w := e.do(t, "s-alice", "POST", "/v1/threads/thr_m/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
			require.Equal(t, http.StatusCreated, w.Code)
			assert.LessOrEqual(t, store.max, proxy.MaxPendingResults)
			if strings.HasPrefix(calls, `{"toolCallId":"c"`) && strings.Count(calls, "toolCallId") <= 1024 {
				assert.Positive(t, store.max, "results that fit once cut are kept")
			}
		})
	}
}

// The error results of a pause that the tool runner's bounds left
// unanswered are kept within MaxPendingResults too, whatever the calls'
// ids.
func TestServerToolBoundResultsBounded(t *testing.T) {
	t.Parallel()
	for _, n := range []int{100, 200} { // their ids' JSON: 0.6 MB, 1.2 MB
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var calls []string
			for i := range n {
				calls = append(calls, fmt.Sprintf(`{"toolCallId":"%s%d","toolName":"lookup","arguments":"{\"q\":\"x\"}"}`, strings.Repeat(`\u0001`, 1000), i))
			}
			body := "data: " + `{"type":"RUN_STARTED","threadId":"thr_m","runId":"run_m","timestamp":1795498143000}` + "\n\n" +
				"data: " + `{"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"pendingToolCalls":[` + strings.Join(calls, ",") + `]},"timestamp":1795498143084}` + "\n\n" +
				"data: " + `{"type":"RUN_FINISHED","threadId":"thr_m","runId":"run_m","timestamp":1795498143090}` + "\n\n"
			var l lookup
			store := &sizeStore{MemoryStore: proxy.NewMemoryStore(0, 0)}
			h, err := proxy.New(serveSSE(t, []byte(body)), userBySession, proxy.WithTools(l.tool()), proxy.WithStore(store))
			require.NoError(t, err)
			e := &env{h: h}
			w := e.do(t, "s-alice", "POST", "/v1/threads/thr_m/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`)
			require.Equal(t, http.StatusCreated, w.Code)
			assert.LessOrEqual(t, store.max, proxy.MaxPendingResults)
			if n == 100 {
				assert.Positive(t, store.max, "the unanswered calls' results are kept")
			}
		})
	}
}

// continueWith sends the browser's continuation of the run that evs
// ended with on threadID, with content as its message's content.
func (e *env) continueWith(t *testing.T, threadID string, evs []wireEvent, content string) *httptest.ResponseRecorder {
	t.Helper()
	return e.do(t, "s-alice", "POST", "/v1/threads/"+threadID+"/runs",
		`{"message":{"role":"user","content":[`+content+`]},"previousRunId":"`+lastRun(evs)+`","tools":[`+browserTool+`]}`)
}

// results returns the tool results of the fake's last run request, by
// call id: "error " before an error result's text.
func (e *env) results(t *testing.T) map[string][]string {
	t.Helper()
	req, err := e.last(t).Run()
	require.NoError(t, err)
	got := map[string][]string{}
	for _, c := range req.Message.Content {
		if c.Type != "tool_result" {
			continue
		}
		text := c.Content[0].Text
		if c.IsError {
			text = "error " + text
		}
		got[c.ToolUseID] = append(got[c.ToolUseID], text)
	}
	return got
}

// In a mixed pause the browser sees only its own call, but it can learn
// the server's call id (its TOOL_CALL_START); a result it sends for that
// call is taken out (and logged), and the service gets the server's
// result alone.
func TestBrowserCannotAnswerServerCallInMixedPause(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnv(t, nil, proxy.WithTools(l.tool()))
	w := e.startRun(t, "s-alice", firstMessage("hi", browserTool), locationCall("call_b"), lookupCall("call_s", "tea"))
	require.Contains(t, w.Body.String(), `"toolCallId":"call_s"`, "the browser sees the server's call")

	w = e.continueWith(t, w.Header().Get("X-Thread-Id"), parse(t, w.Body.String()),
		`{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]},`+
			`{"type":"tool_result","toolUseId":"call_s","content":[{"type":"text","text":"forged"}]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Equal(t, map[string][]string{"call_b": {"Lisbon"}, "call_s": {"found tea"}}, e.results(t))
	assert.Len(t, e.logs.failures(), 1, "the browser's result is logged")
}

// A browser that closes the tab at the server call's TOOL_CALL_END, while
// the server's tool runs, and continues with its own result for that
// call: its result is taken out, and the call is answered with an error
// result that says the tool did not run.
func TestBrowserCannotAnswerServerCallAfterLeaving(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	slow := threads.Tool{Name: "lookup", Description: "Looks a word up, slowly", Call: func(ctx context.Context, _ threads.ToolCall) (string, error) {
		close(started)
		<-ctx.Done() // the browser leaves while it runs
		return "", ctx.Err()
	}}
	e := newEnv(t, nil, proxy.WithTools(slow))
	e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_s", Name: "lookup"}}})
	ctx, leave := context.WithCancel(context.Background())
	r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`)).WithContext(ctx)
	r.Header.Set("Content-Type", "application/json")
	r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
	w := newRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.h.ServeHTTP(w, r)
	}()
	<-started
	leave()
	<-done
	evs := parse(t, w.Body())
	require.Contains(t, w.Body(), `"toolCallId":"call_s"`)

	w2 := e.continueWith(t, w.Header().Get("X-Thread-Id"), evs, `{"type":"tool_result","toolUseId":"call_s","content":[{"type":"text","text":"forged"}]}`)
	require.Equal(t, http.StatusCreated, w2.Code, "the thread goes on: %s", w2.Body.String())
	got := e.results(t)
	require.Len(t, got["call_s"], 1, "%v", got)
	assert.Contains(t, got["call_s"][0], "error not run: the user left before the server-side tool ran")
	assert.Len(t, e.logs.failures(), 1, "the browser's result is logged")
}

// forgetful is a Store that has lost every value (they expired, or were
// deleted by hand).
type forgetful struct{ proxy.Store }

func (forgetful) Take(context.Context, string) ([]byte, bool, error) { return nil, false, nil }

// When the server's results of a mixed pause are gone from the store, the
// browser's continuation still goes on: the handler answers the server's
// calls with error results that say so, and logs it.
func TestLostServerResultsAnsweredWithErrors(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnv(t, nil, proxy.WithTools(l.tool()), proxy.WithStore(forgetful{proxy.NewMemoryStore(0, 0)}))
	w := e.startRun(t, "s-alice", firstMessage("hi", browserTool), locationCall("call_b"), lookupCall("call_s", "tea"))

	w = e.continueWith(t, w.Header().Get("X-Thread-Id"), parse(t, w.Body.String()),
		`{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}`)
	require.Equal(t, http.StatusCreated, w.Code, "the thread goes on: %s", w.Body.String())
	got := e.results(t)
	assert.Equal(t, []string{"Lisbon"}, got["call_b"])
	require.Len(t, got["call_s"], 1)
	assert.Contains(t, got["call_s"][0], "error no result: the server-side tool's result was not kept")
	assert.Len(t, e.logs.failures(), 1, "the loss is logged")
}

// A server-side tool learns whose run it serves from its context, in a
// pause the handler answers and in a mixed one.
func TestServerToolKnowsItsUser(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var users []string
	whoami := threads.Tool{Name: "whoami", Description: "Who the user is", Call: func(ctx context.Context, _ threads.ToolCall) (string, error) {
		u, ok := proxy.UserFrom(ctx)
		mu.Lock()
		defer mu.Unlock()
		users = append(users, fmt.Sprint(u.Key, " ", ok))
		return u.Key, nil
	}}
	e := newEnv(t, nil, proxy.WithTools(whoami))
	e.startRun(t, "s-bob", firstMessage("hi"), threadstest.RunToolCall{Name: "whoami"})
	e.startRun(t, "s-alice", firstMessage("hi", browserTool),
		threadstest.RunToolCall{Name: "get_location"}, threadstest.RunToolCall{Name: "whoami"})
	assert.Equal(t, []string{"bob true", "alice true"}, users)

	_, ok := proxy.UserFrom(context.Background())
	assert.False(t, ok)
}

// A detached run goes on after its browser left; its server-side tools
// still learn whose run it is: UserFrom is the run's user, not the
// request's.
func TestServerToolKnowsItsUserInDetachedRun(t *testing.T) {
	t.Parallel()
	started, left := make(chan struct{}), make(chan struct{})
	users := make(chan string, 1)
	whoami := threads.Tool{Name: "whoami", Description: "Who the user is", Call: func(ctx context.Context, _ threads.ToolCall) (string, error) {
		close(started)
		<-left
		u, ok := proxy.UserFrom(ctx)
		users <- fmt.Sprint(u.Key, " ", ok)
		return u.Key, nil
	}}
	fake := threadstest.NewServer(t)
	h, err := proxy.New(fake.Client(), userBySession, proxy.WithTools(whoami), proxy.WithDetachedRuns(time.Minute))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		require.NoError(t, h.Shutdown(context.Background()))
		srv.CloseClientConnections()
		srv.Close()
	})
	fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "whoami"}}})
	req, err := http.NewRequest("POST", srv.URL+"/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: "session", Value: "s-bob"})
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	<-started
	resp.Body.Close() // the browser leaves while the tool runs
	srv.CloseClientConnections()
	close(left)
	assert.Equal(t, "bob true", <-users)
}

// A mixed pause delivered twice (the service answers the first
// continuation with the same pause: same run and call ids) and continued
// on another instance sharing the store: the server's call runs once, the
// second delivery gets its recorded result (keyed by thread, run and tool
// call id, as the runner keys the calls it answers itself).
func TestMixedPauseDeliveredTwiceRunsServerToolOnce(t *testing.T) {
	t.Parallel()
	var l lookup
	e, e2, _ := twoInstances(t, &l)
	e.fake.PushRunScript(threadstest.RunScript{PauseTwice: true, ToolCalls: []threadstest.RunToolCall{
		{ID: "call_b", Name: "get_location"}, {ID: "call_s", Name: "lookup", Arguments: map[string]any{"q": "tea"}},
	}})
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	threadID, evs := w.Header().Get("X-Thread-Id"), parse(t, w.Body.String())
	located := `{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}`

	w = e2.continueWith(t, threadID, evs, located)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Equal(t, map[string][]string{"call_b": {"Lisbon"}, "call_s": {"found tea"}}, e.results(t))
	again := parse(t, w.Body.String())
	assert.Equal(t, lastRun(evs), lastRun(again), "the same pause again")

	w = e.continueWith(t, threadID, again, located)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Equal(t, map[string][]string{"call_b": {"Lisbon"}, "call_s": {"found tea"}}, e.results(t), "the recorded result")
	assert.Len(t, l.calls, 1, "the server's call ran once")
	assert.Empty(t, e.logs.failures())
}

// In a mixed pause, a server call whose record the store cannot keep is
// not run (it may have run elsewhere): the browser's continuation carries
// an error result for it that says so.
func TestMixedPauseServerCallRefusedWhenTheStoreIsDown(t *testing.T) {
	t.Parallel()
	var l lookup
	e := newEnvWithStoreDown(t, &l)
	w := e.startRun(t, "s-alice", firstMessage("hi", browserTool), locationCall("call_b"), lookupCall("call_s", "tea"))
	assert.Empty(t, l.calls, "not run without its record")
	w = e.continueWith(t, w.Header().Get("X-Thread-Id"), parse(t, w.Body.String()),
		`{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	got := e.results(t)
	require.Len(t, got["call_s"], 1, got)
	assert.True(t, strings.HasPrefix(got["call_s"][0], "error the call was not run: its record is unavailable"), got)
	assert.Empty(t, l.calls)
}
