//go:build !linux

package cputime

import "time"

func process(fn func()) (time.Duration, error) {
	start := time.Now()
	fn()
	return time.Since(start), nil
}

func thread(func()) (time.Duration, bool, error) { return 0, false, nil }
