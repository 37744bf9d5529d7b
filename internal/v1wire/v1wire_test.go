package v1wire

import (
	"strings"
	"testing"

	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/route/routecheck"
)

// v1wire.go is the one table: every route is declared there, each route
// of Routes once, each template fills with ids as route.Fill fills it.
func TestRoutesAreDeclaredOnce(t *testing.T) {
	t.Parallel()
	found, err := routecheck.Literals(".", "Route")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if !strings.HasPrefix(f, "v1wire.go:") {
			t.Errorf("a route declared outside v1wire.go: %s", f)
		}
	}
	if len(found) != 15 {
		t.Errorf("v1wire.go declares %d routes, want 15 (13 for an end user, the token exchange, the proxy's RunEvents): %v", len(found), found)
	}
	seen := map[string]bool{}
	for _, r := range Routes() {
		k := r.Method + " " + r.Template
		if seen[k] {
			t.Errorf("%s is listed twice", k)
		}
		seen[k] = true
		if r.Key == KeyNone {
			t.Errorf("%s acts for no end user, but is in Routes", k)
		}
		ids := make([]string, strings.Count(r.Template, "{"))
		for i := range ids {
			ids[i] = "x"
		}
		if _, err := route.Fill(r.Method, r.Template, ids...); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		got, ok := Lookup(r.Method, r.Template)
		if !ok || got != r {
			t.Errorf("Lookup(%s) = %+v, %v", k, got, ok)
		}
	}
	if len(seen) != 13 {
		t.Errorf("Routes lists %d routes, want 13", len(seen))
	}
}

// Templates lists each template of a method once, and every method's
// when asked for "".
func TestTemplates(t *testing.T) {
	t.Parallel()
	if got := Templates("DELETE"); strings.Join(got, " ") != "/v1/threads/{threadId} /v1/threads/{threadId}/runs/{runId}" {
		t.Errorf("Templates(DELETE) = %v", got)
	}
	all := Templates("")
	if len(all) != 9 {
		t.Errorf("Templates(\"\") = %d templates, want 9: %v", len(all), all)
	}
}
