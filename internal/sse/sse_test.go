package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func collect(t *testing.T, body string, max int) ([]Event, error) {
	t.Helper()
	var evs []Event
	for ev, err := range New(strings.NewReader(body), max).All() {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestReaderEventsAndErrorLine(t *testing.T) {
	t.Parallel()
	evs, err := collect(t, "event: x\ndata: a\ndata: b\n\nerror: boom\n\ndata: DONE\n\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Type: "x", Data: "a\nb"}, {Type: ErrorEvent, Data: "boom"}, {Data: "DONE"}}
	if len(evs) != len(want) {
		t.Fatalf("got %q, want %q", evs, want)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Errorf("event %d: got %q, want %q", i, evs[i], want[i])
		}
	}
}

func TestReaderMapsErrors(t *testing.T) {
	t.Parallel()
	if _, err := collect(t, "data: "+strings.Repeat("x", 100)+"\n\n", 50); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized event: %v, want ErrTooLarge", err)
	}
	// A body cut inside a line: go-sse's own sentinel becomes the standard one.
	evs, err := collect(t, "data: a\n\ndata: {\"cut", 0)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(evs) != 1 {
		t.Errorf("cut body: %d events, %v; want 1 and io.ErrUnexpectedEOF", len(evs), err)
	}
}

func TestReaderEnded(t *testing.T) {
	t.Parallel()
	r := New(strings.NewReader("data: a\n\n"), 0)
	for range r.All() {
	}
	if !r.Ended() {
		t.Error("Ended is false after the body's end")
	}
}

// reads gives its chunks one per Read, and counts the Reads.
type reads struct {
	chunks []string
	n      int
}

func (r *reads) Read(p []byte) (int, error) {
	r.n++
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.chunks[0])
	if r.chunks[0] = r.chunks[0][k:]; r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return k, nil
}

// The parser runs over the events that have arrived, batch by batch, and
// the batches change nothing of what it makes of them: events split across
// reads, a read of comments alone (a keep-alive: no event, and not the
// body's end), a byte order mark that starts a later read (dropped only at
// the stream's start, as go-sse drops it), CRLF line ends split between
// reads, events larger than go-sse's initial 4 KiB buffer, and more events
// at once than one batch holds.
func TestReaderBatches(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 10000)
	many := strings.Repeat("data: m\n\n", 3*batchMax)
	for _, tc := range []struct {
		chunks []string
		want   []Event
	}{
		{[]string{"data: a\n\nda", "ta: b\n", "\n"}, []Event{{Data: "a"}, {Data: "b"}}},
		{[]string{"data: a\n\n", ": ping\n\n", ": ping\n\n", "data: b\n\n"}, []Event{{Data: "a"}, {Data: "b"}}},
		{[]string{"\xEF\xBB\xBFdata: a\n\n", "\xEF\xBB\xBFdata: b\n\n", "data: c\n\n"}, []Event{{Data: "a"}, {Data: "c"}}},
		{[]string{"data: a\r", "\n\r", "\nevent: e\r\ndata: b\r\n\r\n"}, []Event{{Data: "a"}, {Type: "e", Data: "b"}}},
		{[]string{"data: " + big[:5000] + "\n\ndata: " + big + "\n\ndata: s\n\n"}, []Event{{Data: big[:5000]}, {Data: big}, {Data: "s"}}},
		{[]string{many}, nil},
	} {
		r := New(&reads{chunks: append([]string(nil), tc.chunks...)}, 0)
		var got []Event
		for {
			ev, err, ok := r.Next()
			if err != nil {
				t.Fatalf("%q: %v", tc.chunks, err)
			}
			if !ok {
				break
			}
			got = append(got, ev)
		}
		if tc.want == nil {
			for range 3 * batchMax {
				tc.want = append(tc.want, Event{Data: "m"})
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.chunks, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: event %d is %q, want %q", tc.chunks, i, got[i], tc.want[i])
			}
		}
	}
}

// Next reads from the body only when it holds no event: one read that
// brought several events gives them all before the next read (which would
// block on a live stream until the server sends more).
func TestReaderReadsOnlyWhenEmpty(t *testing.T) {
	t.Parallel()
	src := &reads{chunks: []string{"data: a\n\ndata: b\n\ndata: c\n\n", "data: d\n\n"}}
	r := New(src, 0)
	for _, want := range []string{"a", "b", "c"} {
		ev, err, ok := r.Next()
		if !ok || err != nil || ev.Data != want {
			t.Fatalf("got %q %v %v, want %q", ev.Data, err, ok, want)
		}
		if src.n != 1 || !r.Buffered() && want != "c" {
			t.Fatalf("after %q: %d reads, buffered %v", want, src.n, r.Buffered())
		}
	}
	if ev, _, _ := r.Next(); ev.Data != "d" || src.n != 2 {
		t.Errorf("got %q after %d reads", ev.Data, src.n)
	}
}
