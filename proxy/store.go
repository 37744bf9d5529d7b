package proxy

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// PendingStore keeps the results of server-side tools that wait for the
// browser: when a run pauses for both browser tools and server tools, the
// [Handler] runs its own at once and keeps their results here until the
// browser continues the run with its own (the service takes every result
// of a pause in one message). An entry is written once, read when the
// browser's continuation arrives, and deleted once that continuation has
// started; it may be dropped after its ttl.
//
// Keys are opaque strings derived from the end user, the thread and the
// paused run (a hash: no user key or id in clear); values are JSON (the
// tool_result parts), at most [MaxPendingResults] bytes. A backend that
// runs several instances behind a load balancer gives them one shared
// store (Redis' SET with EX, GET and DEL are enough), since the browser's
// continuation may reach another instance than the pause did; one instance
// may keep the default, [NewMemoryStore].
//
// Implementations must be safe for concurrent use. An error fails the
// request at hand: the pause's browser events are still sent, but its
// continuation cannot carry the server's results and the service will
// refuse it (missing tool results).
type PendingStore interface {
	// Put stores value under key, replacing what key held, until ttl has
	// passed.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value and true, or false when there is none (never
	// stored, deleted or expired).
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Delete removes key's value; a key that holds none is not an error.
	Delete(ctx context.Context, key string) error
}

// MaxPendingResults bounds one pause's server-side results as stored
// (JSON): a tool's result longer than its share is cut.
const MaxPendingResults = 1 << 20

// DefaultPendingTTL is how long a pause's server-side results wait for the
// browser's continuation ([WithPendingTTL]): a browser tool may wait for
// its user.
const DefaultPendingTTL = time.Hour

// MemoryStore is the in-memory [PendingStore]: for a backend of one
// instance. It holds at most maxBytes of values (the oldest entries are
// dropped first to make room) and drops an entry once its ttl has passed.
type MemoryStore struct {
	mu       sync.Mutex
	maxBytes int
	size     int
	order    *list.List // of *memEntry, oldest first
	byKey    map[string]*list.Element
	now      func() time.Time
}

type memEntry struct {
	key     string
	value   []byte
	expires time.Time
}

// DefaultMemoryStoreBytes is [NewMemoryStore]'s bound when given 0.
const DefaultMemoryStoreBytes = 64 << 20

// NewMemoryStore returns an empty MemoryStore that holds at most maxBytes
// of values (0: [DefaultMemoryStoreBytes]).
func NewMemoryStore(maxBytes int) *MemoryStore {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryStoreBytes
	}
	return &MemoryStore{maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}, now: time.Now}
}

// Put stores value under key until ttl has passed, replacing what key
// held. A value larger than the store's bound is not kept (Put returns
// nil, Get then finds nothing).
func (m *MemoryStore) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.remove(key)
	if len(value) > m.maxBytes {
		return nil
	}
	now := m.now()
	m.expire(now)
	for m.size+len(value) > m.maxBytes && m.order.Len() > 0 {
		m.drop(m.order.Front())
	}
	e := &memEntry{key: key, value: append([]byte(nil), value...), expires: now.Add(ttl)}
	m.byKey[key] = m.order.PushBack(e)
	m.size += len(value)
	return nil
}

// Get returns a copy of key's value, if it is there and has not expired.
func (m *MemoryStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el := m.byKey[key]
	if el == nil {
		return nil, false, nil
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.expires) {
		m.drop(el)
		return nil, false, nil
	}
	return append([]byte(nil), e.value...), true, nil
}

// Delete removes key's value, if any.
func (m *MemoryStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.remove(key)
	return nil
}

// Len returns how many entries the store holds, expired ones not yet
// dropped included.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

func (m *MemoryStore) remove(key string) {
	if el := m.byKey[key]; el != nil {
		m.drop(el)
	}
}

func (m *MemoryStore) drop(el *list.Element) {
	e := m.order.Remove(el).(*memEntry)
	delete(m.byKey, e.key)
	m.size -= len(e.value)
}

// expire drops the expired entries at the front. Entries are in insertion
// order and one store uses one ttl in practice, so the expired ones are
// the oldest; an entry with a longer ttl ahead of them only delays their
// removal until Get or the size bound reaches them.
func (m *MemoryStore) expire(now time.Time) {
	for el := m.order.Front(); el != nil; el = m.order.Front() {
		if now.Before(el.Value.(*memEntry).expires) {
			return
		}
		m.drop(el)
	}
}
