// Package cputime measures the CPU time a piece of work takes, for the
// module's CPU-ratio tests and paired benchmarks: on a machine shared with
// other work, CPU time is a steadier measure than a duration, which
// includes waiting for a CPU. Only tests and benchmarks use it.
package cputime

import (
	"testing"
	"time"
)

// Process returns the user and system CPU time the whole process spends
// while fn runs (its goroutines, a loopback server's, the garbage
// collector's); fn's duration where process CPU time is not at hand. A
// failure to read it fails t.
func Process(t testing.TB, fn func()) time.Duration {
	t.Helper()
	d, err := process(fn)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Thread returns the user and system CPU time fn spends on the calling
// goroutine, locked to its thread for the call (garbage collection on
// other threads is left out). Where per-thread CPU time is not at hand
// (off Linux) it skips t without running fn: wall time would measure the
// machine's load as much as fn, and a ratio of two wall times can fail on
// a busy machine.
func Thread(t testing.TB, fn func()) time.Duration {
	t.Helper()
	d, ok, err := thread(fn)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("per-thread CPU time is read on Linux only")
	}
	return d
}
