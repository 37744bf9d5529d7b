package proxy_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// sessions is the backend's own notion of who is signed in: the browser
// holds a session cookie, the backend maps it to an end user.
var sessions = map[string]string{"s-alice": "alice", "s-bob": "bob"}

// userBySession is the user function of the tests: the session cookie's
// user, never anything else the browser sends.
func userBySession(r *http.Request) (proxy.User, error) {
	c, err := r.Cookie("session")
	if err != nil || sessions[c.Value] == "" {
		return proxy.User{}, errors.New("not signed in")
	}
	return proxy.User{Key: sessions[c.Value]}, nil
}

// env is a fake service and the handler in front of it.
type env struct {
	fake *threadstest.Server
	h    *proxy.Handler
	logs *logs
}

func newEnv(t *testing.T, fakeOpts []threadstest.Option, opts ...proxy.Option) *env {
	t.Helper()
	fake := threadstest.NewServer(t, fakeOpts...)
	l, logger := newLogs(t)
	h, err := proxy.New(fake.Client(), userBySession, append([]proxy.Option{proxy.WithLogger(logger)}, opts...)...)
	require.NoError(t, err)
	return &env{fake: fake, h: h, logs: l}
}

// do sends one browser request to the handler as user (a session id) and
// returns the answer.
func (e *env) do(t *testing.T, session, method, target, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if session != "" {
		r.AddCookie(&http.Cookie{Name: "session", Value: session})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// last returns the fake's last request.
func (e *env) last(t *testing.T) threadstest.Request {
	t.Helper()
	reqs := e.fake.Requests()
	require.NotEmpty(t, reqs)
	return reqs[len(reqs)-1]
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v), w.Body.String())
	return v
}

// The JSON routes the official clients call work through the handler,
// with the service's statuses and shapes, as the backend's user.
func TestHandlerJSONRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)

	w := e.do(t, "s-alice", "POST", "/v1/threads", `{"metadata":{"topic":"demo"},"initialMessages":[{"role":"user","content":[{"type":"text","text":"one"}]}]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Equal(t, "application/json; charset=utf-8", w.Header().Get("Content-Type"))
	th := decode[map[string]any](t, w)
	id := th["id"].(string)
	assert.Equal(t, "alice", th["userKey"])
	assert.Equal(t, map[string]any{"topic": "demo"}, th["metadata"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, th["createdAt"], "the service's date form")

	w = e.do(t, "s-alice", "GET", "/v1/threads?limit=5", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := decode[struct {
		Threads []map[string]any `json:"threads"`
		HasMore *bool            `json:"hasMore"`
	}](t, w)
	require.Len(t, page.Threads, 1)
	assert.NotNil(t, page.HasMore)
	assert.Equal(t, "5", e.last(t).Query.Get("limit"))

	w = e.do(t, "s-alice", "PATCH", "/v1/threads/"+id, `{"name":"renamed"}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "renamed", decode[map[string]any](t, w)["name"])

	w = e.do(t, "s-alice", "GET", "/v1/threads/"+id, "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	full := decode[struct {
		Messages []map[string]any `json:"messages"`
	}](t, w)
	require.Len(t, full.Messages, 1)
	msgID := full.Messages[0]["id"].(string)

	w = e.do(t, "s-alice", "GET", "/v1/threads/"+id+"/messages?order=desc&limit=10", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "desc", e.last(t).Query.Get("order"))
	w = e.do(t, "s-alice", "GET", "/v1/threads/"+id+"/messages/"+msgID, "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "one", decode[runs.Message](t, w).Text())

	w = e.do(t, "s-alice", "POST", "/v1/threads/"+id+"/messages/"+msgID+"/suggestions", `{"maxSuggestions":2}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Len(t, decode[runs.SuggestionPage](t, w).Items, 2)
	w = e.do(t, "s-alice", "GET", "/v1/threads/"+id+"/messages/"+msgID+"/suggestions", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Len(t, decode[runs.SuggestionPage](t, w).Items, 2)

	w = e.do(t, "s-alice", "GET", "/v1/threads/"+id+"/messages/msg_nope.000000", "")
	assert.Equal(t, http.StatusNotFound, w.Code, "the service's refusal, passed on")
	assert.Contains(t, w.Body.String(), `"statusCode":404`)

	w = e.do(t, "s-alice", "GET", "/v1/threads?limit=abc", "")
	assert.Equal(t, http.StatusBadRequest, w.Code)

	w = e.do(t, "s-alice", "DELETE", "/v1/threads/"+id, "")
	assert.Equal(t, http.StatusNoContent, w.Code)
	assert.Empty(t, w.Body.String())
	assert.Empty(t, e.logs.failures())
}

// A run through the handler streams the service's events, with the
// service's head, and the request the service gets is the browser's run
// as the backend's user.
func TestHandlerRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	// What @tambo-ai/client sends to start a thread.
	body := `{"message":{"role":"user","content":[{"type":"text","text":"hello"}],"additionalContext":{"page":"/home"}},` +
		`"availableComponents":[],"tools":[{"name":"get_weather","description":"Weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],` +
		`"thread":{"userKey":"mallory"}}`
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", body)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
	assert.NotEmpty(t, w.Header().Get("X-Thread-Id"))
	assert.NotEmpty(t, w.Header().Get("X-Run-Id"))
	evs := events(w.Body.String())
	require.NotEmpty(t, evs)
	assert.Contains(t, evs[0], `"type":"RUN_STARTED"`)
	assert.Contains(t, evs[len(evs)-2], `"name":"tambo.run.awaiting_input"`, "the fake's model calls the offered tool")

	req, err := e.last(t).Run()
	require.NoError(t, err)
	require.NotNil(t, req.Thread)
	assert.Equal(t, "alice", req.Thread.UserKey)
	assert.Empty(t, req.UserKey)
	assert.Equal(t, map[string]any{"page": "/home"}, req.Message.AdditionalContext)
	require.Len(t, req.Tools, 1)
	assert.Equal(t, "get_weather", req.Tools[0].Name)

	// The browser continues with the tool's result, as the client does.
	var runID, callID string
	for _, ev := range evs {
		var m struct {
			Type, RunID string
			Value       struct {
				PendingToolCalls []struct{ ToolCallID string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(ev), &m))
		if m.Type == "RUN_STARTED" {
			runID = m.RunID
		}
		if len(m.Value.PendingToolCalls) > 0 {
			callID = m.Value.PendingToolCalls[0].ToolCallID
		}
	}
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+w.Header().Get("X-Thread-Id")+"/runs",
		`{"message":{"role":"user","content":[{"type":"tool_result","toolUseId":"`+callID+`","content":[{"type":"text","text":"sunny"}]}]},"previousRunId":"`+runID+`","userKey":"mallory"}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `"delta":"sunny."`, "the fake's model read the result")
	req, err = e.last(t).Run()
	require.NoError(t, err)
	assert.Equal(t, "alice", req.UserKey)

	// A refusal of the service is passed on as it came.
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+w.Header().Get("X-Thread-Id")+"/runs",
		`{"message":{"role":"user","content":[{"type":"text","text":"again"}]},"previousRunId":"run_nope.000000"}`)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), runs.TypeInvalidPreviousRun)
	assert.Empty(t, e.logs.failures())
}

// Hostile browser requests: each is answered without letting the browser
// choose the end user, reach another route, or send its own credentials.
func TestHandlerHostile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	bob := runs.New(e.fake.Client()).ForUser("bob")
	bobs, err := bob.CreateThread(ctx, runs.CreateThreadParams{Metadata: map[string]any{"owner": "bob"}})
	require.NoError(t, err)

	t.Run("another user's key in the query", func(t *testing.T) {
		w := e.do(t, "s-alice", "GET", "/v1/threads?userKey=bob", "")
		require.Equal(t, http.StatusOK, w.Code)
		assert.NotContains(t, w.Body.String(), bobs.ID, "the backend's user is listed, not the query's")
		assert.Equal(t, []string{"alice"}, e.last(t).Query["userKey"])

		w = e.do(t, "s-alice", "GET", "/v1/threads/"+bobs.ID+"?userKey=bob", "")
		assert.Equal(t, http.StatusForbidden, w.Code)
		assert.Equal(t, []string{"alice"}, e.last(t).Query["userKey"])
	})
	t.Run("another user's key in the body", func(t *testing.T) {
		w := e.do(t, "s-alice", "POST", "/v1/threads", `{"userKey":"bob"}`)
		require.Equal(t, http.StatusCreated, w.Code)
		assert.Equal(t, "alice", decode[map[string]any](t, w)["userKey"])

		w = e.do(t, "s-alice", "POST", "/v1/threads/runs", `{"userKey":"bob","thread":{"userKey":"bob"},"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`)
		require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
		req, err := e.last(t).Run()
		require.NoError(t, err)
		assert.Equal(t, "alice", req.Thread.UserKey)
		assert.Empty(t, req.UserKey)

		w = e.do(t, "s-alice", "POST", "/v1/threads/"+bobs.ID+"/runs", `{"userKey":"bob","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`)
		assert.Equal(t, http.StatusForbidden, w.Code)
		req, err = e.last(t).Run()
		require.NoError(t, err)
		assert.Equal(t, "alice", req.UserKey)
	})
	t.Run("another user's thread id", func(t *testing.T) {
		for _, c := range []struct{ method, path, body string }{
			{"GET", "/v1/threads/" + bobs.ID, ""},
			{"PATCH", "/v1/threads/" + bobs.ID, `{"name":"mine now"}`},
			{"DELETE", "/v1/threads/" + bobs.ID, ""},
			{"GET", "/v1/threads/" + bobs.ID + "/messages", ""},
			{"POST", "/v1/threads/" + bobs.ID + "/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`},
			{"DELETE", "/v1/threads/" + bobs.ID + "/runs/run_x.000000", ""},
		} {
			w := e.do(t, "s-alice", c.method, c.path, c.body)
			assert.Equal(t, http.StatusForbidden, w.Code, "%s %s: %s", c.method, c.path, w.Body.String())
		}
		th, err := bob.GetThread(ctx, bobs.ID)
		require.NoError(t, err, "bob's thread is still there")
		assert.Empty(t, th.Name)
	})
	t.Run("paths toward other routes", func(t *testing.T) {
		before := len(e.fake.Requests())
		for _, c := range []struct {
			method, target string
			status         int
		}{
			{"GET", "/v1/threads/../../projects", 400},
			{"GET", "/v1/threads/%2e%2e/%2E%2E/projects", 400},
			{"GET", "/v1/threads/x%2F..%2F..%2Fprojects", 400},
			{"GET", "/v1/threads/x%2f..", 400},
			{"GET", `/v1/threads/x\..\..\projects`, 400},
			{"GET", "/v1/threads/x%5C..%5Cprojects", 400},
			{"GET", "/v1/threads/./x", 400},
			{"GET", "/v1//threads", 400},
			{"GET", "/v1/threads/", 400},
			{"GET", "/v1/threads/x%00", 400},
			{"GET", "/v1/threads/%20", 400},
			{"DELETE", "/v1/threads/x/runs/%20%09", 400},
			{"GET", "/projects", 404},
			{"GET", "/threads", 404},
			{"POST", "/oauth/token", 404},
			{"GET", "/v1/threads/x/messages/y/z", 404},
			{"GET", "/V1/threads", 404},
			{"PUT", "/v1/threads/x", 405},
			{"TRACE", "/v1/threads", 405},
			{"OPTIONS", "/v1/threads", 405},
			{"get", "/v1/threads", 405},
			{"GET", "/v1/threads/runs/../../../projects", 400},
		} {
			w := e.do(t, "s-alice", c.method, c.target, "")
			assert.Equal(t, c.status, w.Code, "%s %s: %s", c.method, c.target, w.Body.String())
		}
		assert.Len(t, e.fake.Requests(), before, "nothing reached the service")
	})
	t.Run("the browser's own key and Authorization", func(t *testing.T) {
		w := e.do(t, "s-alice", "GET", "/v1/threads", "", "X-Api-Key", "sk-from-the-browser", "Authorization", "Bearer from-the-browser")
		require.Equal(t, http.StatusOK, w.Code)
		got := e.last(t).Header
		assert.Equal(t, e.fake.APIKey, got.Get("X-Api-Key"), "the backend's project key")
		assert.Empty(t, got.Values("Authorization"), "no end-user token: the backend's user is a key")
		for name, vals := range got {
			for _, v := range vals {
				assert.NotContains(t, v, "from-the-browser", name)
			}
		}
	})
	t.Run("not signed in", func(t *testing.T) {
		before := len(e.fake.Requests())
		w := e.do(t, "", "GET", "/v1/threads?userKey=alice", "")
		assert.Equal(t, http.StatusUnauthorized, w.Code)
		assert.Len(t, e.fake.Requests(), before)
	})
	t.Run("an oversized body", func(t *testing.T) {
		before := len(e.fake.Requests())
		big := `{"message":{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("a", 2<<20) + `"}]}}`
		w := e.do(t, "s-alice", "POST", "/v1/threads/runs", big)
		assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
		w = e.do(t, "s-alice", "POST", "/v1/threads", `{"metadata":{"x":"`+strings.Repeat("a", 2<<20)+`"}}`)
		assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
		assert.Len(t, e.fake.Requests(), before)
	})
	t.Run("malformed and duplicate members", func(t *testing.T) {
		before := len(e.fake.Requests())
		w := e.do(t, "s-alice", "POST", "/v1/threads", `{"metadata":`)
		assert.Equal(t, http.StatusBadRequest, w.Code)
		w = e.do(t, "s-alice", "POST", "/v1/threads", `{"metadata":{},"metadata":{"a":1}}`)
		assert.Equal(t, http.StatusBadRequest, w.Code)
		w = e.do(t, "s-alice", "POST", "/v1/threads", `{"metadata":"not an object"}`)
		assert.Equal(t, http.StatusBadRequest, w.Code)
		assert.NotContains(t, w.Body.String(), "not an object", "the browser's value is not echoed")
		assert.Len(t, e.fake.Requests(), before)
	})
	assert.Empty(t, e.logs.failures())
}

// A user whose identity is an end-user token: it goes as the bearer, and
// the browser's Authorization is not it.
func TestHandlerTokenUser(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	tok, err := runs.New(fake.Client()).ExchangeToken(context.Background(),
		"e30."+base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://idp.example.com","sub":"alice"}`))+".")
	require.NoError(t, err)
	h, err := proxy.New(fake.Client(), func(*http.Request) (proxy.User, error) { return proxy.User{Token: tok.Token}, nil })
	require.NoError(t, err)
	r := httptest.NewRequest("POST", "/v1/threads", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer from-the-browser")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	reqs := fake.Requests()
	got := reqs[len(reqs)-1]
	assert.Equal(t, "Bearer "+tok.Token.Reveal(), got.Header.Get("Authorization"))
	assert.NotContains(t, string(got.Body), "userKey")
}

// A user function that returns neither a key nor a token is the backend's
// bug: 500, logged, nothing sent.
func TestHandlerNoUser(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	l, logger := newLogs(t)
	h, err := proxy.New(fake.Client(), func(*http.Request) (proxy.User, error) { return proxy.User{}, nil }, proxy.WithLogger(logger))
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/v1/threads", nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Len(t, l.failures(), 1)
	assert.Empty(t, fake.Requests())
}

// The handler composes with net/http: mounted under a prefix, behind the
// backend's own auth middleware, whose user the user function reads.
func TestHandlerBehindMiddleware(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	type userKey struct{}
	h, err := proxy.New(fake.Client(), func(r *http.Request) (proxy.User, error) {
		u, _ := r.Context().Value(userKey{}).(string)
		return proxy.User{Key: u}, nil
	})
	require.NoError(t, err)
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Session") != "s-carol" {
				http.Error(w, "sign in", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "carol")))
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/api/tambo/", auth(http.StripPrefix("/api/tambo", h)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, _ := http.NewRequest("POST", srv.URL+"/api/tambo/v1/threads", strings.NewReader(`{}`))
	req.Header.Set("X-Session", "s-carol")
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(b))
	assert.Contains(t, string(b), `"userKey":"carol"`)

	// Encoded slashes survive StripPrefix as escapes: still refused.
	u, _ := url.Parse(srv.URL + "/api/tambo/v1/threads/x%2F..%2F..%2Fprojects")
	req = &http.Request{Method: "GET", URL: u, Header: http.Header{"X-Session": {"s-carol"}}}
	resp, err = srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// A user's concurrent runs can be bounded; another user is not held back.
func TestHandlerMaxRunsPerUser(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithMaxRunsPerUser(1))
		hold := make(chan struct{})
		e.fake.PushRunScript(threadstest.RunScript{Text: "long", Hold: hold, HoldAfter: 1})
		run := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
		done := make(chan *httptest.ResponseRecorder)
		go func() { done <- e.do(t, "s-alice", "POST", "/v1/threads/runs", run) }()
		synctest.Wait() // alice's first run is held on the service

		w := e.do(t, "s-alice", "POST", "/v1/threads/runs", run)
		assert.Equal(t, http.StatusTooManyRequests, w.Code)
		w = e.do(t, "s-bob", "POST", "/v1/threads/runs", run)
		assert.Equal(t, http.StatusCreated, w.Code)
		close(hold)
		assert.Equal(t, http.StatusCreated, (<-done).Code)
		w = e.do(t, "s-alice", "POST", "/v1/threads/runs", run)
		assert.Equal(t, http.StatusCreated, w.Code, "the slot is free again")
	})
}

// The browser leaves mid-run: the run is cancelled on the service, and
// nothing is logged as a failure.
func TestHandlerBrowserLeaves(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()})
		hold := make(chan struct{})
		defer close(hold)
		e.fake.PushRunScript(threadstest.RunScript{Text: "one two three", Hold: hold, HoldAfter: 2})
		ctx, leave := context.WithCancel(context.Background())
		r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`)).WithContext(ctx)
		r.Header.Set("Content-Type", "application/json")
		r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
		w := newRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.h.ServeHTTP(w, r)
		}()
		synctest.Wait()
		require.Len(t, events(w.Body()), 3)
		leave()
		<-done
		synctest.Wait()

		th, err := runs.New(e.fake.Client()).ForUser("alice").GetThread(context.Background(), w.Header().Get("X-Thread-Id"))
		require.NoError(t, err)
		assert.True(t, th.LastRunCancelled, "cancelled on the service")
		assert.Empty(t, e.logs.failures(), "a closed tab is not a failure")
		assert.Len(t, e.logs.all(), 1, "one debug line says the browser left")
	})
}

// A browser that stops reading a run cannot hold it open: the handler's
// write timeout ends it as the browser leaving.
func TestHandlerSlowReader(t *testing.T) {
	t.Parallel()
	deltas := make([]string, 64)
	for i := range deltas {
		deltas[i] = strings.Repeat("y", 16<<10)
	}
	hold := make(chan struct{})
	defer close(hold)
	e := newEnv(t, nil, proxy.WithWriteTimeout(300*time.Millisecond))
	e.fake.PushRunScript(threadstest.RunScript{Deltas: deltas, Hold: hold, HoldAfter: len(deltas) + 1})
	served := make(chan struct{})
	front := smallBufferServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(served)
		e.h.ServeHTTP(w, r)
	}))
	conn := dialSmall(t, front)
	body := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
	_, err := io.WriteString(conn, "POST /v1/threads/runs HTTP/1.1\r\nHost: x\r\nCookie: session=s-alice\r\nContent-Type: application/json\r\nContent-Length: "+
		strconv.Itoa(len(body))+"\r\n\r\n"+body)
	require.NoError(t, err)
	<-served // without the write timeout, this waits forever
	assert.Empty(t, e.logs.failures())
}

// New refuses what cannot work.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	user := func(*http.Request) (proxy.User, error) { return proxy.User{Key: "u"}, nil }
	tool := threads.NewTool("lookup", "Looks up", func(context.Context, struct{ Q string }) (string, error) { return "", nil })
	for name, c := range map[string]struct {
		client *threads.Client
		user   func(*http.Request) (proxy.User, error)
		opts   []proxy.Option
	}{
		"nil client":        {nil, user, nil},
		"zero client":       {&threads.Client{}, user, nil},
		"nil user":          {fake.Client(), nil, nil},
		"duplicate tool":    {fake.Client(), user, []proxy.Option{proxy.WithTools(tool, tool)}},
		"tool without call": {fake.Client(), user, []proxy.Option{proxy.WithTools(threads.Tool{Name: "x"})}},
		"zero body size":    {fake.Client(), user, []proxy.Option{proxy.WithMaxBodySize(0)}},
		"negative runs":     {fake.Client(), user, []proxy.Option{proxy.WithMaxRunsPerUser(-1)}},
		"nil store":         {fake.Client(), user, []proxy.Option{proxy.WithStore(nil)}},
		"nil option":        {fake.Client(), user, []proxy.Option{nil}},
	} {
		_, err := proxy.New(c.client, c.user, c.opts...)
		assert.Error(t, err, name)
	}
}

// A service that echoes the project key or the end user's token in a JSON
// route's 2xx answer (a thread's name, its metadata, a message's text,
// spelled raw or with JSON escapes) does not hand them to the browser.
func TestHandlerAnswerRedactsSecrets(t *testing.T) {
	t.Parallel()
	const key, tok = "sk-proxy-answer-key-0123456789", "eut-proxy-answer-token-0123456789"
	escaped := `sk-proxy-answer-key-\u0030123456789`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/thr_err"):
			w.Header().Set("Content-Type", "application/json; k="+key)
			w.Header().Set("Retry-After", tok)
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"message":"bad `+escaped+` `+tok+`","statusCode":400}`)
		case strings.HasSuffix(r.URL.Path, "/messages"):
			_, _ = io.WriteString(w, `{"messages":[{"id":"m1","threadId":"thr_1","role":"assistant","content":[{"type":"text","text":"key `+escaped+` token `+tok+`"}],"createdAt":"2026-06-16T10:00:00.000Z"}],"hasMore":false}`)
		default:
			_, _ = io.WriteString(w, `{"id":"thr_1","name":"`+key+`","metadata":{"`+tok+`":"`+escaped+`"},"createdAt":"2026-06-16T10:00:00.000Z","updatedAt":"2026-06-16T10:00:00.000Z","runStatus":"idle"}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(key))
	require.NoError(t, err)
	h, err := proxy.New(c, func(*http.Request) (proxy.User, error) { return proxy.User{Token: threads.NewToken(tok)}, nil })
	require.NoError(t, err)
	for _, target := range []string{"/v1/threads/thr_1", "/v1/threads/thr_1/messages", "/v1/threads/thr_err"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		body := w.Body.String()
		for name, vals := range w.Header() {
			body += "\n" + name + ": " + strings.Join(vals, ", ")
		}
		assert.NotContains(t, body, "answer-key", target)
		assert.NotContains(t, body, "answer-token", target)
		assert.Contains(t, body, "[REDACTED]", target)
	}
}

// A service that names the thread or the run with the project key or the
// end user's token (its X-Thread-Id and X-Run-Id headers, the events'
// ids) does not get them to the browser, in the events or the headers.
func TestHandlerRunRedactsSecretsInIDs(t *testing.T) {
	t.Parallel()
	const key, tok = "sk-proxy-run-key-0123456789", "eut-proxy-run-token-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Run-Id", key)
		w.Header().Set("X-Thread-Id", tok)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `data: {"type":"RUN_STARTED","threadId":"`+tok+`","runId":"`+key+`","timestamp":1}`+"\n\n"+
			`data: {"type":"RUN_FINISHED","threadId":"`+tok+`","runId":"`+key+`","timestamp":2}`+"\n\n")
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(key))
	require.NoError(t, err)
	h, err := proxy.New(c, func(*http.Request) (proxy.User, error) { return proxy.User{Token: threads.NewToken(tok)}, nil })
	require.NoError(t, err)
	for _, target := range []string{"/v1/threads/runs", "/v1/threads/thr_1/runs"} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", target, strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
		r.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
		out := w.Body.String()
		for name, vals := range w.Header() {
			out += "\n" + name + ": " + strings.Join(vals, ", ")
		}
		assert.NotContains(t, out, "run-key", target)
		assert.NotContains(t, out, "run-token", target)
	}
}

// The service writes tambo.run.awaiting_input before it records the run
// as complete, and a client that answers on the pause (as @tambo-ai/client
// does) is refused 400 when its continuation lands in between
// (captures-turn5 29-31). With the fake's window held open: straight at
// the service, 50 of 50 continuations are refused; through the Handler,
// which holds the pause until the run's RUN_FINISHED, none is.
func TestHandlerHoldsThePauseUntilTheRunIsComplete(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		fake := threadstest.NewServer(t, threadstest.WithoutListener())
		h, err := proxy.New(fake.Client(), func(*http.Request) (proxy.User, error) { return proxy.User{Key: "alice"}, nil })
		require.NoError(t, err)
		direct := runs.New(fake.Client()).ForUser("alice")
		browser, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://backend.test"),
			threads.WithAPIKey("not-the-project-key"), threads.WithHTTPClient(&http.Client{Transport: inProcess{h}}))
		require.NoError(t, err)
		viaHandler := runs.New(browser).ForUser("ignored")

		refused := func(c *runs.Client) int {
			n := 0
			for range 50 {
				window, opened := make(chan struct{}), make(chan struct{})
				fake.PushRunScript(threadstest.RunScript{
					ToolCalls:   []threadstest.RunToolCall{{ID: "call_w", Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}}},
					PauseWindow: window, OnPauseWindow: func() { close(opened) },
				})
				status := make(chan int, 1)
				go func() { status <- answerOnPause(t, c) }()
				<-opened
				synctest.Wait() // whatever the client saw of the pause, it has acted on
				close(window)
				if <-status == http.StatusBadRequest {
					n++
				}
			}
			return n
		}
		assert.Equal(t, 50, refused(direct), "straight at the service, every continuation lands in the window")
		assert.Equal(t, 0, refused(viaHandler), "through the Handler, none does")
	})
}

// answerOnPause starts a run and, as soon as its pause arrives, sends the
// continuation with the tool's result, as @tambo-ai/client does, then
// leaves the first stream. It returns the continuation's status.
func answerOnPause(t *testing.T, c *runs.Client) int {
	ctx := context.Background()
	s, err := c.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content:         []runs.Content{runs.Text("weather?")},
		ToolDefinitions: []runs.ToolDefinition{{Name: "get_weather", Description: "the weather", InputSchema: map[string]any{"type": "object"}}},
	}})
	if !assert.NoError(t, err) {
		return 0
	}
	defer s.Close()
	for s.Next() {
		ai, ok := s.Current().(runs.AwaitingInput)
		if !ok {
			continue
		}
		results := make([]runs.Content, len(ai.PendingToolCalls))
		for i, p := range ai.PendingToolCalls {
			results[i] = runs.ToolResult(p.ToolCallID, "sunny")
		}
		next, err := c.Run(ctx, s.ThreadID(), runs.RunParams{PreviousRunID: s.RunID(), Content: results})
		var p *threads.Problem
		if errors.As(err, &p) {
			return p.Status
		}
		if !assert.NoError(t, err) {
			return 0
		}
		_, err = next.Collect()
		next.Close()
		assert.NoError(t, err)
		return http.StatusCreated
	}
	t.Errorf("no pause: %v", s.Err())
	return 0
}

// A browser that leaves once the service's pause has reached the Handler
// (but before the run's end) does not cancel the run: the Handler reads
// it to its end, so that the run is complete and the user's continuation
// is accepted.
func TestHandlerReadsAPausedRunToItsEnd(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()})
		window, opened := make(chan struct{}), make(chan struct{})
		e.fake.PushRunScript(threadstest.RunScript{
			ToolCalls:   []threadstest.RunToolCall{{ID: "call_l", Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}}},
			PauseWindow: window, OnPauseWindow: func() { close(opened) },
		})
		ctx, leave := context.WithCancel(context.Background())
		r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"weather?"}]},"tools":[{"name":"get_weather","description":"d","inputSchema":{"type":"object"}}]}`)).WithContext(ctx)
		r.Header.Set("Content-Type", "application/json")
		r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
		w := newRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.h.ServeHTTP(w, r)
		}()
		<-opened
		synctest.Wait()
		assert.NotContains(t, w.Body(), "awaiting_input", "held until the run's end")
		leave() // the tab closes inside the service's window
		synctest.Wait()
		close(window)
		<-done
		synctest.Wait()

		u := runs.New(e.fake.Client()).ForUser("alice")
		th, err := u.GetThread(context.Background(), w.Header().Get("X-Thread-Id"))
		require.NoError(t, err)
		assert.False(t, th.LastRunCancelled, "the run was read to its end, not cancelled")
		assert.Equal(t, w.Header().Get("X-Run-Id"), th.LastCompletedRunID)
		s, err := u.Run(context.Background(), th.ID, runs.RunParams{PreviousRunID: th.LastCompletedRunID, Content: []runs.Content{runs.ToolResult("call_l", "sunny")}})
		require.NoError(t, err, "the continuation is accepted")
		_, err = s.Collect()
		assert.NoError(t, err)
		assert.Empty(t, e.logs.failures())
	})
}

// A pause whose run never reaches RUN_FINISHED (the connection to the
// service breaks) is still written, with the end that came.
func TestHandlerWritesAHeldPauseWithAnyEnd(t *testing.T) {
	t.Parallel()
	body := strings.Join([]string{
		`data: {"type":"RUN_STARTED","threadId":"thr_p","runId":"run_p","timestamp":1}`,
		`data: {"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"pendingToolCalls":[{"toolCallId":"c","toolName":"t","arguments":"{}"}]},"timestamp":2}`,
		``}, "\n\n")
	c := serveSSE(t, []byte(body))
	h, err := proxy.New(c, func(*http.Request) (proxy.User, error) { return proxy.User{Key: "alice"}, nil })
	require.NoError(t, err)
	r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
	r.Header.Set("Content-Type", "application/json")
	w := newRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, body, w.Body(), "the pause is written when the stream breaks")
	assert.Zero(t, w.Unflushed())
}

// plainWriter is a middleware's response wrapper with neither Flush nor
// Unwrap: nothing can flush through it.
type plainWriter struct{ w http.ResponseWriter }

func (p plainWriter) Header() http.Header         { return p.w.Header() }
func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p plainWriter) WriteHeader(status int)      { p.w.WriteHeader(status) }

// A response writer that can neither flush nor unwrap to one that can
// makes every run arrive at its end: the Handler says so once, naming the
// writer's type and the fix, rather than buffer in silence.
func TestHandlerLogsAWriterThatCannotFlush(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for range 2 {
		r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
		r.Header.Set("Content-Type", "application/json")
		r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
		w := httptest.NewRecorder()
		e.h.ServeHTTP(plainWriter{w}, r)
		require.Equal(t, http.StatusCreated, w.Code)
		assert.Contains(t, w.Body.String(), "RUN_FINISHED")
	}
	fails := e.logs.failures()
	require.Len(t, fails, 1, "logged once per Handler")
	assert.Contains(t, fails[0], "proxy_test.plainWriter")
	assert.Contains(t, fails[0], "Unwrap")
}

// stuckWriter is a middleware's wrapper with Flush but no Unwrap (so no
// write deadline can be set through it) in front of a browser that never
// reads: each Write after the headers blocks until the test ends.
type stuckWriter struct {
	header http.Header
	stuck  <-chan struct{}
}

func (s *stuckWriter) Header() http.Header { return s.header }
func (s *stuckWriter) WriteHeader(int)     {}
func (s *stuckWriter) Flush()              {}
func (s *stuckWriter) Write(b []byte) (int, error) {
	<-s.stuck
	return 0, errors.New("the connection died")
}

// Behind a writer that takes no write deadline, a browser that stops
// reading still cannot hold the run: when a write overruns the write
// timeout, the run is cancelled on the service and the user's run slot is
// freed, although the handler's goroutine stays in the write until the
// connection dies.
func TestHandlerWriteTimeoutWithoutDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, []threadstest.Option{threadstest.WithoutListener()}, proxy.WithWriteTimeout(time.Second), proxy.WithMaxRunsPerUser(1))
		hold := make(chan struct{})
		defer close(hold)
		e.fake.PushRunScript(threadstest.RunScript{Text: "one two three", Hold: hold, HoldAfter: 2})
		stuck := make(chan struct{})
		post := func(w http.ResponseWriter) {
			r := httptest.NewRequest("POST", "/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
			r.Header.Set("Content-Type", "application/json")
			r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
			e.h.ServeHTTP(w, r)
		}
		sw := &stuckWriter{header: http.Header{}, stuck: stuck}
		done := make(chan struct{})
		go func() {
			defer close(done)
			post(sw)
		}()
		time.Sleep(2 * time.Second) // fake time: the write has overrun
		synctest.Wait()

		th, err := runs.New(e.fake.Client()).ForUser("alice").GetThread(context.Background(), sw.header.Get("X-Thread-Id"))
		require.NoError(t, err)
		assert.True(t, th.LastRunCancelled, "the run was cancelled on the service")
		w := newRecorder()
		post(w)
		assert.Equal(t, http.StatusCreated, w.Status(), "the user's run slot was freed")
		close(stuck) // the connection dies
		<-done
	})
}

// A page of another site can post text/plain, form and multipart bodies
// with the user's cookies and no CORS preflight: every route that takes a
// body refuses them (415) before the user function runs or anything is
// sent; JSON, with any charset or as a +json type, goes through.
func TestHandlerTakesOnlyJSONBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	users := 0
	h, err := proxy.New(e.fake.Client(), func(r *http.Request) (proxy.User, error) { users++; return userBySession(r) })
	require.NoError(t, err)
	run := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
	routes := []struct{ method, target, body string }{
		{"POST", "/v1/threads/runs", run},
		{"POST", "/v1/threads/thr_1/runs", run},
		{"POST", "/v1/threads", `{}`},
		{"PATCH", "/v1/threads/thr_1", `{"name":"x"}`},
		{"POST", "/v1/threads/thr_1/messages/msg_1/suggestions", `{}`},
		{"POST", "/v1/threads/thr_1/components/c_1/state", `{"state":{}}`},
	}
	for _, rt := range routes {
		for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
			"multipart/form-data; boundary=x", "", "application/jsonx", "text/json", "application/json garbage"} {
			r := httptest.NewRequest(rt.method, rt.target, strings.NewReader(rt.body))
			if ct != "" {
				r.Header.Set("Content-Type", ct)
			}
			r.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, http.StatusUnsupportedMediaType, w.Code, "%s %s as %q", rt.method, rt.target, ct)
		}
	}
	assert.Empty(t, e.fake.Requests(), "nothing was sent")
	assert.Zero(t, users, "the user function was not asked")

	for _, ct := range []string{"application/json", "Application/JSON; charset=UTF-8", "application/merge-patch+json"} {
		w := e.do(t, "s-alice", "POST", "/v1/threads/runs", run, "Content-Type", ct)
		assert.Equal(t, http.StatusCreated, w.Code, "%q: %s", ct, w.Body.String())
	}
}

// direct sends a request to the fake as the Handler sends alice's, and
// returns the service's answer as its bytes: what the browser must get.
func (e *env) direct(t *testing.T, method, target string) string {
	t.Helper()
	u, err := url.Parse(e.fake.URL + target)
	require.NoError(t, err)
	q := u.Query()
	q.Set("userKey", "alice")
	u.RawQuery = q.Encode()
	req, err := http.NewRequest(method, u.String(), nil)
	require.NoError(t, err)
	req.Header.Set("X-Api-Key", e.fake.APIKey)
	resp, err := e.fake.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

// The service's JSON answers reach the browser as the service's bytes:
// members this SDK does not model (a field the service adds tomorrow,
// which the official web client may read) are passed, nothing is
// re-encoded, on the thread, list, message, suggestion and cancel routes.
func TestHandlerForwardsTheServicesBytes(t *testing.T) {
	t.Parallel()
	extra := map[string]any{"futureField": map[string]any{"since": "v2"}}
	e := newEnv(t, []threadstest.Option{threadstest.WithExtraMembers(extra)})

	w := e.do(t, "s-alice", "POST", "/v1/threads", `{"initialMessages":[{"role":"user","content":[{"type":"text","text":"one"}]}]}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	id := decode[map[string]any](t, w)["id"].(string)
	msgID := decode[struct {
		Messages []struct {
			ID string `json:"id"`
		} `json:"messages"`
	}](t, e.do(t, "s-alice", "GET", "/v1/threads/"+id, "")).Messages[0].ID
	w = e.do(t, "s-alice", "POST", "/v1/threads/"+id+"/messages/"+msgID+"/suggestions", `{"maxSuggestions":2}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `"futureField"`)

	for _, target := range []string{
		"/v1/threads/" + id,
		"/v1/threads?limit=5",
		"/v1/threads/" + id + "/messages?limit=10",
		"/v1/threads/" + id + "/messages/" + msgID,
		"/v1/threads/" + id + "/messages/" + msgID + "/suggestions",
	} {
		w := e.do(t, "s-alice", "GET", target, "")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		want := e.direct(t, "GET", target)
		require.Contains(t, want, `"futureField":{"since":"v2"}`, target)
		assert.Equal(t, want, w.Body.String(), target)
	}

	// The cancel route's answer is the service's too, not one the
	// Handler writes.
	hold, held := make(chan struct{}), make(chan struct{})
	e.fake.PushRunScript(threadstest.RunScript{Text: "long answer", Hold: hold, HoldAfter: 1, OnHold: func() { close(held) }})
	s, err := runs.New(e.fake.Client()).ForUser("alice").Run(context.Background(), id, runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
	require.NoError(t, err)
	defer s.Close()
	defer close(hold)
	<-held
	w = e.do(t, "s-alice", "DELETE", "/v1/threads/"+id+"/runs/"+s.RunID(), "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, `{"runId":"`+s.RunID()+`","status":"cancelled","futureField":{"since":"v2"}}`+"\n", w.Body.String(), "the service's bytes, its final newline included")
	assert.Empty(t, e.logs.failures())
}

// Every answer of the Handler says what it is, and only that: its own
// Content-Type (JSON, or an event stream for a run) and nosniff, whether
// the service or the Handler wrote it. Of the service's headers only
// Retry-After passes: no cookie, CORS, CSP or hop-by-hop header of the
// service's reaches the browser.
func TestHandlerAnswerHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	th := decode[map[string]any](t, e.do(t, "s-alice", "POST", "/v1/threads", `{}`))
	id := th["id"].(string)
	e.fake.Inject(threadstest.Fault{Method: "GET", Path: "/v1/threads/" + id + "/messages", Times: 1, Status: http.StatusOK,
		Header: http.Header{
			"Content-Type": {"application/json"}, "Set-Cookie": {"sid=service; Path=/"},
			"Access-Control-Allow-Origin": {"*"}, "Access-Control-Allow-Credentials": {"true"},
			"Content-Security-Policy": {"default-src *"}, "Keep-Alive": {"timeout=5"}, "Proxy-Authenticate": {"Basic"},
			"X-Content-Type-Options": {"sniff-please"},
		},
		Body: `{"messages":[],"hasMore":false}`})
	e.fake.Inject(threadstest.Fault{Method: "GET", Path: "/v1/threads/" + id, Times: 1, Status: http.StatusTooManyRequests,
		Header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"7"}, "Set-Cookie": {"sid=service"}, "X-Should-Retry": {"false"}},
		Body:   `{"message":"slow down","statusCode":429}`})
	const jsonType, sse = "application/json; charset=utf-8", "text/event-stream"
	for _, c := range []struct {
		method, target, body, session string
		status                        int
		ctype                         string
	}{
		{"GET", "/v1/threads/" + id + "/messages", "", "s-alice", http.StatusOK, jsonType},
		{"GET", "/v1/threads/" + id, "", "s-alice", http.StatusTooManyRequests, jsonType},
		{"GET", "/v1/threads?limit=2", "", "s-alice", http.StatusOK, jsonType},
		{"POST", "/v1/threads", `{}`, "s-alice", http.StatusCreated, jsonType},
		{"POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`, "s-alice", http.StatusCreated, sse},
		{"GET", "/v1/threads/thr_other.000000", "", "s-alice", http.StatusForbidden, jsonType},
		{"GET", "/v1/threads", "", "", http.StatusUnauthorized, jsonType},
		{"GET", "/v1/nothing", "", "s-alice", http.StatusNotFound, jsonType},
		{"PUT", "/v1/threads", "", "s-alice", http.StatusMethodNotAllowed, jsonType},
		{"GET", "/v1/threads/..", "", "s-alice", http.StatusBadRequest, jsonType},
		{"GET", "/v1/threads?limit=x", "", "s-alice", http.StatusBadRequest, jsonType},
		{"DELETE", "/v1/threads/" + id, "", "s-alice", http.StatusNoContent, ""},
	} {
		w := e.do(t, c.session, c.method, c.target, c.body)
		name := c.method + " " + c.target
		require.Equal(t, c.status, w.Code, "%s: %s", name, w.Body.String())
		h := w.Header()
		assert.Equal(t, c.ctype, h.Get("Content-Type"), name)
		assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), name)
		for _, never := range []string{"Set-Cookie", "Access-Control-Allow-Origin", "Access-Control-Allow-Credentials",
			"Content-Security-Policy", "Keep-Alive", "Proxy-Authenticate"} {
			assert.Empty(t, h.Values(never), "%s: %s", name, never)
		}
		if c.status == http.StatusTooManyRequests {
			assert.Equal(t, "7", h.Get("Retry-After"), name)
			assert.Equal(t, `{"message":"slow down","statusCode":429}`, w.Body.String(), name)
		}
	}
}

// stub is a service that answers every request with answer, behind a
// Handler whose calls carry a per-call key (WithRequestOptions) and whose
// user is an end-user token.
func stub(t *testing.T, answer http.HandlerFunc) (*proxy.Handler, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(answer)
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey("sk-client-key-0123456789"), threads.WithMaxRetries(0))
	require.NoError(t, err)
	h, err := proxy.New(c, func(*http.Request) (proxy.User, error) {
		return proxy.User{Token: threads.NewToken("eut-stub-token-0123456789")}, nil
	}, proxy.WithRequestOptions(threads.WithAPIKey("sk-per-call-key-0123456789")))
	require.NoError(t, err)
	return h, srv
}

// A key set for the Handler's calls (WithRequestOptions) is the call's
// key: a service that echoes it, raw or JSON-escaped, in an answer's body
// or an error's, does not hand it to the browser.
func TestHandlerRedactsPerCallKey(t *testing.T) {
	t.Parallel()
	h, _ := stub(t, func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-Api-Key")
		escaped := strings.Replace(key, "-", `\u002d`, 1)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/thr_err") {
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = io.WriteString(w, `{"id":"thr_1","name":"`+key+`","metadata":{"k":"`+escaped+`"}}`)
	})
	for _, target := range []string{"/v1/threads/thr_1", "/v1/threads/thr_err"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		assert.NotContains(t, w.Body.String(), "per-call", target)
		assert.NotContains(t, w.Body.String(), `per\u002dcall`, target)
		assert.Equal(t, `{"id":"thr_1","name":"[REDACTED]","metadata":{"k":"[REDACTED]"}}`, w.Body.String(), target)
	}
}

// What the Handler does not pass on becomes its own 502 that names no
// host: a redirect (to another origin, which the client does not follow
// with the key), a service answer that is not JSON (a gateway's HTML
// page, 2xx or not), and a failure it cannot classify.
func TestHandlerBadGatewayNamesNoHost(t *testing.T) {
	t.Parallel()
	h, srv := stub(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/thr_redirect"):
			w.Header().Set("Location", "http://internal.example:8443/v1/threads/thr_1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusFound)
			_, _ = io.WriteString(w, `{"message":"moved to internal.example"}`)
		case strings.HasSuffix(r.URL.Path, "/thr_html"):
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, `<html><body>internal.example</body></html>`)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, `<html><body>nginx at internal.example</body></html>`)
		}
	})
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, target := range []string{"/v1/threads/thr_redirect", "/v1/threads/thr_html", "/v1/threads/thr_gateway", "/v1/threads/thr_1/messages"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		assert.Equal(t, http.StatusBadGateway, w.Code, target)
		assert.Equal(t, "application/json; charset=utf-8", w.Header().Get("Content-Type"), target)
		assert.Empty(t, w.Header().Get("Location"), target)
		for _, s := range []string{"internal.example", host, "127.0.0.1", "<html"} {
			assert.NotContains(t, w.Body.String(), s, target)
		}
		var p struct {
			StatusCode int `json:"statusCode"`
		}
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p), target)
		assert.Equal(t, http.StatusBadGateway, p.StatusCode, target)
	}
}

// A failure the Handler cannot classify (here the backend's own call
// option, refused when the call is made) is its 502, logged: never a 400
// that blames the browser and shows it the SDK's error.
func TestHandlerUnclassifiedFailureIsBadGateway(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, proxy.WithRequestOptions(threads.WithMaxRetries(-1)))
	for _, c := range []struct{ method, target, body string }{
		{"GET", "/v1/threads", ""},
		{"POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`},
	} {
		w := e.do(t, "s-alice", c.method, c.target, c.body)
		assert.Equal(t, http.StatusBadGateway, w.Code, c.target)
		assert.NotContains(t, w.Body.String(), "WithMaxRetries", c.target)
	}
	assert.NotEmpty(t, e.logs.failures())
}

// A browser's run reaches the service as package runs sends a run: every
// member runs sends (read through the same declaration), the backend's
// user in thread.userKey, and nothing else of what the browser sent.
func TestHandlerRunBodyIsRunsBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	temp := 0.3
	cp := runs.CreateRunParams{
		RunParams: runs.RunParams{
			Content: []runs.Content{runs.Text("hi")}, MessageMetadata: map[string]any{"m": "1"},
			AdditionalContext: map[string]any{"page": "/"}, ToolDefinitions: []runs.ToolDefinition{{Name: "lookup", InputSchema: map[string]any{"type": "object"}}},
			AvailableComponents: []runs.AvailableComponent{{Name: "Card", Description: "a card", PropsSchema: map[string]any{"type": "object"}}},
			ToolChoice:          "auto", Model: "m", MaxTokens: 9, Temperature: &temp, RunMetadata: map[string]any{"r": "1"},
		},
		ThreadMetadata:  map[string]any{"t": "1"},
		InitialMessages: []runs.InitialMessage{{Role: runs.RoleUser, Content: []runs.Content{runs.Text("seed")}}},
	}
	b, err := json.Marshal(cp)
	require.NoError(t, err)
	var sent map[string]any
	require.NoError(t, json.Unmarshal(b, &sent))
	browser := map[string]any{"userKey": "mallory", "apiKey": "x", "stream": true}
	for k, v := range sent {
		browser[k] = v
	}
	in, err := json.Marshal(browser)
	require.NoError(t, err)
	w := e.do(t, "s-alice", "POST", "/v1/threads/runs", string(in))
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	var got map[string]any
	require.NoError(t, json.Unmarshal(e.last(t).Body, &got))
	sent["thread"].(map[string]any)["userKey"] = "alice"
	assert.Equal(t, sent, got)
}

// renewingUser is a Handler whose only user is a token user whose token
// the test renews (the backend exchanges a new one for the same person),
// with id as their User.ID.
type renewingUser struct {
	fake   *threadstest.Server
	h      *proxy.Handler
	tokens []threads.Token
	cur    atomic.Int32
}

func newRenewingUser(t *testing.T, id string, opts []threadstest.Option, popts ...proxy.Option) *renewingUser {
	t.Helper()
	ru := &renewingUser{fake: threadstest.NewServer(t, opts...)}
	for range 2 {
		tok, err := runs.New(ru.fake.Client()).ExchangeToken(context.Background(),
			"e30."+base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://idp.example.com","sub":"alice"}`))+".")
		require.NoError(t, err)
		ru.tokens = append(ru.tokens, tok.Token)
	}
	require.NotEqual(t, ru.tokens[0].Reveal(), ru.tokens[1].Reveal())
	var err error
	ru.h, err = proxy.New(ru.fake.Client(), func(*http.Request) (proxy.User, error) {
		return proxy.User{Token: ru.tokens[ru.cur.Load()], ID: id}, nil
	}, popts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ru.h.Shutdown(context.Background()) })
	return ru
}

func (ru *renewingUser) do(method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	ru.h.ServeHTTP(w, r)
	return w
}

// A token user whose token is renewed resumes their detached run when
// the backend names them with User.ID; without it, the renewed token is
// another user to the Handler (the run is not theirs: 404), as
// documented on User.
func TestTokenUserResumesAfterTokenRenewal(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		id   string
		want int
	}{
		"with ID":    {"alice", http.StatusOK},
		"without ID": {"", http.StatusNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ru := newRenewingUser(t, tc.id, nil, proxy.WithDetachedRuns(time.Minute))
			ru.fake.PushRunScript(threadstest.RunScript{Text: "all done"})
			w := ru.do("POST", "/v1/threads/runs", hiRun)
			require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
			ru.cur.Store(1)
			got := ru.do("GET", "/v1/threads/"+w.Header().Get("X-Thread-Id")+"/runs/"+w.Header().Get("X-Run-Id")+"/events", "")
			assert.Equal(t, tc.want, got.Code, got.Body.String())
			if tc.want == http.StatusOK {
				assert.Contains(t, got.Body.String(), `"delta":"done"`)
			}
		})
	}
}

// Run slots follow User.ID: a backend that exchanges a token per session
// does not give the same person a second slot.
func TestUserIDSharesRunSlotsAcrossTokens(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ru := newRenewingUser(t, "alice", []threadstest.Option{threadstest.WithoutListener()}, proxy.WithMaxRunsPerUser(1))
		hold := make(chan struct{})
		ru.fake.PushRunScript(threadstest.RunScript{Text: "long", Hold: hold, HoldAfter: 1})
		done := make(chan *httptest.ResponseRecorder)
		go func() { done <- ru.do("POST", "/v1/threads/runs", hiRun) }()
		synctest.Wait() // the first token's run is held on the service

		ru.cur.Store(1)
		w := ru.do("POST", "/v1/threads/runs", hiRun)
		assert.Equal(t, http.StatusTooManyRequests, w.Code, w.Body.String())
		close(hold)
		assert.Equal(t, http.StatusCreated, (<-done).Code)
	})
}

// A token user's call parked for approval is continued, once decided, in
// their User.ID's scope, where its pause was parked.
func TestUserIDContinuesAParkedCall(t *testing.T) {
	t.Parallel()
	var f refunds
	ru := newRenewingUser(t, "alice", nil, approvalOptions(&f, proxy.NewMemoryStore(0, 0))...)
	ru.fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{ID: "call_r", Name: "refund", Arguments: map[string]any{"amount": 80}}}})
	w := ru.do("POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"refund me"}]}}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	custom, _ := parked(t, w.Body.String())
	require.Len(t, custom, 1)
	a := approve(t, ru.h, custom[0].ID, true, "", "X-Role", "manager")
	require.Equal(t, http.StatusOK, a.Code, a.Body.String())
	var d proxy.ApprovalDecision
	require.NoError(t, json.Unmarshal(a.Body.Bytes(), &d))
	assert.NotEmpty(t, d.RunID, "the decision continued the run")
}
