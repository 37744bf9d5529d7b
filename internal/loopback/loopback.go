// Package loopback is the harness of the SDK's stream benchmarks over
// loopback: a server that writes a whole body at once, the raw net/http
// client a bar compares the SDK with, and the many-streams benchmarks (N
// idle streams at once, many.go). Only tests use it.
package loopback

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Body starts a server that answers every request with 201 and body as an
// event stream, written at once. The caller closes it.
func Body(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	}))
}

// Post returns what a hand-written client does for one stream: POST reqBody
// to url with header, then read the body with read (which counts the
// events it decoded), drain and close it; it fails b on an error, or when
// read counted other than want events.
func Post(b testing.TB, url string, header http.Header, reqBody []byte, want int, read func(io.Reader) (int, error)) func() {
	return func() {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(reqBody))
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := read(resp.Body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n != want {
			b.Fatal(n, want, err)
		}
	}
}

// Discard is the floor's read: the body read and discarded, counted as
// want events.
func Discard(want int) func(io.Reader) (int, error) {
	return func(r io.Reader) (int, error) {
		_, err := io.Copy(io.Discard, r)
		return want, err
	}
}

// DeltaRun is one /v1 run's stream as the service writes it: RUN_STARTED,
// a text message of n 11-character deltas, a tool call, the awaiting-input
// event and RUN_FINISHED (about 120 bytes an event).
func DeltaRun(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"type":"RUN_STARTED","threadId":"thr_72WqxjYa.a1f672","runId":"run_T8XEVJq.9d99dd","timestamp":1795498169947}` + "\n\n")
	b.WriteString(`data: {"type":"TEXT_MESSAGE_START","messageId":"msg_rGdf9Tpw.fce312","role":"assistant","timestamp":1795498170115}` + "\n\n")
	words := []string{"Let me chec", "k the weath", "er in Lisbo", "n for you. "}
	for i := range n {
		fmt.Fprintf(&b, `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_rGdf9Tpw.fce312","delta":%q,"timestamp":%d}`+"\n\n", words[i%len(words)], 1795498170118+i)
	}
	b.WriteString(`data: {"type":"TOOL_CALL_START","toolCallId":"call_fake_12","toolCallName":"get_weather","parentMessageId":"message-XBz6Sm9VF4WzIcWyaIvXN","timestamp":1795498170148}` + "\n\n")
	b.WriteString(`data: {"type":"TOOL_CALL_ARGS","toolCallId":"call_fake_12","delta":"{\"city\": \"Lisbon\"}","timestamp":1795498170175}` + "\n\n")
	b.WriteString(`data: {"type":"TOOL_CALL_END","toolCallId":"call_fake_12","timestamp":1795498170268}` + "\n\n")
	b.WriteString(`data: {"type":"TEXT_MESSAGE_END","messageId":"msg_rGdf9Tpw.fce312","timestamp":1795498170275}` + "\n\n")
	b.WriteString(`data: {"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"pendingToolCalls":[{"toolCallId":"call_fake_12","toolName":"get_weather","arguments":"{\"city\": \"Lisbon\"}"}]},"timestamp":1795498170290}` + "\n\n")
	b.WriteString(`data: {"type":"RUN_FINISHED","threadId":"thr_72WqxjYa.a1f672","runId":"run_T8XEVJq.9d99dd","timestamp":1795498170293}` + "\n\n")
	return b.Bytes()
}
