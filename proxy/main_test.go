package proxy_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any of them leaves a goroutine
// running: the relay's reader, a server-side tool, a limiter's wait.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
