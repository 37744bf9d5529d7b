package threads_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestSecretsNeverLeak drives retries, a migration, errors and a stream
// with a debug logger, then looks for the key in every log line, error
// string and formatted value.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, srv := setup(t, threads.WithLogger(logger))
	ctx := context.Background()
	var texts []string
	note := func(vs ...any) {
		for _, v := range vs {
			texts = append(texts, fmt.Sprint(v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v))
		}
	}

	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Status: 502, Body: "echo " + testKey})
	_, err := c.Threads.List(ctx, &threads.ListParams{ContextKey: "k"})
	require.NoError(t, err)
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Times: -1, Status: 401,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"message":"key ` + testKey + ` rejected"}`})
	_, err = c.Threads.List(ctx, nil)
	require.Error(t, err)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	note(err, p, *p)

	_, err = c.Threads.CreateAndAdvance(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, "thr_none.000000")
	note(err)
	note(c, threads.WithAPIKey(testKey), threads.ClientConfig(c))

	mu.Lock()
	logs := buf.String()
	mu.Unlock()
	assert.NotEmpty(t, logs)
	assert.NotContains(t, logs, testKey)
	for _, s := range texts {
		assert.NotContains(t, s, testKey)
	}
	// The key went only where it belongs.
	for _, r := range srv.Requests() {
		assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	}
}
