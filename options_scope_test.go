package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// WithResponseInto writes into one caller-owned destination: given to
// NewClient, every concurrent call of the client would write that one
// pointer (a data race under -race with a few concurrent calls). NewClient
// refuses it, naming the option; on a single call it keeps working, also
// with many calls at once, each writing its own answer.
func TestNewClientRefusesCallOnlyOptions(t *testing.T) {
	t.Parallel()
	var into *http.Response
	_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"),
		threads.WithAPIKey(testKey), threads.WithResponseInto(&into))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WithResponseInto")
	assert.NotContains(t, err.Error(), testKey)

	var n sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Lock()
		calls++
		id := strconv.Itoa(calls)
		n.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Call", id)
		_, _ = w.Write([]byte(`{"id":"thr_1.a"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	require.NoError(t, err)
	const workers = 8
	answers := make([]*http.Response, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Threads.Get(context.Background(), "thr_1.a", threads.WithResponseInto(&answers[i]))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, r := range answers {
		if assert.NotNil(t, r) {
			seen[r.Header.Get("X-Call")] = true
		}
	}
	assert.Len(t, seen, workers, "each call got its own answer's headers")
}
