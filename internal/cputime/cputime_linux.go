//go:build linux

package cputime

import (
	"runtime"
	"syscall"
	"time"
)

const rusageThread = 1 // RUSAGE_THREAD, which package syscall does not name

func process(fn func()) (time.Duration, error) {
	return measure(syscall.RUSAGE_SELF, fn)
}

func thread(fn func()) (time.Duration, bool, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d, err := measure(rusageThread, fn)
	return d, err == nil, err
}

func measure(who int, fn func()) (time.Duration, error) {
	var before, after syscall.Rusage
	if err := syscall.Getrusage(who, &before); err != nil {
		return 0, err
	}
	fn()
	if err := syscall.Getrusage(who, &after); err != nil {
		return 0, err
	}
	tv := func(v syscall.Timeval) time.Duration { return time.Duration(v.Nano()) }
	return tv(after.Utime) + tv(after.Stime) - tv(before.Utime) - tv(before.Stime), nil
}
