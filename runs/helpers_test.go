package runs

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

// testKey is the API key of every test client.
const testKey = "test-key"

// newTestClient returns a Client for the server at base with no end
// user, through threads.NewClient and New: the real request core.
func newTestClient(t testing.TB, base string, opts ...threads.ClientOption) *Client {
	t.Helper()
	tc, err := threads.NewClient(append([]threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey),
		threads.WithMaxRetries(0),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return New(tc)
}

// newStatic serves body with status to every request, as the service's
// JSON; it returns the base URL.
func newStatic(t testing.TB, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
