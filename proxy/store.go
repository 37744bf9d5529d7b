package proxy

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Store is the state that a [Handler]'s instances share: one interface
// for everything the proxy keeps between requests, so that a backend
// implements it once. The Handler keeps there the server-side tools'
// results waiting for the browser (a value taken once), each user's run
// slots (leases), run logs (an append-only log), run owners (leases) and
// once-only records (a value set only if absent).
//
// [NewMemoryStore] is the default, for one instance; the module
// github.com/threadsapi/threads-go/proxy/redisstore keeps it on Redis for
// several. A backend's own store (PostgreSQL, another client) proves
// itself with package proxy/storetest, which the two above pass. How keys
// are built and scoped: the package doc's "The shared store".
//
// Every method must be safe for concurrent use, from one process or many.
// A ttl is at least a millisecond; an error is returned for a store that
// cannot answer (the Handler's policy for each use is on [WithStore]).
type Store interface {
	// Set stores value under key until ttl has passed, replacing what
	// key held.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// SetNX stores value under key until ttl has passed only if key
	// holds nothing (or what it held has expired), and reports whether it
	// stored it: of several concurrent calls for one key, one gets true.
	SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// Get returns key's value and true, or false when there is none.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Take returns key's value and deletes it in one step: of several
	// concurrent calls for one value, exactly one gets it.
	Take(ctx context.Context, key string) ([]byte, bool, error)
	// Delete removes what key holds, a value, a lease or a log; a key
	// that holds nothing is not an error.
	Delete(ctx context.Context, key string) error

	// Lease gives holder the lease key until ttl has passed, if it is
	// free (never taken, released or lapsed) or already holder's (then it
	// is renewed), and reports whether holder holds it now; false when
	// another holder does.
	Lease(ctx context.Context, key, holder string, ttl time.Duration) (bool, error)
	// Release ends holder's lease key; nothing happens when another
	// holder has it or when it is free.
	Release(ctx context.Context, key, holder string) error

	// Append adds value at the end of the log key, keeps only its
	// maxLen newest entries, sets the whole log to expire after ttl, and
	// returns the new entry's id. Ids are the store's own strings,
	// increasing within a log.
	Append(ctx context.Context, key string, value []byte, maxLen int, ttl time.Duration) (string, error)
	// ReadLog returns the log's entries after the one whose id is after
	// ("": from the start), oldest first, at most n of them. When there is
	// none yet it waits up to wait for one (0: it returns at once). whole
	// is false when it cannot give every entry after that id: the log does
	// not exist (never written or expired), entries after it were trimmed,
	// or after is not one of the store's ids.
	ReadLog(ctx context.Context, key, after string, n int, wait time.Duration) (entries []LogEntry, whole bool, err error)
}

// LogEntry is one entry of a [Store]'s log.
type LogEntry struct {
	ID    string
	Value []byte
}

// ErrStoreFull is what [MemoryStore] returns for a write that would pass
// its bound or its scope's: it never makes room by dropping what another
// scope (another user) keeps.
var ErrStoreFull = errors.New("proxy: the store is full")

// MaxPendingResults bounds one pause's server-side results as stored
// (JSON): a tool's result longer than its share is cut.
const MaxPendingResults = 1 << 20

// DefaultPendingTTL is how long a pause's server-side results wait for the
// browser's continuation ([WithPendingTTL]): a browser tool may wait for
// its user.
const DefaultPendingTTL = time.Hour

// The [MemoryStore] bounds when [NewMemoryStore] is given 0: in all, and
// for one scope (one user's pending results: eight full pauses).
const (
	DefaultMemoryStoreBytes = 64 << 20
	DefaultMemoryScopeBytes = 8 * MaxPendingResults
)

// MemoryStore is the in-memory [Store]: for a backend of one instance.
// It holds at most maxBytes of values, log entries and lease holders in
// all, and at most scopeBytes under any one scope (the part of a key
// before its last colon: one user's values of one kind, with the
// Handler's keys). A write past either bound fails with [ErrStoreFull]
// once the expired entries are gone: nothing live is dropped to make
// room. It starts no goroutine; expired entries go as writes need room.
type MemoryStore struct {
	mu                   sync.Mutex
	maxBytes, scopeBytes int
	size                 int
	byScope              map[string]int
	keys                 map[string]*memEntry
}

type memEntry struct {
	key     string
	expires time.Time
	size    int

	value  []byte // a value
	holder string // a lease

	log *memLog // a log
}

type memLog struct {
	entries []LogEntry
	next    uint64        // the next entry's id
	trimmed uint64        // the largest id trimmed (0: none)
	changed chan struct{} // closed and replaced by each Append
}

// NewMemoryStore returns an empty MemoryStore that holds at most maxBytes
// in all (0: [DefaultMemoryStoreBytes]) and scopeBytes under one scope
// (0: [DefaultMemoryScopeBytes]).
func NewMemoryStore(maxBytes, scopeBytes int) *MemoryStore {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryStoreBytes
	}
	if scopeBytes <= 0 {
		scopeBytes = DefaultMemoryScopeBytes
	}
	return &MemoryStore{maxBytes: maxBytes, scopeBytes: scopeBytes, byScope: map[string]int{}, keys: map[string]*memEntry{}}
}

func scopeOf(key string) string {
	if i := strings.LastIndexByte(key, ':'); i >= 0 {
		return key[:i]
	}
	return ""
}

// live returns key's entry if it has not expired (an expired one is
// dropped).
func (m *MemoryStore) live(key string, now time.Time) *memEntry {
	e := m.keys[key]
	if e == nil {
		return nil
	}
	if !now.Before(e.expires) {
		m.drop(e)
		return nil
	}
	return e
}

func (m *MemoryStore) drop(e *memEntry) {
	delete(m.keys, e.key)
	m.account(e.key, -e.size)
	if e.log != nil {
		close(e.log.changed) // a waiting reader finds the log gone
	}
}

func (m *MemoryStore) account(key string, n int) {
	m.size += n
	s := scopeOf(key)
	if m.byScope[s] += n; m.byScope[s] <= 0 {
		delete(m.byScope, s)
	}
}

// room reports whether n more bytes fit under key's scope and in all
// (freed bytes already released), dropping expired entries if they do
// not at first.
func (m *MemoryStore) room(key string, n int, now time.Time) bool {
	fits := func() bool { return m.size+n <= m.maxBytes && m.byScope[scopeOf(key)]+n <= m.scopeBytes }
	if fits() {
		return true
	}
	for _, e := range m.keys {
		if !now.Before(e.expires) {
			m.drop(e)
		}
	}
	return fits()
}

func ttlCheck(ttl time.Duration) error {
	if ttl < time.Millisecond {
		return errors.New("proxy: a store ttl under a millisecond")
	}
	return nil
}

// Set stores a copy of value under key until ttl has passed.
func (m *MemoryStore) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	if err := ttlCheck(ttl); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if e := m.live(key, now); e != nil {
		// Refused, the key keeps what it held (as Redis' SET does): the
		// room counted is what the new value adds to the old one's.
		if !m.room(key, len(value)-e.size, now) {
			return ErrStoreFull
		}
		m.drop(e)
	}
	return m.put(&memEntry{key: key, value: append([]byte{}, value...), size: len(value), expires: now.Add(ttl)}, now)
}

func (m *MemoryStore) put(e *memEntry, now time.Time) error {
	if !m.room(e.key, e.size, now) {
		return ErrStoreFull
	}
	m.keys[e.key] = e
	m.account(e.key, e.size)
	return nil
}

// SetNX stores a copy of value under key until ttl has passed, if key
// holds nothing live.
func (m *MemoryStore) SetNX(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if err := ttlCheck(ttl); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.live(key, now) != nil {
		return false, nil
	}
	err := m.put(&memEntry{key: key, value: append([]byte{}, value...), size: len(value), expires: now.Add(ttl)}, now)
	return err == nil, err
}

// Get returns a copy of key's value.
func (m *MemoryStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(key, time.Now())
	if e == nil || e.value == nil {
		return nil, false, nil
	}
	return append([]byte{}, e.value...), true, nil
}

// Take returns key's value and deletes it.
func (m *MemoryStore) Take(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(key, time.Now())
	if e == nil || e.value == nil {
		return nil, false, nil
	}
	m.drop(e)
	return e.value, true, nil
}

// Delete removes what key holds.
func (m *MemoryStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.keys[key]; e != nil {
		m.drop(e)
	}
	return nil
}

// Lease gives holder the lease key until ttl has passed, if it is free or
// holder's.
func (m *MemoryStore) Lease(_ context.Context, key, holder string, ttl time.Duration) (bool, error) {
	if err := ttlCheck(ttl); err != nil {
		return false, err
	}
	if holder == "" {
		return false, errors.New("proxy: a lease with an empty holder")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if e := m.live(key, now); e != nil {
		if e.log != nil || e.value != nil || e.holder != holder {
			return false, nil
		}
		e.expires = now.Add(ttl)
		return true, nil
	}
	err := m.put(&memEntry{key: key, holder: holder, size: len(holder), expires: now.Add(ttl)}, now)
	return err == nil, err
}

// Release ends holder's lease key.
func (m *MemoryStore) Release(_ context.Context, key, holder string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.live(key, time.Now()); e != nil && e.log == nil && e.value == nil && e.holder == holder {
		m.drop(e)
	}
	return nil
}

// Append adds a copy of value at the end of the log key. Its ids are
// decimal numbers from 1.
func (m *MemoryStore) Append(_ context.Context, key string, value []byte, maxLen int, ttl time.Duration) (string, error) {
	if err := ttlCheck(ttl); err != nil {
		return "", err
	}
	if maxLen < 1 {
		return "", errors.New("proxy: a log of fewer than one entry")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	e := m.live(key, now)
	switch {
	case e == nil:
		e = &memEntry{key: key, log: &memLog{next: 1, changed: make(chan struct{})}}
		if err := m.put(e, now); err != nil {
			return "", err
		}
	case e.log == nil:
		return "", errors.New("proxy: Append to a key that is not a log")
	}
	l := e.log
	// Refused, the log stays as it was: the room counted is the new
	// entry's, less the oldest ones it would push out.
	freed := 0
	for _, x := range l.entries[:max(len(l.entries)-maxLen+1, 0)] {
		freed += len(x.Value)
	}
	if !m.room(key, len(value)-freed, now) || m.keys[key] != e {
		return "", ErrStoreFull
	}
	for len(l.entries) >= maxLen {
		m.account(key, -len(l.entries[0].Value))
		e.size -= len(l.entries[0].Value)
		l.trimmed = mustID(l.entries[0].ID)
		l.entries[0] = LogEntry{}
		l.entries = l.entries[1:]
	}
	if !m.room(key, len(value), now) || m.keys[key] != e {
		return "", ErrStoreFull
	}
	id := strconv.FormatUint(l.next, 10)
	l.next++
	l.entries = append(l.entries, LogEntry{ID: id, Value: append([]byte{}, value...)})
	m.account(key, len(value))
	e.size += len(value)
	e.expires = now.Add(ttl)
	close(l.changed)
	l.changed = make(chan struct{})
	return id, nil
}

func mustID(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// ReadLog returns the log's entries after id after.
func (m *MemoryStore) ReadLog(ctx context.Context, key, after string, n int, wait time.Duration) ([]LogEntry, bool, error) {
	var from uint64
	if after != "" {
		v, err := strconv.ParseUint(after, 10, 64)
		if err != nil || strconv.FormatUint(v, 10) != after {
			return nil, false, nil // not an id this store gave
		}
		from = v
	}
	var timer <-chan time.Time
	for {
		m.mu.Lock()
		e := m.live(key, time.Now())
		if e == nil || e.log == nil || from >= e.log.next || from < e.log.trimmed {
			m.mu.Unlock()
			return nil, false, nil
		}
		l := e.log
		var out []LogEntry
		// Ids are consecutive from the first entry kept: the entry after
		// from is at from - first + 1.
		i := 0
		if len(l.entries) > 0 {
			i = int(from + 1 - mustID(l.entries[0].ID))
		}
		for ; i < len(l.entries) && len(out) < n; i++ {
			x := l.entries[i]
			out = append(out, LogEntry{ID: x.ID, Value: append([]byte{}, x.Value...)})
		}
		changed := l.changed
		m.mu.Unlock()
		if len(out) > 0 || wait <= 0 || n <= 0 {
			return out, true, nil
		}
		if timer == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-changed:
		case <-timer:
			return nil, true, nil
		case <-ctx.Done():
			return nil, true, ctx.Err()
		}
	}
}

// ExpireNow makes what key holds lapse now, as its ttl passing would: a
// hook for tests (package proxy/storetest uses it), so that they need not
// wait.
func (m *MemoryStore) ExpireNow(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.keys[key]; e != nil {
		m.drop(e)
	}
	return nil
}

// Len returns how many keys the store holds, expired ones not yet
// dropped included.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}
