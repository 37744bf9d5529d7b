// Package storetest is the conformance suite of [proxy.Store]: a backend
// that keeps the proxy's shared state in its own store (PostgreSQL,
// another Redis client) runs [Run] from a test, and its store then does
// what the [proxy.Handler] relies on. The proxy's [proxy.MemoryStore] and
// the Redis store (module github.com/threadsapi/threads-go/proxy/redisstore)
// pass it.
//
// The suite never sleeps to let a ttl pass: it asks the store to expire a
// key now ([Store.ExpireNow]). Its keys begin with the prefix given to
// [Run] followed by the subtest's name, so one server can serve several
// runs at once.
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/threadsapi/threads-go/proxy"
)

// Store is a [proxy.Store] under test: ExpireNow makes what key holds
// lapse now, as if its ttl had passed (a value, a lease or a log), so
// that the suite need not wait.
type Store interface {
	proxy.Store
	ExpireNow(ctx context.Context, key string) error
}

// Run runs the conformance suite as subtests of t. newStore returns the
// store for one subtest (a new one, or one shared: each subtest keeps to
// its own keys under prefix). The subtests run in parallel.
func Run(t *testing.T, prefix string, newStore func(t *testing.T) Store) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			k := func(name string) string { return prefix + c.name + ":" + name }
			c.f(t, context.Background(), s, k)
		})
	}
}

type check struct {
	name string
	f    func(t *testing.T, ctx context.Context, s Store, k func(string) string)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantValue(t *testing.T, what string, v []byte, ok bool, err error, want string) {
	t.Helper()
	must(t, err)
	if !ok || string(v) != want {
		t.Fatalf("%s: got %q, %v; want %q", what, v, ok, want)
	}
}

func wantNone(t *testing.T, what string, v []byte, ok bool, err error) {
	t.Helper()
	must(t, err)
	if ok {
		t.Fatalf("%s: got %q; want none", what, v)
	}
}

var cases = []check{
	{"SetGetDelete", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		v, ok, err := s.Get(ctx, k("a"))
		wantNone(t, "Get of a key never set", v, ok, err)
		must(t, s.Set(ctx, k("a"), []byte("one"), time.Minute))
		v, ok, err = s.Get(ctx, k("a"))
		wantValue(t, "Get after Set", v, ok, err, "one")
		v[0] = 'X'
		v, ok, err = s.Get(ctx, k("a"))
		wantValue(t, "Get after changing what an earlier Get returned", v, ok, err, "one")
		must(t, s.Set(ctx, k("a"), []byte("two"), time.Minute))
		v, ok, err = s.Get(ctx, k("a"))
		wantValue(t, "Get after a second Set", v, ok, err, "two")
		bin := []byte{0, 0xff, '\n', ':', 0x80}
		must(t, s.Set(ctx, k("bin"), bin, time.Minute))
		v, ok, err = s.Get(ctx, k("bin"))
		wantValue(t, "Get of bytes that are not UTF-8", v, ok, err, string(bin))
		must(t, s.Set(ctx, k("empty"), nil, time.Minute))
		v, ok, err = s.Get(ctx, k("empty"))
		wantValue(t, "Get of an empty value", v, ok, err, "")
		must(t, s.Delete(ctx, k("a")))
		v, ok, err = s.Get(ctx, k("a"))
		wantNone(t, "Get after Delete", v, ok, err)
		must(t, s.Delete(ctx, k("never")))
	}},
	{"SetExpires", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		must(t, s.Set(ctx, k("a"), []byte("one"), time.Minute))
		must(t, s.Set(ctx, k("b"), []byte("two"), time.Minute))
		must(t, s.ExpireNow(ctx, k("a")))
		v, ok, err := s.Get(ctx, k("a"))
		wantNone(t, "Get after its ttl", v, ok, err)
		v, ok, err = s.Take(ctx, k("a"))
		wantNone(t, "Take after its ttl", v, ok, err)
		v, ok, err = s.Get(ctx, k("b"))
		wantValue(t, "Get of another key", v, ok, err, "two")
		must(t, s.ExpireNow(ctx, k("never")))
	}},
	{"SetNX", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		ok, err := s.SetNX(ctx, k("a"), []byte("first"), time.Minute)
		must(t, err)
		if !ok {
			t.Fatal("SetNX of a free key: false")
		}
		ok, err = s.SetNX(ctx, k("a"), []byte("second"), time.Minute)
		must(t, err)
		if ok {
			t.Fatal("SetNX of a set key: true")
		}
		v, ok, err := s.Get(ctx, k("a"))
		wantValue(t, "Get after a refused SetNX", v, ok, err, "first")
		must(t, s.ExpireNow(ctx, k("a")))
		ok, err = s.SetNX(ctx, k("a"), []byte("third"), time.Minute)
		must(t, err)
		if !ok {
			t.Fatal("SetNX of an expired key: false")
		}
		v, ok, err = s.Get(ctx, k("a"))
		wantValue(t, "Get after SetNX of an expired key", v, ok, err, "third")
	}},
	{"SetNXOnceOfMany", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		won := race(t, 16, func(i int) (bool, error) {
			return s.SetNX(ctx, k("a"), []byte(strconv.Itoa(i)), time.Minute)
		})
		if len(won) != 1 {
			t.Fatalf("16 concurrent SetNX of one key: %d got true; want 1", len(won))
		}
		v, ok, err := s.Get(ctx, k("a"))
		wantValue(t, "Get after the race", v, ok, err, strconv.Itoa(won[0]))
	}},
	{"TakeOnce", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		must(t, s.Set(ctx, k("a"), []byte("results"), time.Minute))
		v, ok, err := s.Take(ctx, k("a"))
		wantValue(t, "Take", v, ok, err, "results")
		v, ok, err = s.Take(ctx, k("a"))
		wantNone(t, "a second Take", v, ok, err)
		v, ok, err = s.Get(ctx, k("a"))
		wantNone(t, "Get after Take", v, ok, err)
		v, ok, err = s.Take(ctx, k("never"))
		wantNone(t, "Take of a key never set", v, ok, err)
	}},
	{"TakeOnceOfMany", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		for round := range 5 {
			key := k("a" + strconv.Itoa(round))
			must(t, s.Set(ctx, key, []byte("results"), time.Minute))
			won := race(t, 8, func(int) (bool, error) {
				v, ok, err := s.Take(ctx, key)
				if ok && string(v) != "results" {
					return false, fmt.Errorf("a Take got %q", v)
				}
				return ok, err
			})
			if len(won) != 1 {
				t.Fatalf("8 concurrent Takes of one value: %d got it; want 1", len(won))
			}
		}
	}},
	{"Lease", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		lease := func(holder string, want bool) {
			t.Helper()
			ok, err := s.Lease(ctx, k("l"), holder, time.Minute)
			must(t, err)
			if ok != want {
				t.Fatalf("Lease for %s: %v; want %v", holder, ok, want)
			}
		}
		lease("A", true)
		lease("B", false)
		lease("A", true) // renewed
		must(t, s.Release(ctx, k("l"), "B"))
		lease("B", false) // B's release did not free A's lease
		must(t, s.Release(ctx, k("l"), "A"))
		lease("B", true)
		must(t, s.ExpireNow(ctx, k("l")))
		lease("A", true) // B's lapsed
		must(t, s.Release(ctx, k("never"), "A"))
	}},
	{"LeaseOnceOfMany", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		won := race(t, 16, func(i int) (bool, error) {
			return s.Lease(ctx, k("l"), "holder"+strconv.Itoa(i), time.Minute)
		})
		if len(won) != 1 {
			t.Fatalf("16 concurrent Leases of one key: %d got it; want 1", len(won))
		}
	}},
	{"LogReadsFromAnID", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		es, whole, err := s.ReadLog(ctx, k("log"), "", 10, 0)
		must(t, err)
		if whole || len(es) != 0 {
			t.Fatalf("ReadLog of a log never written: %d entries, whole %v; want none, false", len(es), whole)
		}
		var ids []string
		for i := range 5 {
			id, err := s.Append(ctx, k("log"), []byte("e"+strconv.Itoa(i)), 100, time.Minute)
			must(t, err)
			ids = append(ids, id)
		}
		es = readAll(t, ctx, s, k("log"), "", 10)
		wantEntries(t, "from the start", es, ids, 0, 5)
		es = readAll(t, ctx, s, k("log"), ids[1], 10)
		wantEntries(t, "after the second", es, ids, 2, 5)
		es = readAll(t, ctx, s, k("log"), "", 2)
		wantEntries(t, "at most 2", es, ids, 0, 2)
		es = readAll(t, ctx, s, k("log"), ids[4], 10)
		wantEntries(t, "after the last", es, ids, 5, 5)
		_, whole, err = s.ReadLog(ctx, k("log"), "not an id", 10, 0)
		must(t, err)
		if whole {
			t.Fatal("ReadLog after an id that is not the store's: whole")
		}
	}},
	{"LogTrimsToItsLength", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		var ids []string
		for i := range 6 {
			id, err := s.Append(ctx, k("log"), []byte("e"+strconv.Itoa(i)), 3, time.Minute)
			must(t, err)
			ids = append(ids, id)
		}
		_, whole, err := s.ReadLog(ctx, k("log"), "", 10, 0)
		must(t, err)
		if whole {
			t.Fatal("ReadLog from the start of a trimmed log: whole")
		}
		_, whole, err = s.ReadLog(ctx, k("log"), ids[1], 10, 0)
		must(t, err)
		if whole {
			t.Fatal("ReadLog after a trimmed entry's predecessor: whole")
		}
		es := readAll(t, ctx, s, k("log"), ids[2], 10)
		wantEntries(t, "after the last trimmed entry", es, ids, 3, 6)
	}},
	{"LogExpires", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		id, err := s.Append(ctx, k("log"), []byte("e"), 10, time.Minute)
		must(t, err)
		must(t, s.ExpireNow(ctx, k("log")))
		_, whole, err := s.ReadLog(ctx, k("log"), id, 10, 0)
		must(t, err)
		if whole {
			t.Fatal("ReadLog of an expired log: whole")
		}
		must(t, s.Delete(ctx, k("log")))
	}},
	{"LogWaitsForAnEntry", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		first, err := s.Append(ctx, k("log"), []byte("first"), 10, time.Minute)
		must(t, err)
		type read struct {
			es    []LogEntry
			whole bool
			err   error
		}
		got := make(chan read, 1)
		go func() {
			// Long enough never to end on a loaded machine before the
			// Append below, which is what ends it.
			es, whole, err := s.ReadLog(ctx, k("log"), first, 10, time.Minute)
			got <- read{es, whole, err}
		}()
		id, err := s.Append(ctx, k("log"), []byte("second"), 10, time.Minute)
		must(t, err)
		r := <-got
		must(t, r.err)
		if !r.whole || len(r.es) != 1 || r.es[0].ID != id || string(r.es[0].Value) != "second" {
			t.Fatalf("a waiting ReadLog: %v, whole %v; want the second entry", r.es, r.whole)
		}
		// A read with a short wait and nothing new returns, whole and empty.
		es, whole, err := s.ReadLog(ctx, k("log"), id, 10, time.Millisecond)
		must(t, err)
		if !whole || len(es) != 0 {
			t.Fatalf("ReadLog after the last entry: %d entries, whole %v", len(es), whole)
		}
	}},
	{"KindsDoNotMix", func(t *testing.T, ctx context.Context, s Store, k func(string) string) {
		must(t, s.Set(ctx, k("v"), []byte("value"), time.Minute))
		ok, err := s.Lease(ctx, k("v"), "A", time.Minute)
		if err == nil && ok {
			t.Fatal("Lease of a key holding a value: true")
		}
		v, ok, err := s.Get(ctx, k("v"))
		wantValue(t, "Get of a value after a Lease of its key", v, ok, err, "value")
	}},
}

// LogEntry is [proxy.LogEntry], for the suite's own use.
type LogEntry = proxy.LogEntry

func readAll(t *testing.T, ctx context.Context, s Store, key, after string, n int) []LogEntry {
	t.Helper()
	es, whole, err := s.ReadLog(ctx, key, after, n, 0)
	must(t, err)
	if !whole {
		t.Fatalf("ReadLog(%q): not whole", after)
	}
	return es
}

func wantEntries(t *testing.T, what string, es []LogEntry, ids []string, from, to int) {
	t.Helper()
	if len(es) != to-from {
		t.Fatalf("%s: %d entries; want %d", what, len(es), to-from)
	}
	for i, e := range es {
		want := "e" + strconv.Itoa(from+i)
		if e.ID != ids[from+i] || !bytes.Equal(e.Value, []byte(want)) {
			t.Fatalf("%s: entry %d is %s %q; want %s %q", what, i, e.ID, e.Value, ids[from+i], want)
		}
	}
}

// race runs f n times at once and returns the i of each call that got
// true.
func race(t *testing.T, n int, f func(i int) (bool, error)) []int {
	t.Helper()
	var mu sync.Mutex
	var won []int
	var errs []error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			ok, err := f(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				won = append(won, i)
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	return won
}
