package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

// hostileRunID is a run id as a hostile service may send it in
// RUN_STARTED: a terminal escape and the API key.
const hostileRunID = "run_\u001b]0;pwned\u0007" + testKey

// TestToolStreamErrorsHideServerSecrets: the runner's bound errors
// (ToolRepeatError, ToolRoundsError) show the run id and hold the pending
// calls as the service sent them; neither Error() nor any fmt verb of the
// error may show the API key or a terminal escape the service put there
// (the design's rule for every fmt rendering of an SDK value).
func TestToolStreamErrorsHideServerSecrets(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(201)
		fmt.Fprintf(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thr_1\",\"runId\":%s,\"timestamp\":1}\n\n", jsonString(hostileRunID))
		args := `{"city":"` + testKey + `"}`
		if r.URL.Query().Get("x") == "" && strings.Contains(r.URL.Path, "rounds") {
			args = `{"city":"` + testKey + strconv.Itoa(int(i)) + `"}`
		}
		for _, e := range pause("call_"+strconv.Itoa(int(i)), "get_weather", args) {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
		fmt.Fprint(w, "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"thr_1\",\"timestamp\":2}\n\n")
	}))
	t.Cleanup(srv.Close)
	c := client(t, srv.URL)
	tool := weatherTool(func(string) (string, error) { return "sunny", nil })

	for _, tc := range []struct {
		name   string
		thread string
		r      runs.ToolRunner
	}{
		{"repeat", "thr_repeat", runs.ToolRunner{Tools: []threads.Tool{tool}, MaxRepeats: 2, MaxRounds: 5}},
		{"rounds", "thr_rounds", runs.ToolRunner{Tools: []threads.Tool{tool}, MaxRepeats: -1, MaxRounds: 1}},
	} {
		ts, err := c.RunTools(context.Background(), tc.thread, runs.RunParams{Content: []runs.Content{runs.Text("hi")}}, tc.r)
		require.NoError(t, err, tc.name)
		_, err = ts.Collect()
		require.Error(t, err, tc.name)
		var rep *runs.ToolRepeatError
		var rounds *threads.ToolRoundsError
		require.True(t, errors.As(err, &rep) || errors.As(err, &rounds), "%s: %v", tc.name, err)
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			s := fmt.Sprintf(verb, err)
			assert.NotContains(t, s, testKey, "%s: %s", tc.name, verb)
			assert.NotContains(t, s, "\x1b", "%s: %s", tc.name, verb)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A ToolArgumentsError shows the run id and the last arguments error as
// the model read it: server text that may hold the API key and escape
// sequences, shown by no fmt verb.
func TestToolArgumentsErrorHidesServerSecrets(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(201)
		fmt.Fprintf(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thr_1\",\"runId\":%s,\"timestamp\":1}\n\n", jsonString(hostileRunID))
		if i == 1 {
			for _, e := range pause("call_1", "get_weather", `{"city":"`+testKey+`\u001b]0;x\u0007","extra":"`+testKey+`"}`) {
				fmt.Fprintf(w, "data: %s\n\n", e)
			}
		}
		fmt.Fprintf(w, "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"thr_1\",\"runId\":%s,\"timestamp\":2}\n\n", jsonString(hostileRunID))
	}))
	t.Cleanup(srv.Close)
	ts, err := client(t, srv.URL).RunTools(context.Background(), "thr_1", runs.RunParams{Content: []runs.Content{runs.Text("hi")}},
		runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(string) (string, error) { return "sunny", nil })}})
	require.NoError(t, err)
	_, err = ts.Collect()
	var ae *runs.ToolArgumentsError
	require.ErrorAs(t, err, &ae)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		for _, v := range []any{err, *ae} {
			s := fmt.Sprintf(verb, v)
			assert.NotContains(t, s, testKey, verb)
			assert.NotContains(t, s, "\x1b", verb)
		}
	}
	assert.Contains(t, err.Error(), `there is no parameter "extra"`)
}
