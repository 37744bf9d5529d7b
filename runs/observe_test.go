package runs_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// recorder is a threads.Observer that keeps what each call reported.
type recorder struct {
	mu    sync.Mutex
	calls []*recCall
	// onFirst, when set, runs inside Observe at a call's first event.
	onFirst func()
}

type recCall struct {
	info   threads.CallInfo
	rounds []int
	first  bool
	ends   []threads.CallEnd
	// endText is what End's error said when End was called (an observer
	// such as a span exporter reads it then).
	endText []string
}

func (r *recorder) StartCall(ctx context.Context, ci threads.CallInfo) (context.Context, threads.CallObserver) {
	c := &recCall{info: ci}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return ctx, &recObs{r: r, c: c}
}

type recObs struct {
	r *recorder
	c *recCall
}

func (o *recObs) Observe(ev threads.CallEvent) {
	o.r.mu.Lock()
	switch ev.Kind {
	case threads.EventFirstEvent:
		o.c.first = true
	case threads.EventToolRound:
		o.c.rounds = append(o.c.rounds, ev.Round)
	}
	f := o.r.onFirst
	o.r.mu.Unlock()
	if ev.Kind == threads.EventFirstEvent && f != nil {
		f()
	}
}

func (o *recObs) End(e threads.CallEnd) {
	o.r.mu.Lock()
	o.c.ends = append(o.c.ends, e)
	text := ""
	if e.Err != nil {
		text = e.Err.Error()
		var p *threads.Problem
		if errors.As(e.Err, &p) {
			text += fmt.Sprintf("|%s|%s|%v|%v|%s", p.Detail, p.RequestID, p.Header, p.Extensions, p.Body)
		}
	}
	o.c.endText = append(o.c.endText, text)
	o.r.mu.Unlock()
}

// only returns the one recorded call of route, failing the test otherwise.
func (r *recorder) only(t *testing.T, method, route string) *recCall {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*recCall
	for _, c := range r.calls {
		if c.info.Method == method && c.info.Route == route {
			out = append(out, c)
		}
	}
	require.Len(t, out, 1, "calls of %s %s", method, route)
	require.Len(t, out[0].ends, 1, "%s %s: End exactly once", method, route)
	return out[0]
}

func observed(t *testing.T, obs *recorder, opts ...threadstest.Option) (*runs.Client, *threadstest.Server) {
	t.Helper()
	srv := threadstest.NewServer(t, opts...)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(srv.APIKey), threads.WithObserver(obs))
	require.NoError(t, err)
	return runs.New(c).ForUser("user-1"), srv
}

// A run's stream is observed as the spec's streams are: its events
// counted, the first reported, and the call ended at the run's end.
func TestObserverRunStream(t *testing.T) {
	t.Parallel()
	obs := &recorder{}
	c, srv := observed(t, obs)
	srv.PushRunScript(threadstest.RunScript{Text: "one two three"})
	s, err := c.CreateAndRun(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	n := 0
	for _, err := range s.All() {
		require.NoError(t, err)
		n++
	}
	call := obs.only(t, http.MethodPost, "/v1/threads/runs")
	assert.True(t, call.info.Stream)
	assert.True(t, call.first, "the first event is reported")
	e := call.ends[0]
	assert.NoError(t, e.Err)
	assert.Equal(t, 2, e.Status/100, "the run answer's 2xx status")
	assert.Equal(t, n, e.Events, "every AG-UI event counted")
	assert.Positive(t, e.FirstEvent)
	assert.False(t, e.Left)
}

// A failed run ends its call with the run's error; a JSON call whose
// answer does not decode ends with the decode error.
func TestObserverRunFailureAndDecodeError(t *testing.T) {
	t.Parallel()
	obs := &recorder{}
	c, srv := observed(t, obs)
	srv.PushRunScript(threadstest.RunScript{Error: &threadstest.RunFailure{Code: "LLM_CLIENT_ERROR", Status: 400}, ErrorAfter: 1})
	s, err := c.CreateAndRun(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	_, err = s.Collect()
	var f *runs.RunFailedError
	require.ErrorAs(t, err, &f)
	end := obs.only(t, http.MethodPost, "/v1/threads/runs").ends[0]
	require.ErrorAs(t, end.Err, &f, "End hears the run's failure")
	assert.Equal(t, "LLM_CLIENT_ERROR", f.Code)

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 7`)
	}))
	t.Cleanup(bad.Close)
	obs2 := &recorder{}
	tc, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(bad.URL),
		threads.WithAPIKey("k"), threads.WithObserver(obs2), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = runs.New(tc).ForUser("u").GetThread(t.Context(), "thr_1")
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	end = obs2.only(t, http.MethodGet, "/v1/threads/{threadId}").ends[0]
	assert.ErrorIs(t, end.Err, threads.ErrUnexpectedResponse, "End hears the decode failure")
	assert.Equal(t, http.StatusOK, end.Status)
}

// Closing a run's stream before its end is reported as leaving it, also
// when the observer itself closes the stream from inside Observe.
func TestObserverRunLeft(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	var s *runs.Stream
	var once sync.Once
	obs := &recorder{}
	obs.onFirst = func() { once.Do(func() { s.Close() }) }
	c, srv := observed(t, obs)
	srv.PushRunScript(threadstest.RunScript{Text: "never finished", Hold: hold, HoldAfter: 1})
	var err error
	s, err = c.CreateAndRun(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	for s.Next() {
	}
	require.NoError(t, s.Err())
	assert.Equal(t, runs.OutcomeCancelled, s.Outcome())
	e := obs.only(t, http.MethodPost, "/v1/threads/runs").ends[0]
	assert.True(t, e.Left)
	assert.NoError(t, e.Err)
	assert.Equal(t, 1, e.Events)
}

// A tool stream's runs are calls of their own; the run that carries a
// round's results reports that round.
func TestObserverToolRounds(t *testing.T) {
	t.Parallel()
	obs := &recorder{}
	c, srv := observed(t, obs)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "echo", Arguments: map[string]any{"s": "a"}}}})
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "echo", Arguments: map[string]any{"s": "b"}}}})
	srv.PushRunScript(threadstest.RunScript{Text: "done"})
	echo := threads.NewJSONTool("echo", "Echo s", func(_ context.Context, a struct {
		S string `json:"s"`
	}) (string, error) {
		return a.S, nil
	})
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("go")}}},
		runs.ToolRunner{Tools: []threads.Tool{echo}})
	require.NoError(t, err)
	_, err = ts.Collect()
	require.NoError(t, err)

	obs.mu.Lock()
	defer obs.mu.Unlock()
	var rounds [][]int
	var ends []int
	for _, call := range obs.calls {
		if call.info.Stream {
			rounds = append(rounds, call.rounds)
			require.Len(t, call.ends, 1)
			ends = append(ends, call.ends[0].ToolRounds)
			assert.NoError(t, call.ends[0].Err)
			assert.Positive(t, call.ends[0].Events)
		}
	}
	assert.Equal(t, [][]int{nil, {1}, {2}}, rounds, "the create, then the runs carrying rounds 1 and 2")
	assert.Equal(t, []int{0, 1, 2}, ends)
}

// An idle run stream ends its call with the idle error, reported by the
// stream, not as a success when the idle timer closes the body.
func TestObserverRunIdleEndsWithTheIdleError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		obs := &recorder{}
		c := runs.New(srv.Client(threads.WithObserver(obs), threads.WithStreamIdleTimeout(time.Second))).ForUser("user-1")
		srv.PushRunScript(threadstest.RunScript{Text: "never finished", Hold: hold, HoldAfter: 1})
		s, err := c.CreateAndRun(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)
		for s.Next() {
		}
		require.ErrorIs(t, s.Err(), threads.ErrStreamIdle)
		end := obs.only(t, http.MethodPost, "/v1/threads/runs").ends[0]
		assert.ErrorIs(t, end.Err, threads.ErrStreamIdle)
		assert.Equal(t, 2, end.Events, "RUN_STARTED and the one event before the hold")
		assert.False(t, end.Left, "the idle timeout is not the caller leaving")
	})
}

// A refusal that echoes the end-user token or the subject token reaches
// the observer's End as the caller gets it: without them (End heard the
// Problem before package runs cleaned it, and the cleaning then rewrote
// the Problem the observer may still hold).
func TestObserverEndHasNoEndUserSecret(t *testing.T) {
	t.Parallel()
	const secret = "eyJsecret.end-user.token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req "+secret)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"message":"Invalid token %s","error":"Unauthorized","statusCode":401,"echo":"%s"}`, secret, secret)
	}))
	t.Cleanup(srv.Close)
	obs := &recorder{}
	tc, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey("sk-observer-test-key"), threads.WithObserver(obs), threads.WithMaxRetries(0))
	require.NoError(t, err)
	c := runs.New(tc)
	_, err = c.ForToken(threads.NewToken(secret)).GetThread(t.Context(), "thr_1")
	require.Error(t, err)
	_, err = c.ForToken(threads.NewToken(secret)).CreateAndRun(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.Error(t, err)
	_, err = c.ExchangeToken(t.Context(), secret)
	require.Error(t, err)

	for _, call := range []*recCall{
		obs.only(t, http.MethodGet, "/v1/threads/{threadId}"),
		obs.only(t, http.MethodPost, "/v1/threads/runs"),
		obs.only(t, http.MethodPost, "/oauth/token"),
	} {
		require.ErrorAs(t, call.ends[0].Err, new(*threads.Problem), call.info.Route)
		assert.NotContains(t, call.endText[0], secret, call.info.Route)
	}
}

// A run stream whose context ends is left by the caller: End hears the
// context's error and Left.
func TestObserverRunContextEndIsLeft(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	held := make(chan struct{})
	obs := &recorder{}
	c, srv := observed(t, obs)
	srv.PushRunScript(threadstest.RunScript{Text: "never finished", Hold: hold, HoldAfter: 1, OnHold: func() { close(held) }})
	ctx, cancel := context.WithCancel(t.Context())
	s, err := c.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	<-held
	cancel()
	for s.Next() {
	}
	require.ErrorIs(t, s.Err(), context.Canceled)
	e := obs.only(t, http.MethodPost, "/v1/threads/runs").ends[0]
	assert.True(t, e.Left)
	assert.ErrorIs(t, e.Err, context.Canceled)
}
