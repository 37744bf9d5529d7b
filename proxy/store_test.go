package proxy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/proxy/storetest"
)

// The memory store passes the store conformance suite.
func TestMemoryStoreConforms(t *testing.T) {
	t.Parallel()
	storetest.Run(t, "test:", func(*testing.T) storetest.Store { return proxy.NewMemoryStore(0, 0) })
}

// One scope (one user's keys) filling its share is refused a new value,
// and never makes room by dropping another scope's: the other user's
// value is still there, and she can still write.
func TestMemoryStoreScopeFullKeepsOtherScopes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := proxy.NewMemoryStore(100, 30)
	require.NoError(t, m.Set(ctx, "p:her:1", []byte("0123456789"), time.Minute))
	for i := range 3 {
		require.NoError(t, m.Set(ctx, "p:him:"+string(rune('a'+i)), []byte("0123456789"), time.Minute))
	}
	err := m.Set(ctx, "p:him:d", []byte("0123456789"), time.Minute)
	assert.ErrorIs(t, err, proxy.ErrStoreFull)
	v, ok, err := m.Get(ctx, "p:her:1")
	require.NoError(t, err)
	assert.True(t, ok, "another scope's value stays")
	assert.Equal(t, "0123456789", string(v))
	assert.NoError(t, m.Set(ctx, "p:her:2", []byte("0123456789"), time.Minute), "another scope still has room")

	// Expired values make room for their own scope.
	require.NoError(t, m.ExpireNow(ctx, "p:him:a"))
	assert.NoError(t, m.Set(ctx, "p:him:d", []byte("0123456789"), time.Minute))
}

// The whole store full is refused too, without dropping a live value.
func TestMemoryStoreFullDropsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := proxy.NewMemoryStore(25, 20)
	require.NoError(t, m.Set(ctx, "a:1", []byte(strings.Repeat("a", 20)), time.Minute))
	err := m.Set(ctx, "b:1", []byte(strings.Repeat("b", 10)), time.Minute)
	assert.True(t, errors.Is(err, proxy.ErrStoreFull))
	_, ok, _ := m.Get(ctx, "a:1")
	assert.True(t, ok)
	_, err = m.Append(ctx, "c:log", []byte(strings.Repeat("c", 10)), 5, time.Minute)
	assert.ErrorIs(t, err, proxy.ErrStoreFull)
	assert.Equal(t, 1, m.Len())
}

// FuzzMemoryLogAfter: whatever id a page sends as Last-Event-ID, the
// memory store's log read neither panics nor returns an entry at or
// before the id it was given, and an id it never gave reads as not whole.
func FuzzMemoryLogAfter(f *testing.F) {
	for _, s := range []string{"", "0", "1", "3", "4", "99", "-1", "+2", "1-0", "18446744073709551615", "18446744073709551616", " 2", "2\n"} {
		f.Add(s)
	}
	m := proxy.NewMemoryStore(0, 0)
	ctx := context.Background()
	var ids []string
	for range 3 {
		id, err := m.Append(ctx, "fuzz:log", []byte("e"), 2, time.Hour) // the first is trimmed
		if err != nil {
			f.Fatal(err)
		}
		ids = append(ids, id)
	}
	f.Fuzz(func(t *testing.T, after string) {
		es, whole, err := m.ReadLog(ctx, "fuzz:log", after, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		known := after == ids[0] || after == ids[1] || after == ids[2]
		if whole && !known {
			t.Fatalf("after %q (not an id the log gave past its trim): whole", after)
		}
		for _, e := range es {
			if e.ID == after || (after == ids[2]) {
				t.Fatalf("after %q: got entry %s", after, e.ID)
			}
		}
	})
}

// A Set refused for want of room leaves the key's value as it was, as
// Redis' SET does: a renewal or a rewrite that no longer fits does not
// delete what the key held (a decision's claim, a pause's results).
func TestMemoryStoreRefusedSetKeepsTheOldValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := proxy.NewMemoryStore(0, 30)
	require.NoError(t, m.Set(ctx, "p:her:claim", []byte("running"), time.Minute))
	require.NoError(t, m.Set(ctx, "p:her:other", []byte(strings.Repeat("x", 20)), time.Minute))
	err := m.Set(ctx, "p:her:claim", []byte(strings.Repeat("y", 20)), time.Minute)
	assert.ErrorIs(t, err, proxy.ErrStoreFull)
	v, ok, err := m.Get(ctx, "p:her:claim")
	require.NoError(t, err)
	assert.True(t, ok, "the refused Set left the old value")
	assert.Equal(t, "running", string(v))
	assert.NoError(t, m.Set(ctx, "p:her:claim", []byte("done"), time.Minute), "a value that fits in the room the old one leaves")
}

// An Append refused for want of room leaves the log as it was: the
// oldest entry that the new one would have pushed out is still there, and
// a reader from before it still gets every entry.
func TestMemoryStoreRefusedAppendKeepsTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := proxy.NewMemoryStore(0, 30)
	for _, v := range []string{"aaaaa", "bbbbb"} {
		_, err := m.Append(ctx, "p:her:log", []byte(v), 2, time.Minute)
		require.NoError(t, err)
	}
	_, err := m.Append(ctx, "p:her:log", []byte(strings.Repeat("c", 30)), 2, time.Minute)
	assert.ErrorIs(t, err, proxy.ErrStoreFull)
	es, whole, err := m.ReadLog(ctx, "p:her:log", "", 10, 0)
	require.NoError(t, err)
	assert.True(t, whole, "nothing was trimmed")
	require.Len(t, es, 2)
	assert.Equal(t, "aaaaa", string(es[0].Value))
}
