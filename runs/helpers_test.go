package runs

import (
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
