package runs

import (
	"strings"
	"testing"

	"github.com/threadsapi/threads-go/internal/route/routecheck"
)

// The package's routes are internal/v1wire's: no production file of runs
// declares a route or builds a route.Route by hand, but routes.go for the
// route of a path Client.Do was given that the table does not list
// (endpointOf) and for fill's zero value on an error.
func TestRoutesComeFromV1wire(t *testing.T) {
	t.Parallel()
	found, err := routecheck.Literals(".", "v1wire.Route", "route.Route")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if !strings.HasPrefix(f, "routes.go:") {
			t.Errorf("a route built outside routes.go: %s", f)
		}
	}
	if len(found) != 2 {
		t.Errorf("routes.go builds %d routes, want only Do's unknown route and fill's error value: %v", len(found), found)
	}
}
