package threads_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// movingServer retires GET /projects with 410 advice to a replacement,
// and answers each replacement path as told.
type movingServer struct {
	*authServer
	mu      sync.Mutex
	advice  string         // the 410's migrateToEndpoint
	answers map[string]int // replacement path -> status (200: the project)
}

func newMovingServer(t *testing.T) *movingServer {
	m := &movingServer{answers: map[string]int{}}
	m.authServer = newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		advice, status := m.advice, m.answers[r.URL.Path]
		m.mu.Unlock()
		switch {
		case r.URL.Path == "/projects":
			answer(http.StatusGone, `{"type":"about:blank","status":410,"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"`+advice+`"}}`)(w, r)
		case status == http.StatusOK:
			answer(http.StatusOK, projectJSON)(w, r)
		case status == http.StatusGone:
			answer(http.StatusGone, `{"statusCode":410,"message":"Gone","error":"Gone"}`)(w, r)
		case status != 0:
			answer(status, `{"statusCode":`+http.StatusText(status)+`}`)(w, r)
		default:
			answer(http.StatusNotFound, `{"message":"Cannot GET `+r.URL.Path+`","error":"Not Found","statusCode":404}`)(w, r)
		}
	})
	return m
}

func (m *movingServer) set(advice string, answers map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advice = advice
	for k, v := range answers {
		m.answers[k] = v
	}
}

func (m *movingServer) paths() []string {
	var out []string
	for _, r := range m.requests() {
		out = append(out, r.Path)
	}
	return out
}

// A remembered move is forgotten when its replacement answers 404 or 410:
// the next call sends the original route and learns the move again.
func TestMigrationForgottenWhenReplacementGone(t *testing.T) {
	t.Parallel()
	for _, gone := range []int{http.StatusNotFound, http.StatusGone} {
		t.Run(http.StatusText(gone), func(t *testing.T) {
			t.Parallel()
			srv := newMovingServer(t)
			srv.set("GET /projects/v2", map[string]int{"/projects/v2": 200})
			c := authClient(t, srv.URL, threads.WithAPIKeyHeader("x-api-key"))
			ctx := context.Background()

			_, err := c.Projects.Current(ctx)
			require.NoError(t, err)
			_, err = c.Projects.Current(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"/projects", "/projects/v2", "/projects/v2"}, srv.paths(), "remembered after its 2xx")

			srv.set("GET /projects/v3", map[string]int{"/projects/v2": gone, "/projects/v3": 200})
			_, err = c.Projects.Current(ctx)
			var p *threads.Problem
			require.ErrorAs(t, err, &p)
			assert.Equal(t, gone, p.Status)
			assert.Equal(t, "/projects/v2", p.Path)

			_, err = c.Projects.Current(ctx)
			require.NoError(t, err)
			_, err = c.Projects.Current(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"/projects", "/projects/v2", "/projects/v2",
				"/projects/v2",              // refused: forgotten
				"/projects", "/projects/v3", // learned again
				"/projects/v3"}, srv.paths())
		})
	}
}

// A refusal about the key or the thread (401, 403), a rate limit or a
// server error keeps the move: the next call goes to the replacement again.
func TestMigrationKeptOnOtherRefusals(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			srv := newMovingServer(t)
			srv.set("GET /projects/v2", map[string]int{"/projects/v2": 200})
			c := authClient(t, srv.URL, threads.WithAPIKeyHeader("x-api-key"))
			ctx := context.Background()
			_, err := c.Projects.Current(ctx)
			require.NoError(t, err)

			srv.set("GET /projects/v2", map[string]int{"/projects/v2": status})
			_, err = c.Projects.Current(ctx)
			var p *threads.Problem
			require.ErrorAs(t, err, &p)
			assert.Equal(t, status, p.Status)

			srv.set("GET /projects/v2", map[string]int{"/projects/v2": 200})
			_, err = c.Projects.Current(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"/projects", "/projects/v2", "/projects/v2", "/projects/v2"}, srv.paths())
		})
	}
}

// A replacement that is itself retired with usable advice moves the
// remembered route on, once the new replacement answered 2xx.
func TestMigrationReplacementRetiredAgain(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	v2Gone := false
	srv := newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gone := v2Gone
		mu.Unlock()
		moveTo := func(to string) {
			answer(http.StatusGone, `{"type":"about:blank","status":410,"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"GET `+to+`"}}`)(w, r)
		}
		switch {
		case r.URL.Path == "/projects":
			moveTo("/projects/v2")
		case r.URL.Path == "/projects/v2" && gone:
			moveTo("/projects/v3")
		default:
			answer(http.StatusOK, projectJSON)(w, r)
		}
	})
	c := authClient(t, srv.URL, threads.WithAPIKeyHeader("x-api-key"))
	ctx := context.Background()
	_, err := c.Projects.Current(ctx)
	require.NoError(t, err)
	mu.Lock()
	v2Gone = true
	mu.Unlock()
	_, err = c.Projects.Current(ctx)
	require.NoError(t, err)
	_, err = c.Projects.Current(ctx)
	require.NoError(t, err)
	var paths []string
	for _, r := range srv.requests() {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{"/projects", "/projects/v2", "/projects/v2", "/projects/v3", "/projects/v3"}, paths)
}
