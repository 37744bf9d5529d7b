package threads

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
)

// This file holds the rest of what a project API key may call besides
// threads and messages: its project, the project's API keys and model
// provider keys, short-lived MCP tokens, and the component registry. None
// of these routes is in the API spec or the recorded captures. Each
// follows the service's OpenAPI document as the official TypeScript SDK
// (@tambo-ai/typescript-sdk, generated from it) renders it, the same in
// every release from 0.61.0 to 0.96.4: its paths (note the singular
// "api-key" and "provider-key" of the deletes), field names and types.

// c returns the service's Client, nil for a nil or zero ProjectsService.
func (s *ProjectsService) c() *Client {
	if s == nil {
		return nil
	}
	return s.client
}

// APIKey is one of a project's API keys, as listed: never the key itself.
type APIKey struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name,omitzero"`
	PartiallyHiddenKey string    `json:"partiallyHiddenKey,omitzero"` // such as "tambo_…abcd"
	CreatedAt          time.Time `json:"created,omitzero"`
	LastUsedAt         time.Time `json:"lastUsed,omitzero"` // zero: never used
	CreatedByUserID    string    `json:"createdByUserId,omitzero"`
}

// ProviderKey is one of a project's model provider keys, as listed: never
// the key itself. The service's list also carries the key encrypted
// (providerKeyEncrypted); the SDK does not keep it.
type ProviderKey struct {
	ID                 string `json:"id"`
	ProviderName       string `json:"providerName,omitzero"` // such as openai
	PartiallyHiddenKey string `json:"partiallyHiddenKey,omitzero"`
}

// Get returns the project id names. The project key may read its own
// project only (another project's id answers 403, [ErrForbidden]). It is
// a GET: transient failures are retried. Route: GET /projects/{id}, from
// the service's OpenAPI document.
func (s *ProjectsService) Get(ctx context.Context, id string, opts ...RequestOption) (*Project, error) {
	r, err := epGetProject.route("Projects.Get", id)
	if err != nil {
		return nil, err
	}
	return epGetProject.do(ctx, s.c(), opts, core.Call{Route: r})
}

// APIKeys lists the project's API keys (names and hidden forms, never the
// keys). The project key may list its own project's keys only. Route: GET
// /projects/{id}/api-keys, from the service's OpenAPI document.
func (s *ProjectsService) APIKeys(ctx context.Context, projectID string, opts ...RequestOption) ([]APIKey, error) {
	r, err := epListAPIKeys.route("Projects.APIKeys", projectID)
	if err != nil {
		return nil, err
	}
	out, err := epListAPIKeys.do(ctx, s.c(), opts, core.Call{Route: r})
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// DeleteAPIKey deletes one of the project's API keys. The project key may
// delete a key of its own project, itself included: the client's later
// calls then fail with 403. The service answers a key id it does not know
// with 200 and the body false (capture 32), not 404: DeleteAPIKey then
// returns an error that matches [ErrNotFound] (a 404 from another
// deployment is a *Problem that matches it too). It is a DELETE: retried
// like a write, only when it provably did not act. Route: DELETE
// /projects/{id}/api-key/{apiKeyId} (singular "api-key"), from the
// service's OpenAPI document.
func (s *ProjectsService) DeleteAPIKey(ctx context.Context, projectID, apiKeyID string, opts ...RequestOption) error {
	const op = "Projects.DeleteAPIKey"
	r, err := epDeleteAPIKey.route(op, projectID, apiKeyID)
	if err != nil {
		return err
	}
	deleted, err := epDeleteAPIKey.deleted(ctx, s.c(), opts, core.Call{Route: r})
	if err == nil && !deleted {
		return fmt.Errorf("threads: %s: %w: the service deleted no API key %q in project %q (it answered false)", op, ErrNotFound, apiKeyID, projectID)
	}
	return err
}

// ProviderKeys lists the project's model provider keys (names and hidden
// forms, never the keys). The project key may list its own project's only.
// Route: GET /projects/{id}/provider-keys, from the service's OpenAPI
// document.
func (s *ProjectsService) ProviderKeys(ctx context.Context, projectID string, opts ...RequestOption) ([]ProviderKey, error) {
	r, err := epListProviderKeys.route("Projects.ProviderKeys", projectID)
	if err != nil {
		return nil, err
	}
	out, err := epListProviderKeys.do(ctx, s.c(), opts, core.Call{Route: r})
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// DeleteProviderKey deletes one of the project's model provider keys; the
// project's threads then use the service's default provider or fail. The
// project key may delete its own project's keys only. The service answers
// 200 with the project whether or not the key existed (capture 33), so a
// nil error does not say a key was deleted: list [ProjectsService.ProviderKeys]
// to know. It is a DELETE:
// retried like a write, only when it provably did not act. Route: DELETE
// /projects/{id}/provider-key/{providerKeyId} (singular "provider-key"),
// from the service's OpenAPI document.
func (s *ProjectsService) DeleteProviderKey(ctx context.Context, projectID, providerKeyID string, opts ...RequestOption) error {
	r, err := epDeleteProviderKey.route("Projects.DeleteProviderKey", projectID, providerKeyID)
	if err != nil {
		return err
	}
	return epDeleteProviderKey.discard(ctx, s.c(), opts, core.Call{Route: r})
}

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

// RegistryService reads the service's component registry; use it as
// Client.Registry.
type RegistryService struct{ client *Client }

// Format prints "threads.RegistryService" whatever the verb.
func (s RegistryService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.RegistryService") }

// RegistryItem is one registry entry as the service sends it (a component
// and its files, in the registry's JSON format). Its shape belongs to the
// registry, not to this API, so it is kept as decoded JSON: the members
// "name", "type" and "files" are the usual ones.
type RegistryItem map[string]any

// Get returns the registry entry called name. Any project key may read the
// registry. The live service answers an unknown name with 500 Internal
// server error (capture 30), not 404: Get returns that *Problem, which
// matches [ErrServer], at once, since on this route a 500 is the answer,
// not a passing fault (it is not retried; the service cannot tell an
// unknown name from a failure, and neither can the SDK). A 404 (other
// deployments, threadstest) matches [ErrNotFound]. Its other transient
// failures are retried as any GET's. Route: GET /registry/{name},
// following the service's OpenAPI document (which leaves the answer's
// shape open).
func (s *RegistryService) Get(ctx context.Context, name string, opts ...RequestOption) (RegistryItem, error) {
	var c *Client
	if s != nil {
		c = s.client
	}
	r, err := epRegistryGet.route("Registry.Get", name)
	if err != nil {
		return nil, err
	}
	out, err := epRegistryGet.do(ctx, c, opts, core.Call{Route: r, FinalStatus: http.StatusInternalServerError})
	if err != nil {
		return nil, err
	}
	return *out, nil
}
