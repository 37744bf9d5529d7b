package threads

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
)

// This file holds the rest of what a project API key may call besides
// threads and messages: its project, the project's API keys and model
// provider keys, short-lived MCP tokens, and the component registry. None
// of these routes is in the API spec or the recorded captures; each
// follows the service's source and OpenAPI document as its doc says, so
// field names may lag a service that changed since.

var (
	epGetProject        = endpoint[Project]{http.MethodGet, "/projects/{projectId}"}
	epListAPIKeys       = endpoint[[]APIKey]{http.MethodGet, "/projects/{projectId}/api-keys"}
	epDeleteAPIKey      = endpoint[noAnswer]{http.MethodDelete, "/projects/{projectId}/api-keys/{apiKeyId}"}
	epListProviderKeys  = endpoint[[]ProviderKey]{http.MethodGet, "/projects/{projectId}/provider-keys"}
	epDeleteProviderKey = endpoint[noAnswer]{http.MethodDelete, "/projects/{projectId}/provider-keys/{providerKeyId}"}
	epMCPAccessToken    = endpoint[mcpTokenBody]{http.MethodPost, "/auth/mcp/access-token"}
	epRegistryGet       = endpoint[RegistryItem]{http.MethodGet, "/registry/{name}"}
)

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
	CreatedAt          time.Time `json:"createdAt,omitzero"`
	LastUsedAt         time.Time `json:"lastUsedAt,omitzero"` // zero: never used
	CreatedByUserID    string    `json:"createdByUserId,omitzero"`
}

// ProviderKey is one of a project's model provider keys, as listed: never
// the key itself.
type ProviderKey struct {
	ID                 string `json:"id"`
	ProviderName       string `json:"providerName,omitzero"` // such as openai
	PartiallyHiddenKey string `json:"partiallyHiddenKey,omitzero"`
	ProjectID          string `json:"projectId,omitzero"`
}

// Get returns the project id names. The project key may read its own
// project only (another project's id answers 403, [ErrForbidden]). It is
// a GET: transient failures are retried. Route: GET /projects/{id}, from
// the service's source (projects.controller) and OpenAPI document.
func (s *ProjectsService) Get(ctx context.Context, id string, opts ...RequestOption) (*Project, error) {
	r, err := epGetProject.route("Projects.Get", id)
	if err != nil {
		return nil, err
	}
	return epGetProject.do(ctx, s.c(), opts, core.Call{Route: r})
}

// APIKeys lists the project's API keys (names and hidden forms, never the
// keys). The project key may list its own project's keys only. Route: GET
// /projects/{id}/api-keys, from the service's source and OpenAPI document.
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
// calls then fail with 403. It is a DELETE: retried like a write, only
// when it provably did not act. Route: DELETE
// /projects/{id}/api-keys/{apiKeyId}, from the service's source and
// OpenAPI document.
func (s *ProjectsService) DeleteAPIKey(ctx context.Context, projectID, apiKeyID string, opts ...RequestOption) error {
	r, err := epDeleteAPIKey.route("Projects.DeleteAPIKey", projectID, apiKeyID)
	if err != nil {
		return err
	}
	return epDeleteAPIKey.discard(ctx, s.c(), opts, core.Call{Route: r})
}

// ProviderKeys lists the project's model provider keys (names and hidden
// forms, never the keys). The project key may list its own project's only.
// Route: GET /projects/{id}/provider-keys, from the service's source and
// OpenAPI document.
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
// project key may delete its own project's keys only. Route: DELETE
// /projects/{id}/provider-keys/{providerKeyId}, from the service's source
// and OpenAPI document.
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
	// MCP calls then act in that thread's context); empty: a token for
	// the project, bound to no thread.
	ThreadID string
}

// MCPAccessToken is a short-lived token for the service's MCP server.
type MCPAccessToken struct {
	// Token is the credential: printed redacted everywhere; Reveal it to
	// send it (as "Authorization: Bearer" to the MCP server).
	Token Token
	// ExpiresAt is when it stops working; zero when the service did not
	// say.
	ExpiresAt time.Time
}

// mcpTokenBody reads the answer under the names the service's versions
// have used for the token.
type mcpTokenBody struct {
	AccessToken    Token     `json:"accessToken"`
	MCPAccessToken Token     `json:"mcpAccessToken"`
	ExpiresAt      time.Time `json:"expiresAt,omitzero"`
}

// MCPAccessToken asks for a short-lived MCP token (see MCPTokenParams for
// thread-bound or not). The project key may ask for tokens of its own
// project and its threads (a thread outside it answers 403 or 404). The
// token never appears in an error or log line. It is a POST: only what
// provably did not act is retried. Route: POST /auth/mcp/access-token,
// following the service's source; the answer's token is read from
// "accessToken" (or "mcpAccessToken", the name the advance answers use).
func (s *AuthService) MCPAccessToken(ctx context.Context, params MCPTokenParams, opts ...RequestOption) (*MCPAccessToken, error) {
	var c *Client
	if s != nil {
		c = s.client
	}
	r, _ := epMCPAccessToken.route("Auth.MCPAccessToken")
	body := map[string]any{}
	if params.ThreadID != "" {
		if err := checkID("thread", params.ThreadID); err != nil {
			return nil, fmt.Errorf("threads: Auth.MCPAccessToken: %w", err)
		}
		body["threadId"] = params.ThreadID
	}
	out, err := epMCPAccessToken.do(ctx, c, opts, core.Call{Route: r, Body: body})
	if err != nil {
		return nil, err
	}
	tok := out.AccessToken
	if tok.IsZero() {
		tok = out.MCPAccessToken
	}
	if tok.IsZero() {
		return nil, unexpectedResponse(r.Method, r.Template, http.StatusCreated, "no access token in the answer")
	}
	return &MCPAccessToken{Token: tok, ExpiresAt: out.ExpiresAt}, nil
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
// registry. It is a GET: transient failures are retried; an unknown name
// is [ErrNotFound]. Route: GET /registry/{name}, following the service's
// source.
func (s *RegistryService) Get(ctx context.Context, name string, opts ...RequestOption) (RegistryItem, error) {
	var c *Client
	if s != nil {
		c = s.client
	}
	r, err := epRegistryGet.route("Registry.Get", name)
	if err != nil {
		return nil, err
	}
	out, err := epRegistryGet.do(ctx, c, opts, core.Call{Route: r})
	if err != nil {
		return nil, err
	}
	return *out, nil
}
