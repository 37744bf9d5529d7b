package runs

import (
	"strings"
	"testing"

	"github.com/threadsapi/threads-go/internal/route/routecheck"
)

// routes.go lists every route of the package: no other production file
// declares an endpoint or builds a route.Route by hand (run.go, client.go
// and token.go did).
func TestEveryRouteIsInRoutesGo(t *testing.T) {
	t.Parallel()
	found, err := routecheck.Literals(".", "endpoint", "route.Route")
	if err != nil {
		t.Fatal(err)
	}
	var in int
	for _, f := range found {
		if !strings.HasPrefix(f, "routes.go:") {
			t.Errorf("a route built outside routes.go: %s", f)
			continue
		}
		in++
	}
	if in < 14 {
		t.Errorf("routes.go lists %d routes: %v", in, found)
	}
}
