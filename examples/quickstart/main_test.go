package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestQuickstartWithEnvironment runs the quickstart the way it runs against
// the real service: only THREADS_BASE_URL and THREADS_API_KEY set. It makes
// one thread for THREADS_USER_KEY, and every call sends the key in
// x-api-key (the /v1 header) and the user key.
func TestQuickstartWithEnvironment(t *testing.T) {
	srv := threadstest.NewServer(t, threadstest.WithLiveHabits())
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv("THREADS_USER_KEY", "quickstart-user")
	require.NoError(t, run(context.Background()))
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	runPosts := 0
	for _, rq := range reqs {
		assert.Equal(t, srv.APIKey, rq.Header.Get("X-Api-Key"), "%s %s", rq.Method, rq.Path)
		if rq.Method == "POST" && strings.HasSuffix(rq.Path, "/runs") {
			runPosts++
		}
	}
	assert.Equal(t, 2, runPosts, "two runs")
	page, err := runs.New(srv.Client()).ForUser("quickstart-user").ListThreads(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "one thread, the user's")
	th, err := runs.New(srv.Client()).ForUser("quickstart-user").GetThread(context.Background(), page.Items[0].ID)
	require.NoError(t, err)
	assert.Len(t, th.Messages, 4)
}

// TestQuickstartBuiltInFake runs it as a fresh clone does.
func TestQuickstartBuiltInFake(t *testing.T) {
	t.Setenv(threads.EnvBaseURL, "")
	require.NoError(t, run(context.Background()))
}
