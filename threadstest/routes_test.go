package threadstest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// Tests of the spec routes the fake serves (routes.go, and the key check
// of router.go) as the live service answers them: its auth, list, get,
// cancel and projects answers. They run against the fake only; the tests
// against a live deployment are live_test.go in the root and in runs.

// Bodies as the live service sends them (captures 02, 03, 05, 25, 42).
const (
	forbiddenBody  = `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`
	badBearerBody  = `{"message":"Invalid bearer token","error":"Unauthorized","statusCode":401}`
	badFormatBody  = `{"message":"Invalid Authorization header format","error":"Unauthorized","statusCode":401}`
	cannotGetBody  = `{"message":"Cannot GET /threads","error":"Not Found","statusCode":404}`
	internalBody   = `{"statusCode":500,"message":"Internal server error"}`
	includeIntBody = "{\"message\":\"includeInternal is deprecated, if passed, it can only be `true`\",\"error\":\"Bad Request\",\"statusCode\":400}"
)

// send makes a raw request and returns the status and body.
func send(t *testing.T, srv *threadstest.Server, method, path string, header http.Header, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header = header
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func keyHeader(srv *threadstest.Server) http.Header { return http.Header{"X-Api-Key": {srv.APIKey}} }

// createThread creates a thread through the raw API and returns its id.
func createThread(t *testing.T, srv *threadstest.Server, h http.Header, extra string) string {
	t.Helper()
	status, body := send(t, srv, "POST", "/threads", h.Clone(), `{"projectId":"`+srv.ProjectID+`"`+extra+`}`)
	require.Equal(t, 201, status, body)
	var th struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &th))
	return th.ID
}

func TestLiveHabitsAuth(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithLiveHabits())
	create := `{"projectId":"` + srv.ProjectID + `"}`
	for _, tt := range []struct {
		name   string
		header http.Header
		status int
		body   string
	}{
		{"bearer only", http.Header{"Authorization": {"Bearer " + srv.APIKey}}, 403, forbiddenBody},
		{"both", http.Header{"X-Api-Key": {srv.APIKey}, "Authorization": {"Bearer " + srv.APIKey}}, 401, badBearerBody},
		{"lowercase bearer", http.Header{"X-Api-Key": {srv.APIKey}, "Authorization": {"bearer not.a.jwt"}}, 401, badBearerBody},
		{"basic", http.Header{"X-Api-Key": {srv.APIKey}, "Authorization": {"Basic Zm9vOmJhcg=="}}, 401, badFormatBody},
		{"none", http.Header{}, 403, forbiddenBody},
		{"wrong key", http.Header{"X-Api-Key": {"tambo_notavalidkey"}}, 403, forbiddenBody},
	} {
		status, body := send(t, srv, "POST", "/threads", tt.header, create)
		assert.Equal(t, tt.status, status, tt.name)
		assert.JSONEq(t, tt.body, body, tt.name)
	}
	assert.Equal(t, 201, func() int { s, _ := send(t, srv, "POST", "/threads", keyHeader(srv), create); return s }())

	// The spec's list route is gone; the per-project one answers.
	status, body := send(t, srv, "GET", "/threads", keyHeader(srv), "")
	assert.Equal(t, 404, status)
	assert.JSONEq(t, cannotGetBody, body)
	status, _ = send(t, srv, "GET", "/threads/project/"+srv.ProjectID, keyHeader(srv), "")
	assert.Equal(t, 200, status)

	// Creating in another project is a 500, as live (capture 37).
	status, body = send(t, srv, "POST", "/threads", keyHeader(srv), `{"projectId":"p_other000.abcdef"}`)
	assert.Equal(t, 500, status)
	assert.JSONEq(t, internalBody, body)

	// Server.Client is configured to match: it sends x-api-key.
	c := srv.Client()
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), th.ID)
	require.NoError(t, err)
}

func TestWithoutSpecListRouteAlone(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutSpecListRoute())
	status, body := send(t, srv, "GET", "/threads", http.Header{"Authorization": {"Bearer " + srv.APIKey}}, "")
	assert.Equal(t, 404, status)
	assert.JSONEq(t, cannotGetBody, body)
}

func TestSpecAuthByDefault(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	status, _ := send(t, srv, "GET", "/threads", http.Header{"Authorization": {"Bearer " + srv.APIKey}}, "")
	assert.Equal(t, 200, status)
	status, _ = send(t, srv, "GET", "/threads", keyHeader(srv), "")
	assert.Equal(t, 401, status, "the spec's Bearer is what the default server reads")
}

func TestUnknownThreadIsForbidden(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKeyHeader("x-api-key"))
	const id = "thr_doesnotexist.123456"
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/threads/" + id, ""},
		{"POST", "/threads/" + id + "/advance", "{}"},
		{"POST", "/threads/" + id + "/advancestream", `{"messageToAppend":{"role":"user","content":[{"type":"text","text":"hi"}]}}`},
		{"POST", "/threads/" + id + "/cancel", ""},
	} {
		status, body := send(t, srv, r.method, r.path, keyHeader(srv), r.body)
		assert.Equal(t, 403, status, r.path)
		assert.JSONEq(t, forbiddenBody, body, r.path)
	}
	_, err := srv.Client().Threads.Get(context.Background(), id)
	assert.ErrorIs(t, err, threads.ErrForbidden)
}

func TestGetContextKey(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKeyHeader("x-api-key"))
	h := keyHeader(srv)
	plain := createThread(t, srv, h, "")
	keyed := createThread(t, srv, h, `,"contextKey":"user-42"`)

	// Capture 32: a contextKey that is not the thread's is the 404 problem.
	status, body := send(t, srv, "GET", "/threads/"+plain+"?contextKey=someone-else", h.Clone(), "")
	assert.Equal(t, 404, status)
	assert.JSONEq(t, `{"type":"https://docs.tambo.co/reference/problems/not-found","status":404,"title":"Not Found","detail":"Thread not found","instance":"/threads/`+plain+`?contextKey=someone-else"}`, body)
	status, _ = send(t, srv, "GET", "/threads/"+keyed+"?contextKey=someone-else", h.Clone(), "")
	assert.Equal(t, 404, status)
	// No contextKey reads any thread of the project; the right one reads it.
	for _, p := range []string{"/threads/" + keyed, "/threads/" + keyed + "?contextKey=user-42", "/threads/" + plain} {
		status, body = send(t, srv, "GET", p, h.Clone(), "")
		assert.Equal(t, 200, status, p)
		assert.NotContains(t, body, "contextKey", "GET answers without contextKey, as live")
	}
	// Capture 33.
	status, body = send(t, srv, "GET", "/threads/"+plain+"?includeInternal=false", h.Clone(), "")
	assert.Equal(t, 400, status)
	assert.JSONEq(t, includeIntBody, body)
}

func TestListPerProject(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKeyHeader("x-api-key"))
	h := keyHeader(srv)
	first := createThread(t, srv, h, "")
	createThread(t, srv, h, `,"name":"second","metadata":{"k":"v"}`)
	third := createThread(t, srv, h, "")
	keyed := createThread(t, srv, h, `,"contextKey":"user-42"`)

	type page struct {
		Total, Offset, Count int
		Limit                *int
		Items                []map[string]any
	}
	get := func(path string) (int, page) {
		status, body := send(t, srv, "GET", path, h.Clone(), "")
		var p page
		if status == 200 {
			require.NoError(t, json.Unmarshal([]byte(body), &p))
		}
		return status, p
	}
	base := "/threads/project/" + srv.ProjectID
	// Capture 08: no contextKey lists the threads without one, newest first.
	status, p := get(base + "?offset=0&limit=2")
	require.Equal(t, 200, status)
	assert.Equal(t, 3, p.Total)
	assert.Equal(t, 2, p.Count)
	assert.Equal(t, 2, *p.Limit)
	assert.Equal(t, third, p.Items[0]["id"])
	assert.Equal(t, "second", p.Items[1]["name"])
	// Capture 09: the contextKey filter, and items carry contextKey.
	_, p = get(base + "?contextKey=user-42")
	require.Len(t, p.Items, 1)
	assert.Equal(t, keyed, p.Items[0]["id"])
	assert.Equal(t, "user-42", p.Items[0]["contextKey"])
	// Capture 35: limit=abc echoes null and applies no limit.
	_, p = get(base + "?limit=abc")
	assert.Nil(t, p.Limit)
	assert.Equal(t, 3, p.Count)
	assert.Equal(t, first, p.Items[2]["id"])
	// Capture 34: another project is forbidden.
	status, body := send(t, srv, "GET", "/threads/project/p_other000.abcdef", h.Clone(), "")
	assert.Equal(t, 403, status)
	assert.JSONEq(t, forbiddenBody, body)
	// The spec's route answers the same envelope.
	_, p = get("/threads")
	assert.Equal(t, 3, p.Total)

	// The client lists either route.
	c := srv.Client()
	tp, err := c.Threads.List(context.Background(), &threads.ListParams{ContextKey: "user-42"})
	require.NoError(t, err)
	require.Len(t, tp.Items, 1)
	assert.Equal(t, "user-42", tp.Items[0].ContextKey)
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// By default cancel on a thread without messages answers 201.
	srv := threadstest.NewServer(t)
	th, err := srv.Client().Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, ContextKey: "user-42"})
	require.NoError(t, err)
	got, err := srv.Client().Threads.Cancel(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, "user-42", got.ContextKey, "the cancel answer carries contextKey")

	// Live (captures 25, 27): 500, and yet the thread is cancelled.
	live := threadstest.NewServer(t, threadstest.WithLiveHabits())
	h := keyHeader(live)
	id := createThread(t, live, h, `,"contextKey":"user-42"`)
	status, body := send(t, live, "POST", "/threads/"+id+"/cancel", h.Clone(), "")
	assert.Equal(t, 500, status)
	assert.JSONEq(t, internalBody, body)
	status, body = send(t, live, "GET", "/threads/project/"+live.ProjectID+"?contextKey=user-42", h.Clone(), "")
	require.Equal(t, 200, status)
	var page struct{ Items []threads.Thread }
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	require.Len(t, page.Items, 1)
	assert.Equal(t, threads.GenerationStageCancelled, page.Items[0].GenerationStage)
	assert.Equal(t, "Thread advancement cancelled", page.Items[0].StatusMessage)

	// With messages, cancel answers 201 and marks the last reply cancelled.
	c := live.Client()
	s, err := c.Threads.AdvanceStream(ctx, id, threads.AdvanceParams{Message: threads.UserMessage("hi"), ContextKey: "user-42"})
	require.NoError(t, err)
	_, err = collect(s)
	require.NoError(t, err)
	_, err = c.Threads.Cancel(ctx, id)
	require.NoError(t, err)
	twm, err := c.Threads.Get(ctx, id)
	require.NoError(t, err)
	require.Len(t, twm.Messages, 2)
	assert.True(t, twm.Messages[1].IsCancelled)
}

func TestProjectsAsLive(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	status, body := send(t, srv, "GET", "/projects", http.Header{"Authorization": {"Bearer " + srv.APIKey}}, "")
	require.Equal(t, 200, status)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	// Every field of capture 31.
	var live map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"id":"p_DSr8JxVP.57a223","name":"Live Capture Project","userId":"3abc4ccf-139a-476d-bcc4-95d0c1cb6237","defaultLlmProviderName":"openai-compatible","customLlmModelName":"fake-model","customLlmBaseURL":"http://127.0.0.1:18555/v1","allowSystemPromptOverride":false,"isTokenRequired":false,"providerType":"llm","agentProviderType":"ag-ui"}`), &live))
	for k, v := range live {
		require.Contains(t, got, k)
		assert.IsType(t, v, got[k], k)
	}
	assert.Len(t, got, len(live))
	assert.Equal(t, srv.ProjectID, got["id"])
	p, err := srv.Client().Projects.Current(context.Background())
	require.NoError(t, err)
	assert.Equal(t, srv.ProjectID, p.ID)
}

func TestPlaceholderOnlyReply(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	srv.PushScript(threadstest.Script{Replies: []string{""}})
	s, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	msgs, err := collect(s)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	th, err := c.Threads.Get(ctx, msgs[0].ThreadID)
	require.NoError(t, err)
	require.Len(t, th.Messages, 2)
	require.Len(t, th.Messages[1].Content, 1)
	assert.Equal(t, " ", th.Messages[1].Content[0].Text, "kept as one space, as live")
}

// collect reads s to its end and returns its messages.
func collect(s *threads.Stream) ([]threads.Message, error) {
	for _, err := range s.All() {
		if err != nil {
			return s.Messages(), err
		}
	}
	return s.Messages(), nil
}
