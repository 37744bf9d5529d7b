package route

import (
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

func TestResolve(t *testing.T) {
	t.Parallel()
	byID := Route{Method: "POST", Template: "/threads/{id}/advance", Values: map[string]string{"id": "thr_1.a"}}
	create := Route{Method: "POST", Template: "/threads/advance"}
	tests := []struct {
		name, advice, base string
		from               Route
		wantTmpl, wantURL  string
		wantMethod         string
	}{
		{"live by id", "POST /:id/advancestream", "https://api.example.com", byID,
			"/threads/:id/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"live create", "POST /advancestream", "https://api.example.com", create,
			"/threads/advancestream", "https://api.example.com/threads/advancestream", "POST"},
		{"braces with prefix", "POST /threads/{id}/advancestream", "https://api.example.com", byID,
			"/threads/{id}/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"colon with prefix", "POST /threads/:id/advancestream", "https://api.example.com", byID,
			"/threads/:id/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"much white space", "  POST\t  /:id/advancestream \n", "https://api.example.com", byID,
			"/threads/:id/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"query kept", "POST /:id/advancestream?mode=v2&x=1", "https://api.example.com", byID,
			"/threads/:id/advancestream?mode=v2&x=1", "https://api.example.com/threads/thr_1.a/advancestream?mode=v2&x=1", "POST"},
		{"query placeholder", "POST /advancestream2?thread=:id&x={id}&y=1", "https://api.example.com", byID,
			"/threads/advancestream2?thread=:id&x={id}&y=1", "https://api.example.com/threads/advancestream2?thread=thr_1.a&x=thr_1.a&y=1", "POST"},
		{"base prefix", "POST /:id/advancestream", "https://host.example/api", byID,
			"/threads/:id/advancestream", "https://host.example/api/threads/thr_1.a/advancestream", "POST"},
		{"base prefix slash", "POST /advancestream", "https://host.example/api/", create,
			"/threads/advancestream", "https://host.example/api/threads/advancestream", "POST"},
		{"absolute same origin", "POST https://api.example.com/threads/{id}/advancestream", "https://api.example.com", byID,
			"/threads/{id}/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"absolute default port", "POST https://API.example.com:443/threads/:id/advancestream", "https://api.example.com", byID,
			"/threads/:id/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"absolute under prefix", "POST https://host.example/api/threads/advancestream", "https://host.example/api", create,
			"/threads/advancestream", "https://host.example/api/threads/advancestream", "POST"},
		{"escaped id", "POST /:id/advancestream", "http://127.0.0.1:8080",
			Route{Method: "POST", Template: "/threads/{id}/advance", Values: map[string]string{"id": "a/b c"}},
			"/threads/:id/advancestream", "http://127.0.0.1:8080/threads/a%2Fb%20c/advancestream", "POST"},
		{"absolute naming the call's id", "POST http://127.0.0.1:8080/threads/thr_1.a/advancestream", "http://127.0.0.1:8080", byID,
			"/threads/{id}/advancestream", "http://127.0.0.1:8080/threads/thr_1.a/advancestream", "POST"},
		{"path naming the call's id", "POST /threads/thr_1.a/advancestream", "https://api.example.com", byID,
			"/threads/{id}/advancestream", "https://api.example.com/threads/thr_1.a/advancestream", "POST"},
		{"literal id escaped as the call escaped it", "POST http://127.0.0.1:8080/threads/a%2Fb%20c/advancestream", "http://127.0.0.1:8080",
			Route{Method: "POST", Template: "/threads/{id}/advance", Values: map[string]string{"id": "a/b c"}},
			"/threads/{id}/advancestream", "http://127.0.0.1:8080/threads/a%2Fb%20c/advancestream", "POST"},
		{"dot dot id", "POST /:id/advancestream", "http://127.0.0.1:8080",
			Route{Method: "POST", Template: "/threads/{id}/advance", Values: map[string]string{"id": ".."}},
			"/threads/:id/advancestream", "http://127.0.0.1:8080/threads/%2E%2E/advancestream", "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := mustURL(t, tt.base)
			m, err := Resolve(tt.advice, base, tt.from)
			require.NoError(t, err)
			assert.Equal(t, tt.wantMethod, m.Method)
			assert.Equal(t, tt.wantTmpl, m.Template)
			p, err := m.Route(tt.from.Values).Path()
			require.NoError(t, err)
			u, err := Join(base, p)
			require.NoError(t, err)
			assert.Equal(t, tt.wantURL, u.String())
			assert.Equal(t, base.Host, u.Host)
		})
	}
}

func TestResolveRefusals(t *testing.T) {
	t.Parallel()
	byID := Route{Method: "POST", Template: "/threads/{id}/advance", Values: map[string]string{"id": "thr_1.a"}}
	base := mustURL(t, "https://api.example.com/api")
	tests := []struct {
		name, advice string
		want         error
	}{
		{"empty", "", ErrMalformed},
		{"no path", "POST", ErrMalformed},
		{"three words", "POST /a /b", ErrMalformed},
		{"lowercase method", "post /:id/advancestream", ErrMalformed},
		{"bogus method", "FETCH /:id/advancestream", ErrMalformed},
		{"relative path", "POST advancestream", ErrMalformed},
		{"fragment", "POST /:id/advancestream#x", ErrMalformed},
		{"dot dot", "POST /../admin", ErrMalformed},
		{"other host", "POST https://evil.example/threads/:id/advancestream", ErrOffOrigin},
		{"other scheme", "POST http://api.example.com/api/threads/:id/advancestream", ErrOffOrigin},
		{"other port", "POST https://api.example.com:8443/api/threads/:id/advancestream", ErrOffOrigin},
		{"outside prefix", "POST https://api.example.com/threads/:id/advancestream", ErrOffOrigin},
		{"userinfo", "POST https://u:p@api.example.com/api/threads/x", ErrOffOrigin},
		{"scheme relative", "POST //evil.example/threads", ErrOffOrigin},
		{"unknown placeholder", "POST /:threadId/advancestream", ErrPlaceholder},
		{"unknown braces", "POST /threads/{project}/x", ErrPlaceholder},
		{"same route", "POST /:id/advance", ErrSameRoute},
		{"same route prefixed", "POST /threads/{id}/advance/", ErrSameRoute},
		{"other method", "PUT /:id/advance2", ErrMethod},
		{"delete", "DELETE /threads/:id", ErrMethod},
		{"get", "GET /:id", ErrMethod},
		{"encoded dot dot", "POST /:id/%2e%2e/%2e%2e/admin", ErrMalformed},
		{"encoded dot dot upper", "POST /%2E%2E/admin/:id", ErrMalformed},
		{"mixed dot dot", "POST /:id/%2E./x", ErrMalformed},
		{"mixed dot dot 2", "POST /:id/.%2e/x", ErrMalformed},
		{"encoded dot", "POST /%2e/:id/x", ErrMalformed},
		{"encoded slash", "POST /:id/..%2fadmin", ErrMalformed},
		{"encoded backslash", "POST /:id/..%5Cadmin", ErrMalformed},
		{"absolute encoded dot dot", "POST https://api.example.com/api/threads/%2e%2e/:id", ErrMalformed},
		{"query unknown placeholder", "POST /:id/advancestream?p=:project", ErrPlaceholder},
		{"drops the id", "POST /advancestream", ErrDropped},
		{"drops the id absolute", "POST https://api.example.com/api/threads/advancestream", ErrDropped},
		{"names another thread", "POST https://api.example.com/api/threads/thr_other/advancestream", ErrDropped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Resolve(tt.advice, base, byID)
			require.Error(t, err)
			assert.True(t, errors.Is(err, tt.want), "got %v", err)
		})
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	r := Route{Method: "GET", Template: "/threads/{id}", Values: map[string]string{"id": "thr_aB3dE9xZ.1f2e3d"}}
	p, err := r.Path()
	require.NoError(t, err)
	assert.Equal(t, "/threads/thr_aB3dE9xZ.1f2e3d", p)
	assert.Equal(t, "GET /threads/{id}", r.Key())
	assert.Equal(t, "GET /threads/thr_aB3dE9xZ.1f2e3d", r.String())

	_, err = Route{Template: "/threads/{id}"}.Path()
	assert.Error(t, err)
	_, err = Route{Template: "/threads/{id}", Values: map[string]string{"id": ""}}.Path()
	assert.Error(t, err)
}

// TestResolveCreateKeepsNoPlaceholder: the live create-and-advance advice
// has no placeholder and its route none either: accepted.
func TestResolveCreateKeepsNoPlaceholder(t *testing.T) {
	t.Parallel()
	create := Route{Method: "POST", Template: "/threads/advance"}
	m, err := Resolve("POST /advancestream", mustURL(t, "https://api.example.com"), create)
	require.NoError(t, err)
	assert.Equal(t, "/threads/advancestream", m.Template)
	_, err = Resolve("GET /advancestream", mustURL(t, "https://api.example.com"), create)
	assert.ErrorIs(t, err, ErrMethod)
}
