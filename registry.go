package threads

import (
	"context"
	"fmt"
	"net/http"

	"github.com/threadsapi/threads-go/internal/core"
)

// This file is the RegistryService: the component registry. Its route is
// not in the API spec: it follows the service's OpenAPI document as the
// official TypeScript SDK (@tambo-ai/typescript-sdk, generated from it)
// renders it; capture 30 of turn 4 shows the live service's answer to an
// unknown name.

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
