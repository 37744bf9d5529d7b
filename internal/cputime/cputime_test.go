package cputime

import (
	"runtime"
	"testing"
)

// Work on the CPU shows as CPU time; a blocked goroutine's wait does not
// count on its thread.
func TestCountsWork(t *testing.T) {
	t.Parallel()
	spin := func() {
		x := 0
		for i := range 20_000_000 {
			x += i
		}
		runtime.KeepAlive(x)
	}
	p, ok, err := Process(spin)
	if err != nil {
		t.Fatal(err)
	}
	if p <= 0 {
		t.Fatalf("Process: %v for a busy loop", p)
	}
	th, ok2, err := Thread(spin)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !ok2 {
		t.Skip("CPU time is read on Linux only")
	}
	if th <= 0 {
		t.Fatalf("Thread: %v for a busy loop", th)
	}
}
