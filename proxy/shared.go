package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultStoreKeyPrefix begins every key the Handler writes in its store
// unless [WithStoreKeyPrefix] names another.
const DefaultStoreKeyPrefix = "threads-proxy"

// DefaultLeaseTTL is how long a lease (a run slot) lives unless renewed
// ([WithLeaseTTL]): an instance renews its leases every third of it, and
// the leases of an instance that died lapse within it.
const DefaultLeaseTTL = 30 * time.Second

// storeVersion is the format version of the keys and values the Handler
// writes: instances of another version (a rolling deploy that changes a
// format) use other keys, and never read a value they cannot decode.
const storeVersion = "v1"

// ErrShutdown is what a run started after [Handler.Shutdown] is refused
// with (503, Retry-After), and what Shutdown returns when called twice.
var ErrShutdown = errors.New("proxy: the handler is shutting down")

// WithStore sets the state that the Handler's instances share (see
// [Store]): the server-side tools' results that wait for the browser,
// each user's run slots, the records that run each server-side call once,
// and what [WithDetachedRuns] and [WithApprovals] keep. Default: a
// [MemoryStore] of its default bounds, for one instance. Instances behind
// one load balancer need one shared store (module
// github.com/threadsapi/threads-go/proxy/redisstore), since a browser's
// continuation, its next run, a resume or a decision may reach any of
// them.
//
// What each use does when the store cannot answer (a 503, an error result,
// or a log line; never a retry, never a call run twice): the package
// doc's "The shared store".
func WithStore(s Store) Option {
	return option(func(c *config) {
		if s == nil {
			c.fail(errors.New("proxy: WithStore: nil store"))
			return
		}
		c.store = s
	})
}

// WithStoreKeyPrefix sets what every key the Handler writes in its store
// begins with ([DefaultStoreKeyPrefix]), so that several applications can
// share one store; instances that share state must use the same one. It
// must not be empty.
func WithStoreKeyPrefix(prefix string) Option {
	return option(func(c *config) {
		if prefix == "" || strings.ContainsAny(prefix, " \t\r\n") {
			c.fail(fmt.Errorf("proxy: WithStoreKeyPrefix(%q): want a non-empty prefix without spaces", prefix))
			return
		}
		c.keyPrefix = prefix
	})
}

// WithLeaseTTL sets how long a run slot's lease lives unless renewed
// ([DefaultLeaseTTL]; at least a second in production, shorter in tests).
// Shorter gives a dead instance's slots back sooner, at the cost of more
// renewals (each run renews every third of it).
func WithLeaseTTL(d time.Duration) Option {
	return option(func(c *config) {
		if d < 3*time.Millisecond {
			c.fail(fmt.Errorf("proxy: WithLeaseTTL(%v): want at least 3ms", d))
			return
		}
		c.leaseTTL = d
	})
}

// WithRunSlotsOpenOnStoreError lets a run start when the store cannot
// say whether its user has a slot free ([WithMaxRunsPerUser]); by
// default such a run is refused 503. The failure is logged either way.
func WithRunSlotsOpenOnStoreError() Option {
	return option(func(c *config) { c.openSlots = true })
}

// storeKey builds a key of the Handler's: prefix, version, kind, the
// user's scope, then name (a hash or a number, no id in clear).
func (h *Handler) storeKey(kind string, u User, name string) string {
	return h.cfg.keyPrefix + ":" + storeVersion + ":" + kind + ":" + userScope(u) + ":" + name
}

// userScope names a user in keys: a hash of who the user is, so that a
// shared store holds no user key or token.
func userScope(u User) string {
	sum := sha256.Sum256([]byte("threads-go/proxy user\x00" + u.id()))
	return hex.EncodeToString(sum[:16])
}

// pendingKey is the store key of a paused run's server-side results.
func (h *Handler) pendingKey(u User, threadID, runID string) string {
	sum := sha256.Sum256([]byte(threadID + "\x00" + runID))
	return h.storeKey("pending", u, hex.EncodeToString(sum[:]))
}

// overKey is where a paused run's server-side calls are answered with
// error results when its user's pendingKey scope was full.
func (h *Handler) overKey(u User, threadID, runID string) string {
	sum := sha256.Sum256([]byte(threadID + "\x00" + runID))
	return h.storeKey("pending-over", u, hex.EncodeToString(sum[:]))
}

// lifecycle tracks the runs in flight, for Shutdown.
type lifecycle struct {
	mu      sync.Mutex
	closing bool
	runs    sync.WaitGroup
	// stop ends every run's context: Shutdown's deadline passed.
	stop   context.Context
	cancel context.CancelFunc
}

func (l *lifecycle) init() { l.stop, l.cancel = context.WithCancel(context.Background()) }

// begin counts a run in, unless the Handler is shutting down.
func (l *lifecycle) begin() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return false
	}
	l.runs.Add(1)
	return true
}

// Shutdown stops the Handler taking runs (a new one is refused 503 with
// [ErrShutdown]'s text and a Retry-After, so that a load balancer's retry
// goes to another instance), lets the runs in flight end until ctx is
// done, then cancels those left (their browsers see the stream end, and
// the service cancels them) and waits for them to end. Detached runs
// ([WithDetachedRuns], [Handler.Detach]) count as in flight until their
// end: a rolling deploy reads them to their end, or to ctx's deadline (a
// page resuming one cancelled then gets the run's state as stored). Each run releases
// its slot and leases as it ends, and every goroutine the Handler started
// has ended when Shutdown returns. It returns ctx's error when runs had to be
// cancelled, [ErrShutdown] on a second call, else nil.
//
// JSON routes are still served; call Shutdown before the server's own
// [http.Server.Shutdown], whose wait it shortens.
func (h *Handler) Shutdown(ctx context.Context) error {
	l := &h.life
	l.mu.Lock()
	again := l.closing
	l.closing = true
	l.mu.Unlock()
	done := make(chan struct{})
	go func() {
		l.runs.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		l.cancel()
		<-done
	}
	l.cancel()
	if again && err == nil {
		return ErrShutdown
	}
	return err
}

// slot is a run's hold on one of its user's slots.
type slot struct {
	key, holder string
	stop        chan struct{}
	done        chan struct{}
}

// takeSlot takes one of u's run slots for a run, and renews its lease
// until release. status is 0 when it has one (or none are needed),
// else the status the run is refused with.
func (h *Handler) takeSlot(ctx context.Context, u User) (*slot, int) {
	if h.cfg.maxRuns == 0 {
		return nil, 0
	}
	holder := h.instance + ":" + strconv.FormatUint(h.leases.Add(1), 10)
	for i := range h.cfg.maxRuns {
		key := h.storeKey("slot", u, strconv.Itoa(i))
		ok, err := h.cfg.store.Lease(ctx, key, holder, h.cfg.leaseTTL)
		if err != nil {
			if h.cfg.openSlots {
				h.log.WarnContext(ctx, "proxy: the store cannot give a run slot; the run goes on without one (WithRunSlotsOpenOnStoreError)", "error", err)
				return nil, 0
			}
			h.log.ErrorContext(ctx, "proxy: the store cannot give a run slot; the run is refused", "error", err)
			return nil, http.StatusServiceUnavailable
		}
		if ok {
			s := &slot{key: key, holder: holder, stop: make(chan struct{}), done: make(chan struct{})}
			go h.renew(ctx, s)
			return s, 0
		}
	}
	return nil, http.StatusTooManyRequests
}

// renew renews s's lease every third of its ttl until release. A renewal
// that fails (the store down, the lease lapsed and taken) is logged and
// the run goes on: stopping a user's run because the store hiccuped
// would be worse than letting one run over the bound.
func (h *Handler) renew(ctx context.Context, s *slot) {
	defer close(s.done)
	ctx = context.WithoutCancel(ctx)
	t := time.NewTicker(h.cfg.leaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, h.cfg.leaseTTL/3)
		ok, err := h.cfg.store.Lease(rctx, s.key, s.holder, h.cfg.leaseTTL)
		cancel()
		switch {
		case err != nil:
			h.log.WarnContext(ctx, "proxy: cannot renew a run slot's lease; the run goes on", "error", err)
		case !ok:
			h.log.WarnContext(ctx, "proxy: a run slot's lease lapsed and was taken; the run goes on")
		}
	}
}

// release stops s's renewals and frees it.
func (h *Handler) release(ctx context.Context, s *slot) {
	if s == nil {
		return
	}
	close(s.stop)
	<-s.done
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := h.cfg.store.Release(rctx, s.key, s.holder); err != nil {
		h.log.WarnContext(ctx, "proxy: cannot release a run slot; it lapses with its lease", "error", err)
	}
}

// callRecord is where the tool runner records the server-side calls of
// one user's runs (threads.ToolGuards.Calls): the runner's own keys name
// no application and no user, so each is put under the Handler's prefix
// and the user's scope, like every value of the Handler's. Without it
// one user's records (24 hours each) fill the share of the store that
// every user's records have, and other applications' records share
// the Handler's.
type callRecord struct {
	h *Handler
	u User
}

func (c callRecord) key(k string) string {
	sum := sha256.Sum256([]byte(k))
	return c.h.storeKey("toolcall", c.u, hex.EncodeToString(sum[:]))
}

func (c callRecord) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	return c.h.cfg.store.SetNX(ctx, c.key(key), value, ttl)
}

func (c callRecord) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return c.h.cfg.store.Set(ctx, c.key(key), value, ttl)
}

func (c callRecord) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return c.h.cfg.store.Get(ctx, c.key(key))
}
