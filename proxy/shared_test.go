package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
)

// downStore is a MemoryStore that fails every call while down is set:
// a shared store that cannot be reached.
type downStore struct {
	*proxy.MemoryStore
	down atomic.Bool
}

var errDown = errors.New("store unreachable")

func (s *downStore) Take(ctx context.Context, key string) ([]byte, bool, error) {
	if s.down.Load() {
		return nil, false, errDown
	}
	return s.MemoryStore.Take(ctx, key)
}

func (s *downStore) Lease(ctx context.Context, key, holder string, ttl time.Duration) (bool, error) {
	if s.down.Load() {
		return false, errDown
	}
	return s.MemoryStore.Lease(ctx, key, holder, ttl)
}

func (s *downStore) Release(ctx context.Context, key, holder string) error {
	if s.down.Load() {
		return errDown
	}
	return s.MemoryStore.Release(ctx, key, holder)
}

const hiRun = `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`

// With the store down, a run that needs a slot is refused 503 with
// Retry-After (as the other store-down refusals) and nothing is sent,
// unless the option lets it run; once the store is back, runs go on.
func TestRunSlotsWhenStoreIsDown(t *testing.T) {
	t.Parallel()
	store := &downStore{MemoryStore: proxy.NewMemoryStore(0, 0)}
	e := newEnv(t, nil, proxy.WithMaxRunsPerUser(2), proxy.WithStore(store))
	store.down.Store(true)
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
	assert.Equal(t, "1", w.Header().Get("Retry-After"), "a client may try again soon")
	assert.Empty(t, e.fake.Requests(), "nothing sent")

	open := &env{fake: e.fake, logs: e.logs}
	var err error
	open.h, err = proxy.New(e.fake.Client(), userBySession, proxy.WithMaxRunsPerUser(2), proxy.WithStore(store), proxy.WithRunSlotsOpenOnStoreError())
	require.NoError(t, err)
	w = open.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
	assert.Equal(t, http.StatusCreated, w.Code, "open on a store error")

	store.down.Store(false)
	w = e.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
	assert.Equal(t, http.StatusCreated, w.Code, "the store is back")
	assert.Zero(t, store.Len(), "its slot was released")
}

// With the store down, a continuation whose server results cannot be
// taken is refused 503 and nothing reaches the service; when the store is
// back, the same continuation carries them.
func TestPendingTakeWhenStoreIsDown(t *testing.T) {
	t.Parallel()
	var l lookup
	store := &downStore{MemoryStore: proxy.NewMemoryStore(0, 0)}
	e := newEnv(t, nil, proxy.WithTools(l.tool()), proxy.WithStore(store))
	e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_b", Name: "get_location"}, {ID: "call_s", Name: "lookup", Arguments: map[string]any{"q": "tea"}},
	}})
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"tools":[`+browserTool+`]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	sent := len(e.fake.Requests())
	cont := `{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"call_b","content":[{"type":"text","text":"Lisbon"}]}]},"previousRunId":"` +
		lastRun(parse(t, w.Body.String())) + `","tools":[` + browserTool + `]}`
	target := "/v1/threads/" + w.Header().Get("X-Thread-Id") + "/runs"

	store.down.Store(true)
	w = e.do(t, "s-alice", "POST", target, cont)
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
	assert.Len(t, e.fake.Requests(), sent, "nothing sent")

	store.down.Store(false)
	w = e.do(t, "s-alice", "POST", target, cont)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	req, err := e.last(t).Run()
	require.NoError(t, err)
	assert.Len(t, req.Message.Content, 2, "both results")
}

// Shutdown refuses new runs, waits for the one in flight, and returns
// once it ended; its slot is free again.
func TestHandlerShutdownWaitsForRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		store := proxy.NewMemoryStore(0, 0)
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithMaxRunsPerUser(1), proxy.WithStore(store))
		hold := make(chan struct{})
		e.fake.PushRunScript(threadstest.RunScript{Text: "long", Hold: hold, HoldAfter: 1})
		done := make(chan *httptest.ResponseRecorder)
		go func() { done <- e.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun) }()
		synctest.Wait()
		require.Equal(t, 1, store.Len(), "the run holds a slot")

		shut := make(chan error)
		go func() { shut <- e.h.Shutdown(context.Background()) }()
		synctest.Wait()
		w := e.do(t, "s-bob", "POST", "/v1/threads/runs", hiRun)
		assert.Equal(t, http.StatusServiceUnavailable, w.Code)
		assert.NotEmpty(t, w.Header().Get("Retry-After"))
		select {
		case <-shut:
			t.Fatal("Shutdown returned with a run in flight")
		default:
		}
		close(hold)
		assert.Equal(t, http.StatusCreated, (<-done).Code)
		require.NoError(t, <-shut)
		assert.Zero(t, store.Len(), "its slot was released")
		assert.ErrorIs(t, e.h.Shutdown(context.Background()), proxy.ErrShutdown)
	})
}

// Shutdown's deadline cancels the runs still in flight, frees their
// slots, and returns the context's error once they ended.
func TestHandlerShutdownDeadlineCancelsRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		store := proxy.NewMemoryStore(0, 0)
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithMaxRunsPerUser(1), proxy.WithStore(store))
		hold := make(chan struct{})
		defer close(hold)
		e.fake.PushRunScript(threadstest.RunScript{Text: "long", Hold: hold, HoldAfter: 1})
		done := make(chan *httptest.ResponseRecorder)
		go func() { done <- e.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun) }()
		synctest.Wait()

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.ErrorIs(t, e.h.Shutdown(ctx), context.DeadlineExceeded)
		<-done
		assert.Zero(t, store.Len(), "its slot was released")
	})
}

// Two Handlers sharing a store share each user's run bound, and a long
// run keeps its slot past the lease's ttl.
func TestRunSlotsSharedByInstances(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		store := proxy.NewMemoryStore(0, 0)
		a := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithMaxRunsPerUser(1), proxy.WithStore(store))
		b := &env{fake: a.fake, logs: a.logs}
		var err error
		b.h, err = proxy.New(a.fake.Client(), userBySession, proxy.WithMaxRunsPerUser(1), proxy.WithStore(store))
		require.NoError(t, err)
		hold := make(chan struct{})
		a.fake.PushRunScript(threadstest.RunScript{Text: "long", Hold: hold, HoldAfter: 1})
		done := make(chan *httptest.ResponseRecorder)
		go func() { done <- a.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun) }()
		synctest.Wait()
		w := b.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
		assert.Equal(t, http.StatusTooManyRequests, w.Code, "her slot is taken on the other instance")
		time.Sleep(3 * proxy.DefaultLeaseTTL) // synctest's clock: the lease is renewed meanwhile
		w = b.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
		assert.Equal(t, http.StatusTooManyRequests, w.Code, "a long run keeps its slot")
		close(hold)
		assert.Equal(t, http.StatusCreated, (<-done).Code)
		w = b.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
		assert.Equal(t, http.StatusCreated, w.Code)
	})
}

// The server-side tools' once-per-call records are one user's values like
// the rest, under the Handler's prefix: alice's calls filling her share of
// the store leave bob's calls their records (without one, a second
// delivery of bob's pause would run his tool again).
func TestToolCallRecordsAreScopedPerUser(t *testing.T) {
	t.Parallel()
	big := threads.Tool{
		Name: "lookup", Description: "Looks a word up in the backend's database",
		Parameters: []threads.ToolParameter{{Name: "q", Type: "string", IsRequired: true}},
		Call: func(_ context.Context, c threads.ToolCall) (string, error) {
			return strings.Repeat("x", 20<<10), nil
		},
	}
	keys := &keyLog{Store: proxy.NewMemoryStore(0, 64<<10)}
	e := newEnv(t, nil, proxy.WithTools(big), proxy.WithStore(keys), proxy.WithStoreKeyPrefix("app1"))
	for i := range 4 {
		e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: fmt.Sprintf("call_a%d", i), Name: "lookup", Arguments: map[string]any{"q": "tea"}}}})
		w := e.do(t, "s-alice", "POST", "/v1/threads/runs", hiRun)
		require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	}
	keys.reset()
	e.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_b", Name: "lookup", Arguments: map[string]any{"q": "tea"}}}})
	w := e.do(t, "s-bob", "POST", "/v1/threads/runs", hiRun)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	require.Len(t, e.results(t)["call_b"], 1)
	assert.Empty(t, keys.refused(), "bob's writes fit in his own share")
	for _, k := range keys.written() {
		assert.True(t, strings.HasPrefix(k, "app1:"), "every key the Handler writes begins with its prefix: %s", k)
	}
}

// keyLog is a store that records the keys of the values written, and
// those of the writes it refused.
type keyLog struct {
	proxy.Store
	mu          sync.Mutex
	keys, fails []string
}

func (s *keyLog) note(key string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, key)
	if err != nil {
		s.fails = append(s.fails, key)
	}
}

func (s *keyLog) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys, s.fails = nil, nil
}

func (s *keyLog) written() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

func (s *keyLog) refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.fails...)
}

func (s *keyLog) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	err := s.Store.Set(ctx, key, v, ttl)
	s.note(key, err)
	return err
}

func (s *keyLog) SetNX(ctx context.Context, key string, v []byte, ttl time.Duration) (bool, error) {
	ok, err := s.Store.SetNX(ctx, key, v, ttl)
	s.note(key, err)
	return ok, err
}
