package redisstore_test

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"go.uber.org/goleak"
)

// TestMain stops the package's redis-server after the tests, and fails
// them if a goroutine is left running: a Handler's lease renewal, a
// relay, a blocked log read.
func TestMain(m *testing.M) {
	// go-redis logs each failed dial; the outage test makes many.
	redis.SetLogger(quiet{})
	code := m.Run()
	if shared.srv != nil {
		shared.srv.stop()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
