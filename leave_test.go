package threads_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// slowServer streams one snapshot, then waits (an hour) before the next,
// so that a test can leave the stream in the middle.
func slowServer(t *testing.T) (*threads.Client, *threadstest.Server, *threads.Thread) {
	t.Helper()
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(testKey), threadstest.WithThrottle(time.Hour))
	c := srv.Client(threads.WithRetryWait(time.Millisecond, 2*time.Millisecond))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	return c, srv, th
}

func TestCancelOnCloseCancelsWhenClosedEarly(t *testing.T) {
	t.Parallel()
	c, srv, th := slowServer(t)
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithCancelOnClose())
	require.NoError(t, err)
	require.True(t, s.Next())
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	assert.Equal(t, 1, srv.Count(http.MethodPost, "/threads/"+th.ID+"/cancel"), "one cancel, however often Close is called")
}

func TestCancelOnCloseCancelsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	c, srv, th := slowServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithCancelOnClose())
	require.NoError(t, err)
	require.True(t, s.Next())
	cancel()
	assert.False(t, s.Next())
	require.ErrorIs(t, s.Err(), context.Canceled)
	s.Close()
	assert.Equal(t, 1, srv.Count(http.MethodPost, "/threads/"+th.ID+"/cancel"))
}

func TestCancelOnCloseLearnsCreatedThread(t *testing.T) {
	t.Parallel()
	c, srv, _ := slowServer(t)
	s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithCancelOnClose())
	require.NoError(t, err)
	require.True(t, s.Next())
	id := s.Current().Message.ThreadID
	require.NotEmpty(t, id)
	s.Close()
	assert.Equal(t, 1, srv.Count(http.MethodPost, "/threads/"+id+"/cancel"))
}

func TestCancelOnCloseNeverAfterDone(t *testing.T) {
	t.Parallel()
	c, srv := setup(t, threads.WithCancelOnClose()) // a client default works too
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	s.Close()
	assert.Equal(t, 0, srv.Count(http.MethodPost, "/threads/"+th.ID+"/cancel"))
}

func TestWithoutCancelOnCloseLeavingSendsNothing(t *testing.T) {
	t.Parallel()
	c, srv, th := slowServer(t)
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	require.True(t, s.Next())
	s.Close()
	assert.Equal(t, 0, srv.Count(http.MethodPost, "/threads/"+th.ID+"/cancel"))
}
