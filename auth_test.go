package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// The live service's answer to a key sent as Authorization: Bearer.
const liveForbidden = `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`

// TestBearerRefusedNamesTheHeaderSetting: a Bearer key refused by the auth
// guard says which setting sends it the other way; a configured header, or
// a refusal after the key already got through, does not.
func TestBearerRefusedNamesTheHeaderSetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := newRecorder(t, http.StatusForbidden, nil, liveForbidden)
	bearer, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	_, err = bearer.Projects.Current(ctx)
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)
	assert.Contains(t, err.Error(), "WithAPIKeyHeader")

	// On a route that names a thread the same 403 may mean a foreign id.
	_, err = bearer.Threads.Get(ctx, "thr_other.1")
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.Contains(t, err.Error(), "may not exist")
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)

	header, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL),
		threads.WithAPIKey("sk-key-123456"), threads.WithAPIKeyHeader("x-api-key"))
	require.NoError(t, err)
	_, err = header.Projects.Current(ctx)
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)

	unauthorized := newRecorder(t, http.StatusUnauthorized, nil, `{"message":"Invalid bearer token","error":"Unauthorized","statusCode":401}`)
	bearer, err = threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(unauthorized.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	_, err = bearer.Threads.Get(ctx, "thr_1.a")
	require.ErrorIs(t, err, threads.ErrUnauthorized)
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)
}

// TestForbiddenAfterSuccessHasNoHint: once a call got through, a 403 is
// about the resource (the live service answers 403 for a foreign thread
// id), not about how the key is sent.
func TestForbiddenAfterSuccessHasNoHint(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !refuse.Load() {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"p_1","name":"P"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(liveForbidden))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	_, err = c.Projects.Current(context.Background())
	require.NoError(t, err)
	refuse.Store(true)
	_, err = c.Threads.Get(context.Background(), "thr_other.1")
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)
}
