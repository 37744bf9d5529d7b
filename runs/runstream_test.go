package runs_test

import (
	"bytes"
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
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

func textParams(text string) runs.RunParams {
	return runs.RunParams{Content: []runs.Content{runs.Text(text)}}
}

// startCapture replays capture num as the answer to a run: CreateAndRun
// for captures of POST /v1/threads/runs, Run on thread "thr_x" otherwise.
func startCapture(t *testing.T, num string) (*runs.Stream, *replay, error) {
	t.Helper()
	c := loadCapture(t, num)
	srv := newReplay(t, c)
	cl := client(t, srv.URL)
	ctx := context.Background()
	if c.create {
		s, err := cl.CreateAndRun(ctx, runs.CreateRunParams{RunParams: textParams("hello there")})
		return s, srv, err
	}
	s, err := cl.Run(ctx, "thr_x", textParams("hello there"))
	return s, srv, err
}

// Text runs: RUN_STARTED, TEXT_MESSAGE_START, CONTENT×n, END,
// RUN_FINISHED; the text is the deltas joined; the ids come from the
// headers (X-Thread-Id only on the create route).
func TestRunCapturesText(t *testing.T) {
	cases := []struct {
		num, text string
		create    bool
	}{
		{"26", "Hello from the fake model. You said: <User>hello there</User>", true},
		{"30", "", false},
		{"43", "", false},
		{"49", "", false},
		{"86", "", false},
		{"110", "", false},
		{"117", "", false},
		{"118", "", true},
		{"132", "", false},
		{"133", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.num, func(t *testing.T) {
			t.Parallel()
			s, srv, err := startCapture(t, tc.num)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			evs := events(s)
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			got := types(evs)
			if !strings.HasPrefix(got, "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT") || !strings.HasSuffix(got, "TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED") {
				t.Fatalf("order: %s", got)
			}
			start := evs[0].(runs.RunStarted)
			fin := evs[len(evs)-1].(runs.RunFinished)
			thread := "thr_x" // the thread the run was started on
			if tc.create {
				thread = start.ThreadID // X-Thread-Id
			}
			if s.RunID() != start.RunID || fin.RunID != start.RunID || s.ThreadID() != thread || !strings.HasPrefix(start.RunID, "run_") {
				t.Fatalf("ids: stream %s/%s, started %+v, finished %+v", s.ThreadID(), s.RunID(), start, fin)
			}
			if start.Timestamp.IsZero() || start.Timestamp.Year() != 2026 {
				t.Fatalf("timestamp %v", start.Timestamp)
			}
			var text strings.Builder
			msgID := evs[1].(runs.TextMessageStart).MessageID
			for _, e := range evs {
				if c, ok := e.(runs.TextMessageContent); ok {
					if c.MessageID != msgID {
						t.Fatalf("delta for %s in %s", c.MessageID, msgID)
					}
					text.WriteString(c.Delta)
				}
			}
			if tc.text != "" && text.String() != tc.text {
				t.Fatalf("text %q", text.String())
			}
			if got, _ := s.Text(msgID); got != text.String() {
				t.Fatalf("Stream.Text %q, deltas %q", got, text.String())
			}
			if s.Outcome() != runs.OutcomeFinished {
				t.Fatalf("outcome %v", s.Outcome())
			}
			r, err := s.Collect()
			if err != nil || r.Outcome != runs.OutcomeFinished || len(r.Messages) != 1 || r.Messages[0].Text() != text.String() ||
				r.Messages[0].ID != msgID || r.Messages[0].Role != runs.RoleAssistant || r.RunID != start.RunID {
				t.Fatalf("Collect: %+v, %v", r, err)
			}
			req := srv.Requests()[0]
			if req.Method != "POST" || req.Header.Get("X-Api-Key") != testKey || req.Header.Get("Authorization") != "" {
				t.Fatalf("request %s %s %v", req.Method, req.Path, req.Header)
			}
			var body map[string]any
			json.Unmarshal(req.Body, &body)
			if tc.create {
				if req.Path != "/v1/threads/runs" || body["thread"].(map[string]any)["userKey"] != "user-1" || body["userKey"] != nil {
					t.Fatalf("create request %s %s", req.Path, req.Body)
				}
			} else if req.Path != "/v1/threads/thr_x/runs" || body["userKey"] != "user-1" {
				t.Fatalf("run request %s %s", req.Path, req.Body)
			}
		})
	}
}

// Client tool calls: the arguments are the ARGS deltas joined, the run
// ends awaiting the pending calls (39, 44: one call; 52: after text, with
// TEXT_MESSAGE_END after the call; 129: two parallel calls).
func TestRunCapturesToolCall(t *testing.T) {
	cases := []struct {
		num     string
		pending []string
		order   string
	}{
		{"39", []string{"call_fake_3"}, "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_END CUSTOM(awaiting_input) RUN_FINISHED"},
		{"44", nil, ""},
		{"52", []string{"call_fake_12"}, "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_END TEXT_MESSAGE_END CUSTOM(awaiting_input) RUN_FINISHED"},
		{"129", nil, ""},
		{"113", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.num, func(t *testing.T) {
			t.Parallel()
			s, _, err := startCapture(t, tc.num)
			if err != nil {
				t.Fatal(err)
			}
			evs := events(s)
			if tc.order != "" && types(evs) != tc.order {
				t.Fatalf("order:\n%s\nwant\n%s", types(evs), tc.order)
			}
			var awaiting runs.AwaitingInput
			args := map[string]string{}
			for _, e := range evs {
				switch e := e.(type) {
				case runs.AwaitingInput:
					awaiting = e
				case runs.ToolCallArgs:
					args[e.ToolCallID] += e.Delta
				}
			}
			if len(awaiting.PendingToolCalls) == 0 {
				t.Fatal("no awaiting_input")
			}
			if tc.pending != nil {
				var ids []string
				for _, p := range awaiting.PendingToolCalls {
					ids = append(ids, p.ToolCallID)
				}
				if !reflect.DeepEqual(ids, tc.pending) {
					t.Fatalf("pending %v", ids)
				}
			}
			r, err := s.Collect()
			if err != nil || r.Outcome != runs.OutcomeAwaitingTools || s.Outcome() != runs.OutcomeAwaitingTools {
				t.Fatalf("Collect: %v %v", r.Outcome, err)
			}
			if !reflect.DeepEqual(r.PendingToolCalls, awaiting.PendingToolCalls) || len(r.ToolCalls) != len(args) {
				t.Fatalf("result %+v", r)
			}
			for i, call := range r.ToolCalls {
				var v map[string]any
				if call.Arguments != args[call.ToolCallID] || json.Unmarshal([]byte(call.Arguments), &v) != nil || v["city"] == nil {
					t.Fatalf("call %d: %+v (deltas %q)", i, call, args[call.ToolCallID])
				}
				if call.ToolName != "get_weather" || awaiting.PendingToolCalls[len(awaiting.PendingToolCalls)-len(r.ToolCalls)+i].ToolName != "get_weather" {
					t.Fatalf("call %+v", call)
				}
			}
			if tc.num == "129" && len(r.ToolCalls) != 2 {
				t.Fatalf("two parallel calls: %+v", r.ToolCalls)
			}
		})
	}
}

// A component's props follow its patches (add, then replace with the
// value so far) and end as its final props (87).
func TestRunCaptureComponent(t *testing.T) {
	t.Parallel()
	s, _, err := startCapture(t, "87")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "RUN_STARTED CUSTOM(component.start) CUSTOM(props_delta) CUSTOM(props_delta) CUSTOM(props_delta) CUSTOM(props_delta) CUSTOM(component.end) TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	var seen []string
	var order []string
	var final map[string]any
	for s.Next() {
		e := s.Current()
		order = append(order, types([]runs.Event{e}))
		switch e := e.(type) {
		case runs.ComponentStart:
			if e.ComponentName != "WeatherCard" || !strings.HasPrefix(e.ComponentID, "message-") || !strings.HasPrefix(e.MessageID, "msg_") {
				t.Fatalf("start %+v", e)
			}
		case runs.ComponentPropsDelta:
			p, ok := s.ComponentProps(e.ComponentID)
			if !ok {
				t.Fatal("no props")
			}
			b, _ := json.Marshal(p)
			seen = append(seen, string(b))
			if e.StreamingStatus == nil {
				t.Fatalf("delta %+v", e)
			}
		case runs.ComponentEnd:
			final = e.FinalProps
			p, _ := s.ComponentProps(e.ComponentID)
			if !reflect.DeepEqual(p, final) {
				t.Fatalf("props %v, final %v", p, final)
			}
		}
	}
	if strings.Join(order, " ") != want {
		t.Fatalf("order %s", strings.Join(order, " "))
	}
	wantSeen := []string{`{"city":"Lisbo"}`, `{"city":"Lisbon"}`, `{"city":"Lisbon","temperature":21}`, `{"city":"Lisbon","temperature":21,"unit":"celsius"}`}
	if !reflect.DeepEqual(seen, wantSeen) {
		t.Fatalf("props after each patch: %v", seen)
	}
	r, err := s.Collect()
	if err != nil || r.Outcome != runs.OutcomeFinished || len(r.Messages) != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	comp := r.Messages[0]
	if len(comp.Content) != 1 || comp.Content[0].Type != runs.ContentComponent || !reflect.DeepEqual(comp.Content[0].Props, final) || comp.Content[0].Name != "WeatherCard" {
		t.Fatalf("component message %+v", comp)
	}
	if r.Messages[1].Text() != "The tool said: Component was rendered." {
		t.Fatalf("text %q", r.Messages[1].Text())
	}
}

// A failed run: RUN_ERROR sent twice, one error; the partial text stays
// in the events and the result (123); the error matches by status.
func TestRunCapturesFailure(t *testing.T) {
	cases := []struct {
		num, code string
		status    int
		sentinel  error
		create    bool
	}{
		{"47", "INTERNAL_ERROR", 500, threads.ErrServer, true},
		{"77", "INTERNAL_ERROR", 500, threads.ErrServer, true},
		{"79", "INTERNAL_ERROR", 500, threads.ErrServer, true},
		{"121", "LLM_CLIENT_ERROR", 400, threads.ErrBadRequest, true},
		{"123", "INTERNAL_ERROR", 500, threads.ErrServer, true},
		{"125", "INTERNAL_ERROR", 500, threads.ErrServer, true},
	}
	for _, tc := range cases {
		t.Run(tc.num, func(t *testing.T) {
			t.Parallel()
			s, _, err := startCapture(t, tc.num)
			if err != nil {
				t.Fatal(err)
			}
			evs := events(s)
			n := 0
			for _, e := range evs {
				if _, ok := e.(runs.RunErrorEvent); ok {
					n++
				}
			}
			last, ok := evs[len(evs)-1].(runs.RunErrorEvent)
			if n != 1 || !ok || last.Code != tc.code || last.Status != tc.status || last.Retryable || last.Message == "" {
				t.Fatalf("%d RUN_ERROR events; last %+v; order %s", n, evs[len(evs)-1], types(evs))
			}
			err = s.Err()
			var f *runs.RunFailedError
			if !errors.As(err, &f) || f.Code != tc.code || f.RunID != s.RunID() || f.RunID == "" || f.Status != tc.status {
				t.Fatalf("err %#v", err)
			}
			if !errors.Is(err, runs.ErrRunFailed) || !errors.Is(err, tc.sentinel) || !errors.Is(err, threads.ErrStreamFailed) || errors.Is(err, threads.ErrStreamTruncated) {
				t.Fatalf("sentinels of %v", err)
			}
			if !strings.Contains(err.Error(), tc.code) || !strings.Contains(err.Error(), last.Message) {
				t.Fatalf("error text %q", err)
			}
			r, cerr := s.Collect()
			if r.Outcome != runs.OutcomeFailed || r.Failure != f || cerr != err {
				t.Fatalf("Collect %+v %v", r, cerr)
			}
			if tc.num == "123" && (len(r.Messages) != 1 || r.Messages[0].Text() != "partial answer ") {
				t.Fatalf("partial text %+v", r.Messages)
			}
		})
	}
}

// A run cancelled elsewhere (DELETE) ends with one RUN_ERROR CANCELLED:
// outcome cancelled, no error, the text streamed so far kept (53).
func TestRunCaptureCancelledByDelete(t *testing.T) {
	t.Parallel()
	s, _, err := startCapture(t, "53")
	if err != nil {
		t.Fatal(err)
	}
	evs := events(s)
	last, ok := evs[len(evs)-1].(runs.RunErrorEvent)
	if !ok || last.Code != runs.CodeCancelled || last.Message != "Run cancelled" || last.Status != 0 {
		t.Fatalf("last %+v", evs[len(evs)-1])
	}
	if s.Err() != nil || s.Outcome() != runs.OutcomeCancelled {
		t.Fatalf("err %v outcome %v", s.Err(), s.Outcome())
	}
	r, err := s.Collect()
	if err != nil || r.Outcome != runs.OutcomeCancelled || r.Failure != nil || r.Messages[0].Text() != "word0 word1 word2 word3 word4 " {
		t.Fatalf("%+v %v", r, err)
	}
}

// A run cancelled from another connection (Client.Cancel, the DELETE
// route) ends with RUN_ERROR CANCELLED (captures-turn4 22, in testdata as t4_22) or, in 1 of 7
// tries, with a plain RUN_FINISHED (26); either way without the open text
// message's TEXT_MESSAGE_END, which a finished run always sends: both are
// reported cancelled, with no error, and the text streamed (the service
// stored "word0 word1" for 26: see Result).
func TestRunCaptureCancelledElsewhere(t *testing.T) {
	t.Parallel()
	for _, num := range []string{"t4_22", "t4_26"} {
		s, _, err := startCapture(t, num)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Collect()
		if err != nil || s.Outcome() != runs.OutcomeCancelled || r.Outcome != runs.OutcomeCancelled || r.Failure != nil {
			t.Errorf("%s: err %v, outcome %v, result %v %+v", num, err, s.Outcome(), r.Outcome, r.Failure)
		}
		if len(r.Messages) != 1 || r.Messages[0].Text() != "word0 word1 word2 " {
			t.Errorf("%s: messages %+v", num, r.Messages)
		}
	}
}

// A model connection cut mid-stream is a success for the service (50).
func TestRunCaptureModelCut(t *testing.T) {
	t.Parallel()
	s, _, err := startCapture(t, "50")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Collect()
	if err != nil || r.Outcome != runs.OutcomeFinished || r.Messages[0].Text() != "partial answer then " {
		t.Fatalf("%+v %v", r, err)
	}
}

// A stream whose connection ends before RUN_FINISHED or RUN_ERROR is
// truncated (61: the capture client closed the socket mid-run).
func TestRunCaptureTruncated(t *testing.T) {
	t.Parallel()
	s, _, err := startCapture(t, "61")
	if err != nil {
		t.Fatal(err)
	}
	evs := events(s)
	if len(evs) != 7 {
		t.Fatalf("%d events: %s", len(evs), types(evs))
	}
	err = s.Err()
	if !errors.Is(err, threads.ErrStreamTruncated) || s.Outcome() != runs.OutcomeUnknown {
		t.Fatalf("err %v outcome %v", err, s.Outcome())
	}
	r, cerr := s.Collect()
	if r.Outcome != runs.OutcomeUnknown || cerr != err || r.Messages[0].Text() != "word0 word1 word2 word3 word4 " {
		t.Fatalf("%+v %v", r, cerr)
	}
}

// Preconditions answer before any event, as problems with sentinels.
func TestRunCapturesPreconditions(t *testing.T) {
	cases := []struct {
		num      string
		sentinel error
		status   int
	}{
		{"28", runs.ErrInvalidPreviousRun, 400},
		{"29", runs.ErrInvalidPreviousRun, 400},
		{"128", runs.ErrInvalidPreviousRun, 400},
		{"41", runs.ErrInvalidToolResult, 400},
		{"42", runs.ErrInvalidToolResult, 400},
		{"112", runs.ErrInvalidToolResult, 400},
		{"131", runs.ErrInvalidToolResult, 400},
		{"54", runs.ErrRunActive, 409},
		{"76", threads.ErrBadRequest, 400},
		{"78", threads.ErrBadRequest, 400},
		{"80", threads.ErrBadRequest, 400},
		{"81", threads.ErrBadRequest, 400},
		{"82", threads.ErrBadRequest, 400},
		{"83", threads.ErrBadRequest, 400},
		{"84", threads.ErrBadRequest, 400},
		{"85", threads.ErrForbidden, 403},
		{"75", threads.ErrServer, 500},
	}
	for _, tc := range cases {
		t.Run(tc.num, func(t *testing.T) {
			t.Parallel()
			s, srv, err := startCapture(t, tc.num)
			if s != nil {
				t.Fatal("a stream for a refused run")
			}
			var p *threads.Problem
			if !errors.Is(err, tc.sentinel) || !errors.As(err, &p) || p.Status != tc.status {
				t.Fatalf("%#v", err)
			}
			if tc.num == "54" {
				var id string
				json.Unmarshal(p.Extensions["currentRunId"], &id)
				if id != "run_TCQhGqKm.c09385" {
					t.Fatalf("currentRunId %q", p.Extensions["currentRunId"])
				}
			}
			// A run POST is never re-sent once it may have acted, and a
			// 500 from a run is one such answer.
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests", n)
			}
		})
	}
}

// DELETE …/runs/{runId}: 200; 404 once the run has ended (57, 59, 60, 111).
func TestCancelCaptures(t *testing.T) {
	t.Parallel()
	srv := newReplay(t, loadCapture(t, "57"), loadCapture(t, "59"), loadCapture(t, "60"), loadCapture(t, "111"))
	c := client(t, srv.URL)
	ctx := context.Background()
	if err := c.Cancel(ctx, "thr_2qzYSSu1.200943", "run_TCQhGqKm.c09385"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := c.Cancel(ctx, "thr_2qzYSSu1.200943", "run_TCQhGqKm.c09385"); !errors.Is(err, threads.ErrNotFound) {
			t.Fatalf("%v", err)
		}
	}
	req := srv.Requests()[0]
	if req.Method != "DELETE" || req.Path != "/v1/threads/thr_2qzYSSu1.200943/runs/run_TCQhGqKm.c09385" || req.Query != "userKey=user-1" {
		t.Fatalf("%+v", req)
	}
}

// serveEvents answers every request with a run stream of events (JSON
// texts), each flushed, then holds the response until the client leaves.
func serveEvents(t *testing.T, events ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(201)
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// Issue 31: %v of a *runs.Stream printed its fields, the last raw event
// among them, so a delta that echoes the API key reached a log line. Every
// verb, of the stream and of its value, prints a summary.
func TestStreamFormatHidesEvents(t *testing.T) {
	t.Parallel()
	url := serveEvents(t, `{"type":"RUN_STARTED","threadId":"thr_1","runId":"run_1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"msg_1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_1","delta":"the key is `+testKey+`"}`)
	s, err := client(t, url).Run(context.Background(), "thr_1", textParams("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 3 {
		if !s.Next() {
			t.Fatal(s.Err())
		}
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		for _, v := range []any{s, *s} {
			if got := fmt.Sprintf(verb, v); strings.Contains(got, testKey) || got != "runs.Stream{events:3 done:false outcome:unknown}" {
				t.Errorf("%s of a %T: %s", verb, v, got)
			}
		}
	}
}

// recorder is a threads.Observer that keeps what each call reported.
type recorder struct {
	mu    sync.Mutex
	calls []*recCall
	// onFirst, when set, runs inside Observe at a call's first event.
	onFirst func()
}

type recCall struct {
	info      threads.CallInfo
	rounds    []int
	approvals []string // EventToolApproval: "tool approved" (and " by " who decided)
	first     bool
	ends      []threads.CallEnd
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
	case threads.EventToolApproval:
		a := fmt.Sprintf("%s %t", ev.ToolName, ev.Approved)
		if ev.DecidedBy != "" {
			a += " by " + ev.DecidedBy
		}
		o.c.approvals = append(o.c.approvals, a)
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

// trackedBody records whether it was read to its end and closed.
type trackedBody struct {
	r      io.Reader
	mu     sync.Mutex
	eof    bool
	closed chan struct{}
}

func newTrackedBody(data string) *trackedBody {
	return &trackedBody{r: bytes.NewReader([]byte(data)), closed: make(chan struct{})}
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.mu.Lock()
		b.eof = true
		b.mu.Unlock()
	}
	return n, err
}

func (b *trackedBody) Close() error { close(b.closed); return nil }

const finishedRun = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"RUN_ERROR\",\"message\":\"late duplicate\"}\n\n"

// The Next after the terminal event reads the rest of the body (so the
// connection can be reused) and closes it, without a goroutine.
func TestRunStreamNextAfterEndDrainsBody(t *testing.T) {
	t.Parallel()
	body := newTrackedBody(finishedRun)
	s := runs.NewStreamOf(body)
	n := 0
	for s.Next() {
		n++
	}
	if n != 2 || s.Err() != nil || s.Outcome() != runs.OutcomeFinished {
		t.Fatalf("%d events, err %v, outcome %v; want 2, nil, finished", n, s.Err(), s.Outcome())
	}
	select {
	case <-body.closed:
	default:
		t.Fatal("body not closed when Next returned false")
	}
	if !body.eof {
		t.Error("body not read to its end: the connection cannot be reused")
	}
}

// Close after the terminal event, without another Next, still reads the
// rest of the body and closes it (itself: no goroutine is started).
func TestRunStreamCloseAfterEndDrainsBody(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		body := newTrackedBody(finishedRun)
		s := runs.NewStreamOf(body)
		for s.Next() {
			if _, ok := s.Current().(runs.RunFinished); ok {
				break
			}
		}
		s.Close()
		select {
		case <-body.closed:
		default:
			t.Fatal("body not closed when Close returned")
		}
		body.mu.Lock()
		defer body.mu.Unlock()
		if !body.eof {
			t.Error("body not read to its end after Close")
		}
	})
}

// The usage a run reports (AG-UI 1.0's, on RUN_FINISHED) reaches the
// call's observer summed per model (threads.CallEnd.Usage), as it reaches
// Result.Usage.
func TestObserverRunUsage(t *testing.T) {
	t.Parallel()
	obs := &recorder{}
	c, srv := observed(t, obs)
	srv.PushRunScript(threadstest.RunScript{Text: "hi", Usage: []threadstest.TokenUsage{
		{Provider: "openai", Model: "gpt-5", InputTokens: 10, OutputTokens: 4, TotalTokens: 14},
		{Provider: "openai", Model: "gpt-5", InputTokens: 1, ReasoningTokens: 2},
	}})
	s, err := c.CreateAndRun(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	r, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, []runs.TokenUsage{{Provider: "openai", Model: "gpt-5", InputTokens: 11, OutputTokens: 4, TotalTokens: 14, ReasoningTokens: 2}}, r.Usage)
	call := obs.only(t, http.MethodPost, "/v1/threads/runs")
	assert.Equal(t, []threads.TokenUsage{{Provider: "openai", Model: "gpt-5", InputTokens: 11, OutputTokens: 4, TotalTokens: 14, ReasoningTokens: 2}}, call.ends[0].Usage)
}

// runs.Client.Do names a /v1 route the SDK does not model by the
// template WithRouteTemplate gives, else by its path with the id-like
// segments as {id}, so a tracing backend sees one span name per route;
// this package's routes, and its typed methods whatever the option says,
// keep their templates.
func TestDoRouteNames(t *testing.T) {
	t.Parallel()
	obs := &recorder{}
	c, _ := observed(t, obs)
	ctx := t.Context()
	th, err := c.CreateThread(ctx, runs.CreateThreadParams{})
	require.NoError(t, err)
	var raw json.RawMessage
	_ = c.Do(ctx, "GET", "/v1/threads/"+th.ID+"/usage", nil, &raw)
	_ = c.Do(ctx, "GET", "/v1/threads/"+th.ID+"/usage", nil, &raw, threads.WithRouteTemplate("GET /v1/threads/{id}/usage"))
	_ = c.Do(ctx, "GET", "/v1/threads/"+th.ID, nil, &raw)
	_, _ = c.GetThread(ctx, th.ID, threads.WithRouteTemplate("GET /elsewhere"))
	obs.mu.Lock()
	defer obs.mu.Unlock()
	var names []string
	for _, call := range obs.calls {
		names = append(names, call.info.Method+" "+call.info.Route)
	}
	assert.Equal(t, []string{
		"POST /v1/threads",
		"GET /v1/threads/{id}/usage",
		"GET /v1/threads/{id}/usage",
		"GET /v1/threads/{threadId}",
		"GET /v1/threads/{threadId}",
	}, names)
}

// A run this client cancelled reads OutcomeCancelled whatever end the
// service sends, also an end that comes while the DELETE is under way
// (before, the RUN_ERROR INTERNAL_ERROR read then made it a failure), and
// Err is nil.
func TestStreamCancelledWhateverEnd(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener())
	hold, held := make(chan struct{}), make(chan struct{})
	srv.PushRunScript(threadstest.RunScript{Text: "a b c d", Hold: hold, HoldAfter: 3, OnHold: func() { close(held) },
		Error: &threadstest.RunFailure{Code: runs.CodeInternalError}, ErrorAfter: 5})
	deleting, stall := make(chan struct{}), make(chan struct{})
	hc := &http.Client{Transport: stallDeletes{next: srv.Transport(), sent: deleting, stall: stall}}
	u := runs.New(srv.Client(threads.WithHTTPClient(hc), threads.WithMaxRetries(0))).ForUser("user-1")
	ctx := context.Background()
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("x")}}})
	require.NoError(t, err)
	defer s.Close()
	for range 4 { // RUN_STARTED, TEXT_MESSAGE_START, two deltas
		require.True(t, s.Next(), "%v", s.Err())
	}
	<-held
	cancelled := make(chan error, 1)
	go func() { cancelled <- s.Cancel(ctx) }()
	<-deleting // the DELETE is on its way; the run ends INTERNAL_ERROR meanwhile
	close(hold)
	res, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, runs.OutcomeCancelled, res.Outcome)
	close(stall)
	require.NoError(t, <-cancelled, "the DELETE found the run ended: 404, done")
	assert.Equal(t, runs.OutcomeCancelled, s.Outcome())
	assert.NoError(t, s.Err())
}

// stallDeletes tells sent when a DELETE goes, and holds it until stall
// is closed.
type stallDeletes struct {
	next  http.RoundTripper
	sent  chan struct{}
	stall chan struct{}
}

func (t stallDeletes) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		close(t.sent)
		<-t.stall
	}
	return t.next.RoundTrip(r)
}

// A run cancelled from elsewhere as it ended may end RUN_ERROR
// INTERNAL_ERROR (or RUN_FINISHED) while the service stores it cancelled
// (3 of 24 live tries): CheckCancelled reads the thread once and reports
// the cancel; an INTERNAL_ERROR without that evidence stays a failure,
// and a run that ended RUN_ERROR CANCELLED sends nothing.
func TestCheckCancelledReadsTheStoredEnd(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client(threads.WithMaxRetries(0))).ForUser("user-1")
	ctx := context.Background()
	run := func() *runs.Stream {
		srv.PushRunScript(threadstest.RunScript{Text: "a b", Error: &threadstest.RunFailure{Code: runs.CodeInternalError}, ErrorAfter: 3})
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("x")}}})
		require.NoError(t, err)
		_, err = s.Collect()
		require.ErrorIs(t, err, runs.ErrRunFailed)
		return s
	}

	s := run()
	got, err := s.CheckCancelled(ctx)
	require.NoError(t, err)
	assert.False(t, got, "no evidence: a failure")
	assert.Equal(t, runs.OutcomeFailed, s.Outcome())
	assert.ErrorIs(t, s.Err(), runs.ErrRunFailed)

	s = run()
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/v1/threads/" + s.ThreadID(), Status: 200,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body: fmt.Sprintf(`{"id":%q,"runStatus":"idle","lastRunCancelled":true,"lastCompletedRunId":%q,"messages":[],"createdAt":"2026-11-30T00:00:00Z","updatedAt":"2026-11-30T00:00:00Z"}`,
			s.ThreadID(), s.RunID())})
	n := srv.Count("GET", "/v1/threads/"+s.ThreadID())
	got, err = s.CheckCancelled(ctx)
	require.NoError(t, err)
	assert.True(t, got)
	assert.Equal(t, runs.OutcomeCancelled, s.Outcome())
	assert.NoError(t, s.Err())
	assert.Equal(t, n+1, srv.Count("GET", "/v1/threads/"+s.ThreadID()), "one read")

	// A run that ended RUN_ERROR CANCELLED: nothing to check.
	hold := make(chan struct{})
	defer close(hold)
	srv.PushRunScript(threadstest.RunScript{Text: "a b c", Hold: hold, HoldAfter: 3})
	s, err = u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("x")}}})
	require.NoError(t, err)
	for range 4 {
		require.True(t, s.Next(), "%v", s.Err())
	}
	require.NoError(t, u.Cancel(ctx, s.ThreadID(), s.RunID()))
	_, err = s.Collect()
	require.NoError(t, err)
	n = len(srv.Requests())
	got, err = s.CheckCancelled(ctx)
	require.NoError(t, err)
	assert.True(t, got)
	assert.Equal(t, n, len(srv.Requests()))
}
