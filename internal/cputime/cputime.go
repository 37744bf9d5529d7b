// Package cputime measures the CPU time a piece of work takes, for the
// module's CPU-ratio tests and benchmarks: on a machine shared with other
// work, CPU time is a steadier measure than a duration, which includes
// waiting for a CPU. Only tests and benchmarks use it.
package cputime

import "time"

// Process returns the user and system CPU time the whole process spends
// while fn runs (its goroutines, a loopback server's, the garbage
// collector's). Where process CPU time is not at hand, it returns fn's
// duration and ok false.
func Process(fn func()) (d time.Duration, ok bool, err error) {
	return process(fn)
}

// Thread returns the user and system CPU time fn spends on the calling
// goroutine, locked to its thread for the call (garbage collection on
// other threads is left out). ok is false where per-thread CPU time is
// not at hand (off Linux): fn has not run then, and a caller comparing
// two measures should skip rather than compare wall times.
func Thread(fn func()) (d time.Duration, ok bool, err error) {
	return thread(fn)
}
