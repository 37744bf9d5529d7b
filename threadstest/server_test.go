package threadstest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// Many clients at once, each doing what a user's test may do: leave a
// run, read it at once, cancel a held run from another connection, patch
// a component while its run streams, read the request log; on the spec
// routes, cancel a held stream and read the thread. Under -race no
// handler, nor the run player, may change what another encodes.
func TestManyClientsAtOnce(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	var wg sync.WaitGroup
	var start sync.Mutex // a request takes the script pushed before it
	for i := range 6 {
		wg.Go(func() { manyClientsRound(t, srv, &start, i) })
	}
	wg.Go(func() {
		for range 20 {
			for _, r := range srv.Requests() {
				_ = r.Query.Get("userKey")
			}
		}
	})
	wg.Wait()
}

// manyClientsRound is one client's part; start is held from a script's
// push until its request has taken it (the answer's headers are sent
// after), as scripts are one queue for all.
func manyClientsRound(t *testing.T, srv *threadstest.Server, start *sync.Mutex, i int) {
	ctx := context.Background()
	u := runs.New(srv.Client()).ForUser(fmt.Sprint("user-", i))
	other := runs.New(srv.Client()).ForUser(fmt.Sprint("user-", i))
	hold := make(chan struct{})
	defer close(hold)
	held := make(chan struct{})
	start.Lock()
	srv.PushRunScript(threadstest.RunScript{Text: "a b c d e f g h", Hold: hold, HoldAfter: 3, OnHold: func() { close(held) }})
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	start.Unlock()
	require.NoError(t, err)
	defer s.Close()
	<-held

	// Read while held, cancel from another connection, read at once.
	var rd sync.WaitGroup
	rd.Go(func() {
		th, err := u.GetThread(ctx, s.ThreadID())
		if assert.NoError(t, err) && assert.Len(t, th.Messages, 2) {
			_, err = u.GetMessage(ctx, s.ThreadID(), th.Messages[1].ID)
			assert.NoError(t, err)
		}
		_, err = u.ListThreads(ctx, nil)
		assert.NoError(t, err)
	})
	require.NoError(t, other.Cancel(ctx, s.ThreadID(), s.RunID()))
	_, err = u.ListMessages(ctx, s.ThreadID(), nil)
	assert.NoError(t, err)
	_, err = s.Collect()
	assert.NoError(t, err)
	rd.Wait()

	// A component run, patched (409 while it streams, then applied) and
	// read while the next run is left at its first delta.
	th, err := u.GetThread(ctx, s.ThreadID())
	require.NoError(t, err)
	start.Lock()
	srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "Card", Props: map[string]any{"title": "hello there"}}})
	s, err = u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: th.LastCompletedRunID, Content: []runs.Content{runs.Text("card")}})
	start.Unlock()
	require.NoError(t, err)
	var compID string
	for ev, err := range s.All() {
		require.NoError(t, err)
		if c, ok := ev.(runs.ComponentStart); ok {
			compID = c.ComponentID
			_, _ = u.PatchComponentState(ctx, th.ID, compID, []runs.PatchOp{{Op: "add", Path: "/n", Value: i}})
		}
	}
	start.Lock()
	s, err = u.Run(ctx, th.ID, runs.RunParams{PreviousRunID: s.RunID(), Content: []runs.Content{runs.Text("one two three four five")}})
	start.Unlock()
	require.NoError(t, err)
	for ev := range s.All() {
		if _, ok := ev.(runs.TextMessageContent); ok {
			break
		}
	}
	var rp sync.WaitGroup
	rp.Go(func() {
		_, err := u.SetComponentState(ctx, th.ID, compID, map[string]any{"n": i})
		_ = err // 409 while the left run winds down, else applied
	})
	_, err = u.GetThread(ctx, th.ID)
	assert.NoError(t, err)
	rp.Wait()

	// The spec routes: a held stream cancelled, the thread read.
	c := srv.Client()
	specHold, specHeld := make(chan struct{}), make(chan struct{})
	start.Lock()
	srv.PushScript(threadstest.Script{Hold: specHold, HoldAfter: 2, OnHold: func() { close(specHeld) }})
	st, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("one two three")})
	start.Unlock()
	require.NoError(t, err)
	defer st.Close()
	require.True(t, st.Next(), "%v", st.Err())
	thrID := st.Current().Message.ThreadID
	<-specHeld
	var sp sync.WaitGroup
	sp.Go(func() {
		_, err := c.Threads.Get(ctx, thrID)
		assert.NoError(t, err)
	})
	_, err = c.Threads.Cancel(ctx, thrID)
	assert.NoError(t, err)
	close(specHold)
	_, _ = st.Collect()
	sp.Wait()
}
