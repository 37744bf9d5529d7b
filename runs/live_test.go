package runs_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

// The live tests of /v1 run against the deployment named by the
// environment when THREADS_LIVE_TEST=1 and THREADS_BASE_URL and
// THREADS_API_KEY are set (the key always travels in x-api-key on /v1);
// otherwise they are skipped, so the suite stays offline. THREADS_USER_KEY
// chooses the end user (default "threads-go-live-test"). They assert only
// what holds whatever the model answers.
//
// `go run ./cmd/threads fake --live-habits` serves the same routes, so
// the tests can be tried against it first.
func liveUser(t *testing.T) (*runs.Client, context.Context) {
	t.Helper()
	if os.Getenv("THREADS_LIVE_TEST") != "1" {
		t.Skipf("live test: set THREADS_LIVE_TEST=1 and %s, %s to run it", threads.EnvBaseURL, threads.EnvAPIKey)
	}
	for _, name := range []string{threads.EnvBaseURL, threads.EnvAPIKey} {
		if os.Getenv(name) == "" {
			t.Skipf("live test: %s is not set", name)
		}
	}
	// Its own transport, so the idle connections can be closed when the test
	// ends (goleak would count their goroutines).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := threads.NewClient(threads.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	key := os.Getenv("THREADS_USER_KEY")
	if key == "" {
		key = "threads-go-live-test"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return runs.New(c).ForUser(key), ctx
}

// liveCleanup deletes the thread when the test ends (allowed even while a
// run streams).
func liveCleanup(t *testing.T, u *runs.Client, threadID string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = u.DeleteThread(ctx, threadID)
	})
}

// A run that creates its thread, the thread and its messages after it, the
// previousRunId rule, and a second run.
func TestLiveV1RunAndMessages(t *testing.T) {
	u, ctx := liveUser(t)
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{
		RunParams:      runs.RunParams{Content: []runs.Content{runs.Text("Say hello in a few words.")}},
		ThreadMetadata: map[string]any{"test": "threads-go live"},
	})
	require.NoError(t, err)
	require.NotEmpty(t, s.ThreadID(), "X-Thread-Id")
	require.NotEmpty(t, s.RunID(), "X-Run-Id")
	liveCleanup(t, u, s.ThreadID())
	res, err := s.Collect()
	require.NoError(t, err)
	require.Equal(t, runs.OutcomeFinished, res.Outcome)
	require.NotEmpty(t, res.Messages)
	assert.NotEmpty(t, res.Messages[len(res.Messages)-1].Text())

	th, err := u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	assert.Equal(t, runs.RunStatusIdle, th.RunStatus)
	assert.Equal(t, s.RunID(), th.LastCompletedRunID)
	assert.Equal(t, "threads-go live", th.Metadata["test"])
	require.GreaterOrEqual(t, len(th.Messages), 2)
	assert.Equal(t, "Say hello in a few words.", th.Messages[0].Text())
	assert.Equal(t, res.Messages[len(res.Messages)-1].ID, th.Messages[len(th.Messages)-1].ID, "the streamed message id is the stored one")

	_, err = u.Run(ctx, s.ThreadID(), runs.RunParams{Content: []runs.Content{runs.Text("And again?")}})
	assert.ErrorIs(t, err, runs.ErrInvalidPreviousRun)

	s, err = u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: th.LastCompletedRunID, Content: []runs.Content{runs.Text("And again?")}})
	require.NoError(t, err)
	res, err = s.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeFinished, res.Outcome)

	n := 0
	for m, err := range u.AllMessages(ctx, th.ID, &runs.ListMessagesParams{Limit: 1}) {
		require.NoError(t, err)
		assert.NotEmpty(t, m.ID)
		n++
	}
	assert.GreaterOrEqual(t, n, 4, "two user messages and two replies")

	found := false
	for item, err := range u.AllThreads(ctx, &runs.ListThreadsParams{Limit: 20}) {
		require.NoError(t, err)
		if item.ID == th.ID {
			found = true
			break
		}
	}
	assert.True(t, found, "the thread is listed for its user")
}

// A client tool round trip, when the model calls the tool (whether it does
// is the model's choice: the test says so and stops when it does not).
func TestLiveV1ToolRoundTrip(t *testing.T) {
	u, ctx := liveUser(t)
	tools := []runs.ToolDefinition{{Name: "get_weather", Description: "Get the current weather for a city. Always use it for weather questions.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}}
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("What is the weather in Paris? Use the get_weather tool.")}, ToolDefinitions: tools}})
	require.NoError(t, err)
	liveCleanup(t, u, s.ThreadID())
	res, err := s.Collect()
	require.NoError(t, err)
	if res.Outcome != runs.OutcomeAwaitingTools {
		t.Skipf("the model answered without calling the tool (outcome %v)", res.Outcome)
	}
	require.NotEmpty(t, res.PendingToolCalls)
	th, err := u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	assert.Len(t, th.PendingToolCallIDs, len(res.PendingToolCalls))

	_, err = u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: res.RunID, ToolDefinitions: tools, Content: []runs.Content{runs.Text("never mind")}})
	assert.ErrorIs(t, err, runs.ErrInvalidToolResult)

	var results []runs.Content
	for _, c := range res.PendingToolCalls {
		assert.Equal(t, "get_weather", c.ToolName)
		results = append(results, runs.ToolResult(c.ToolCallID, "18°C and cloudy"))
	}
	s, err = u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: res.RunID, ToolDefinitions: tools, Content: results})
	require.NoError(t, err)
	res, err = s.Collect()
	require.NoError(t, err)
	assert.Contains(t, []runs.Outcome{runs.OutcomeFinished, runs.OutcomeAwaitingTools}, res.Outcome)
}

// While a run streams, a second one is refused with 409; Cancel ends the
// first (reported cancelled whichever event the service ends it with) and
// a second cancel finds no run.
func TestLiveV1ConcurrentAndCancel(t *testing.T) {
	u, ctx := liveUser(t)
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Tell me a long story, at least 500 words, about the sea.")}}})
	require.NoError(t, err)
	defer s.Close()
	liveCleanup(t, u, s.ThreadID())
	require.True(t, s.Next(), "%v", s.Err())
	_, ok := s.Current().(runs.RunStarted)
	require.True(t, ok, "the first event is RUN_STARTED: %#v", s.Current())

	_, err = u.Run(ctx, s.ThreadID(), runs.RunParams{Content: []runs.Content{runs.Text("hello?")}})
	var p *threads.Problem
	if errors.As(err, &p) && p.Status == http.StatusConflict {
		assert.ErrorIs(t, err, runs.ErrRunActive)
	} else {
		t.Logf("the second run was not refused with 409 (the first may have ended already): %v", err)
	}

	require.NoError(t, s.Cancel(ctx))
	res, err := s.Collect()
	require.NoError(t, err)
	if res.Outcome != runs.OutcomeCancelled {
		t.Logf("the run ended %v before the cancel reached it", res.Outcome)
		return
	}
	th, err := u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	assert.True(t, th.LastRunCancelled)
	assert.Equal(t, s.RunID(), th.LastCompletedRunID)
	err = u.Cancel(ctx, s.ThreadID(), s.RunID())
	assert.ErrorIs(t, err, threads.ErrNotFound, "a run that has ended cannot be cancelled")
}

// Against a live deployment (see liveUser): a run offered a weather tool
// ends finished, whether the model called it or not, and every call it
// made was answered.
func TestRunToolsLive(t *testing.T) {
	u, ctx := liveUser(t)
	calls := 0
	ts, err := u.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("What is the weather in Paris? Use the get_weather tool.")},
	}}, runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(city string) (string, error) { calls++; return "18°C in " + city, nil })}})
	require.NoError(t, err)
	liveCleanup(t, u, ts.ThreadID())
	res, err := ts.Collect()
	require.NoError(t, err)
	require.Equal(t, runs.OutcomeFinished, res.Outcome)
	require.Equal(t, ts.Rounds() > 0, calls > 0)
	t.Logf("thread %s: %d rounds, %d calls: %q", ts.ThreadID(), ts.Rounds(), calls, text(res))
}
