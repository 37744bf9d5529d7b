package proxy

import (
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzRoutes: whatever path a browser sends, a request the handler lets
// through names a /v1 route, and each of its values is one segment that
// no server resolves as a step elsewhere: sent escaped (as package runs
// sends ids), the path is already clean.
func FuzzRoutes(f *testing.F) {
	for _, s := range []string{
		"/v1/threads", "/v1/threads/thr_1/runs", "/v1/threads/%2e%2e/x", "/v1/threads/x%2F..%2Fy",
		"/v1/threads/..", "/v1//threads", `/v1/threads/a\b`, "/v1/threads/%20", "/v1/threads/a%25b/messages/m",
		"/v1/threads/thr_1/components/message-x/state", "/v1/threads/%C0%AE%C0%AE",
	} {
		f.Add("GET", s)
		f.Add("POST", s)
	}
	f.Fuzz(func(t *testing.T, method, p string) {
		u, err := url.Parse(p)
		if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
			return
		}
		r := httptest.NewRequest("GET", "/", nil)
		r.Method, r.URL = method, u
		_, rr, status, _ := match(r)
		if status != 0 {
			return
		}
		if !strings.HasPrefix(u.EscapedPath(), "/v1/threads") {
			t.Fatalf("%s %q matched outside /v1/threads", method, p)
		}
		sent, err := rr.Path()
		if err != nil {
			t.Fatalf("%q matched but cannot be sent: %v", p, err)
		}
		if path.Clean(sent) != sent {
			t.Fatalf("%q is sent as %q, which is not clean", p, sent)
		}
		for _, v := range rr.Values {
			if v == "" || v == "." || v == ".." || strings.ContainsAny(v, `/\`) || strings.TrimSpace(v) == "" {
				t.Fatalf("%q: value %q", p, v)
			}
			sent := "/v1/threads/" + url.PathEscape(v)
			if path.Clean(sent) != sent {
				t.Fatalf("%q: value %q is sent as %q, which is not clean", p, v, sent)
			}
		}
	})
}
