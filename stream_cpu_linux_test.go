//go:build linux

package threads_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the user and system CPU time that fn spends on this
// goroutine's thread (garbage collection on other threads is left out).
func threadCPU(t testing.TB, fn func()) time.Duration {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1 // RUSAGE_THREAD
	var before, after syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &before); err != nil {
		t.Fatal(err)
	}
	fn()
	if err := syscall.Getrusage(rusageThread, &after); err != nil {
		t.Fatal(err)
	}
	tv := func(v syscall.Timeval) time.Duration { return time.Duration(v.Nano()) }
	return tv(after.Utime) + tv(after.Stime) - tv(before.Utime) - tv(before.Stime)
}
