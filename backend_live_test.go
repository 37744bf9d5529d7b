package threads_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// The routes of issue 25 against a live deployment (skipped unless
// THREADS_LIVE_TEST=1, see liveClient). Read-only: nothing is deleted.

func TestLiveProjectGetAndKeys(t *testing.T) {
	c, ctx := liveClient(t)
	cur, err := c.Projects.Current(ctx)
	require.NoError(t, err)
	p, err := c.Projects.Get(ctx, cur.ID)
	require.NoError(t, err)
	assert.Equal(t, cur.ID, p.ID)
	keys, err := c.Projects.APIKeys(ctx, cur.ID)
	require.NoError(t, err)
	for _, k := range keys {
		assert.NotEmpty(t, k.ID)
	}
	_, err = c.Projects.ProviderKeys(ctx, cur.ID)
	require.NoError(t, err)
}

func TestLiveMCPAccessToken(t *testing.T) {
	c, ctx := liveClient(t)
	tok, err := c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{})
	if errors.Is(err, threads.ErrNoMCPServers) {
		t.Skip("the live project has no MCP servers")
	}
	require.NoError(t, err)
	assert.False(t, tok.Token.IsZero())
	th := liveThread(t, c, ctx)
	_, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: th.ID})
	require.NoError(t, err)
}

func TestLiveUpload(t *testing.T) {
	c, ctx := liveClient(t)
	uri, err := c.Storage.Upload(ctx, strings.NewReader("hello"), "text/plain", 5)
	var p *threads.Problem
	if errors.As(err, &p) && p.Status == 503 {
		t.Skip("the deployment has no storage configured")
	}
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(uri, "attachment://"))
}

func TestLiveRegistryUnknown(t *testing.T) {
	c, ctx := liveClient(t)
	_, err := c.Registry.Get(ctx, "threads-go-no-such-component")
	require.Error(t, err)
}
