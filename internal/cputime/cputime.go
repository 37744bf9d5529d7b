// Package cputime measures the CPU time a piece of work takes, for the
// module's CPU-ratio tests and paired benchmarks: on a machine shared with
// other work, CPU time is a steadier measure than a duration, which
// includes waiting for a CPU. Only tests and benchmarks use it.
package cputime

import (
	"runtime"
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

// Paired runs the SDK, the baseline and, when floor is not nil, the floor
// (the same request read and discarded) back to back in each iteration of
// b, in every order in turn, so that load from other processes falls on
// all alike, and reports per stream each side's wall time (name-ms/stream)
// and process CPU (name-cpu-ms/stream), and the ratios a bar is read from:
// the baseline's CPU over the SDK's (x-cpu) and its wall time over the
// SDK's (x-throughput); with a floor, the baseline's CPU over the floor's
// (floor-x-cpu) and the same ratio as x-cpu with the floor taken from both
// (x-cpu-over-floor: decoding alone).
func Paired(b *testing.B, sdk, baseline, floor func()) {
	b.Helper()
	type side struct {
		name      string
		run       func()
		wall, cpu time.Duration
	}
	sides := []*side{{name: "sdk", run: sdk}, {name: "baseline", run: baseline}}
	if floor != nil {
		sides = append(sides, &side{name: "floor", run: floor})
	}
	// Every order in turn: each side runs after each other side as often
	// (what the machine's other work does to a side depends on when it
	// runs).
	orders := [][]int{{0, 1}, {1, 0}}
	if len(sides) == 3 {
		orders = [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	}
	i := 0
	for b.Loop() {
		for _, k := range orders[i%len(orders)] {
			s := sides[k]
			// Each side starts from a collected heap (not measured), so
			// that the collections it pays for are those its own
			// allocations make due, not the garbage of the side before it.
			runtime.GC()
			s.cpu += Process(b, func() {
				t := time.Now()
				s.run()
				s.wall += time.Since(t)
			})
		}
		i++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / 1e6 }
	for _, s := range sides {
		b.ReportMetric(per(s.wall), s.name+"-ms/stream")
		b.ReportMetric(per(s.cpu), s.name+"-cpu-ms/stream")
	}
	s, base := sides[0], sides[1]
	b.ReportMetric(float64(base.cpu)/float64(s.cpu), "x-cpu")
	b.ReportMetric(float64(base.wall)/float64(s.wall), "x-throughput")
	if floor != nil {
		f := sides[2]
		b.ReportMetric(float64(base.cpu)/float64(f.cpu), "floor-x-cpu")
		b.ReportMetric(float64(base.cpu-f.cpu)/float64(s.cpu-f.cpu), "x-cpu-over-floor")
	}
}
