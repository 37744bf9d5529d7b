package threads_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// mwRecorder is a middleware that notes each attempt it sees.
type mwRecorder struct {
	mu    sync.Mutex
	name  string
	order *[]string
	seen  []string // "METHOD path retry"
}

func (r *mwRecorder) mw(req *http.Request, next threads.MiddlewareNext) (*http.Response, error) {
	r.mu.Lock()
	*r.order = append(*r.order, r.name)
	r.seen = append(r.seen, req.Method+" "+req.URL.Path+" "+req.Header.Get("X-Retry-Count"))
	r.mu.Unlock()
	return next(req)
}

func TestMiddlewareSeesEveryAttemptInOrder(t *testing.T) {
	t.Parallel()
	var order []string
	outer := &mwRecorder{name: "client", order: &order}
	inner := &mwRecorder{name: "call", order: &order}
	c, srv := setup(t, threads.WithMiddleware(outer.mw))
	srv.Inject(threadstest.Fault{Method: http.MethodGet, Path: "/projects", Status: http.StatusServiceUnavailable})
	_, err := c.Projects.Current(context.Background(), threads.WithMiddleware(inner.mw))
	require.NoError(t, err)
	// Two attempts (a 503, then the retry), each through both middlewares,
	// the client's first.
	assert.Equal(t, []string{"client", "call", "client", "call"}, order)
	assert.Equal(t, []string{"GET /projects ", "GET /projects 1"}, inner.seen)
}

func TestMiddlewareSeesMigrationAndStreams(t *testing.T) {
	t.Parallel()
	var order []string
	rec := &mwRecorder{name: "m", order: &order}
	c, srv := setup(t, threads.WithMiddleware(rec.mw))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Threads.Advance(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"POST /threads ",
		"POST /threads/" + th.ID + "/advance ",
		"POST /threads/" + th.ID + "/advancestream ", // the 410's re-send, a stream
	}, rec.seen)
}

func TestMiddlewareCanAnswerAndSeesTheKey(t *testing.T) {
	t.Parallel()
	var sawKey bool
	c, srv := setup(t, threads.WithMiddleware(func(req *http.Request, next threads.MiddlewareNext) (*http.Response, error) {
		sawKey = strings.Contains(req.Header.Get("Authorization"), testKey)
		return next(req)
	}))
	_, err := c.Projects.Current(context.Background())
	require.NoError(t, err)
	assert.True(t, sawKey, "the doc says a middleware sees the key header")
	assert.Equal(t, 1, srv.Count(http.MethodGet, "/projects"))

	_, err = c.Projects.Current(context.Background(), threads.WithMiddleware(func(*http.Request, threads.MiddlewareNext) (*http.Response, error) {
		return nil, nil
	}))
	require.ErrorContains(t, err, "neither a response nor an error")
	assert.Equal(t, 1, srv.Count(http.MethodGet, "/projects"), "the middleware answered: nothing sent")

	_, err = threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey("k"), threads.WithMiddleware(nil))
	require.ErrorContains(t, err, "nil middleware")
}

func TestWithResponseInto(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	var resp *http.Response
	p, err := c.Projects.Current(context.Background(), threads.WithResponseInto(&resp))
	require.NoError(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, srv.ProjectID, p.ID)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, http.NoBody, resp.Body)
	assert.Contains(t, resp.Header.Get("Content-Type"), "application/json")
	require.NotNil(t, resp.Request)
	assert.Equal(t, "/projects", resp.Request.URL.Path)
	assert.Equal(t, "[REDACTED]", resp.Request.Header.Get("Authorization"), "the key is not handed out")

	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	var sresp *http.Response
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithResponseInto(&sresp))
	require.NoError(t, err)
	require.NotNil(t, sresp)
	assert.Equal(t, http.NoBody, sresp.Body, "the stream owns the body")
	assert.Contains(t, sresp.Header.Get("Content-Type"), "text/event-stream")
	_, err = s.Collect()
	require.NoError(t, err)

	// A failure leaves *dst alone.
	var failed *http.Response
	_, err = c.Threads.Get(context.Background(), "thr_missing", threads.WithResponseInto(&failed))
	require.Error(t, err)
	assert.Nil(t, failed)

	_, err = threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey("k"), threads.WithResponseInto(&resp))
	require.ErrorContains(t, err, "WithResponseInto is for a single call")
}

// The request in WithResponseInto's answer holds no secret, whichever
// header carries the key, and no body.
func TestWithResponseIntoHidesTheKey(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithLiveHabits(), threadstest.WithThrottle(0))
	c := srv.Client()
	var resp *http.Response
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID},
		threads.WithResponseInto(&resp), threads.WithHeader("X-Echo", "k="+srv.APIKey))
	require.NoError(t, err)
	require.NotNil(t, resp.Request)
	for name, vs := range resp.Request.Header {
		for _, v := range vs {
			assert.NotContains(t, v, srv.APIKey, "header %s", name)
		}
	}
	assert.Equal(t, "[REDACTED]", resp.Request.Header.Get("X-Api-Key"))
	assert.Equal(t, http.NoBody, resp.Request.Body)
	assert.Nil(t, resp.Request.GetBody)
}

// A middleware that answers itself may leave Body nil (as http.Response
// literals do): the client reads it as empty, as net/http does, instead
// of panicking.
func TestMiddlewareAnswerWithoutBody(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	for _, status := range []int{http.StatusOK, http.StatusNoContent, http.StatusBadRequest} {
		err := c.Threads.Delete(context.Background(), "thr_x", threads.WithMaxRetries(0), threads.WithMiddleware(func(req *http.Request, _ threads.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{}, Request: req}, nil
		}))
		if status >= 300 {
			require.Error(t, err, "status %d", status)
		} else {
			require.NoError(t, err, "status %d", status)
		}
		_, err = c.Projects.Current(context.Background(), threads.WithMaxRetries(0), threads.WithMiddleware(func(req *http.Request, _ threads.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}, Request: req}, nil
		}))
		require.Error(t, err, "status %d", status)
	}
	// Both an answer and an error, the answer without a body: the error.
	_, err := c.Projects.Current(context.Background(), threads.WithMaxRetries(0), threads.WithMiddleware(func(req *http.Request, _ threads.MiddlewareNext) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK}, errors.New("refused by policy")
	}))
	require.ErrorContains(t, err, "refused by policy")
	assert.Empty(t, srv.Requests(), "the middleware answered: nothing sent")
}

// WithResponseInto hands out the answer's request for its method and URL;
// its headers carry the key in whatever header the call sent it, which a
// caller that logs the request's headers would print: the copy holds the
// key redacted, in any header.
func TestWithResponseIntoRequestHasNoKey(t *testing.T) {
	t.Parallel()
	fake, _ := setup(t) // the key in x-api-key
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"p_1","name":"p"}`))
	}))
	t.Cleanup(srv.Close)
	bearer := atkClient(t, srv.URL) // the key as Authorization: Bearer
	for _, tc := range []struct {
		c   *threads.Client
		key string
	}{{fake, testKey}, {bearer, atkKey}} {
		var resp *http.Response
		_, err := tc.c.Projects.Current(context.Background(), threads.WithResponseInto(&resp))
		require.NoError(t, err)
		require.NotNil(t, resp.Request)
		assert.Equal(t, "/projects", resp.Request.URL.Path)
		for k, vs := range resp.Request.Header {
			assert.NotContains(t, strings.Join(vs, " "), tc.key, k)
		}
	}
}

// A stream's answer gets its trailers when its body ends, written by the
// transport on the goroutine that reads the stream: the copy that
// WithResponseInto hands out must not share that map, or a caller that
// looks at it while another goroutine reads the stream races (-race).
func TestWithResponseIntoStreamTrailerIsNotLive(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Trailer", "X-Run-Cost")
		_, _ = w.Write([]byte(`data: {"responseMessageDto":{"id":"m","threadId":"t","role":"assistant","content":[]},"generationStage":"COMPLETE"}` + "\n\ndata: DONE\n\n"))
		w.Header().Set("X-Run-Cost", "12")
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	var resp *http.Response
	s, err := c.Threads.AdvanceStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithResponseInto(&resp))
	require.NoError(t, err)
	read := make(chan struct{})
	go func() {
		defer close(read)
		for range 100 {
			_ = resp.Trailer.Get("X-Run-Cost")
		}
	}()
	_, err = s.Collect()
	require.NoError(t, err)
	<-read
}

// A middleware that panics after next answered (its bug) does not leak
// that answer's connection: the body is closed before the panic goes on.
func TestMiddlewarePanicClosesTheAnswer(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(testKey))
	tr := &closeTracker{next: srv.Transport()}
	c := srv.Client(threads.WithHTTPClient(&http.Client{Transport: tr}),
		threads.WithMiddleware(func(req *http.Request, next threads.MiddlewareNext) (*http.Response, error) {
			if _, err := next(req); err != nil {
				return nil, err
			}
			panic("middleware bug")
		}))
	func() {
		defer func() {
			assert.Equal(t, "middleware bug", recover())
		}()
		_, _ = c.Projects.Current(context.Background())
		t.Fatal("no panic")
	}()
	assert.True(t, tr.closed.Load(), "the answer's body was left open")
}

// The request in WithResponseInto's answer has the key redacted from its
// URL too, when an id in the path spells it.
func TestWithResponseIntoRedactsTheURL(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, http.StatusOK, "application/json", []byte(`{"id":"p_1","name":"p"}`))
	c := cannedClient(t, srv)
	var resp *http.Response
	_, err := c.Projects.Get(context.Background(), "p_"+testKey, threads.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.NotContains(t, resp.Request.URL.String(), testKey)
	assert.Contains(t, srv.requests()[0].Path, testKey, "the request itself went as asked")
}
