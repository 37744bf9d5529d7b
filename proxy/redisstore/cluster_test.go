package redisstore_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/proxy/redisstore"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

const browserTool = `{"name":"get_location","description":"Where the user is","inputSchema":{"type":"object","properties":{}}}`

// lookupTool is the backend's server-side tool in these tests.
func lookupTool() threads.Tool {
	return threads.NewTool("lookup", "Looks a word up in the backend's database",
		func(_ context.Context, a struct {
			Q string `json:"q"`
		}) (string, error) {
			return "found " + a.Q, nil
		})
}

// userByHeader is the backend's user function in these tests: its auth
// middleware put the user in X-User.
func userByHeader(r *http.Request) (proxy.User, error) {
	if u := r.Header.Get("X-User"); u != "" {
		return proxy.User{Key: u}, nil
	}
	return proxy.User{}, errors.New("not signed in")
}

// recording is an instance's view of the shared store: it records the
// leases the instance holds, and can cut the instance off (dead), as a
// killed process would be: nothing it does reaches Redis any more.
type recording struct {
	proxy.Store
	dead   atomic.Bool
	mu     sync.Mutex
	leased map[string]bool
	logs   map[string]bool
	// failEvent, when not 0, is the number of the event append (counted
	// from 1 over the instance's appends of events) that fails: a store
	// outage of one call.
	failEvent, events atomic.Int64
}

var errDead = errors.New("this instance is dead")

func (r *recording) Lease(ctx context.Context, key, holder string, ttl time.Duration) (bool, error) {
	if r.dead.Load() {
		return false, errDead
	}
	ok, err := r.Store.Lease(ctx, key, holder, ttl)
	if ok {
		r.mu.Lock()
		r.leased[key] = true
		r.mu.Unlock()
	}
	return ok, err
}

func (r *recording) Release(ctx context.Context, key, holder string) error {
	if r.dead.Load() {
		return errDead
	}
	return r.Store.Release(ctx, key, holder)
}

func (r *recording) Append(ctx context.Context, key string, value []byte, maxLen int, ttl time.Duration) (string, error) {
	if r.dead.Load() {
		return "", errDead
	}
	r.mu.Lock()
	r.logs[key] = true
	r.mu.Unlock()
	if len(value) > 0 && value[0] == '{' {
		if n := r.events.Add(1); n == r.failEvent.Load() {
			return "", errors.New("the store timed out")
		}
	}
	return r.Store.Append(ctx, key, value, maxLen, ttl)
}

func (r *recording) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if r.dead.Load() {
		return errDead
	}
	return r.Store.Set(ctx, key, value, ttl)
}

// logKeys returns the keys of the logs the instance wrote.
func (r *recording) logKeys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.logs {
		out = append(out, k)
	}
	return out
}

func (r *recording) leases() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.leased {
		out = append(out, k)
	}
	return out
}

// instance is one backend instance: a Handler on its own loopback server.
type instance struct {
	h     *proxy.Handler
	srv   *httptest.Server
	store *recording
	logs  *logLines
}

// cluster is several instances sharing one Redis behind a round-robin
// front, in front of the fake service.
type cluster struct {
	fake      *threadstest.Server
	redis     *redisstore.Store
	instances []*instance
	front     *httptest.Server
	next      atomic.Int64
	down      []atomic.Bool // instances the front no longer sends to
}

// newCluster starts n instances with opts on a store of srv, under a key
// prefix of the test's own.
func newCluster(t *testing.T, srv *redisServer, n int, opts ...proxy.Option) *cluster {
	t.Helper()
	store, err := redisstore.New(srv.client(t))
	require.NoError(t, err)
	c := &cluster{fake: threadstest.NewServer(t), redis: store, down: make([]atomic.Bool, n)}
	prefix := keyPrefix(t)
	for range n {
		rec := &recording{Store: store, leased: map[string]bool{}, logs: map[string]bool{}}
		lines := &logLines{}
		h, err := proxy.New(c.fake.Client(), userByHeader, append([]proxy.Option{
			proxy.WithStore(rec), proxy.WithStoreKeyPrefix(prefix), proxy.WithLogger(slog.New(lines)),
		}, opts...)...)
		require.NoError(t, err)
		in := &instance{h: h, srv: httptest.NewServer(backend(h, c.fake)), store: rec, logs: lines}
		t.Cleanup(func() {
			_ = h.Shutdown(canceled())
			in.srv.CloseClientConnections()
			in.srv.Close()
		})
		c.instances = append(c.instances, in)
	}
	c.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request is read whole before it is proxied. Given the live
		// body, the transport may still be reading it (its last read,
		// for EOF) when the instance's answer head is flushed; the
		// server then closes an unread request body, the transport's
		// read fails, and it closes the connection the run streams on:
		// the browser's body ends early (unexpected EOF).
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(b) > 0 {
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		for range n {
			i := int(c.next.Add(1)-1) % n
			if c.down[i].Load() {
				continue
			}
			u, _ := url.Parse(c.instances[i].srv.URL)
			rp := httputil.NewSingleHostReverseProxy(u)
			rp.FlushInterval = -1                           // events as they come
			rp.ErrorLog = log.New(testLog{t}, "front: ", 0) // shown when the test fails: a body cut short says why here
			r.Header.Set("X-Instance", string(rune('A'+i)))
			rp.ServeHTTP(w, r)
			return
		}
		http.Error(w, "no instance", http.StatusBadGateway)
	}))
	t.Cleanup(func() {
		c.front.CloseClientConnections()
		c.front.Close()
	})
	return c
}

// backend is an instance's server: h's /v1 routes, and POST /chat, where
// the backend starts and relays a run of its own with proxy.Relay,
// detached by h (Handler.Detach).
func backend(h *proxy.Handler, fake *threadstest.Server) http.Handler {
	rc := runs.New(fake.Client())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/chat" {
			h.ServeHTTP(w, r)
			return
		}
		u, err := userByHeader(r)
		if err != nil {
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		ctx, detach := h.Detach(r, u)
		s, err := rc.ForUser(u.Key).CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		_, _ = proxy.Relay(w, r, s, detach)
	})
}

// testLog writes to the test's log, which only a failed test (or -v)
// shows.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// kill stops instance i as a killed process stops: its connections drop,
// and nothing more of it reaches Redis (its leases are not released).
func (c *cluster) kill(i int) {
	in := c.instances[i]
	c.down[i].Store(true)
	in.store.dead.Store(true)
	in.srv.CloseClientConnections()
	in.srv.Close()
}

// get sends a GET as user to the front, with headers in pairs.
func (c *cluster) get(t *testing.T, user, path string, hdr ...string) *run {
	t.Helper()
	req, err := http.NewRequest("GET", c.front.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-User", user)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.front.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return &run{status: resp.StatusCode, header: resp.Header, body: bufio.NewReader(resp.Body), close: func() { _ = resp.Body.Close() }}
}

// run is a browser request on the front: its answer's head, and its body
// open while the run goes on.
type run struct {
	status int
	header http.Header
	body   *bufio.Reader
	close  func()
}

// post sends a run request as user to the front (the next instance in
// turn) and returns once its answer's head arrived.
func (c *cluster) post(t *testing.T, user, path, body string) *run {
	t.Helper()
	req, err := http.NewRequest("POST", c.front.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User", user)
	resp, err := c.front.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return &run{status: resp.StatusCode, header: resp.Header, body: bufio.NewReader(resp.Body), close: func() { _ = resp.Body.Close() }}
}

// rest reads the run's body to its end.
func (r *run) rest(t *testing.T) string {
	t.Helper()
	b, err := io.ReadAll(r.body)
	require.NoError(t, err)
	return string(b)
}

// logLines records what a Handler logs, and signals each message.
type logLines struct {
	mu    sync.Mutex
	lines []string
	seen  map[string]chan struct{}
}

// wait returns a channel closed once a line containing s is logged.
func (l *logLines) wait(s string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			close(ch)
			return ch
		}
	}
	l.seen[s] = ch
	return ch
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := r.Level.String() + " " + r.Message
	l.lines = append(l.lines, line)
	for s, ch := range l.seen {
		if strings.Contains(line, s) {
			close(ch)
			delete(l.seen, s)
		}
	}
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }
