package threads_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMCPAccessToken(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	tok, err := c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ContextKey: "user-1"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(tok.Token.Reveal(), "mcp_tok_"))
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v", tok, *tok, tok), tok.Token.Reveal())
	assert.WithinDuration(t, time.Now().Add(15*time.Minute), tok.ExpiresAt, time.Hour, "expiresAt read as epoch milliseconds")
	assert.False(t, tok.HasSession)

	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	tok, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: th.ID})
	require.NoError(t, err)
	assert.True(t, tok.HasSession)
	reqs := srv.Requests()
	assert.JSONEq(t, `{"threadId":"`+th.ID+`"}`, string(reqs[len(reqs)-1].Body))
	_, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ContextKey: "user-1"})
	require.NoError(t, err)
	reqs = srv.Requests()
	assert.JSONEq(t, `{"contextKey":"user-1"}`, string(reqs[len(reqs)-1].Body))
	_, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: "thr_none"})
	require.ErrorIs(t, err, threads.ErrForbidden)
}

// A sessionless token without a context key is refused, as the service
// refuses it for a project with MCP servers (before, the fake minted one,
// and TestLiveMCPAccessToken, which asked the same, passed only by
// skipping).
func TestMCPAccessTokenNeedsContextKey(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	_, err := c.Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{})
	require.ErrorIs(t, err, threads.ErrBadRequest)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "Context key is required for sessionless tokens (provide in body or use Bearer token authentication)", p.Detail)
}

func TestMCPAccessTokenWithoutMCPServers(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutMCPServers())
	_, err := srv.Client().Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{ContextKey: "user-1"})
	require.ErrorIs(t, err, threads.ErrNoMCPServers)
}

// TestMCPAccessTokenExpiry reads expiresAt in the forms a service may
// send: epoch milliseconds (its OpenAPI document), an RFC 3339 string,
// null or nothing; anything else is a decode error, never a panic.
func TestMCPAccessTokenExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want time.Time
		bad  bool
	}{
		{`{"mcpAccessToken":"t","expiresAt":1767225600000}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{`{"mcpAccessToken":"t","expiresAt":1767225600000.0}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{`{"mcpAccessToken":"t","expiresAt":"2026-01-01T00:00:00Z"}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{`{"mcpAccessToken":"t","expiresAt":null}`, time.Time{}, false},
		{`{"mcpAccessToken":"t"}`, time.Time{}, false},
		{`{"mcpAccessToken":"t","expiresAt":-5}`, time.Time{}, true},
		{`{"mcpAccessToken":"t","expiresAt":1e300}`, time.Time{}, true},
		{`{"mcpAccessToken":"t","expiresAt":true}`, time.Time{}, true},
	} {
		c := cannedClient(t, serveCanned(t, http.StatusCreated, "application/json", []byte(tc.body)))
		tok, err := c.Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{})
		if tc.bad {
			require.ErrorIs(t, err, threads.ErrUnexpectedResponse, tc.body)
			continue
		}
		require.NoError(t, err, tc.body)
		assert.True(t, tc.want.Equal(tok.ExpiresAt), "%s: got %v", tc.body, tok.ExpiresAt)
	}
}
