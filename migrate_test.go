package threads_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
)

func TestAdvanceMigratesAndRemembers(t *testing.T) {
	t.Parallel()
	var moves []threads.Deprecation
	logs := &recordLogs{}
	c, srv := setup(t, threads.WithDeprecationHandler(func(d threads.Deprecation) { moves = append(moves, d) }), threads.WithLogger(slog.New(logs)))
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)

	out, err := c.Threads.Advance(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("first")})
	require.NoError(t, err)
	assert.Equal(t, "You said: first", out.Message.Text())
	assert.Equal(t, threads.GenerationStageComplete, out.GenerationStage)
	assert.Equal(t, 1, srv.Count("POST", "/threads/"+th.ID+"/advance"))
	assert.Equal(t, 1, srv.Count("POST", "/threads/"+th.ID+"/advancestream"))

	// The re-sent request has the same body, a JSON content type and the same auth.
	reqs := srv.Requests()
	old, moved := reqs[len(reqs)-2], reqs[len(reqs)-1]
	assert.Equal(t, old.Body, moved.Body)
	assert.Equal(t, "application/json", moved.Header.Get("Content-Type"))
	assert.Equal(t, old.Header.Get("Authorization"), moved.Header.Get("Authorization"))

	out, err = c.Threads.Advance(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("second")})
	require.NoError(t, err)
	assert.Equal(t, "You said: second", out.Message.Text())
	assert.Equal(t, 1, srv.Count("POST", "/threads/"+th.ID+"/advance"), "the second call goes straight to the replacement")

	require.Len(t, moves, 1)
	assert.Equal(t, "POST /threads/"+th.ID+"/advance", moves[0].From)
	assert.Equal(t, "POST /threads/"+th.ID+"/advancestream", moves[0].To)
	assert.Equal(t, "POST /:id/advancestream", moves[0].MigrateTo)
	warns := 0
	for _, r := range logs.recs {
		if r.Level == slog.LevelWarn {
			warns++
		}
	}
	assert.Equal(t, 1, warns)

	// Create-and-advance: POST /threads/advance -> POST /threads/advancestream.
	out, err = c.Threads.CreateAndAdvance(ctx, threads.AdvanceParams{Message: threads.UserMessage("new")})
	require.NoError(t, err)
	assert.Equal(t, "You said: new", out.Message.Text())
	assert.NotEqual(t, th.ID, out.Message.ThreadID)
	require.Len(t, moves, 2)
	assert.Equal(t, "POST /threads/advancestream", moves[1].To)
}

func TestMigrationForms(t *testing.T) {
	t.Parallel()
	for _, form := range []string{
		"POST /:id/advancestream",
		"POST /threads/{id}/advancestream",
		"POST /threads/:id/advancestream",
		"POST   /:id/advancestream?source=migration",
		"absolute",
	} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			c, srv := setup(t)
			advice := form
			if form == "absolute" {
				advice = "POST " + srv.URL + "/threads/{id}/advancestream"
			}
			srv.SetMigrateTo(advice, "POST /advancestream")
			th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
			require.NoError(t, err)
			out, err := c.Threads.Advance(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
			require.NoError(t, err)
			assert.Equal(t, "You said: hi", out.Message.Text())
			assert.Equal(t, 1, srv.Count("POST", "/threads/"+th.ID+"/advancestream"))
		})
	}
}

func TestMigrationConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	var fired atomic.Int32
	c, srv := setup(t, threads.WithDeprecationHandler(func(threads.Deprecation) { fired.Add(1) }))
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, int32(1), fired.Load())
	assert.Equal(t, 50, srv.Count("POST", "/threads/advancestream"))
	assert.LessOrEqual(t, srv.Count("POST", "/threads/advance"), 50)
}

func TestMigrationOffOriginRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	c, srv := setup(t)
	srv.SetMigrateTo("POST "+other.URL+"/threads/:id/advancestream", "POST "+other.URL+"/threads/advancestream")
	_, err := c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.ErrorIs(t, err, threads.ErrEndpointDeprecated)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, 410, p.Status)
	assert.Contains(t, err.Error(), "not on the base URL's origin")
	assert.Zero(t, hits.Load())
	assert.Equal(t, 1, len(srv.Requests()))
}

func TestMigrationRefusals(t *testing.T) {
	t.Parallel()
	for advice, reason := range map[string]string{
		"POST /:id/advance":          "the route that was deprecated",
		"POST /threads/advance":      "drops a placeholder",
		"POST /:other/advancestream": "placeholder",
		"nonsense":                   "malformed",
	} {
		t.Run(advice, func(t *testing.T) {
			t.Parallel()
			c, srv := setup(t)
			srv.SetMigrateTo(advice, "POST /advancestream")
			th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
			require.NoError(t, err)
			_, err = c.Threads.Advance(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("x")})
			require.ErrorIs(t, err, threads.ErrEndpointDeprecated)
			assert.Contains(t, err.Error(), reason)
			assert.Zero(t, srv.Count("POST", "/threads/"+th.ID+"/advancestream"))
		})
	}
}

func TestWithoutAutoMigrate(t *testing.T) {
	t.Parallel()
	c, srv := setup(t, threads.WithoutAutoMigrate())
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Threads.Advance(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("x")})
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	d, ok := p.Deprecation()
	require.True(t, ok)
	assert.Equal(t, "POST /threads/"+th.ID+"/advance", d.From)
	assert.Equal(t, "POST /threads/"+th.ID+"/advancestream", d.To)
	assert.Equal(t, "POST /:id/advancestream", d.MigrateTo)
	assert.Equal(t, "/threads/"+th.ID+"/advance", p.Instance)
	assert.Equal(t, 0, srv.Count("POST", "/threads/"+th.ID+"/advancestream"))

	// Per call as well.
	c2, srv2 := setup(t)
	_, err = c2.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")}, threads.WithoutAutoMigrate())
	assert.ErrorIs(t, err, threads.ErrEndpointDeprecated)
	assert.Equal(t, 0, srv2.Count("POST", "/threads/advancestream"))
	assert.True(t, strings.HasPrefix(err.Error(), "threads: POST /threads/advance: 410 Endpoint Deprecated [ENDPOINT_DEPRECATED]"), err.Error())
}

// Advice that names the call's own thread, as an absolute URL, is the
// route for every thread: followed, and remembered as the template.
func TestMigrationAdviceNamingTheCallsThread(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	first, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	second, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	srv.SetMigrateTo("POST "+srv.URL+"/threads/"+first.ID+"/advancestream", "POST /advancestream")

	out, err := c.Threads.Advance(ctx, first.ID, threads.AdvanceParams{Message: threads.UserMessage("one")})
	require.NoError(t, err)
	assert.Equal(t, "You said: one", out.Message.Text())
	out, err = c.Threads.Advance(ctx, second.ID, threads.AdvanceParams{Message: threads.UserMessage("two")})
	require.NoError(t, err)
	assert.Equal(t, "You said: two", out.Message.Text())
	assert.Equal(t, 1, srv.Count("POST", "/threads/"+second.ID+"/advancestream"), "the move was remembered as a template")
	assert.Equal(t, 0, srv.Count("POST", "/threads/"+second.ID+"/advance"))
	assert.Equal(t, 1, srv.Count("POST", "/threads/"+first.ID+"/advancestream"))
}

// migrationServer answers POST /threads/{id}/advance with a 410 (or
// deprecatedStatus) advising advice, and everything else with other.
type migrationServer struct {
	mu   sync.Mutex
	seen []string // "METHOD /path?query" of every request
}

func (m *migrationServer) log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.seen...)
}

func newMigrationServer(t *testing.T, deprecatedStatus int, advice string, other func(w http.ResponseWriter, r *http.Request)) (*migrationServer, string) {
	t.Helper()
	m := &migrationServer{}
	srv, _ := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, r.Method+" "+r.URL.RequestURI())
		m.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/advance") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(deprecatedStatus)
			fmt.Fprintf(w, `{"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":%q}}`, advice)
			return
		}
		other(w, r)
	})
	return m, srv.URL
}

func sseFinal(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"responseMessageDto\":{\"id\":\"m1\",\"threadId\":\"thr_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},\"generationStage\":\"COMPLETE\"}\n\ndata: DONE\n\n")
}

// TestMigrationRefusesUnsafeAdvice: advice that switches the method, climbs
// with encoded dot segments or drops the thread id is refused: nothing
// but the one deprecated call is sent.
func TestMigrationRefusesUnsafeAdvice(t *testing.T) {
	t.Parallel()
	for _, advice := range []string{
		"DELETE /threads/:id", "GET /:id", "PUT /:id/advancestream",
		"POST /:id/%2e%2e/%2E%2E/admin", "POST /%2E./x/:id", "POST /.%2e/:id/x",
		"POST /advancestream", "POST /threads/advancestream?x=1",
		"POST /advancestream?project=:projectId",
	} {
		m, url := newMigrationServer(t, http.StatusGone, advice, sseFinal)
		c := hardClient(t, url)
		_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
		require.ErrorIs(t, err, threads.ErrEndpointDeprecated, advice)
		require.Equal(t, []string{"POST /threads/thr_1/advance"}, m.log(), "advice %q", advice)
		require.Contains(t, err.Error(), "migration not followed", advice)
	}
}

// TestMigrationFillsQueryPlaceholders: a placeholder in the advice's query
// is filled like one in its path.
func TestMigrationFillsQueryPlaceholders(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusGone, "POST /advancestream2?thread=:id", sseFinal)
	c := hardClient(t, url)
	got, err := c.Threads.Advance(context.Background(), "thr 1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	require.Equal(t, "hi", got.Message.Text())
	require.Equal(t, []string{"POST /threads/thr%201/advance", "POST /threads/advancestream2?thread=thr+1"}, m.log())
}

// TestMigrationOnlyOn410 : a 500 that carries ENDPOINT_DEPRECATED is
// a server error, not advice.
func TestMigrationOnlyOn410(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusInternalServerError, "POST /:id/advancestream", sseFinal)
	c := hardClient(t, url, threads.WithMaxRetries(0))
	_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.ErrorIs(t, err, threads.ErrServer)
	require.Equal(t, []string{"POST /threads/thr_1/advance"}, m.log())
}

// TestMigrationRememberedOnlyAfter2xx: a replacement that answers 404 is
// not remembered: the next call asks the deprecated route again (and is
// migrated once the replacement works).
func TestMigrationRememberedOnlyAfter2xx(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	broken.Store(true)
	var moves atomic.Int64
	m, url := newMigrationServer(t, http.StatusGone, "POST /:id/advancestream", func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.NotFound(w, r)
			return
		}
		sseFinal(w, r)
	})
	c := hardClient(t, url, threads.WithDeprecationHandler(func(threads.Deprecation) { moves.Add(1) }))
	adv := func() error {
		_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
		return err
	}
	require.ErrorIs(t, adv(), threads.ErrNotFound)
	require.ErrorIs(t, adv(), threads.ErrNotFound)
	require.EqualValues(t, 0, moves.Load())
	broken.Store(false)
	require.NoError(t, adv())
	require.NoError(t, adv())
	require.EqualValues(t, 1, moves.Load())
	require.Equal(t, []string{
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advancestream",
	}, m.log())
}

// TestMigrationFollowsCreateAndAdvanceAdvice: the live create-and-advance advice
// (no placeholder on either side) is still followed.
func TestMigrationFollowsCreateAndAdvanceAdvice(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusGone, "POST /advancestream", sseFinal)
	c := hardClient(t, url)
	got, err := c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	require.Equal(t, "hi", got.Message.Text())
	require.Equal(t, []string{"POST /threads/advance", "POST /threads/advancestream"}, m.log())
}

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
