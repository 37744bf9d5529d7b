// Package threadstest runs an in-process fake of the Conversation Threads
// API for tests, the way net/http/httptest runs an HTTP server.
//
// The fake keeps threads and messages in memory and speaks the live
// service's formats: 201 on POST, ids like thr_XXXXXXXX.xxxxxx, the list
// envelope newest first, snapshot streams that open with a one-space
// placeholder and end with "data: DONE", the "error:" line, 410
// ENDPOINT_DEPRECATED on the /advance routes, and the service's error
// shapes. A streamed reply is deterministic: "You said: <your text>", or,
// when the request offers client tools, a call of the first tool whose
// every parameter is your text; a tool result is answered with "The tool
// returned: <result>".
//
// Scripts shape the next reply (several messages, the error line, a dropped
// connection, a pause); faults replace the answer to matching requests
// (statuses, Retry-After, resets, stalls). Requests returns what the server
// received, so a test can assert on it.
package threadstest

import (
	"net/http"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/fakeserver"
)

// Script shapes the next streamed reply; queue one with Server.PushScript.
// See the fields for each fault it can inject.
type Script = fakeserver.Script

// Fault replaces the answer to matching requests; queue one with
// Server.Inject.
type Fault = fakeserver.Fault

// Request is one request the server received.
type Request = fakeserver.Request

// Server is a running fake service.
type Server struct {
	*fakeserver.Server
}

// An Option configures a Server.
type Option = fakeserver.Option

// WithThrottle sets the pause between streamed snapshots. The default is
// the live service's 50ms; 0 streams as fast as possible.
func WithThrottle(d time.Duration) Option { return fakeserver.WithThrottle(d) }

// WithKey sets the API key the server accepts (default "test-key").
func WithKey(key string) Option { return fakeserver.WithKey(key) }

// WithKeyHeader makes the server read the key from the named header
// instead of "Authorization: Bearer <key>".
func WithKeyHeader(name string) Option { return fakeserver.WithKeyHeader(name) }

// NewServer starts a server and closes it when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server for use outside tests (examples, local runs). The
// caller must Close it.
func Start(opts ...Option) *Server {
	return &Server{fakeserver.New(opts...)}
}

// Client returns a threads.Client for the server: its base URL and key,
// no environment defaults, and short retry waits. opts are applied after
// those and may override them.
func (s *Server) Client(opts ...threads.ClientOption) *threads.Client {
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(),
		threads.WithBaseURL(s.URL),
		threads.WithAPIKey(s.APIKey),
		threads.WithRetryWait(time.Millisecond, 10*time.Millisecond),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	if err != nil {
		panic("threadstest: " + err.Error())
	}
	return c
}

// HTTPClient returns an *http.Client that reaches the server.
func (s *Server) HTTPClient() *http.Client { return s.Server.Client() }
