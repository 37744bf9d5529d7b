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
