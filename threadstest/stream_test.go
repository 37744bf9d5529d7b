package threadstest_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestScriptOnHold: OnHold tells a test, once, that the reply has reached
// its hold: the HoldAfter snapshots were written and the thread is
// generating, while the rest waits for Hold. Without Hold it is not
// called.
func TestScriptOnHold(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		c := srv.Client()
		ctx := context.Background()
		hold, held := make(chan struct{}), make(chan struct{})
		var calls atomic.Int32
		srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: 2, OnHold: func() {
			if calls.Add(1) == 1 {
				close(held)
			}
		}})
		s, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("a b c")})
		require.NoError(t, err)
		defer s.Close()
		require.True(t, s.Next(), "the placeholder")
		require.True(t, s.Next(), "the second snapshot, before the hold")
		<-held // the in-memory transport's writes wait for the reader
		th, err := c.Threads.Get(ctx, s.Current().Message.ThreadID)
		require.NoError(t, err)
		assert.Equal(t, threads.GenerationStage("STREAMING_RESPONSE"), th.GenerationStage)
		synctest.Wait()
		assert.Equal(t, int32(1), calls.Load(), "called once")

		close(hold)
		msgs, err := s.Collect()
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		assert.Equal(t, "You said: a b c", msgs[0].Text())
		synctest.Wait() // the handler has returned
		assert.Equal(t, int32(1), calls.Load(), "called once")

		srv.PushScript(threadstest.Script{HoldAfter: 1, OnHold: func() { calls.Add(1) }})
		s2, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("again")})
		require.NoError(t, err)
		_, err = s2.Collect()
		require.NoError(t, err)
		synctest.Wait()
		assert.Equal(t, int32(1), calls.Load(), "no Hold: OnHold not called")
	})
}
