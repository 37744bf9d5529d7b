package threads_test

import (
	"context"
	"encoding/json"
	"fmt"
	threads "github.com/threadsapi/threads-go"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListRequestAndDecode(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json; charset=utf-8", fixture(t, "live/list-page.json"))
	c := cannedClient(t, srv)
	page, err := c.Threads.List(context.Background(), &threads.ListParams{Offset: 0, Limit: 2, ContextKey: "user 42&x"})
	require.NoError(t, err)
	r := srv.requests()[0]
	assert.Equal(t, http.MethodGet, r.Method)
	assert.Equal(t, "/threads", r.Path)
	assert.Equal(t, "contextKey=user+42%26x&limit=2", r.RawQuery)
	assert.Empty(t, r.Body)
	assert.Empty(t, r.Header.Get("Content-Type"))

	assert.Equal(t, 3, page.Total)
	assert.Equal(t, 2, page.Count)
	assert.Equal(t, 2, page.Limit)
	require.Len(t, page.Items, 2)
	first := page.Items[0]
	assert.Equal(t, "thr_GmKfisqT.79344b", first.ID)
	assert.Equal(t, "p_DSr8JxVP.57a223", first.ProjectID)
	assert.Equal(t, threads.GenerationStageIdle, first.GenerationStage)
	assert.Equal(t, time.Date(2026, 11, 21, 23, 57, 36, 473e6, time.UTC), first.CreatedAt)
	assert.Equal(t, "second", page.Items[1].Name)
	assert.Equal(t, map[string]any{"k": "v"}, page.Items[1].Metadata)
}

func TestListDecodeVariants(t *testing.T) {
	t.Parallel()
	page, err := threads.DecodeList(fixture(t, "live/list-contextkey.json"), 0, 200)
	require.NoError(t, err)
	assert.Equal(t, "user-42", page.Items[0].ContextKey)

	// limit:null (the live service echoes a non-numeric limit as null).
	page, err = threads.DecodeList(fixture(t, "live/list-limit-null.json"), 0, 200)
	require.NoError(t, err)
	assert.Equal(t, 0, page.Limit)
	assert.Equal(t, 4, page.Total)

	page, err = threads.DecodeList([]byte(` [{"id":"thr_a.1","projectId":"p","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}]`), 5, 200)
	require.NoError(t, err)
	assert.Equal(t, 1, page.Count)
	assert.Equal(t, 0, page.Total, "a bare array says nothing of the total")
	assert.Equal(t, 5, page.Offset)

	page, err = threads.DecodeList([]byte(`{"total":0,"offset":0,"limit":10,"count":0}`), 0, 200)
	require.NoError(t, err)
	assert.NotNil(t, page.Items)

	_, err = threads.DecodeList([]byte(`<html>oops</html>`), 0, 200)
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.ErrorContains(t, err, "<html>oops</html>")
}

func TestListRejectsNegative(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	_, err := c.Threads.List(context.Background(), &threads.ListParams{Limit: -1})
	assert.ErrorContains(t, err, "must not be negative")
	assert.Empty(t, srv.Requests())
}

func TestCreateRequestAndDecode(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 201, "application/json; charset=utf-8", fixture(t, "live/create-name-metadata.json"))
	c := cannedClient(t, srv)
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{
		ProjectID: "p_DSr8JxVP.57a223", Name: "second", Metadata: map[string]any{"k": "v"}})
	require.NoError(t, err)
	r := srv.requests()[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/threads", r.Path)
	assert.JSONEq(t, `{"projectId":"p_DSr8JxVP.57a223","name":"second","metadata":{"k":"v"}}`, string(r.Body))
	assert.Equal(t, "thr_131ejL.936f4e", th.ID)
	assert.Equal(t, "second", th.Name)
	assert.Equal(t, threads.GenerationStageIdle, th.GenerationStage)
	assert.Empty(t, th.ContextKey)
}

func TestGetDecodesMessages(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json; charset=utf-8", fixture(t, "live/get-with-messages.json"))
	c := cannedClient(t, srv)
	th, err := c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	r := srv.requests()[0]
	assert.Equal(t, "GET /threads/thr_iSp004Xf.f4a5d7", r.Method+" "+r.Path)
	assert.Equal(t, threads.GenerationStageComplete, th.GenerationStage)
	require.Len(t, th.Messages, 2)
	user, bot := th.Messages[0], th.Messages[1]
	assert.Equal(t, threads.RoleUser, user.Role)
	assert.Equal(t, "hi", user.Text())
	assert.Equal(t, threads.RoleAssistant, bot.Role)
	assert.Equal(t, "Hello from the fake model.", bot.Text())
	require.NotNil(t, bot.Component)
	assert.Equal(t, "Hello from the fake model.", bot.Component.Message)
	assert.Nil(t, bot.Component.Props) // null in the live service's answer
	assert.Equal(t, []string{}, bot.Reasoning)
	assert.Equal(t, "thr_iSp004Xf.f4a5d7", bot.ThreadID)
}

func TestCancelRequestAndDecode(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 201, "application/json; charset=utf-8", fixture(t, "live/cancel.json"))
	c := cannedClient(t, srv)
	th, err := c.Threads.Cancel(context.Background(), "thr_E7F620bx.c7d854")
	require.NoError(t, err)
	r := srv.requests()[0]
	assert.Equal(t, "POST /threads/thr_E7F620bx.c7d854/cancel", r.Method+" "+r.Path)
	assert.Equal(t, threads.GenerationStageCancelled, th.GenerationStage)
	assert.Equal(t, "user-42", th.ContextKey)
}

func TestUnknownEnumsAndFields(t *testing.T) {
	t.Parallel()
	body := `{"id":"thr_a.1","projectId":"p","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00.123456Z",
		"generationStage":"SOMETHING_NEW","runStatus":null,"messages":[{"id":"m","threadId":"thr_a.1","role":"robot",
		"content":[{"type":"component","component":{}},{"type":"text","text":"a"},{"type":"text","text":"b"}],
		"createdAt":"2026-01-01T00:00:00Z","component":{"componentName":null,"props":null,"componentId":"c1"}}]}`
	srv := serveCanned(t, 200, "application/json", []byte(body))
	c := cannedClient(t, srv)
	th, err := c.Threads.Get(context.Background(), "thr_a.1")
	require.NoError(t, err)
	assert.Equal(t, threads.GenerationStage("SOMETHING_NEW"), th.GenerationStage)
	assert.False(t, th.GenerationStage.Valid())
	assert.Equal(t, threads.Role("robot"), th.Messages[0].Role)
	assert.Equal(t, "ab", th.Messages[0].Text())
}

func TestSuccessWithHTML(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "text/html", []byte("<!doctype html><title>Login</title>"))
	c := cannedClient(t, srv)
	_, err := c.Threads.Get(context.Background(), "thr_a.1")
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.ErrorContains(t, err, "text/html")
}

func TestFakeServerRoundTrip(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	created, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "demo", ContextKey: "user-1"})
	require.NoError(t, err)
	assert.Regexp(t, `^thr_[A-Za-z0-9]{8}\.[0-9a-f]{6}$`, created.ID)

	page, err := c.Threads.List(ctx, &threads.ListParams{ContextKey: "user-1"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, created.ID, page.Items[0].ID)
	assert.Equal(t, "user-1", page.Items[0].ContextKey)

	got, err := c.Threads.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Equal(t, "demo", got.Name)
	assert.Empty(t, got.Messages)

	// As live: an unknown id is 403 from the thread guard; a contextKey
	// that is not the thread's is the 404 problem.
	_, err = c.Threads.Get(ctx, "thr_missing.000000")
	assert.ErrorIs(t, err, threads.ErrForbidden)
	_, err = c.Threads.Get(ctx, created.ID, threads.WithQuery("contextKey", "someone-else"))
	assert.ErrorIs(t, err, threads.ErrNotFound)

	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{})
	assert.ErrorIs(t, err, threads.ErrBadRequest)
	assert.ErrorContains(t, err, "projectId must be a string")

	bad, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("wrong-key-123"))
	require.NoError(t, err)
	_, err = bad.Threads.List(ctx, nil)
	assert.ErrorIs(t, err, threads.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "wrong-key-123")
}

func TestAllPages(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: fmt.Sprint(i)})
		require.NoError(t, err)
		want = append([]string{th.ID}, want...) // newest first
	}
	var got []string
	for th, err := range c.Threads.All(ctx, &threads.ListParams{Limit: 3}) {
		require.NoError(t, err)
		got = append(got, th.ID)
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 3, srv.Count(http.MethodGet, "/threads")) // 3 + 3 + 1, stopping at total

	// Breaking out stops paging.
	before := srv.Count(http.MethodGet, "/threads")
	n := 0
	for _, err := range c.Threads.All(ctx, &threads.ListParams{Limit: 2}) {
		require.NoError(t, err)
		n++
		if n == 3 {
			break
		}
	}
	assert.Equal(t, 2, srv.Count(http.MethodGet, "/threads")-before)
}

func TestAllYieldsErrorOnce(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 403, "application/json", fixture(t, "live/problem-403-forbidden.json"))
	c := cannedClient(t, srv)
	var errs []error
	for _, err := range c.Threads.All(context.Background(), nil) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], threads.ErrForbidden)
}

func TestAdvanceParamsValidation(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	for name, p := range map[string]threads.AdvanceParams{
		"no role":           {},
		"tool without id":   {Message: threads.MessageRequest{Role: threads.RoleTool, Content: []threads.ContentPart{{Type: threads.ContentPartTypeText, Text: "x"}}}},
		"image without url": {Message: threads.MessageRequest{Role: threads.RoleUser, Content: []threads.ContentPart{{Type: threads.ContentPartTypeImageURL}}}},
		"audio without data": {Message: threads.MessageRequest{Role: threads.RoleUser, Content: []threads.ContentPart{{Type: threads.ContentPartTypeInputAudio,
			InputAudio: &threads.InputAudio{Format: "wav"}}}}},
	} {
		_, err := c.Threads.AdvanceStream(ctx, "thr_a.1", p)
		assert.Error(t, err, name)
	}
	_, err := c.Threads.AdvanceStream(ctx, "thr_a.1", threads.AdvanceParams{Message: threads.UserMessage("x"), InitialMessages: []threads.MessageRequest{threads.UserMessage("y")}})
	assert.ErrorContains(t, err, "CreateAndAdvanceStream only")
	assert.Empty(t, srv.Requests())
}

func TestMessageBodies(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(threads.AdvanceParams{Message: threads.ToolResult("call_1", "22C"), ToolCallCounts: map[string]int{"get_weather": 1}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"messageToAppend":{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"22C"}]},"toolCallCounts":{"get_weather":1}}`, string(b))
	b, err = json.Marshal(threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"messageToAppend":{"role":"user","content":[{"type":"text","text":"hi"}]}}`, string(b))
}

func TestReadBodyLimit(t *testing.T) {
	t.Parallel()
	resp := &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(strings.Repeat("x", 101)))}
	_, err := threads.ReadBody(resp, "GET", "/threads", 100)
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.ErrorContains(t, err, "exceeds 100 bytes")
	resp = &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(strings.Repeat("x", 100)))}
	data, err := threads.ReadBody(resp, "GET", "/threads", 100)
	require.NoError(t, err)
	assert.Len(t, data, 100)
}

func TestProjectsCurrent(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json; charset=utf-8", fixture(t, "live/projects.json"))
	c := cannedClient(t, srv)
	p, err := c.Projects.Current(context.Background())
	require.NoError(t, err)
	r := srv.requests()[0]
	assert.Equal(t, "GET /projects", r.Method+" "+r.Path)
	assert.Equal(t, "p_DSr8JxVP.57a223", p.ID)
	assert.Equal(t, "Live Capture Project", p.Name)
	assert.Equal(t, "llm", p.ProviderType)
	assert.False(t, p.IsTokenRequired)

	// Against the fake, the project id is the one Create accepts.
	fc, fake := setup(t)
	p, err = fc.Projects.Current(context.Background())
	require.NoError(t, err)
	_, err = fc.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: p.ID})
	require.NoError(t, err)
	assert.Equal(t, fake.ProjectID, p.ID)
}
