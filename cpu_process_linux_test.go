//go:build linux

package threads_test

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the user and system CPU time the whole process spends
// while fn runs (its goroutines, the loopback server's, the garbage
// collector's): on a machine shared with other work it is a steadier
// measure than fn's duration, which includes waiting for a CPU.
func processCPU(t testing.TB, fn func()) time.Duration {
	t.Helper()
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		t.Fatal(err)
	}
	fn()
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		t.Fatal(err)
	}
	tv := func(v syscall.Timeval) time.Duration { return time.Duration(v.Nano()) }
	return tv(after.Utime) + tv(after.Stime) - tv(before.Utime) - tv(before.Stime)
}
