package runs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// EventJSON gives each event's data as the service sent it, members the SDK does
// not model included, a split event joined as SSE joins it, the API key
// redacted; nil before the first event and after the end.
func TestStreamEventJSON(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{"type":"RUN_STARTED","threadId":"thr_r","runId":"run_r","timestamp":1}`,
		`{"type":"REASONING_START","messageId":"m","extra":{"x":[1,2]},"timestamp":2}`,
		`{"type":"CUSTOM","name":"tambo.message.parent","value":{"messageId":"m","parentMessageId":"p"},"timestamp":3}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","note":"` + testKey + `","timestamp":4}`,
		"{\"type\":\"TEXT_MESSAGE_END\",\n\"messageId\":\"m\"}",
		`{"type":"RUN_FINISHED","threadId":"thr_r","runId":"run_r","timestamp":5}`,
	}
	var body strings.Builder
	for _, d := range docs {
		body.WriteString("data: " + strings.ReplaceAll(d, "\n", "\ndata: ") + "\n\n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(body.String()))
	}))
	defer srv.Close()
	s, err := newTestClient(t, srv.URL).ForUser("u").Run(context.Background(), "thr_r", RunParams{Content: []Content{Text("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.EventJSON() != nil {
		t.Fatal("EventJSON before the first event")
	}
	for i, want := range docs {
		if !s.Next() {
			t.Fatalf("event %d: %v", i, s.Err())
		}
		want = strings.ReplaceAll(want, testKey, "[REDACTED]")
		if got := string(s.EventJSON()); got != want {
			t.Errorf("event %d (%T): EventJSON\n%s\nwant\n%s", i, s.Current(), got, want)
		}
	}
	if s.Next() || s.EventJSON() != nil {
		t.Fatalf("after the end: EventJSON %q, err %v", s.EventJSON(), s.Err())
	}
	var zero *ToolStream
	if zero.EventJSON() != nil || (*Stream)(nil).EventJSON() != nil {
		t.Fatal("EventJSON of nil streams")
	}
}
