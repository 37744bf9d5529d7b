package threads_test

// Many streams at once: the memory and goroutines an open, idle stream
// costs, and 10,000 concurrent streams on one client (the harness:
// internal/loopback).
//
//	go test -run '^$' -bench BenchmarkManyStreams -benchtime 1x .
//
// THREADS_MANY_STREAMS sets the number of streams (default 10,000).

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/loopback"
)

const holdServerEnv = "THREADS_HOLD_SERVER"

// TestHelperHoldServer is not a test: run with THREADS_HOLD_SERVER=1, it
// serves streams on loopback that send one snapshot and then hold until
// GET /release, then end with DONE (loopback.Serve).
func TestHelperHoldServer(t *testing.T) {
	if os.Getenv(holdServerEnv) != "1" {
		t.Skip("a helper process for BenchmarkManyStreams")
	}
	loopback.Serve(t, snapshotLine("msg_Hold0000.aaaaaa", "Hello, held stream", "STREAMING_RESPONSE"), []byte("data: DONE\n\n"))
}

// BenchmarkManyStreams opens N streams on one client, each read to its
// first snapshot and then left idle, reports the heap (with goroutine
// stacks) and goroutines per idle stream (beside raw net/http holding the
// same responses after their first event), then releases them all and
// requires every one to end cleanly.
func BenchmarkManyStreams(b *testing.B) {
	reqBody := []byte(`{"messageToAppend":{"role":"user","content":[{"type":"text","text":"x"}]}}`)
	for b.Loop() {
		loopback.Many(b, "TestHelperHoldServer", holdServerEnv, func(hc *http.Client, base string, n int) loopback.Impl {
			c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey), threads.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			return loopback.SDK(n, func() (*threads.Stream, error) {
				return c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
			}, func(*threads.Stream, int) bool { return true })
		}, func(hc *http.Client, base string, n int) loopback.Impl {
			return loopback.Raw(hc, n, base+"/threads/advancestream", http.Header{"Authorization": {"Bearer " + testKey}}, reqBody, func(r *bufio.Reader) bool {
				_, err := baselineDecode(r, nil)
				return err == nil
			})
		})
	}
}
