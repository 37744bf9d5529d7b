package threads_test

import (
	"testing"
	"time"

	"github.com/threadsapi/threads-go/internal/cputime"
)

// processCPU returns the CPU time the whole process spends while fn runs
// (fn's duration where process CPU time is not at hand).
func processCPU(t testing.TB, fn func()) time.Duration {
	t.Helper()
	d, _, err := cputime.Process(fn)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// threadCPU returns the CPU time fn spends on this goroutine's thread. It
// skips the test where per-thread CPU time is not at hand: wall time would
// measure the machine's load as much as fn, and a ratio of two wall times
// can fail on a busy machine.
func threadCPU(t testing.TB, fn func()) time.Duration {
	t.Helper()
	d, ok, err := cputime.Thread(fn)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("per-thread CPU time is read on Linux only")
	}
	return d
}
