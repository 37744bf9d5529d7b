package threadsotel_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	threads "github.com/threadsapi/threads-go"
	threadsotel "github.com/threadsapi/threads-go/otel"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

const key = "sk_test_otel_secret_42"

func setup(t *testing.T) (*threads.Client, *threadstest.Server, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(key))
	c := srv.Client(threads.WithObserver(threadsotel.NewObserver(threadsotel.WithTracerProvider(tp))),
		threads.WithRetryWait(time.Millisecond, 2*time.Millisecond))
	return c, srv, exp
}

func attrs(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

func TestSpanPerCallWithAttempts(t *testing.T) {
	c, srv, exp := setup(t)
	srv.Inject(threadstest.Fault{Method: http.MethodGet, Path: "/projects", Status: http.StatusServiceUnavailable})
	_, err := c.Projects.Current(context.Background())
	require.NoError(t, err)

	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	s := spans[0]
	assert.Equal(t, "GET /projects", s.Name)
	assert.Equal(t, trace.SpanKindClient, s.SpanKind)
	a := attrs(s.Attributes)
	assert.Equal(t, "GET", a["http.request.method"])
	assert.Equal(t, "/projects", a["http.route"])
	assert.Equal(t, "127.0.0.1", a["server.address"])
	assert.EqualValues(t, 200, a["http.response.status_code"])
	require.Len(t, s.Events, 2)
	assert.EqualValues(t, 503, attrs(s.Events[0].Attributes)["http.response.status_code"])
	assert.EqualValues(t, 0, attrs(s.Events[0].Attributes)["http.request.resend_count"])
	assert.EqualValues(t, 1, attrs(s.Events[1].Attributes)["http.request.resend_count"])
	assert.Equal(t, "/projects", attrs(s.Events[1].Attributes)["url.path"])
}

func TestStreamSpanFigures(t *testing.T) {
	c, srv, exp := setup(t)
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("the secret text")})
	require.NoError(t, err)
	n := 0
	for s.Next() {
		n++
	}
	require.NoError(t, s.Err())

	spans := exp.GetSpans()
	require.Len(t, spans, 2)
	st := spans[1]
	assert.Equal(t, "POST /threads/{id}/advancestream", st.Name)
	a := attrs(st.Attributes)
	assert.EqualValues(t, n, a["threads.stream.events"])
	assert.Equal(t, "ok", a["threads.stream.outcome"])
	assert.EqualValues(t, 0, a["threads.stream.tool_rounds"])
	assert.Contains(t, a, "threads.stream.time_to_first_event_ms")
	assert.Equal(t, codes.Unset, st.Status.Code)
}

func TestErrorSpanHoldsNoSecrets(t *testing.T) {
	c, srv, exp := setup(t)
	srv.Inject(threadstest.Fault{Path: "/projects", Status: http.StatusBadRequest,
		Body: `{"message":"bad key ` + key + ` in message text","error":"Bad Request","statusCode":400}`})
	_, err := c.Projects.Current(context.Background())
	require.Error(t, err)
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	assert.Equal(t, codes.Error, spans[0].Status.Code)
	assert.Equal(t, "400", attrs(spans[0].Attributes)["error.type"])
	dump := fmt.Sprintf("%+v", spans)
	assert.NotContains(t, dump, key)
	assert.NotContains(t, dump, "message text")
	assert.False(t, strings.Contains(dump, "Bearer"))
}

func TestStreamLeftEarlyOutcome(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(key), threadstest.WithThrottle(time.Hour))
	c := srv.Client(threads.WithObserver(threadsotel.NewObserver(threadsotel.WithTracerProvider(tp))))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	s, err := c.Threads.AdvanceStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")}, threads.WithCancelOnClose())
	require.NoError(t, err)
	require.True(t, s.Next())
	s.Close()
	var stream sdktrace.ReadOnlySpan
	for _, sp := range exp.GetSpans().Snapshots() {
		if sp.Name() == "POST /threads/{id}/advancestream" {
			stream = sp
		}
	}
	require.NotNil(t, stream)
	assert.Equal(t, "left", attrs(stream.Attributes())["threads.stream.outcome"])
	assert.EqualValues(t, 1, attrs(stream.Attributes())["threads.stream.events"])
}

// A /v1 run's span carries the run stream's figures, and a failed run's
// span its error type, never the error's text.
func TestRunSpanFigures(t *testing.T) {
	c, srv, exp := setup(t)
	srv.PushRunScript(threadstest.RunScript{Text: "one two"})
	srv.PushRunScript(threadstest.RunScript{Error: &threadstest.RunFailure{Code: "LLM_CLIENT_ERROR", Message: "the secret text", Status: 400}})
	u := runs.New(c).ForUser("user-1")
	ctx := context.Background()
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("the secret text")}}})
	require.NoError(t, err)
	res, err := s.Collect()
	require.NoError(t, err)
	s, err = u.Run(ctx, res.ThreadID, runs.RunParams{Content: []runs.Content{runs.Text("again")}, PreviousRunID: res.RunID})
	require.NoError(t, err)
	_, err = s.Collect()
	require.ErrorIs(t, err, runs.ErrRunFailed)

	spans := exp.GetSpans()
	require.Len(t, spans, 2)
	ok, failed := attrs(spans[0].Attributes), attrs(spans[1].Attributes)
	assert.Equal(t, "POST /v1/threads/runs", spans[0].Name)
	assert.Equal(t, true, ok["threads.stream"])
	assert.EqualValues(t, 6, ok["threads.stream.events"], "RUN_STARTED, TEXT_MESSAGE_START, 2 CONTENT, END, RUN_FINISHED")
	assert.Equal(t, "ok", ok["threads.stream.outcome"])
	assert.Contains(t, ok, "threads.stream.time_to_first_event_ms")
	assert.Equal(t, "POST /v1/threads/{threadId}/runs", spans[1].Name)
	assert.Equal(t, "error", failed["threads.stream.outcome"])
	assert.Equal(t, codes.Error, spans[1].Status.Code)
	// The run's own code, not only "the stream failed".
	assert.Equal(t, "LLM_CLIENT_ERROR", failed["error.type"])
	assert.Equal(t, "LLM_CLIENT_ERROR", spans[1].Status.Description)
	assert.Equal(t, "LLM_CLIENT_ERROR", failed["threads.run.error.code"])
	assert.Equal(t, "client_error", failed["threads.run.error.category"])
	assert.NotContains(t, ok, "error.type")
	assert.NotContains(t, ok, "threads.run.error.code")
	for _, sp := range spans {
		assert.NotContains(t, fmt.Sprint(sp.Attributes, sp.Events, sp.Status), "secret")
		assert.NotContains(t, fmt.Sprint(sp.Attributes, sp.Events, sp.Status), key)
	}
}

// The problem's code is the server's text: a span names it only when it
// looks like a code (short, letters, digits and _ . -), so a server that
// puts the message's text, control characters or a megabyte there does
// not put them in the trace.
func TestErrorTypeKeepsOnlyCodeLikeCodes(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"THREAD_NOT_FOUND", "404 THREAD_NOT_FOUND"},
		{"the secret text of the user's message", "404"},
		{"A\x1b[31mB", "404"},
		{strings.Repeat("A", 1<<20), "404"},
	} {
		c, srv, exp := setup(t)
		srv.Inject(threadstest.Fault{Path: "/projects", Status: http.StatusNotFound,
			Body: fmt.Sprintf(`{"message":"no","code":%q,"statusCode":404}`, tc.code)})
		_, err := c.Projects.Current(context.Background(), threads.WithMaxResponseSize(4<<20))
		require.Error(t, err)
		spans := exp.GetSpans()
		require.Len(t, spans, 1)
		assert.Equal(t, tc.want, attrs(spans[0].Attributes)["error.type"])
		assert.Equal(t, tc.want, spans[0].Status.Description)
	}
}

// A zero Observer (or a nil *Observer) given to WithObserver traces with
// the global provider instead of panicking on every call.
func TestZeroObserverDoesNotPanic(t *testing.T) {
	srv := threadstest.NewServer(t, threadstest.WithAPIKey(key))
	for _, o := range []*threadsotel.Observer{{}, nil} {
		c := srv.Client(threads.WithObserver(o))
		_, err := c.Projects.Current(context.Background())
		require.NoError(t, err)
	}
}

// Spans carry the thread and the run they were about: the route's ids, or
// a /v1 run stream's X-Thread-Id and X-Run-Id; never the end user's key.
func TestSpansCarryThreadAndRunIDs(t *testing.T) {
	c, srv, exp := setup(t)
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)

	const userKey = "user-key-never-traced-77"
	u := runs.New(c).ForUser(userKey)
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	res, err := s.Collect()
	require.NoError(t, err)
	s, err = u.Run(ctx, res.ThreadID, runs.RunParams{Content: []runs.Content{runs.Text("again")}, PreviousRunID: res.RunID})
	require.NoError(t, err)
	res2, err := s.Collect()
	require.NoError(t, err)
	_, err = u.GetThread(ctx, res.ThreadID)
	require.NoError(t, err)
	err = u.Cancel(ctx, res.ThreadID, res2.RunID) // ended already: 404, still about that run
	require.ErrorIs(t, err, threads.ErrNotFound)

	type ids struct{ thread, run any }
	got := map[string]ids{}
	for _, sp := range exp.GetSpans() {
		a := attrs(sp.Attributes)
		got[sp.Name] = ids{a["threads.thread.id"], a["threads.run.id"]}
		assert.NotContains(t, fmt.Sprint(sp.Attributes, sp.Events), userKey)
	}
	assert.Equal(t, map[string]ids{
		"POST /threads":                              {nil, nil}, // the new thread's id is in the body only
		"GET /threads/{id}":                          {th.ID, nil},
		"POST /v1/threads/runs":                      {res.ThreadID, res.RunID},
		"POST /v1/threads/{threadId}/runs":           {res.ThreadID, res2.RunID},
		"GET /v1/threads/{threadId}":                 {res.ThreadID, nil},
		"DELETE /v1/threads/{threadId}/runs/{runId}": {res.ThreadID, res2.RunID},
	}, got)
}

// Each approval decision of a tool run is an event of the stream's span:
// the tool, the decision, and whether the approver ran out of time.
func TestToolApprovalEvents(t *testing.T) {
	got := approvalEvents(t, "refund", []string{"A1", "B2"}, func(_ context.Context, req threads.ApprovalRequest) (threads.Approval, error) {
		return threads.Approval{Approved: req.Call.Arguments["order"] == "A1", Reason: "not this one"}, nil
	})
	require.Len(t, got, 2)
	assert.Equal(t, map[string]any{"threads.tool.name": "refund", "threads.tool.approved": true, "threads.tool.approval_timed_out": false}, got[0])
	assert.Equal(t, false, got[1]["threads.tool.approved"])
}

// A tool's name is the caller's text (or an MCP server's, prefixed): the
// approval event carries it only when it looks like a name, as the package
// doc promises of every text on a span.
func TestToolApprovalEventLeavesOffANameThatIsNotNameLike(t *testing.T) {
	name := "refund the order of " + key // a sentence, holding a secret
	got := approvalEvents(t, name, []string{"A1"}, func(context.Context, threads.ApprovalRequest) (threads.Approval, error) {
		return threads.Approval{Approved: true}, nil
	})
	require.Len(t, got, 1)
	assert.Equal(t, map[string]any{"threads.tool.approved": true, "threads.tool.approval_timed_out": false}, got[0])
}

// approvalEvents runs a RunStream in which the model asks a refund tool
// named name, which always needs approval, to refund each order in turn,
// approver deciding; it returns the attributes of the
// threads.tool_approval events on the spans, in order.
func approvalEvents(t *testing.T, name string, orders []string, approver threads.Approver) []map[string]any {
	t.Helper()
	c, srv, exp := setup(t)
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	var calls []threadstest.ScriptedToolCall
	for _, o := range orders {
		calls = append(calls, threadstest.ScriptedToolCall{Name: name, Arguments: map[string]any{"order": o}})
	}
	srv.PushScript(threadstest.Script{ToolCalls: calls})
	refund := threads.NewTool(name, "Refund an order", func(_ context.Context, a struct {
		Order string `json:"order"`
	}) (string, error) {
		return "refunded " + a.Order, nil
	})
	refund.NeedsApproval = threads.Always
	s, err := c.Threads.RunStream(context.Background(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("refund them")},
		[]threads.Tool{refund}, threads.WithToolGuards(threads.ToolGuards{Approver: approver}))
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	var got []map[string]any
	for _, sp := range exp.GetSpans() {
		for _, ev := range sp.Events {
			if ev.Name == "threads.tool_approval" {
				got = append(got, attrs(ev.Attributes))
			}
		}
	}
	return got
}

// A run's reported usage (AG-UI 1.0's, on RUN_FINISHED) is on its span,
// summed over its models; a model name that does not look like one is
// not.
func TestRunSpanUsage(t *testing.T) {
	c, srv, exp := setup(t)
	srv.PushRunScript(threadstest.RunScript{Text: "hi", Usage: []threadstest.TokenUsage{
		{Provider: "openai", Model: "gpt-5", InputTokens: 10, OutputTokens: 4, TotalTokens: 14, CachedInputTokens: 3},
		{Provider: "anthropic", Model: "the secret text", InputTokens: 5, ReasoningTokens: 7},
	}})
	s, err := runs.New(c).ForUser("user-1").CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	a := attrs(spans[0].Attributes)
	assert.EqualValues(t, 15, a["gen_ai.usage.input_tokens"])
	assert.EqualValues(t, 4, a["gen_ai.usage.output_tokens"])
	assert.EqualValues(t, 14, a["threads.run.usage.total_tokens"])
	assert.EqualValues(t, 7, a["threads.run.usage.reasoning_tokens"])
	assert.EqualValues(t, 3, a["threads.run.usage.cached_input_tokens"])
	assert.Equal(t, []string{"openai/gpt-5", "anthropic/?"}, a["threads.run.usage.models"])
	assert.NotContains(t, fmt.Sprint(spans[0].Attributes), "secret")
}
