package route

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzResolve: whatever the advice, base URL and id, a resolved route
// never leaves the base URL's scheme, host and path prefix, keeps the
// call's method and its id, and has no dot segment in any spelling.
func FuzzResolve(f *testing.F) {
	for _, advice := range []string{
		"POST /:id/advancestream", "POST /advancestream", "POST /threads/{id}/advancestream",
		"POST /threads/:id/advancestream?x=1", "POST https://api.example.com/api/threads/:id/advancestream",
		"POST https://evil.example/threads/:id/x", "POST //evil.example/x", "GET /../../etc",
		"POST /:id/%2e%2E/x", "POST /:id/x?t=:id", "DELETE /:id", "POST /advancestream",
	} {
		f.Add(advice, "https://api.example.com/api", "thr_aB3dE9xZ.1f2e3d")
	}
	f.Add("POST /:id/advancestream", "http://127.0.0.1:8080", "../../x")
	f.Fuzz(func(t *testing.T, advice, rawBase, id string) {
		base, err := url.Parse(rawBase)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" ||
			base.User != nil || base.RawQuery != "" || base.Fragment != "" || id == "" {
			t.Skip()
		}
		from := Route{Method: "POST", Template: "/threads/{id}/advance", Values: map[string]string{"id": id}}
		m, err := Resolve(advice, base, from)
		if err != nil {
			return
		}
		p, err := m.Route(from.Values).Path()
		if err != nil {
			t.Fatalf("resolved %q but cannot expand it: %v", advice, err)
		}
		u, err := Join(base, p)
		if err != nil {
			return // not sent
		}
		if m.Method != from.Method {
			t.Fatalf("%q switched the method to %s", advice, m.Method)
		}
		if !strings.Contains(p, EscapeSegment(id)) && !strings.Contains(p, url.QueryEscape(id)) {
			t.Fatalf("%q dropped the id: %s", advice, p)
		}
		path, _, _ := strings.Cut(p, "?")
		for _, seg := range strings.Split(path, "/") {
			if seg != EscapeSegment(id) && dotSegment(seg) {
				t.Fatalf("%q resolved to a dot segment: %s", advice, p)
			}
		}
		if u.Scheme != base.Scheme || u.Host != base.Host || u.User != nil {
			t.Fatalf("%q resolved off the base origin: %s", advice, u)
		}
		// Compare decoded paths: the two sides may escape the same path differently.
		if prefix := strings.TrimSuffix(base.Path, "/"); !strings.HasPrefix(u.Path, prefix+"/") {
			t.Fatalf("%q resolved outside the base path %q: %s", advice, prefix, u.Path)
		}
	})
}
