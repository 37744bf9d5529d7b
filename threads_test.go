package threads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
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

// perProjectServer lists like the live deployment: GET /threads is 404
// ("Cannot GET /threads"), GET /projects names the key's project, and
// GET /threads/project/{id} pages n threads of that project.
type perProjectServer struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
}

func newPerProjectServer(t *testing.T, n int, envelope bool) *perProjectServer {
	t.Helper()
	s := &perProjectServer{counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.counts[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch r.URL.Path {
		case "/projects":
			_, _ = w.Write([]byte(`{"id":"p_live.1","name":"Live"}`))
		case "/threads/project/p_live.1":
			offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
			if err != nil {
				limit = 10
			}
			items := []map[string]any{}
			for i := offset; i < n && i < offset+limit; i++ {
				items = append(items, map[string]any{"id": fmt.Sprintf("thr_%d.a", i), "projectId": "p_live.1",
					"createdAt": "2026-11-21T23:57:44.826Z", "updatedAt": "2026-11-21T23:57:44.826Z"})
			}
			var body any = items
			if envelope {
				body = map[string]any{"items": items, "total": n, "offset": offset, "limit": limit, "count": len(items)}
			}
			_ = json.NewEncoder(w).Encode(body)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprintf(w, `{"message":"Cannot %s %s","error":"Not Found","statusCode":404}`, r.Method, r.URL.Path)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *perProjectServer) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	s.counts = map[string]int{}
	return c
}

func (s *perProjectServer) client(t *testing.T) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(s.URL),
		threads.WithAPIKey("sk-live-123456"), threads.WithAPIKeyHeader("x-api-key"))
	require.NoError(t, err)
	return c
}

// TestListFallsBackPerProject: against a deployment that lists per project,
// the first List costs one GET /threads, one GET /projects and one page;
// later calls cost one page.
func TestListFallsBackPerProject(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 3, true)
	c := srv.client(t)
	ctx := context.Background()

	page, err := c.Threads.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Items, 3)
	assert.Equal(t, map[string]int{"GET /threads": 1, "GET /projects": 1, "GET /threads/project/p_live.1": 1}, srv.take())

	_, err = c.Threads.List(ctx, &threads.ListParams{Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"GET /threads/project/p_live.1": 1}, srv.take())

	var ids []string
	for th, err := range c.Threads.All(ctx, &threads.ListParams{Limit: 2}) {
		require.NoError(t, err)
		ids = append(ids, th.ID)
	}
	assert.Equal(t, []string{"thr_0.a", "thr_1.a", "thr_2.a"}, ids)
	assert.Equal(t, map[string]int{"GET /threads/project/p_live.1": 2}, srv.take())
}

// TestListWithProjectIDGoesStraightThere: an explicit project never tries
// the spec's route.
func TestListWithProjectIDGoesStraightThere(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 1, true)
	c := srv.client(t)
	page, err := c.Threads.List(context.Background(), &threads.ListParams{ProjectID: "p_live.1"})
	require.NoError(t, err)
	assert.Len(t, page.Items, 1)
	assert.Equal(t, map[string]int{"GET /threads/project/p_live.1": 1}, srv.take())
}

// TestListFallbackConcurrentFirstCalls: 50 first calls at once cost one
// GET /threads and one GET /projects between them.
func TestListFallbackConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 2, true)
	c := srv.client(t)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			page, err := c.Threads.List(context.Background(), nil)
			if err == nil && len(page.Items) != 2 {
				err = fmt.Errorf("got %d threads", len(page.Items))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, map[string]int{"GET /threads": 1, "GET /projects": 1, "GET /threads/project/p_live.1": 50}, srv.take())
}

// TestAllPagesWithoutTotal: a bare array (no total) is paged until an
// empty page, not stopped after the first.
func TestAllPagesWithoutTotal(t *testing.T) {
	t.Parallel()
	srv := newPerProjectServer(t, 5, false)
	c := srv.client(t)
	n := 0
	for _, err := range c.Threads.All(context.Background(), &threads.ListParams{ProjectID: "p_live.1", Limit: 2}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n)
}

// TestListSpecRouteIsKept: a deployment with GET /threads is never asked
// for its project.
func TestListSpecRouteIsKept(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[],"total":0,"offset":0,"limit":10,"count":0}`))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk-live-123456"))
	require.NoError(t, err)
	for range 3 {
		_, err = c.Threads.List(context.Background(), nil)
		require.NoError(t, err)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{"/threads": 3}, paths)
}

// TestListWaitingForRouteHonoursContext: a caller waiting for another caller's
// slow first List leaves when its own context ends.
func TestListWaitingForRouteHonoursContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var arrived atomic.Bool
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads" && arrived.CompareAndSwap(false, true) {
			close(first)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[],"total":0}`)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	done := make(chan error, 1)
	go func() {
		_, err := c.Threads.List(context.Background(), nil) // holds the turn on the server
		done <- err
	}()
	<-first
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Threads.List(ctx, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the second caller leaves with its own deadline")
	close(release)
	require.NoError(t, <-done)
}

// TestProjectIDDotsNeverBecomePathSteps: "." and ".." never become path steps, whether
// the caller or the server names the project.
func TestProjectIDDotsNeverBecomePathSteps(t *testing.T) {
	t.Parallel()
	var paths atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/threads":
			w.WriteHeader(404)
			io.WriteString(w, `{"statusCode":404,"message":"Cannot GET /threads","error":"Not Found"}`)
		case "/projects":
			io.WriteString(w, `{"id":"..","name":"p"}`)
		default:
			paths.Add(1)
			io.WriteString(w, `{"items":[],"total":0}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	_, err := c.Threads.List(context.Background(), &threads.ListParams{ProjectID: "."})
	assert.ErrorContains(t, err, "dot segment")
	_, err = c.Threads.List(context.Background(), nil)
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.Zero(t, paths.Load(), "no per-project request was sent")
}

// endlessPages serves GET /threads as a server that never sends an empty
// page: every offset gets limit fresh threads (padded to pad bytes each),
// as a bare array (no total). With sameEveryTime it ignores the offset and
// repeats the first page.
func endlessPages(t *testing.T, pad int, sameEveryTime bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		if sameEveryTime {
			offset = 0
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteByte('[')
		for i := range 10 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"thr_%d.a","name":%q}`, offset+i, strings.Repeat("n", pad))
		}
		b.WriteByte(']')
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func allOf(t *testing.T, srv *httptest.Server, opts ...threads.RequestOption) (int, error) {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	n := 0
	for _, err := range c.Threads.All(context.Background(), nil, opts...) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// All against a server that never sends an empty page stops at its page
// bound with ErrPagingLimit, after yielding what it read.
func TestAllStopsAtThePageBound(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 0, false)
	n, err := allOf(t, srv, threads.WithPagingLimit(50, 1<<30))
	require.ErrorIs(t, err, threads.ErrPagingLimit)
	assert.Equal(t, int64(50), requests.Load())
	assert.Equal(t, 500, n)
}

// ... and at its byte bound, counted over the bodies it read.
func TestAllStopsAtTheByteBound(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 1000, false) // about 10 KB a page
	n, err := allOf(t, srv, threads.WithPagingLimit(1_000_000, 100<<10))
	require.ErrorIs(t, err, threads.ErrPagingLimit)
	assert.LessOrEqual(t, requests.Load(), int64(11))
	assert.GreaterOrEqual(t, requests.Load(), int64(10))
	assert.Equal(t, 10*int(requests.Load()), n)
}

// A server that ignores the offset repeats its page: no progress, and All
// stops at the second repeat in a row instead of paging forever (one
// repeat can be threads created meanwhile, shifting the offsets).
func TestAllStopsOnARepeatedPage(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 0, true)
	n, err := allOf(t, srv)
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.Contains(t, err.Error(), "same threads")
	assert.Equal(t, int64(3), requests.Load())
	assert.Equal(t, 20, n)
}

// The default bound: a server that never ends stops with ErrPagingLimit
// within DefaultMaxPagingBytes of bodies (here pages of about 1 MB).
func TestAllDefaultBound(t *testing.T) {
	t.Parallel()
	srv, requests := endlessPages(t, 100<<10, false)
	_, err := allOf(t, srv)
	require.ErrorIs(t, err, threads.ErrPagingLimit)
	assert.LessOrEqual(t, requests.Load()*10*(100<<10), int64(threads.DefaultMaxPagingBytes)+(20<<20))
}

// listScript is a server whose answers per route follow a script: the
// handler for a path gets how many times that path was asked before.
type listScript struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
}

func newListScript(t *testing.T, answer func(path string, n int) (int, string)) *listScript {
	t.Helper()
	s := &listScript{counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := s.counts[r.URL.Path]
		s.counts[r.URL.Path]++
		s.mu.Unlock()
		status, body := answer(r.URL.Path, n)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *listScript) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

func (s *listScript) client(t *testing.T) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(s.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	return c
}

const (
	notFound  = `{"message":"Cannot GET","error":"Not Found","statusCode":404}`
	forbidden = `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`
	onePage   = `{"items":[{"id":"thr_1.a"}],"total":1,"offset":0,"limit":10,"count":1}`
)

// One 404 from GET /threads (a deploy in progress, a proxy) must not pin
// per-project listing for the client's life: the switch is remembered only
// once the per-project route answered 2xx. Here it never does, and
// GET /threads recovers: every later List succeeds through it.
func TestListOne404DoesNotPinPerProject(t *testing.T) {
	t.Parallel()
	srv := newListScript(t, func(path string, n int) (int, string) {
		switch path {
		case "/threads":
			if n == 0 {
				return 404, notFound
			}
			return 200, onePage
		case "/projects":
			return 200, `{"id":"p_1.a"}`
		}
		return 404, notFound // no per-project route on this deployment
	})
	c := srv.client(t)
	ctx := context.Background()
	_, err := c.Threads.List(ctx, nil)
	require.Error(t, err)
	failed := 0
	for range 20 {
		if _, err := c.Threads.List(ctx, nil); err != nil {
			failed++
		}
	}
	assert.Equal(t, 0, failed, "later Lists that failed")
	assert.Equal(t, 21, srv.count("/threads"), "GET /threads asked again")
}

// A wrong project id from GET /projects must not pin 403s: the id is
// remembered only once the per-project route answered 2xx with it, and a
// later refusal of the route forgets it (and the route), so the next call
// asks again.
func TestListWrongProjectIsNotRemembered(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	project := "p_wrong.a"
	srv := newListScript(t, func(path string, n int) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		switch path {
		case "/threads":
			return 404, notFound
		case "/projects":
			if n == 0 {
				return 200, `{"id":"p_wrong.a"}`
			}
			return 200, `{"id":"` + project + `"}`
		case "/threads/project/p_right.a":
			if project == "p_right.a" {
				return 200, onePage
			}
		}
		return 403, forbidden
	})
	c := srv.client(t)
	ctx := context.Background()
	_, err := c.Threads.List(ctx, nil)
	require.ErrorIs(t, err, threads.ErrForbidden)

	mu.Lock()
	project = "p_right.a"
	mu.Unlock()
	failed := 0
	for range 10 {
		if _, err := c.Threads.List(ctx, nil); err != nil {
			failed++
		}
	}
	assert.Equal(t, 0, failed, "later Lists that failed")
	assert.Equal(t, 2, srv.count("/projects"), "asked again after the 403, then remembered after the 2xx")

	// The project moves: one refusal forgets it, the next List asks again.
	mu.Lock()
	project = "p_moved.a"
	mu.Unlock()
	_, err = c.Threads.List(ctx, nil)
	require.ErrorIs(t, err, threads.ErrForbidden)
	mu.Lock()
	project = "p_right.a"
	mu.Unlock()
	_, err = c.Threads.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, srv.count("/projects"), "asked again after the later refusal")
}

// A project id from GET /projects is server text and goes into the
// per-project route's path: a server whose project id spells the key must
// not get the key into an error about that route's answer, whatever is
// wrong with it.
func TestProjectIDSpellingKeyIsRedactedInListErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body string
		opts []threads.ClientOption
	}{
		"not JSON":  {body: "<html>portal</html>"},
		"too large": {body: `[` + strings.Repeat(`{"id":"thr_1.a"},`, 100) + `{}]`, opts: []threads.ClientOption{threads.WithMaxResponseSize(256)}},
		"too dense": {body: `[` + strings.Repeat(`{},`, 2000) + `{}]`, opts: []threads.ClientOption{threads.WithMaxResponseSize(8 << 10)}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.URL.Path == "/projects":
				_, _ = w.Write([]byte(`{"id":"` + testKey + `","name":"p"}`))
			case strings.HasPrefix(r.URL.Path, "/threads/project/"):
				_, _ = w.Write([]byte(tc.body))
			default:
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"message":"Cannot GET /threads","error":"Not Found","statusCode":404}`))
			}
		}))
		t.Cleanup(srv.Close)
		opts := append([]threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
			threads.WithAPIKey(testKey), threads.WithMaxRetries(0)}, tc.opts...)
		c, err := threads.NewClient(opts...)
		require.NoError(t, err)
		_, err = c.Threads.List(context.Background(), nil)
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, name)
		assert.NotContains(t, err.Error(), testKey, name)
		assert.Contains(t, err.Error(), "/threads/project/", name)
	}
}
