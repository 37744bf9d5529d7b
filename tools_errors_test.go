package threads_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// RunStream's own mistakes name RunStream, not the AdvanceStream it is
// built on, and a nil context is an error, not a panic; nothing is sent.
func TestRunStreamErrorsNameRunStream(t *testing.T) {
	t.Parallel()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey("sk_tools_errors_key"))
	require.NoError(t, err)
	p := threads.AdvanceParams{Message: threads.UserMessage("hi")}

	_, err = c.Threads.RunStream(context.Background(), "", p, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RunStream")
	assert.NotContains(t, err.Error(), "AdvanceStream")

	p.InitialMessages = []threads.MessageRequest{threads.UserMessage("earlier")}
	_, err = c.Threads.RunStream(context.Background(), "thr_1", p, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RunStream:")

	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err = c.Threads.RunStream(nil, "thr_1", threads.AdvanceParams{Message: threads.UserMessage("hi")}, nil) //nolint:staticcheck
	assert.ErrorContains(t, err, "nil context")
}

// A nil context given to a tool run is an error naming it, never a panic,
// and nothing reaches the server, for RunStream and CreateAndRunStream
// alike, also on a zero ThreadsService (issue 21, item 11: RunStream(nil,
// …) panicked).
func TestRunStreamNilContextSendsNothing(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	tool := threads.NewTool("echo", "echoes", func(_ context.Context, args struct{ Text string }) (string, error) { return args.Text, nil })
	p := threads.AdvanceParams{Message: threads.UserMessage("hi")}
	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err := c.Threads.RunStream(nil, "thr_1.a", p, []threads.Tool{tool}) //nolint:staticcheck
	assert.ErrorContains(t, err, "nil context")
	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err = c.Threads.CreateAndRunStream(nil, p, []threads.Tool{tool}) //nolint:staticcheck
	assert.ErrorContains(t, err, "nil context")
	assert.Empty(t, srv.Requests())

	var zero threads.ThreadsService
	//lint:ignore SA1012 a nil context must be refused, not panic
	_, err = zero.RunStream(nil, "thr_1.a", p, []threads.Tool{tool}) //nolint:staticcheck
	assert.Error(t, err)
}
