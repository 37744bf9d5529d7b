package threads_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// The SDK numbers its retries in X-Retry-Count: a key sent in that header
// was overwritten on the wire by each retry ([key, "1", "2"]), and a
// WithHeader value with it was replaced. Every header the SDK (or its
// transport) sets itself is refused, by option and by environment.
func TestHeadersTheSDKSetsAreRefused(t *testing.T) {
	for _, name := range []string{"X-Retry-Count", "x-retry-count", "Accept-Encoding"} {
		for opt, o := range map[string]threads.ClientOption{
			"WithAPIKeyHeader": threads.WithAPIKeyHeader(name),
			"WithHeader":       threads.WithHeader(name, "v"),
		} {
			_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"),
				threads.WithAPIKey(testKey), o)
			require.Error(t, err, "%s(%q)", opt, name)
			assert.Contains(t, err.Error(), "sets this header itself", "%s(%q)", opt, name)
		}
	}
	t.Setenv(threads.EnvAPIKeyHeader, "X-Retry-Count")
	_, err := threads.NewClient(threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey(testKey))
	require.Error(t, err)
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)
	assert.Contains(t, err.Error(), "sets this header itself")
}
