package cputime

import (
	"runtime"
	"testing"
)

// Work on the CPU shows as CPU time, for the process and for the thread.
func TestCountsWork(t *testing.T) {
	t.Parallel()
	spin := func() {
		x := 0
		for i := range 20_000_000 {
			x += i
		}
		runtime.KeepAlive(x)
	}
	if p := Process(t, spin); p <= 0 {
		t.Fatalf("Process: %v for a busy loop", p)
	}
	if th := Thread(t, spin); th <= 0 {
		t.Fatalf("Thread: %v for a busy loop", th)
	}
}
