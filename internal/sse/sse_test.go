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
