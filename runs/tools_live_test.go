package runs_test

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

// Against a live deployment (THREADS_LIVE_TEST=1 with THREADS_BASE_URL and
// THREADS_API_KEY; THREADS_USER_KEY, default "threads-go-live"): a run
// offered a weather tool ends finished, whether the model called it or not,
// and every call it made was answered.
func TestRunToolsLive(t *testing.T) {
	if os.Getenv("THREADS_LIVE_TEST") != "1" || os.Getenv(threads.EnvBaseURL) == "" || os.Getenv(threads.EnvAPIKey) == "" {
		t.Skip("live test: set THREADS_LIVE_TEST=1, THREADS_BASE_URL and THREADS_API_KEY to run it")
	}
	user := os.Getenv("THREADS_USER_KEY")
	if user == "" {
		user = "threads-go-live"
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := threads.NewClient(threads.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	calls := 0
	ts, err := runs.New(c).ForUser(user).CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("What is the weather in Paris? Use the get_weather tool.")},
	}}, runs.ToolRunner{Tools: []threads.Tool{weatherTool(func(city string) (string, error) { calls++; return "18°C in " + city, nil })}})
	require.NoError(t, err)
	res, err := ts.Collect()
	require.NoError(t, err)
	require.Equal(t, runs.OutcomeFinished, res.Outcome)
	require.Equal(t, ts.Rounds() > 0, calls > 0)
	t.Logf("thread %s: %d rounds, %d calls: %q", ts.ThreadID(), ts.Rounds(), calls, text(res))
}
