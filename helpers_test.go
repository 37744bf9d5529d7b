package threads

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/threadsapi/threads-go/internal/fakeserver"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testKey = "sk_test_9f8e7d6c5b4a"

// setup starts a fake server without throttle and a client for it with
// tiny retry waits.
func setup(t *testing.T, opts ...ClientOption) (*Client, *fakeserver.Server) {
	t.Helper()
	srv := fakeserver.New(fakeserver.WithThrottle(0), fakeserver.WithKey(testKey))
	t.Cleanup(srv.Close)
	base := []ClientOption{
		WithoutEnvironmentDefaults(),
		WithBaseURL(srv.URL),
		WithAPIKey(testKey),
		WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}
	c, err := NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c, srv
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
func cannedClient(t *testing.T, srv *canned, opts ...ClientOption) *Client {
	t.Helper()
	base := []ClientOption{WithoutEnvironmentDefaults(), WithBaseURL(srv.URL), WithAPIKey(testKey), WithMaxRetries(0)}
	c, err := NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// decodeList decodes a list body as List does.
func decodeList(data []byte, offset, status int) (*ThreadPage, error) {
	var b listBody
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, unexpectedResponse(http.MethodGet, routeThreads, status, "list is not the expected JSON (%v): %s", err, excerpt(data, 120))
	}
	return b.toPage(offset), nil
}
