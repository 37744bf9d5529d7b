package threads_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
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

// TestCancelOnCloseBoundsClose: a service that never answers the Cancel
// holds Close for the 5 s bound and no longer, even with no request
// timeout and a context without deadline; nothing is left running.
func TestCancelOnCloseBoundsClose(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, srv := setupInMemory(t, threads.WithRequestTimeout(0))
		th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
		require.NoError(t, err)
		hold := make(chan struct{})
		defer close(hold)
		srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: 1})
		s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithCancelOnClose())
		require.NoError(t, err)
		require.True(t, s.Next(), s.Err())
		stall := make(chan struct{})
		defer close(stall)
		srv.Inject(threadstest.Fault{Method: http.MethodPost, Path: "/threads/" + th.ID + "/cancel", Stall: stall, Times: -1})
		start := time.Now()
		require.NoError(t, s.Close())
		assert.Equal(t, 5*time.Second, time.Since(start), "fake time: the cancel's bound")
		assert.GreaterOrEqual(t, srv.Count(http.MethodPost, "/threads/"+th.ID+"/cancel"), 1)
	})
}
