package threads_test

import (
	"context"
	"errors"
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
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/threadstest"
)

// The live service's answer to a key sent as Authorization: Bearer.
const liveForbidden = `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`

// TestBearerRefusedNamesTheHeaderSetting: a Bearer key refused by the auth
// guard says which setting sends it the other way; a configured header, or
// a refusal after the key already got through, does not.
func TestBearerRefusedNamesTheHeaderSetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := newRecorder(t, http.StatusForbidden, nil, liveForbidden)
	bearer, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	_, err = bearer.Projects.Current(ctx)
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)
	assert.Contains(t, err.Error(), "WithAPIKeyHeader")

	// On a route that names a thread the same 403 may mean a foreign id.
	_, err = bearer.Threads.Get(ctx, "thr_other.1")
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.Contains(t, err.Error(), "may not exist")
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)

	header, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(rec.URL),
		threads.WithAPIKey("sk-key-123456"), threads.WithAPIKeyHeader("x-api-key"))
	require.NoError(t, err)
	_, err = header.Projects.Current(ctx)
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)

	unauthorized := newRecorder(t, http.StatusUnauthorized, nil, `{"message":"Invalid bearer token","error":"Unauthorized","statusCode":401}`)
	bearer, err = threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(unauthorized.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	_, err = bearer.Threads.Get(ctx, "thr_1.a")
	require.ErrorIs(t, err, threads.ErrUnauthorized)
	assert.Contains(t, err.Error(), threads.EnvAPIKeyHeader)
}

// TestForbiddenAfterSuccessHasNoHint: once a call got through, a 403 is
// about the resource (the live service answers 403 for a foreign thread
// id), not about how the key is sent.
func TestForbiddenAfterSuccessHasNoHint(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !refuse.Load() {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"p_1","name":"P"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(liveForbidden))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk-key-123456"))
	require.NoError(t, err)
	_, err = c.Projects.Current(context.Background())
	require.NoError(t, err)
	refuse.Store(true)
	_, err = c.Threads.Get(context.Background(), "thr_other.1")
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)
}

// The key of the servers below.
const authKey = "sk_auth_4c3b2a190817"

// authServer records every request and answers with its handler.
type authServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

func (s *authServer) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func newAuthServer(t *testing.T, h http.HandlerFunc) *authServer {
	t.Helper()
	s := &authServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), b})
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// liveGuards answers as the live service's guards do (captures 02 and 03):
// no or a wrong x-api-key is 403 Forbidden resource, x-api-key with an
// Authorization header is 401 Invalid bearer token; past them, next.
func liveGuards(t *testing.T, next http.HandlerFunc) http.HandlerFunc {
	forbidden := fixture(t, "live/problem-403-forbidden.json")
	invalidBearer := fixture(t, "live/problem-401-invalid-bearer.json")
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch {
		case r.Header.Get("X-Api-Key") != authKey:
			w.WriteHeader(http.StatusForbidden)
			w.Write(forbidden)
		case r.Header.Get("Authorization") != "":
			w.WriteHeader(http.StatusUnauthorized)
			w.Write(invalidBearer)
		default:
			next(w, r)
		}
	}
}

// answer writes status and a JSON body.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

const projectJSON = `{"id":"p_1","name":"P"}`

func authClient(t *testing.T, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url), threads.WithAPIKey(authKey), threads.WithMaxRetries(0)}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// keyIn says how a request carried the key: "bearer", "x-api-key", both or
// none.
func keyIn(r recorded) string {
	var ways []string
	if r.Header.Get("Authorization") == "Bearer "+authKey {
		ways = append(ways, "bearer")
	}
	if r.Header.Get("X-Api-Key") == authKey {
		ways = append(ways, "x-api-key")
	}
	return strings.Join(ways, "+")
}

func keysOf(reqs []recorded) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, keyIn(r))
	}
	return out
}

// The live shape: a Bearer key is refused with 403 (capture 02); the call is
// sent once more with the key in x-api-key alone (with both, capture 03's
// 401), and from then on the client sends x-api-key, logged once at info.
func TestAuthFallbackBearerRefusedThenXAPIKey(t *testing.T) {
	t.Parallel()
	srv := newAuthServer(t, liveGuards(t, answer(http.StatusOK, projectJSON)))
	logs := &recordLogs{}
	c := authClient(t, srv.URL, threads.WithLogger(slog.New(logs)))
	ctx := context.Background()

	p, err := c.Projects.Current(ctx)
	require.NoError(t, err)
	assert.Equal(t, "p_1", p.ID)
	assert.Equal(t, []string{"bearer", "x-api-key"}, keysOf(srv.requests()))
	assert.Equal(t, srv.requests()[0].Path, srv.requests()[1].Path, "the same call sent again")

	// Later calls, with and without per-call options, send x-api-key only.
	_, err = c.Projects.Current(ctx)
	require.NoError(t, err)
	_, err = c.Projects.Current(ctx, threads.WithHeader("X-Trace", "1"))
	require.NoError(t, err)
	assert.Equal(t, []string{"bearer", "x-api-key", "x-api-key", "x-api-key"}, keysOf(srv.requests()))

	logs.mu.Lock()
	defer logs.mu.Unlock()
	var infos []string
	for _, r := range logs.recs {
		if r.Level == slog.LevelInfo && strings.Contains(r.Message, "x-api-key") {
			infos = append(infos, r.Message)
		}
		assert.NotContains(t, r.Message, authKey)
	}
	assert.Len(t, infos, 1, "logged once")
}

// A 401 in the framework shape (a service that refuses the Bearer key as
// invalid) falls back too, and a call with per-call options learns the
// header for the client's calls without options.
func TestAuthFallbackOn401AndPerCallOptions(t *testing.T) {
	t.Parallel()
	srv := newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != authKey || r.Header.Get("Authorization") != "" {
			answer(http.StatusUnauthorized, `{"message":"Invalid bearer token","error":"Unauthorized","statusCode":401}`)(w, r)
			return
		}
		answer(http.StatusOK, projectJSON)(w, r)
	})
	c := authClient(t, srv.URL)
	_, err := c.Projects.Current(context.Background(), threads.WithHeader("X-Trace", "1"))
	require.NoError(t, err)
	_, err = c.Projects.Current(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"bearer", "x-api-key", "x-api-key"}, keysOf(srv.requests()))
}

// A header named by WithAPIKeyHeader (on the client or the call) or by
// $THREADS_API_KEY_HEADER, or an x-api-key the caller sends itself, is
// never second-guessed: a refusal is sent once and the key goes nowhere
// else.
func TestAuthFallbackNotWithConfiguredHeader(t *testing.T) {
	t.Parallel()
	forbidden := string(fixture(t, "live/problem-403-forbidden.json"))
	for _, tc := range []struct {
		name   string
		client []threads.ClientOption
		call   []threads.RequestOption
		want   string // how the key went
	}{
		{name: "client option", client: []threads.ClientOption{threads.WithAPIKeyHeader("X-Custom-Key")}},
		{name: "call option", call: []threads.RequestOption{threads.WithAPIKeyHeader("X-Custom-Key")}},
		{name: "Authorization", client: []threads.ClientOption{threads.WithAPIKeyHeader("Authorization")}},
		{name: "caller's x-api-key", client: []threads.ClientOption{threads.WithHeader("X-Api-Key", "caller-value")}, want: "bearer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newAuthServer(t, answer(http.StatusForbidden, forbidden))
			c := authClient(t, srv.URL, tc.client...)
			_, err := c.Projects.Current(context.Background(), tc.call...)
			require.ErrorIs(t, err, threads.ErrForbidden)
			reqs := srv.requests()
			require.Len(t, reqs, 1, "sent once")
			assert.Equal(t, tc.want, keyIn(reqs[0]))
			assert.NotEqual(t, authKey, reqs[0].Header.Get("X-Api-Key"))
		})
	}
}

// $THREADS_API_KEY_HEADER is a configured header too (no t.Parallel: it
// sets the environment).
func TestAuthFallbackNotWithHeaderVariable(t *testing.T) {
	srv := newAuthServer(t, answer(http.StatusForbidden, string(fixture(t, "live/problem-403-forbidden.json"))))
	t.Setenv(threads.EnvAPIKeyHeader, "X-Custom-Key")
	c, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(authKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Projects.Current(context.Background())
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader, "no hint: the header was chosen")
	require.Len(t, srv.requests(), 1)
	assert.Equal(t, authKey, srv.requests()[0].Header.Get("X-Custom-Key"))
}

// Once a Bearer call got through, a 403 is about the resource (a thread
// outside the key's project): not sent again, no hint.
func TestAuthFallbackNotAfterA2xx(t *testing.T) {
	t.Parallel()
	forbidden := fixture(t, "live/problem-403-forbidden.json")
	srv := newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/projects" {
			answer(http.StatusOK, projectJSON)(w, r)
			return
		}
		answer(http.StatusForbidden, string(forbidden))(w, r)
	})
	c := authClient(t, srv.URL)
	_, err := c.Projects.Current(context.Background())
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_other.1")
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)
	assert.Equal(t, []string{"bearer", "bearer"}, keysOf(srv.requests()))
}

// Once x-api-key got through it is kept: a later refusal (a revoked key, a
// foreign thread) is sent once, in x-api-key, without the hint; the client
// never goes back to Bearer.
func TestAuthFallbackKeptAfterLaterRefusal(t *testing.T) {
	t.Parallel()
	forbidden := fixture(t, "live/problem-403-forbidden.json")
	var mu sync.Mutex
	revoked := false
	srv := newAuthServer(t, liveGuards(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if revoked {
			answer(http.StatusForbidden, string(forbidden))(w, r)
			return
		}
		answer(http.StatusOK, projectJSON)(w, r)
	}))
	c := authClient(t, srv.URL)
	_, err := c.Projects.Current(context.Background())
	require.NoError(t, err)
	mu.Lock()
	revoked = true
	mu.Unlock()
	for range 2 {
		_, err = c.Projects.Current(context.Background())
		require.ErrorIs(t, err, threads.ErrForbidden)
		assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)
	}
	assert.Equal(t, []string{"bearer", "x-api-key", "x-api-key", "x-api-key"}, keysOf(srv.requests()))
}

// Both refused: the caller gets the second answer's *Problem, whose hint
// names the setting once; nothing is learned, so the next call tries both
// again.
func TestAuthFallbackBothRefused(t *testing.T) {
	t.Parallel()
	forbidden := fixture(t, "live/problem-403-forbidden.json")
	srv := newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Answer", keyIn(recorded{Header: r.Header}))
		answer(http.StatusForbidden, string(forbidden))(w, r)
	})
	c := authClient(t, srv.URL)
	_, err := c.Projects.Current(context.Background())
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, http.StatusForbidden, p.Status)
	assert.Equal(t, "x-api-key", p.Header.Get("X-Answer"), "the second answer")
	msg := err.Error()
	assert.Equal(t, 1, strings.Count(msg, threads.EnvAPIKeyHeader), msg)
	assert.Equal(t, 1, strings.Count(msg, "WithAPIKeyHeader"), msg)
	assert.Contains(t, msg, "refused both as Authorization: Bearer and in x-api-key")
	assert.NotContains(t, msg, authKey)

	// On a thread's route the same 403 may be a foreign thread.
	_, err = c.Threads.Get(context.Background(), "thr_other.1")
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.Contains(t, err.Error(), "may not exist")
	assert.Equal(t, 1, strings.Count(err.Error(), threads.EnvAPIKeyHeader))
	assert.Equal(t, []string{"bearer", "x-api-key", "bearer", "x-api-key"}, keysOf(srv.requests()))
}

// A server that reads Bearer keys answers the call without Authorization
// 401 (no credentials): its first 403 was about the resource, read after
// the key. The caller gets that 403, without the hint, and the client
// stays on Bearer.
func TestAuthFallbackBearerServerForeignThread(t *testing.T) {
	t.Parallel()
	c, srv := setup(t) // threadstest reads Bearer
	_, err := c.Threads.Get(context.Background(), "thr_Unknown1.abcdef")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, http.StatusForbidden, p.Status)
	assert.Equal(t, "Forbidden resource", p.Detail)
	assert.NotContains(t, err.Error(), threads.EnvAPIKeyHeader)
	_, err = c.Projects.Current(context.Background())
	require.NoError(t, err)
	for _, r := range srv.Requests()[2:] {
		assert.Empty(t, r.Header.Get("X-Api-Key"), "%s %s: still Bearer", r.Method, r.Path)
	}
}

// A refused write is sent again exactly once, with the same body: the
// guard refused it before the handler ran. No retry adds to it.
func TestAuthFallbackWriteSentOnce(t *testing.T) {
	t.Parallel()
	created := `{"id":"thr_1.a","projectId":"p_1","generationStage":"IDLE","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","messages":[]}`
	srv := newAuthServer(t, liveGuards(t, answer(http.StatusCreated, created)))
	c := authClient(t, srv.URL, threads.WithMaxRetries(3))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1", Name: "n"})
	require.NoError(t, err)
	assert.Equal(t, "thr_1.a", th.ID)
	reqs := srv.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"bearer", "x-api-key"}, keysOf(reqs))
	for _, r := range reqs {
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "/threads", r.Path)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	}
	assert.Equal(t, reqs[0].Body, reqs[1].Body)
	assert.JSONEq(t, `{"projectId":"p_1","name":"n"}`, string(reqs[1].Body))

	// Refused both ways: still two POSTs, no more.
	wrong := newAuthServer(t, answer(http.StatusForbidden, string(fixture(t, "live/problem-403-forbidden.json"))))
	c = authClient(t, wrong.URL, threads.WithMaxRetries(3))
	_, err = c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"})
	require.ErrorIs(t, err, threads.ErrForbidden)
	assert.Len(t, wrong.requests(), 2)
}

// Many first calls at once: each refused Bearer call falls back (safe under
// -race), the header is logged once, and every call after one got through
// goes straight to x-api-key.
func TestAuthFallbackConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	const n = 16
	// The server holds every Bearer refusal until all n first calls are
	// in, so they really are first calls at once.
	var mu sync.Mutex
	bearers := 0
	allIn := make(chan struct{})
	guards := liveGuards(t, answer(http.StatusOK, projectJSON))
	srv := newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") == "" {
			mu.Lock()
			bearers++
			if bearers == n {
				close(allIn)
			}
			mu.Unlock()
			select {
			case <-allIn:
			case <-r.Context().Done():
				return
			}
		}
		guards(w, r)
	})
	logs := &recordLogs{}
	c := authClient(t, srv.URL, threads.WithLogger(slog.New(logs)))
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := c.Projects.Current(context.Background())
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Len(t, srv.requests(), 2*n)

	before := len(srv.requests())
	for range 3 {
		_, err := c.Projects.Current(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"x-api-key", "x-api-key", "x-api-key"}, keysOf(srv.requests()[before:]))

	logs.mu.Lock()
	defer logs.mu.Unlock()
	infos := 0
	for _, r := range logs.recs {
		if r.Level == slog.LevelInfo && strings.Contains(r.Message, "x-api-key") {
			infos++
		}
	}
	assert.Equal(t, 1, infos)
}

// The second try goes to the same URL only: a redirect to another origin
// is not followed, and 410 advice naming another host is refused, so the
// key in x-api-key never reaches it.
func TestAuthFallbackNoKeyToAnotherHost(t *testing.T) {
	t.Parallel()
	other := newAuthServer(t, answer(http.StatusOK, projectJSON))

	redirecting := newAuthServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") == "" {
			answer(http.StatusForbidden, string(fixture(t, "live/problem-403-forbidden.json")))(w, r)
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	c := authClient(t, redirecting.URL)
	_, err := c.Projects.Current(context.Background())
	require.Error(t, err)
	assert.Equal(t, []string{"bearer", "x-api-key"}, keysOf(redirecting.requests()))

	gone := `{"type":"about:blank","status":410,"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"POST ` + other.URL + `/threads/advancestream"}}`
	migrating := newAuthServer(t, liveGuards(t, answer(http.StatusGone, gone)))
	c = authClient(t, migrating.URL)
	_, err = c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.ErrorIs(t, err, threads.ErrEndpointDeprecated)
	assert.Contains(t, err.Error(), "not on the base URL's origin")
	assert.Equal(t, []string{"bearer", "x-api-key"}, keysOf(migrating.requests()))

	assert.Empty(t, other.requests(), "the other host saw nothing")
}

// A stream falls back like any call: the live-habits fake refuses the
// Bearer key, and the stream read with x-api-key runs to its end. A 410
// answered to the x-api-key try migrates with x-api-key.
func TestAuthFallbackStreamAndMigration(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithLiveHabits(), threadstest.WithThrottle(0))
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	require.NoError(t, err)
	s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("hello")})
	require.NoError(t, err)
	msgs, err := s.Collect()
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	assert.Equal(t, "You said: hello", msgs[len(msgs)-1].Text())
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer "+srv.APIKey, reqs[0].Header.Get("Authorization"))
	assert.Equal(t, srv.APIKey, reqs[1].Header.Get("X-Api-Key"))
	assert.Empty(t, reqs[1].Header.Get("Authorization"))

	// A fresh client whose first call is a retired route: Bearer refused,
	// x-api-key answered 410, the replacement sent with x-api-key.
	c, err = threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	require.NoError(t, err)
	out, err := c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("again")})
	require.NoError(t, err)
	assert.Equal(t, "You said: again", out.Message.Text())
	reqs = srv.Requests()[2:]
	require.Len(t, reqs, 3)
	assert.Equal(t, "/threads/advance", reqs[0].Path)
	assert.Equal(t, "/threads/advance", reqs[1].Path)
	assert.Equal(t, "/threads/advancestream", reqs[2].Path)
	for _, r := range reqs[1:] {
		assert.Equal(t, srv.APIKey, r.Header.Get("X-Api-Key"))
		assert.Empty(t, r.Header.Get("Authorization"))
	}
	_, err = c.Projects.Current(context.Background())
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[5].Header.Get("Authorization"), "learned from the migrated call's 2xx")
}

// A call whose key header is fixed (package runs, /v1) never falls back.
func TestAuthFallbackNotForFixedKeyHeader(t *testing.T) {
	t.Parallel()
	srv := newAuthServer(t, answer(http.StatusForbidden, string(fixture(t, "live/problem-403-forbidden.json"))))
	c := authClient(t, srv.URL)
	conn, err := core.ConnOf[threads.RequestOption](c)
	require.NoError(t, err)
	_, err = conn.Do(context.Background(), nil, core.Call{
		Route:     route.Route{Method: http.MethodGet, Template: "/v1/threads"},
		KeyHeader: "X-Api-Key",
	})
	require.True(t, errors.Is(err, threads.ErrForbidden))
	assert.Equal(t, []string{"x-api-key"}, keysOf(srv.requests()))

	// Nor does a later spec call learn anything from it.
	_, err = c.Projects.Current(context.Background())
	require.Error(t, err)
	assert.Equal(t, []string{"x-api-key", "bearer", "x-api-key"}, keysOf(srv.requests()))
}

// The hint names the variable first and once, so that the threads
// command, which reads it too, prints the SDK's own error as it is.
func TestAuthHintNamesTheVariableOnce(t *testing.T) {
	t.Parallel()
	srv := newAuthServer(t, answer(http.StatusForbidden, string(fixture(t, "live/problem-403-forbidden.json"))))
	c := authClient(t, srv.URL)
	_, err := c.Projects.Current(context.Background())
	require.Error(t, err)
	assert.True(t, strings.HasSuffix(err.Error(), "name the header the service reads with THREADS_API_KEY_HEADER or WithAPIKeyHeader)"), err.Error())
	assert.Equal(t, 1, strings.Count(err.Error(), threads.EnvAPIKeyHeader))
}
