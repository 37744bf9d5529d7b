package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// slowRun serves a run that sends RUN_STARTED and one text delta, then
// waits for release (a test's cancel) before its ending. gone is closed
// when the client's connection closes before the end. DELETE answers 200
// and releases the run with the given ending.
type slowRun struct {
	ending  string // the events sent once released
	release chan struct{}
	gone    chan struct{}
	deletes chan string
	srv     *httptest.Server
	once    sync.Once
}

func newSlowRun(t *testing.T, ending string) *slowRun {
	r := &slowRun{ending: ending, release: make(chan struct{}), gone: make(chan struct{}), deletes: make(chan string, 4)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodDelete {
			r.deletes <- req.URL.Path + "?" + req.URL.RawQuery
			r.once.Do(func() { close(r.release) })
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"runId":"run_slow.000001","status":"cancelled"}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Thread-Id", "thr_slow.000001")
		w.Header().Set("X-Run-Id", "run_slow.000001")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `data: {"type":"RUN_STARTED","threadId":"thr_slow.000001","runId":"run_slow.000001","timestamp":1795498111663}`+"\n\n")
		io.WriteString(w, `data: {"type":"TEXT_MESSAGE_START","messageId":"msg_slow.000001","role":"assistant","timestamp":1795498111664}`+"\n\n")
		io.WriteString(w, `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_slow.000001","delta":"word0 ","timestamp":1795498111665}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.release:
			io.WriteString(w, r.ending)
		case <-req.Context().Done():
			close(r.gone) // the service cancels the run when this happens
		}
	}))
	t.Cleanup(func() {
		r.once.Do(func() { close(r.release) })
		r.srv.Close()
	})
	return r
}

const finished = `data: {"type":"RUN_FINISHED","threadId":"thr_slow.000001","runId":"run_slow.000001","timestamp":1795498111700}` + "\n\n"
const cancelled = `data: {"type":"RUN_ERROR","message":"Run cancelled","code":"CANCELLED","timestamp":1795498111700}` + "\n\n"

func firstDelta(t *testing.T, s *runs.Stream) {
	t.Helper()
	for s.Next() {
		if _, ok := s.Current().(runs.TextMessageContent); ok {
			return
		}
	}
	t.Fatalf("no delta: %v", s.Err())
}

// Closing the stream before the run's end closes the connection (which
// makes the service cancel the run): the run is reported cancelled.
func TestRunCloseCancels(t *testing.T) {
	t.Parallel()
	r := newSlowRun(t, finished)
	s, err := client(t, r.srv.URL).CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: textParams("hi")})
	if err != nil {
		t.Fatal(err)
	}
	firstDelta(t, s)
	s.Close()
	<-r.gone
	if s.Next() || s.Err() != nil || s.Outcome() != runs.OutcomeCancelled {
		t.Fatalf("after Close: err %v outcome %v", s.Err(), s.Outcome())
	}
	res, err := s.Collect()
	if err != nil || res.Outcome != runs.OutcomeCancelled || res.Messages[0].Text() != "word0 " || res.ThreadID != "thr_slow.000001" {
		t.Fatalf("%+v %v", res, err)
	}
}

// Ending the context does the same; Err is the context's error.
func TestRunContextCancels(t *testing.T) {
	t.Parallel()
	r := newSlowRun(t, finished)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := client(t, r.srv.URL).CreateAndRun(ctx, runs.CreateRunParams{RunParams: textParams("hi")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	firstDelta(t, s)
	cancel()
	if s.Next() {
		t.Fatal("an event after the context ended")
	}
	<-r.gone
	if !errors.Is(s.Err(), context.Canceled) || s.Outcome() != runs.OutcomeCancelled {
		t.Fatalf("err %v outcome %v", s.Err(), s.Outcome())
	}
}

// Breaking out of All closes the stream, which cancels the run.
func TestRunAllBreakCancels(t *testing.T) {
	t.Parallel()
	r := newSlowRun(t, finished)
	s, err := client(t, r.srv.URL).CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: textParams("hi")})
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(runs.TextMessageContent); ok {
			break
		}
	}
	<-r.gone
	if s.Outcome() != runs.OutcomeCancelled {
		t.Fatal(s.Outcome())
	}
}

// Stream.Cancel sends the DELETE and reads on to the end; the run is
// cancelled whichever event ends it (the service may send RUN_FINISHED).
func TestStreamCancel(t *testing.T) {
	for name, ending := range map[string]string{"finished": finished, "cancelled": cancelled} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newSlowRun(t, ending)
			s, err := client(t, r.srv.URL).CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: textParams("hi")})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			firstDelta(t, s)
			if err := s.Cancel(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := <-r.deletes; got != "/v1/threads/thr_slow.000001/runs/run_slow.000001?userKey=user-1" {
				t.Fatalf("DELETE %s", got)
			}
			res, err := s.Collect()
			if err != nil || res.Outcome != runs.OutcomeCancelled || res.Failure != nil {
				t.Fatalf("%+v %v", res, err)
			}
			// A second Cancel, after the end, sends nothing.
			if err := s.Cancel(context.Background()); err != nil || len(r.deletes) != 0 {
				t.Fatalf("%v, %d deletes", err, len(r.deletes))
			}
		})
	}
}

// The idle timeout ends a silent stream (closing it, so the run is
// cancelled) with ErrStreamIdle.
func TestRunIdleTimeout(t *testing.T) {
	t.Parallel()
	r := newSlowRun(t, finished)
	s, err := client(t, r.srv.URL, threads.WithStreamIdleTimeout(50*time.Millisecond)).
		CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: textParams("hi")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	events(s)
	<-r.gone
	if !errors.Is(s.Err(), threads.ErrStreamIdle) || s.Outcome() != runs.OutcomeCancelled {
		t.Fatalf("err %v outcome %v", s.Err(), s.Outcome())
	}
}

// A RUN_ERROR's message is made safe: the API key redacted, one line.
func TestRunErrorRedacted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "data: {\"type\":\"RUN_ERROR\",\"message\":\"bad key %s\\n\\u001b[31mred\",\"code\":\"LLM_CLIENT_ERROR\",\"category\":\"client_error\",\"status\":429}\n\n", testKey)
	}))
	defer srv.Close()
	s, err := client(t, srv.URL).Run(context.Background(), "thr_x", textParams("hi"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Collect()
	if err == nil || strings.Contains(err.Error(), testKey) || strings.ContainsAny(err.Error(), "\n\x1b") || !errors.Is(err, threads.ErrRateLimited) {
		t.Fatalf("%q", err)
	}
}

// An empty message is refused before sending: the service answers it
// with a 500 and, on the create route, an orphan thread.
func TestRunRefusesEmptyContent(t *testing.T) {
	t.Parallel()
	srv := newReplay(t)
	_, err := client(t, srv.URL).CreateAndRun(context.Background(), runs.CreateRunParams{})
	if err == nil || len(srv.Requests()) != 0 {
		t.Fatalf("%v, %d requests", err, len(srv.Requests()))
	}
}

// Stream.Cancel sends its DELETE without the run call's call-only options:
// the caller's WithResponseInto keeps the run's answer, not the cancel's.
func TestStreamCancelKeepsTheCallsResponse(t *testing.T) {
	t.Parallel()
	r := newSlowRun(t, cancelled)
	var resp *http.Response
	s, err := client(t, r.srv.URL).CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: textParams("hi")},
		threads.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	firstDelta(t, s)
	if err := s.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-r.deletes
	if resp == nil || resp.Request.Method != http.MethodPost || resp.StatusCode != http.StatusCreated {
		t.Fatalf("WithResponseInto holds %v, want the run's POST 201", resp)
	}
	if resp.Header.Get("X-Run-Id") == "" {
		t.Fatalf("WithResponseInto holds the headers %v, want the run's", resp.Header)
	}
}

// AfterLastRun lets a backend that keeps no run ids send the next message
// on a thread, also after a run it left (cancelled): the SDK reads the
// thread's last completed run first.
func TestRunAfterLastRun(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	c := runs.New(srv.Client()).ForUser("user-1")
	ctx := context.Background()
	s, err := c.CreateAndRun(ctx, runs.CreateRunParams{RunParams: textParams("one")})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Collect()
	if err != nil {
		t.Fatal(err)
	}

	// Without a previous run the service refuses the message.
	if _, err := c.Run(ctx, first.ThreadID, textParams("two")); !errors.Is(err, runs.ErrInvalidPreviousRun) {
		t.Fatalf("without previousRunId: %v", err)
	}

	// A run cancelled before its end (the browser went away)...
	hold := make(chan struct{})
	defer close(hold)
	held := make(chan struct{})
	srv.PushRunScript(threadstest.RunScript{Text: "never finished", Hold: hold, HoldAfter: 1, OnHold: func() { close(held) }})
	p := textParams("two")
	p.AfterLastRun = true
	s, err = c.Run(ctx, first.ThreadID, p)
	if err != nil {
		t.Fatal(err)
	}
	<-held
	if err := s.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// ...and the next message still goes, with the left run as its previous one.
	p = textParams("three")
	p.AfterLastRun = true
	s3, err := c.Run(ctx, first.ThreadID, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s3.Collect()
	if err != nil || res.Outcome != runs.OutcomeFinished {
		t.Fatalf("third run: %+v %v", res, err)
	}
	var body map[string]any
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/runs") {
			body = nil
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if body["previousRunId"] != s.RunID() {
		t.Fatalf("previousRunId %v, want the left run %s", body["previousRunId"], s.RunID())
	}

	p.PreviousRunID = "run_x"
	if _, err := c.Run(ctx, first.ThreadID, p); err == nil || !strings.Contains(err.Error(), "both PreviousRunID and AfterLastRun") {
		t.Fatalf("both: %v", err)
	}
	if _, err := c.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: p.Content, AfterLastRun: true}}); err == nil {
		t.Fatal("CreateAndRun took AfterLastRun")
	}
}

// sentContext returns the message.additionalContext of the last run the
// server got.
func sentContext(t *testing.T, srv *threadstest.Server) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == "POST" && strings.HasSuffix(reqs[i].Path, "/runs") {
			var body struct {
				Message struct {
					AdditionalContext map[string]any `json:"additionalContext"`
				} `json:"message"`
			}
			if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
				t.Fatal(err)
			}
			return body.Message.AdditionalContext
		}
	}
	t.Fatal("no run was sent")
	return nil
}

// A Client's context helpers join every run's additionalContext, the
// run's own members winning; a nil value adds nothing; the last helper
// added under a name is the one that runs; the base Client is unchanged.
func TestContextHelpers(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	base := runs.New(srv.Client()).ForUser("user-1")
	var seenCtx context.Context
	type key struct{}
	c := base.WithContextHelper("page", func(context.Context) (any, error) { return "/old", nil }).
		WithContextHelper("time", func(ctx context.Context) (any, error) { seenCtx = ctx; return "12:00", nil }).
		WithContextHelper("none", func(context.Context) (any, error) { return nil, nil }).
		WithContextHelper("page", func(context.Context) (any, error) { return map[string]any{"path": "/home"}, nil })
	ctx := context.WithValue(context.Background(), key{}, 1)
	p := textParams("hi")
	p.AdditionalContext = map[string]any{"time": "mine", "extra": true}
	s, err := c.CreateAndRun(ctx, runs.CreateRunParams{RunParams: p})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Collect()
	if err != nil {
		t.Fatal(err)
	}
	got := sentContext(t, srv)
	if fmt.Sprint(got) != "map[extra:true page:map[path:/home] time:mine]" {
		t.Errorf("additionalContext %v", got)
	}
	if seenCtx == nil || seenCtx.Value(key{}) != 1 {
		t.Error("the helper did not get the run's context")
	}
	if len(p.AdditionalContext) != 2 {
		t.Errorf("the caller's map changed: %v", p.AdditionalContext)
	}

	q := textParams("again")
	q.PreviousRunID = res.RunID
	s, err = c.Run(ctx, res.ThreadID, q)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := sentContext(t, srv); fmt.Sprint(got) != "map[page:map[path:/home] time:12:00]" {
		t.Errorf("second run: %v", got)
	}

	// The base Client has no helpers.
	s, err = base.CreateAndRun(ctx, runs.CreateRunParams{RunParams: textParams("plain")})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := sentContext(t, srv); got != nil {
		t.Errorf("base Client: %v", got)
	}
}

// A helper's error, a value that is not JSON, an empty name or a nil
// function fails the run before anything is sent, naming the helper.
func TestContextHelperErrors(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	base := runs.New(srv.Client()).ForUser("user-1")
	errPage := errors.New("no page")
	for _, c := range []struct {
		client *runs.Client
		want   string
		is     error
	}{
		{base.WithContextHelper("page", func(context.Context) (any, error) { return nil, errPage }), `context helper "page": no page`, errPage},
		{base.WithContextHelper("fn", func(context.Context) (any, error) { return func() {}, nil }), `context helper "fn": its value does not encode as JSON`, nil},
		{base.WithContextHelper("", func(context.Context) (any, error) { return 1, nil }), `context helper 1 has no name`, nil},
		{base.WithContextHelper("nil", nil), `context helper "nil" is nil`, nil},
	} {
		_, err := c.client.CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: textParams("hi")})
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
			t.Errorf("err %v, want %q", err, c.want)
		}
		_, err = c.client.Run(context.Background(), "thr_x", runs.RunParams{Content: []runs.Content{runs.Text("hi")}, AfterLastRun: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run: err %v, want %q", err, c.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// A run goes to JSON as the run routes take it and back whole: every field
// of CreateRunParams (AfterLastRun is no member of the body) survives, so
// a field added to RunParams and its body (internal/v1wire) but not to
// the way back fails here, and a backend reading its front end's runs
// (package proxy) takes the new member with no edit of its own.
func TestRunParamsJSONRoundTrip(t *testing.T) {
	t.Parallel()
	temp := 0.5
	p := runs.CreateRunParams{
		RunParams: runs.RunParams{
			Content:             []runs.Content{runs.Text("hi")},
			MessageMetadata:     map[string]any{"m": "1"},
			AdditionalContext:   map[string]any{"page": "/home"},
			PreviousRunID:       "run_1",
			Resume:              []runs.ResumeEntry{{InterruptID: "int_1", Status: runs.ResumeResolved, Payload: map[string]any{"approved": true}}},
			ToolDefinitions:     []runs.ToolDefinition{{Name: "lookup", InputSchema: map[string]any{"type": "object"}}},
			AvailableComponents: []runs.AvailableComponent{{Name: "Card", PropsSchema: map[string]any{"type": "object"}}},
			ToolChoice:          "auto",
			Model:               "gpt",
			MaxTokens:           5,
			Temperature:         &temp,
			RunMetadata:         map[string]any{"r": "1"},
		},
		ThreadMetadata:  map[string]any{"t": "1"},
		InitialMessages: []runs.InitialMessage{{Role: runs.RoleUser, Content: []runs.Content{runs.Text("seed")}}},
	}
	var unset []string
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				walk(v.Field(i), f.Name+".")
			case f.Name != "AfterLastRun" && v.Field(i).IsZero():
				unset = append(unset, prefix+f.Name)
			}
		}
	}
	walk(reflect.ValueOf(p), "")
	if len(unset) > 0 {
		t.Fatalf("set every field of the run here: %v", unset)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got runs.CreateRunParams
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Errorf("round trip through %s:\n got %+v\nwant %+v", b, got, p)
	}
	b, err = json.Marshal(p.RunParams)
	if err != nil {
		t.Fatal(err)
	}
	var gotRun runs.RunParams
	if err := json.Unmarshal(b, &gotRun); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotRun, p.RunParams) {
		t.Errorf("round trip through %s:\n got %+v\nwant %+v", b, gotRun, p.RunParams)
	}
}

// Reading a run body takes only what the run routes take: the end user
// (userKey, thread.userKey), the message's role and members the routes do
// not take are not read; thread.metadata counts when threadMetadata is
// not sent, as the service reads it.
func TestRunParamsUnmarshalReadsOnlyTheRoutesMembers(t *testing.T) {
	t.Parallel()
	var p runs.CreateRunParams
	err := json.Unmarshal([]byte(`{"userKey":"mallory","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"extra":1},
		"thread":{"userKey":"mallory","metadata":{"a":"1"}},"apiKey":"x","previousRunId":"run_1"}`), &p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"previousRunId":"run_1","threadMetadata":{"a":"1"}}`; string(b) != want {
		t.Errorf("read and written again:\n got %s\nwant %s", b, want)
	}
	if err := json.Unmarshal([]byte(`{"threadMetadata":{"b":"2"},"thread":{"metadata":{"a":"1"}}}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.ThreadMetadata["b"] != "2" || len(p.ThreadMetadata) != 1 {
		t.Errorf("threadMetadata does not win over thread.metadata: %v", p.ThreadMetadata)
	}
}

// A cancel is idempotent: a DELETE answered 500 (the service's database
// deadlocks when a cancel meets the run's end) is re-sent once, and a
// re-send answered 404 counts as done (before, the 500 was the error);
// a second 500 is the error, without a third attempt.
func TestCancelResentOnceAfter500(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	ctx := context.Background()
	hold := make(chan struct{})
	defer close(hold)
	srv.PushRunScript(threadstest.RunScript{Text: "a b c", Hold: hold, HoldAfter: 3})
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("x")}}})
	require.NoError(t, err)
	defer s.Close()
	for range 4 {
		require.True(t, s.Next(), "%v", s.Err())
	}
	path := "/v1/threads/" + s.ThreadID() + "/runs/" + s.RunID()
	internal := threadstest.Fault{Method: "DELETE", Path: path, Status: 500,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"statusCode":500,"message":"Internal server error"}`}

	srv.Inject(internal) // the first answer is 500; the re-send cancels
	require.NoError(t, u.Cancel(ctx, s.ThreadID(), s.RunID()))
	assert.Equal(t, 2, srv.Count("DELETE", path))
	res, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeCancelled, res.Outcome)

	srv.Inject(internal) // the run is gone: the re-send's 404 is done
	require.NoError(t, u.Cancel(ctx, s.ThreadID(), s.RunID()))
	assert.Equal(t, 4, srv.Count("DELETE", path))

	internal.Times = 2
	srv.Inject(internal)
	err = u.Cancel(ctx, s.ThreadID(), s.RunID())
	assert.ErrorIs(t, err, threads.ErrServer)
	assert.Equal(t, 6, srv.Count("DELETE", path), "one re-send, not the whole retry budget")

	// Without the re-send, a 404 is the run's end, an error as before.
	err = u.Cancel(ctx, s.ThreadID(), s.RunID())
	assert.ErrorIs(t, err, threads.ErrNotFound)
	srv.Inject(internal)
	err = runs.New(srv.Client(threads.WithMaxRetries(0))).ForUser("user-1").Cancel(ctx, s.ThreadID(), s.RunID())
	assert.ErrorIs(t, err, threads.ErrServer, "no retries: no re-send")
}

// A failed run's error shows the run and thread ids the server sent:
// cleaned and bounded like its message, never raw.
func TestRunFailedErrorHidesServerRunID(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(201)
		fmt.Fprintf(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thr_1\",\"runId\":%s,\"timestamp\":1}\n\n", jsonString(hostileRunID+strings.Repeat("x", 1<<20)))
		fmt.Fprint(w, "data: {\"type\":\"RUN_ERROR\",\"message\":\"boom\",\"code\":\"E\"}\n\n")
	}))
	defer srv.Close()
	st, err := client(t, srv.URL).Run(context.Background(), "thr_1", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Collect()
	if err == nil {
		t.Fatal("no error for a failed run")
	}
	if s := err.Error(); strings.Contains(s, testKey) || strings.Contains(s, "\x1b") || len(s) > 4096 {
		t.Fatalf("RunFailedError shows the server's run id raw (%d bytes): %.200q", len(s), s)
	}
}
