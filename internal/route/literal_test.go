package route

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var literalTemplates = []string{"/threads/{id}", "/threads/advancestream", "/threads/{id}/messages/{messageId}"}

// A path of one of the SDK's routes becomes that route, with its values
// unescaped; the literal route wins over a placeholder; the query comes
// apart.
func TestLiteralKnownRoutes(t *testing.T) {
	t.Parallel()
	r, known, q, err := Literal("GET", "/threads/thr_1.a%20b/messages/m%3A1?limit=2&x=%2F", literalTemplates)
	require.NoError(t, err)
	assert.True(t, known)
	assert.Equal(t, Route{Method: "GET", Template: "/threads/{id}/messages/{messageId}",
		Values: map[string]string{"id": "thr_1.a b", "messageId": "m:1"}}, r)
	assert.Equal(t, url.Values{"limit": {"2"}, "x": {"/"}}, q)
	p, err := r.Path()
	require.NoError(t, err)
	assert.Equal(t, "/threads/thr_1.a%20b/messages/m:1", p)

	r, known, _, err = Literal("POST", "/threads/advancestream", literalTemplates)
	require.NoError(t, err)
	assert.True(t, known)
	assert.Equal(t, "/threads/advancestream", r.Template)
}

// Any other path keeps its segments, each escaped as an id is; a leading
// ':' or braces cannot become a placeholder.
func TestLiteralUnknownRoute(t *testing.T) {
	t.Parallel()
	r, known, q, err := Literal("PUT", "/v2/things/:x/%7Bid%7D/a%20b", literalTemplates)
	require.NoError(t, err)
	assert.False(t, known)
	assert.Nil(t, q)
	assert.Equal(t, Route{Method: "PUT", Template: "/v2/things/%3Ax/%7Bid%7D/a%20b"}, r)
	p, err := r.Path()
	require.NoError(t, err)
	assert.Equal(t, r.Template, p)
}

// Every path that could leave its route, reach another host or hide a
// separator is refused before anything is sent; ids that CheckID refuses
// match ErrInvalidID.
func TestLiteralRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ method, path string }{
		{"get", "/threads"},
		{"FETCH", "/threads"},
		{"GET", "threads/x"},
		{"GET", "https://evil.example/threads"},
		{"GET", "//evil.example/threads"},
		{"GET", "/threads#x"},
		{"GET", "/threads//x"},
		{"GET", "/threads/"},
		{"GET", "/"},
		{"GET", "/threads/.."},
		{"GET", "/threads/%2e%2E"},
		{"GET", "/threads/.%2e/projects"},
		{"GET", "/threads/a%2Fb"},
		{"GET", "/threads/a%2fb"},
		{"GET", "/threads/a%5Cb"},
		{"GET", `/threads/a\b`},
		{"GET", "/threads/%zz"},
		{"GET", "/threads/%20"},
		{"GET", "/threads/x?a=%zz"},
		{"GET", "/threads/x%00"},
		{"GET", "/threads/a%0Ab"},
		{"GET", "/threads/a%7F"},
	} {
		_, _, _, err := Literal(c.method, c.path, literalTemplates)
		assert.Error(t, err, "%s %s", c.method, c.path)
	}
	_, _, _, err := Literal("GET", "/threads/%20%09", literalTemplates)
	assert.ErrorIs(t, err, ErrInvalidID)
}

// A route the SDK does not model is named with its id-like segments as
// {id}; other segments are kept.
func TestNamedIDSegments(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/v1/threads/thr_Oe6qxjmg.338944/usage":       "/v1/threads/{id}/usage",
		"/v1/threads/thr_1/runs/run_2/messages/msg_3": "/v1/threads/{id}/runs/{id}/messages/{id}",
		"/threads/project/p_FakeProj.c0ffee/usage":    "/threads/project/{id}/usage",
		"/v1/threads/comp_Ab12.0a0b0c":                "/v1/threads/{id}",
		"/v1/threads/mythread/usage":                  "/v1/threads/mythread/usage",
		"/v1/threads/thr_/x":                          "/v1/threads/thr_/x",
		"/v1/a_b.c/x_y.12":                            "/v1/a_b.c/x_y.12",
		"/no/such/route":                              "/no/such/route",
	} {
		if got := Named(in); got != want {
			t.Errorf("Named(%q) = %q, want %q", in, got, want)
		}
	}
}
