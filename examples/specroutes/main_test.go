package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSpecRoutesWithEnvironment runs the example the way it runs against
// the real service: only THREADS_BASE_URL and THREADS_API_KEY set, the
// project id read from the service.
func TestSpecRoutesWithEnvironment(t *testing.T) {
	srv := threadstest.NewServer(t)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv("THREADS_PROJECT_ID", "")
	require.NoError(t, run(context.Background()))
	assert.Equal(t, 1, len(srv.ThreadIDs()))
	assert.Equal(t, 1, srv.Count("GET", "/projects"))
}

// TestSpecRoutesBuiltInFake runs it as a fresh clone does.
func TestSpecRoutesBuiltInFake(t *testing.T) {
	t.Setenv(threads.EnvBaseURL, "")
	require.NoError(t, run(context.Background()))
}
