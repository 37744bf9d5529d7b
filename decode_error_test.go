package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// The JSON decoder's error names the member path it failed in; a member
// name the server chose (here the key, raw or spelled with \u005f escapes)
// must not reach Error() through it.
func TestDecodeErrorDoesNotShowMemberNames(t *testing.T) {
	t.Parallel()
	escaped := strings.ReplaceAll(testKey, "_", `\u005f`)
	for name, body := range map[string]string{
		"raw":     `{"id":"thr_1.a","metadata":{"` + testKey + `":{"b":tru}}}`,
		"escaped": `{"id":"thr_1.a","metadata":{"` + escaped + `":{"b":tru}}}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
			threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, name)
		assert.NotContains(t, err.Error(), testKey, name)
		assert.NotContains(t, err.Error(), "9f8e7d6c5b4a", name)
	}
}
