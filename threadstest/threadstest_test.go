package threadstest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestServer(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "t"})
	require.NoError(t, err)

	srv.PushScript(threadstest.Script{Replies: []string{"one", "two"}})
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	for _, err := range s.All() {
		require.NoError(t, err)
	}
	assert.Len(t, s.Messages(), 2)

	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads/*", Status: 503})
	_, err = c.Threads.Get(ctx, th.ID)
	require.NoError(t, err, "the client retries the 503")
	assert.Equal(t, 2, srv.Count(http.MethodGet, "/threads/"+th.ID))

	reqs := srv.Requests()
	assert.Equal(t, "POST", reqs[0].Method)
	assert.JSONEq(t, fmt.Sprintf(`{"projectId":%q,"name":"t"}`, srv.ProjectID), string(reqs[0].Body))
}

func TestServerKeyHeader(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKeyHeader("x-api-key"), threadstest.WithAPIKey("k-123456"))
	// A client that sends Bearer is refused as live: 403 Forbidden resource.
	_, err := srv.Client(threads.WithAPIKeyHeader("Authorization")).Threads.Get(context.Background(), "thr_x.1")
	assert.ErrorIs(t, err, threads.ErrForbidden)
	// Server.Client sends the key in the header the server reads.
	_, err = srv.Client().Threads.List(context.Background(), nil)
	assert.NoError(t, err)
	_, err = srv.Client(threads.WithAPIKeyHeader("x-api-key")).Threads.List(context.Background(), nil)
	assert.NoError(t, err)
}

// ExampleStart runs the fake outside a test; in a test, use
// threadstest.NewServer(t), which closes the server when the test ends.
func ExampleStart() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	stream, err := client.Threads.CreateAndAdvanceStream(context.Background(),
		threads.AdvanceParams{Message: threads.UserMessage("ping")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range stream.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(ev.TextDelta)
	}
	fmt.Println()
	// Output: You said: ping
}
