package threads

import (
	"context"
	"net/http"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

const routeProjects = "/projects"

// ProjectsService reads the key's project; use it as Client.Projects.
//
// GET /projects is not part of the API spec; the live service offers it,
// and it is the only way to learn the project id that Create needs.
type ProjectsService struct {
	client *Client
}

// Current returns the project that the client's API key belongs to. It is
// a GET: transient failures are retried.
func (s *ProjectsService) Current(ctx context.Context, opts ...RequestOption) (*Project, error) {
	var c *Client
	if s != nil {
		c = s.client // nil for a zero ProjectsService: doJSON then reports it
	}
	return doInto[Project](ctx, c, opts, core.Call{Route: route.Route{Method: http.MethodGet, Template: routeProjects}})
}
