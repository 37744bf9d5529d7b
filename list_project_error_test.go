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

// A project id from GET /projects is server text and goes into the
// per-project route's path: a server whose project id spells the key must
// not get the key into an error about that route's answer, whatever is
// wrong with it.
func TestProjectIDSpellingKeyIsRedactedInListErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body string
		opts []threads.ClientOption
	}{
		"not JSON":  {body: "<html>portal</html>"},
		"too large": {body: `[` + strings.Repeat(`{"id":"thr_1.a"},`, 100) + `{}]`, opts: []threads.ClientOption{threads.WithMaxResponseSize(256)}},
		"too dense": {body: `[` + strings.Repeat(`{},`, 2000) + `{}]`, opts: []threads.ClientOption{threads.WithMaxResponseSize(8 << 10)}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.URL.Path == "/projects":
				_, _ = w.Write([]byte(`{"id":"` + testKey + `","name":"p"}`))
			case strings.HasPrefix(r.URL.Path, "/threads/project/"):
				_, _ = w.Write([]byte(tc.body))
			default:
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"message":"Cannot GET /threads","error":"Not Found","statusCode":404}`))
			}
		}))
		t.Cleanup(srv.Close)
		opts := append([]threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
			threads.WithAPIKey(testKey), threads.WithMaxRetries(0)}, tc.opts...)
		c, err := threads.NewClient(opts...)
		require.NoError(t, err)
		_, err = c.Threads.List(context.Background(), nil)
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, name)
		assert.NotContains(t, err.Error(), testKey, name)
		assert.Contains(t, err.Error(), "/threads/project/", name)
	}
}
