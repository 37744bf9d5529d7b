package threads

import (
	"context"
	"fmt"

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
