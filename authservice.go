package threads

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
)

// This file is the AuthService: short-lived MCP tokens. Its route is not
// in the API spec nor the recorded captures: it follows the service's
// OpenAPI document as the official TypeScript SDK
// (@tambo-ai/typescript-sdk, generated from it) renders it, the same in
// every release from 0.61.0 to 0.96.4.

// AuthService hands out short-lived credentials; use it as Client.Auth.
type AuthService struct{ client *Client }

// Format prints "threads.AuthService" whatever the verb.
func (s AuthService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.AuthService") }

// MCPTokenParams says what an MCP access token is for.
type MCPTokenParams struct {
	// ThreadID binds the token to one thread of the key's project (its
	// MCP calls then act in that thread's session); empty: a sessionless
	// token, which reaches the MCP servers' resources and prompts only.
	ThreadID string
	// ContextKey names the end user a sessionless token (no ThreadID)
	// acts for; empty: the service takes it from the call's bearer token,
	// if any. The service's document describes it for sessionless tokens
	// only.
	ContextKey string
}

// MCPAccessToken is a short-lived token for the service's MCP server.
type MCPAccessToken struct {
	// Token is the credential: printed redacted everywhere; Reveal it to
	// send it (as "Authorization: Bearer" to the MCP server).
	Token Token
	// ExpiresAt is when it stops working (the service gives 15 minutes);
	// zero when the service did not say.
	ExpiresAt time.Time
	// HasSession reports whether the token is bound to a thread.
	HasSession bool
}

// ErrNoMCPServers is returned (wrapped) by [AuthService.MCPAccessToken]
// when the service answered without a token, which it does when the
// project has no MCP servers configured: there is nothing to call.
var ErrNoMCPServers = errors.New("threads: the project has no MCP servers, so the service issued no MCP token")

// mcpTokenBody is the service's answer: every member is left out when the
// project has no MCP servers.
type mcpTokenBody struct {
	MCPAccessToken Token       `json:"mcpAccessToken"`
	ExpiresAt      epochMillis `json:"expiresAt"`
	HasSession     bool        `json:"hasSession"`
}

// epochMillis reads a time sent as milliseconds since the Unix epoch (what
// the service's OpenAPI document gives), or as an RFC 3339 string.
type epochMillis struct{ time.Time }

func (t *epochMillis) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return t.Time.UnmarshalJSON(b)
	}
	if string(b) == "null" {
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	// Beyond ±year 292277026596 a time.Time cannot hold it; a year
	// 10000 bound is plenty for an expiry and keeps the arithmetic exact.
	if err != nil || ms < 0 || ms > 253402300799999 {
		return fmt.Errorf("expiresAt: want milliseconds since the epoch, got %.40q", b)
	}
	t.Time = time.UnixMilli(int64(ms)).UTC()
	return nil
}

// MCPAccessToken asks for a short-lived MCP token (see MCPTokenParams for
// thread-bound or sessionless). The project key may ask for tokens of its
// own project and its threads (a thread outside it answers 403 or 404).
// When the project has no MCP servers the service issues no token and the
// error wraps [ErrNoMCPServers]. The token never appears in an error or
// log line. It is a POST: only what provably did not act is retried.
// Route: POST /auth/mcp/access-token, from the service's OpenAPI
// document (answer: mcpAccessToken, expiresAt in epoch milliseconds,
// hasSession).
func (s *AuthService) MCPAccessToken(ctx context.Context, params MCPTokenParams, opts ...RequestOption) (*MCPAccessToken, error) {
	const op = "Auth.MCPAccessToken"
	var c *Client
	if s != nil {
		c = s.client
	}
	r, _ := epMCPAccessToken.route(op)
	body := map[string]any{}
	if params.ThreadID != "" {
		if err := checkID("thread", params.ThreadID); err != nil {
			return nil, fmt.Errorf("threads: %s: %w", op, err)
		}
		body["threadId"] = params.ThreadID
	}
	if params.ContextKey != "" {
		body["contextKey"] = params.ContextKey
	}
	out, err := epMCPAccessToken.do(ctx, c, opts, core.Call{Route: r, Body: body})
	if err != nil {
		return nil, err
	}
	if out.MCPAccessToken.IsZero() {
		return nil, fmt.Errorf("threads: %s: %w", op, ErrNoMCPServers)
	}
	return &MCPAccessToken{Token: out.MCPAccessToken, ExpiresAt: out.ExpiresAt.Time, HasSession: out.HasSession}, nil
}
