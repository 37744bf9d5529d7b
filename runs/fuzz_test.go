package runs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
)

const fuzzKey = "sk-fuzz-7d0c2b19"

// fuzzRead reads data as one run stream, in reads of chunk bytes (0:
// whole), and returns its events, error and outcome.
//
//lint:ignore ST1008 the error is one of the stream's results under test, beside them
func fuzzRead(data []byte, chunk int) ([]Event, error, Outcome, *Stream) {
	var r io.Reader = bytes.NewReader(data)
	if chunk > 0 {
		r = &chunked{data: data, n: chunk}
	}
	s := newStream(context.Background(), io.NopCloser(r), limits{maxEventSize: 16 << 10},
		func(s string, extra ...string) string { return redact.String(s, append(extra, fuzzKey)...) }, "", "")
	var evs []Event
	for s.Next() {
		evs = append(evs, s.Current())
	}
	return evs, s.Err(), s.Outcome(), s
}

type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// FuzzRunStream decodes arbitrary bytes, whole and in reads of any size:
// no panic; both give the same events, error and outcome; a stream that
// ends without error ended at its terminal event (RUN_FINISHED or a
// cancel's RUN_ERROR) with a known outcome, and a failure's RUN_ERROR is
// the last event; Text rebuilds each kept message from its deltas; no
// error or RUN_ERROR message holds the API key.
func FuzzRunStream(f *testing.F) {
	for _, name := range []string{"26", "39", "47", "52", "53", "61", "87", "121", "123", "129"} {
		f.Add(loadCapture(f, name).respBody, uint8(7))
	}
	for _, name := range []string{"thinking-service.sse", "parent-service.sse", "reasoning-agui.sse", "subagent-interrupt-agui.sse"} {
		f.Add(loadReplay(f, name), uint8(9)) // events_test.go
	}
	f.Add([]byte(`data: {"type":"RUN_ERROR","message":"key `+fuzzKey+`","code":"X","status":503}`+"\n\n"), uint8(3))
	f.Add([]byte(`data: {"type":"CUSTOM","name":"tambo.component.props_delta","value":{"componentId":"c","operations":[{"op":"add","path":"/a","value":{"b":[1]}},{"op":"move","from":"/a/b","path":"/c"},{"op":"copy","from":"/c","path":"/d"}]}}`+"\n\ndata: {\"type\":\"STATE_DELTA\",\"delta\":[1]}\n\n"), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole, wholeErr, wholeOut, s := fuzzRead(data, 0)
		split, splitErr, splitOut, _ := fuzzRead(data, int(chunk)+1)
		if (wholeErr == nil) != (splitErr == nil) || wholeOut != splitOut || len(whole) != len(split) {
			t.Fatalf("whole: %d events, %v, %v; split by %d: %d events, %v, %v", len(whole), wholeErr, wholeOut, chunk+1, len(split), splitErr, splitOut)
		}
		for i := range whole {
			if !reflect.DeepEqual(whole[i], split[i]) {
				t.Fatalf("event %d differs: %#v / %#v", i, whole[i], split[i])
			}
		}
		var last Event
		if len(whole) > 0 {
			last = whole[len(whole)-1]
		}
		switch {
		case wholeErr == nil:
			ok := false
			switch e := last.(type) {
			case RunFinished:
				// Cancelled: AG-UI 1.0's cancelled outcome, or a text
				// message the run left open (a cancel from elsewhere).
				ok = wholeOut == OutcomeFinished || wholeOut == OutcomeAwaitingTools || wholeOut == OutcomeCancelled
			case RunErrorEvent:
				ok = e.Code == CodeCancelled && wholeOut == OutcomeCancelled
			}
			if !ok {
				t.Fatalf("clean end after %#v, outcome %v", last, wholeOut)
			}
		case errors.Is(wholeErr, ErrRunFailed):
			if e, ok := last.(RunErrorEvent); !ok || e.Code == CodeCancelled || wholeOut != OutcomeFailed {
				t.Fatalf("failure %v after %#v", wholeErr, last)
			}
		case errors.Is(wholeErr, threads.ErrStreamTruncated):
			if wholeOut != OutcomeUnknown {
				t.Fatalf("truncated with outcome %v", wholeOut)
			}
		case errors.Is(wholeErr, threads.ErrStreamFailed), errors.Is(wholeErr, threads.ErrEventTooLarge):
			if wholeOut != OutcomeCancelled {
				t.Fatalf("%v with outcome %v", wholeErr, wholeOut)
			}
		default:
			t.Fatalf("unexpected error %v", wholeErr)
		}
		texts := map[string]string{}
		for _, e := range whole {
			if c, ok := e.(TextMessageContent); ok {
				texts[c.MessageID] += c.Delta
			}
			if e, ok := e.(RunErrorEvent); ok && redact.Contains(e.Message, fuzzKey) {
				t.Fatalf("the key in %q", e.Message)
			}
		}
		for id, want := range texts {
			if got, ok := s.Text(id); ok && got != want {
				t.Fatalf("message %q: %q, deltas %q", id, got, want)
			}
		}
		for _, err := range []error{wholeErr, splitErr} {
			if err != nil && redact.Contains(err.Error(), fuzzKey) {
				t.Fatalf("the key in %q", err)
			}
		}
		r := s.result()
		if r.Outcome != wholeOut {
			t.Fatalf("result outcome %v, stream %v", r.Outcome, wholeOut)
		}
	})
}
