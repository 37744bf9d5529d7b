package proxy_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/proxy"
)

// The memory store keeps a value until its ttl, hands out copies, and
// stays within its byte bound by dropping the oldest entries.
func TestMemoryStore(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := proxy.NewMemoryStore(10)
		require.NoError(t, m.Put(ctx, "a", []byte("aaaa"), time.Minute))
		v, ok, err := m.Get(ctx, "a")
		require.NoError(t, err)
		require.True(t, ok)
		v[0] = 'x'
		v, _, _ = m.Get(ctx, "a")
		assert.Equal(t, "aaaa", string(v), "a copy")

		require.NoError(t, m.Put(ctx, "b", []byte("bbbb"), time.Minute))
		require.NoError(t, m.Put(ctx, "c", []byte("cccc"), time.Minute)) // 12 bytes > 10: a goes
		_, ok, _ = m.Get(ctx, "a")
		assert.False(t, ok, "the oldest was dropped")
		assert.Equal(t, 2, m.Len())

		require.NoError(t, m.Put(ctx, "big", []byte(strings.Repeat("z", 11)), time.Minute))
		_, ok, _ = m.Get(ctx, "big")
		assert.False(t, ok, "larger than the bound: not kept")

		time.Sleep(time.Minute)
		_, ok, _ = m.Get(ctx, "b")
		assert.False(t, ok, "expired")
		require.NoError(t, m.Put(ctx, "d", []byte("d"), time.Minute))
		assert.Equal(t, 1, m.Len(), "expired entries are dropped as new ones come")

		require.NoError(t, m.Delete(ctx, "d"))
		require.NoError(t, m.Delete(ctx, "never"))
		assert.Equal(t, 0, m.Len())
	})
}
