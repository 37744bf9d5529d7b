package threads

import (
	"context"
	"fmt"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
)

// ProjectsService reads the key's project; use it as Client.Projects.
//
// GET /projects is not part of the API spec; the live service offers it,
// and it is the only way to learn the project id that Create needs.
type ProjectsService struct {
	client *Client
}

// Format prints "threads.ProjectsService" whatever the verb: fmt would otherwise
// print the client's settings through the pointer (a bad verb such as %s
// prints them in full), the headers and query values of WithHeader and
// WithQuery among them.
func (s ProjectsService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.ProjectsService") }

// Current returns the project that the client's API key belongs to. It is
// a GET: transient failures are retried.
func (s *ProjectsService) Current(ctx context.Context, opts ...RequestOption) (*Project, error) {
	var c *Client
	if s != nil {
		c = s.client // nil for a zero ProjectsService: doJSON then reports it
	}
	r, _ := epCurrentProject.route("Projects.Current")
	return epCurrentProject.do(ctx, c, opts, core.Call{Route: r})
}

// The rest of the ProjectsService: a project by id, the project's API keys
// and model provider keys. None of these routes is in the API spec or the
// recorded captures. Each follows the service's OpenAPI document as the
// official TypeScript SDK (@tambo-ai/typescript-sdk, generated from it)
// renders it, the same in every release from 0.61.0 to 0.96.4: its paths
// (note the singular "api-key" and "provider-key" of the deletes), field
// names and types.

// c returns the service's Client, nil for a nil or zero ProjectsService.
func (s *ProjectsService) c() *Client {
	if s == nil {
		return nil
	}
	return s.client
}

// APIKey is one of a project's API keys, as listed: never the key itself.
type APIKey struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

	ID                 string    `json:"id"`
	Name               string    `json:"name,omitzero"`
	PartiallyHiddenKey string    `json:"partiallyHiddenKey,omitzero"` // such as "tambo_…abcd"
	CreatedAt          time.Time `json:"created,omitzero"`
	LastUsedAt         time.Time `json:"lastUsed,omitzero"` // zero: never used
	CreatedByUserID    string    `json:"createdByUserId,omitzero"`
}

// ProviderKey is one of a project's model provider keys, as listed: never
// the key itself. The service's list also carries the key encrypted
// (providerKeyEncrypted); the SDK has no field for it (with
// [WithRawJSON], ExtraFields has it as sent).
type ProviderKey struct {
	// Raw gives the JSON the value was decoded from (RawJSON) and the
	// members the SDK does not model (ExtraFields).
	Raw `json:"-"`

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
// nil error does not say a key was deleted: list
// [ProjectsService.ProviderKeys] to know. It is a DELETE: retried like a
// write, only when it provably did not act. Route: DELETE
// /projects/{id}/provider-key/{providerKeyId} (singular "provider-key"),
// from the service's OpenAPI document.
func (s *ProjectsService) DeleteProviderKey(ctx context.Context, projectID, providerKeyID string, opts ...RequestOption) error {
	r, err := epDeleteProviderKey.route("Projects.DeleteProviderKey", projectID, providerKeyID)
	if err != nil {
		return err
	}
	return epDeleteProviderKey.discard(ctx, s.c(), opts, core.Call{Route: r})
}

// Delete deletes the project id names. Neither the captures nor the
// service's document say what goes with it (its threads, its keys, the
// client's own key); treat it as final. Like
// [ProjectsService.DeleteAPIKey] it reads the answer, a JSON boolean:
// false (nothing was deleted) is an error that matches [ErrNotFound], as
// is a 404. It is a DELETE: retried like a write, only when it provably
// did not act. Route: DELETE /projects/{id}, from the service's OpenAPI
// document as the official TypeScript SDK (0.96.4) renders it
// (client.beta.projects.delete, answering a boolean).
func (s *ProjectsService) Delete(ctx context.Context, id string, opts ...RequestOption) error {
	const op = "Projects.Delete"
	r, err := epDeleteProject.route(op, id)
	if err != nil {
		return err
	}
	deleted, err := epDeleteProject.deleted(ctx, s.c(), opts, core.Call{Route: r})
	if err == nil && !deleted {
		return fmt.Errorf("threads: %s: %w: the service deleted no project %q (it answered false)", op, ErrNotFound, id)
	}
	return err
}
