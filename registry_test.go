package threads_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
)

// Issue 31, capture 30: the live service answers an unknown registry name
// with 500 Internal server error. That 500 is the route's answer, not a
// passing fault: it reaches the caller as ErrServer at once, as the doc
// says, instead of after the retries (~1 s on live; 3 requests here
// before).
func TestRegistryGetUnknownNameCapture30(t *testing.T) {
	t.Parallel()
	c, n := serveTurn4(t, "30")
	_, err := c.Registry.Get(context.Background(), "no-such-component")
	require.ErrorIs(t, err, threads.ErrServer)
	assert.EqualValues(t, 1, n.Load(), "requests")
}

func TestRegistryGet(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	item, err := c.Registry.Get(context.Background(), "message-thread-full")
	require.NoError(t, err)
	assert.Equal(t, "message-thread-full", item["name"])
	_, err = c.Registry.Get(context.Background(), "nope")
	require.ErrorIs(t, err, threads.ErrNotFound)
}
