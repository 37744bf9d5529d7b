//go:build !linux

package threads_test

import (
	"testing"
	"time"
)

// threadCPU approximates fn's CPU time by its duration where per-thread
// CPU time is not at hand.
func threadCPU(t testing.TB, fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}
