//go:build !linux

package runs

import (
	"testing"
	"time"
)

// processCPU approximates fn's CPU time by its duration where process CPU
// time is not at hand.
func processCPU(t testing.TB, fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}
