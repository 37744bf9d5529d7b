package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// WithContextKey sends the thread's context key as the contextKey query
// value, once, replacing an earlier one; an empty key is refused before
// anything is sent.
func TestWithContextKey(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"thr_1","messages":[]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk_ctxkey_test_1"))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = c.Threads.Get(ctx, "thr_1", threads.WithContextKey("user 42"))
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, "thr_1", threads.WithQuery("contextKey", "old"), threads.WithContextKey("new"))
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, "thr_1", threads.WithContextKey(""))
	assert.ErrorContains(t, err, "WithContextKey")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"contextKey=user+42", "contextKey=new"}, queries)
}
