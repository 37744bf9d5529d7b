package threads_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testKey = "sk_test_9f8e7d6c5b4a"

// setup starts a fake server (closed when the test ends) without throttle,
// and a client for it with tiny retry waits; opts apply to the client after
// those.
func setup(t *testing.T, opts ...threads.ClientOption) (*threads.Client, *threadstest.Server) {
	t.Helper()
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(testKey))
	base := []threads.ClientOption{threads.WithRetryWait(time.Millisecond, 2*time.Millisecond)}
	return srv.Client(append(base, opts...)...), srv
}

// setupInMemory is setup for a synctest bubble: the fake is reached over
// its in-memory transport, so its waits, the client's timeouts and the
// test's pauses all run on the bubble's fake clock, whatever the machine's
// load.
func setupInMemory(t *testing.T, opts ...threads.ClientOption) (*threads.Client, *threadstest.Server) {
	t.Helper()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKey(testKey))
	base := []threads.ClientOption{threads.WithRetryWait(time.Millisecond, 2*time.Millisecond)}
	return srv.Client(append(base, opts...)...), srv
}

// recorded is one request seen by a canned server.
type recorded struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
}

// canned serves the same answer to every request and records them.
type canned struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

func (c *canned) requests() []recorded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]recorded(nil), c.reqs...)
}

// serveCanned answers every request with status, content type and body.
func serveCanned(t *testing.T, status int, contentType string, body []byte) *canned {
	t.Helper()
	c := &canned{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.reqs = append(c.reqs, recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), b})
		c.mu.Unlock()
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(c.Close)
	return c
}

// cannedClient returns a client for a canned server, without retries.
func cannedClient(t *testing.T, srv *canned, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey), threads.WithMaxRetries(0)}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// problemFrom decodes an error answer with status and body as the client
// does.
func problemFrom(status int, body []byte, secret string) *threads.Problem {
	resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
	return threads.DecodeProblem(resp, http.MethodGet, "/threads/x", secret)
}

const atkKey = "sk_test_ATTACKkey0123456789"

func atkClient(t *testing.T, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(append([]threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url),
		threads.WithAPIKey(atkKey), threads.WithRetryWait(time.Millisecond, 2*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	return c
}

const hardKey = "sk_hard/9f8e+7d6c5b4a"

// hardServer serves every request with h and counts the requests.
func hardServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func hardClient(t testing.TB, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url), threads.WithAPIKey(hardKey),
		threads.WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// pipeNet is an in-memory network for tests under testing/synctest: an
// http.Server and the client's http.Transport talk over net.Pipe
// connections, so every wait is on a channel (durably blocking) and time
// is the bubble's fake clock. Both sides are the real net/http, hijacking
// and chunked streams included.
type pipeNet struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// pipeServer serves h on a pipeNet and returns its base URL and a
// transport that reaches it; both are closed when the test ends. A nil h
// is a host where nothing listens: every dial is refused.
func pipeServer(t testing.TB, h http.Handler) (baseURL string, tr *http.Transport) {
	t.Helper()
	n := &pipeNet{conns: make(chan net.Conn), done: make(chan struct{})}
	tr = &http.Transport{DialContext: n.dial}
	if h == nil {
		n.Close()
		t.Cleanup(tr.CloseIdleConnections)
		return "http://pipe.invalid", tr
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(n)
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return "http://pipe.invalid", tr
}

func (n *pipeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-n.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func (n *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

func (n *pipeNet) Close() error {
	n.once.Do(func() { close(n.done) })
	return nil
}

func (n *pipeNet) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
