package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
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
				if call.Arguments != args[call.ID] || json.Unmarshal([]byte(call.Arguments), &v) != nil || v["city"] == nil {
					t.Fatalf("call %d: %+v (deltas %q)", i, call, args[call.ID])
				}
				if call.Name != "get_weather" || awaiting.PendingToolCalls[len(awaiting.PendingToolCalls)-len(r.ToolCalls)+i].ToolName != "get_weather" {
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
