package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/proxy/redisstore"
	"github.com/threadsapi/threads-go/proxy/storetest"
)

// The Redis store passes the proxy's store conformance suite on a real
// redis-server.
func TestRedisStoreConforms(t *testing.T) {
	t.Parallel()
	srv := sharedServer(t)
	store, err := redisstore.New(srv.client(t))
	require.NoError(t, err)
	storetest.Run(t, keyPrefix(t)+":", func(*testing.T) storetest.Store { return store })
}

// Open takes a redis:// URL with an ACL user and password; a wrong
// password fails the first call, and no error shows the password.
func TestOpenWithACLUser(t *testing.T) {
	t.Parallel()
	srv := sharedServer(t)
	if srv.port == 0 {
		t.Skip("THREADS_REDIS_URL is set: this test adds an ACL user to its own server")
	}
	admin := srv.client(t)
	ctx := context.Background()
	user := "app-" + strings.ToLower(keyPrefix(t)[5:17])
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", user, "on", ">s3cret-pass", "~*", "+@all").Err())
	t.Cleanup(func() { admin.Do(context.Background(), "ACL", "DELUSER", user) })

	base := strings.TrimPrefix(srv.url, "redis://")
	store, err := redisstore.Open("redis://" + user + ":s3cret-pass@" + base)
	require.NoError(t, err)
	defer store.Close()
	key := keyPrefix(t) + ":v"
	require.NoError(t, store.Set(ctx, key, []byte("ok"), time.Minute))
	v, ok, err := store.Get(ctx, key)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "ok", string(v))

	wrong, err := redisstore.Open("redis://" + user + ":wrong-pass-123@" + base)
	require.NoError(t, err, "Open does not dial")
	defer wrong.Close()
	_, _, err = wrong.Get(ctx, key)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "wrong-pass-123")

	_, err = redisstore.Open("http://u:hidden-pass@host:6379")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hidden-pass")
	tls, err := redisstore.Open("rediss://u:p@redis.example:6380/1")
	require.NoError(t, err, "rediss:// is TLS, parsed without dialing")
	require.NoError(t, tls.Close())
}

// Open's error shows no part of the password, however the URL fails to
// parse: a password pasted unescaped (base64 holds '/' and '+', some hold
// '@'), escapes url.Parse refuses, the password as a query parameter.
func TestOpenErrorShowsNoPassword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, secret string }{
		{"rediss://app:Zm9v/YmFy+cXV4@redis.example:6380/0", "Zm9v/YmFy+cXV4"},
		{"redis://app:1234/secretpart@redis.example:6379/0", "1234/secretpart"},
		{"redis://app:pass@word@red is.example:6379/0", "pass@word"},
		{"redis://app:bad%zzsecret@redis.example:6379/0", "bad%zzsecret"},
		{"redis://app:hunter22?x@redis.example:6379/0", "hunter22?x"},
		{"redis://app:hunter#22@redis.example:6379/0", "hunter#22"},
		{"redis://red is.example:6379/0?password=qwerty123", "qwerty123"},
		{"redis://app:plainsecret@redis.example:6379/x", "plainsecret"},
	} {
		_, err := redisstore.Open(c.url)
		require.Error(t, err, c.url)
		for _, piece := range strings.FieldsFunc(c.secret, func(r rune) bool { return strings.ContainsRune("/?#@:%", r) }) {
			if len(piece) >= 3 {
				assert.NotContains(t, err.Error(), piece, "%s: %v", c.url, err)
			}
		}
	}
}
