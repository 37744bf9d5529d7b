package threads_test

// Many streams at once: the memory and goroutines an open, idle stream
// costs, and 10,000 concurrent streams on one client. The server runs in
// its own process (this test binary, re-run as TestHelperHoldServer), on
// loopback: one process holding both ends of 10,000 connections needs more
// file descriptors than the usual limit.
//
//	go test -run '^$' -bench BenchmarkManyStreams -benchtime 1x .
//
// THREADS_MANY_STREAMS sets the number of streams (default 10,000).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
)

const holdServerEnv = "THREADS_HOLD_SERVER"

// TestHelperHoldServer is not a test: run with THREADS_HOLD_SERVER=1, it
// serves streams on loopback that send one snapshot and then hold until
// GET /release, then end with DONE. It prints its address on stdout and
// stops when stdin closes.
func TestHelperHoldServer(t *testing.T) {
	if os.Getenv(holdServerEnv) != "1" {
		t.Skip("a helper process for BenchmarkManyStreams")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var once sync.Once
	event := snapshotLine("msg_Hold0000.aaaaaa", "Hello, held stream", "STREAMING_RESPONSE")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/release" {
			once.Do(func() { close(release) })
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		w.Write(event)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: DONE\n\n")
	})}
	go srv.Serve(ln)
	fmt.Printf("%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
}

func startHoldServer(b *testing.B) (addr string, stop func()) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperHoldServer$")
	cmd.Env = append(os.Environ(), holdServerEnv+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(line), func() {
		stdin.Close()
		cmd.Wait()
	}
}

// liveHeap returns the live heap plus goroutine stacks, and the number of
// goroutines.
func liveHeap() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse, runtime.NumGoroutine()
}

// BenchmarkManyStreams opens N streams on one client, each read to its
// first snapshot and then left idle, reports the heap (with goroutine
// stacks) and goroutines per
// idle stream (beside raw net/http holding the same responses after their
// first event), then releases them all and requires every one to end
// cleanly.
func BenchmarkManyStreams(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("THREADS_MANY_STREAMS")); err == nil && v > 0 {
		n = v
	}
	for b.Loop() {
		for _, impl := range []string{"sdk", "baseline"} {
			addr, stop := startHoldServer(b)
			base := "http://" + addr
			tr := &http.Transport{MaxIdleConnsPerHost: n, DialContext: (&net.Dialer{}).DialContext}
			hc := &http.Client{Transport: tr}
			c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey), threads.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			heap0, g0 := liveHeap()
			streams := make([]*threads.Stream, n)
			raws := make([]*bufio.Reader, n)
			bodies := make([]io.ReadCloser, n)
			reqBody := []byte(`{"messageToAppend":{"role":"user","content":[{"type":"text","text":"x"}]}}`)
			var wg sync.WaitGroup
			work := make(chan int)
			errs := make(chan error, n)
			for range 64 {
				wg.Go(func() {
					for i := range work {
						if impl == "sdk" {
							s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
							if err != nil {
								errs <- err
								continue
							}
							if !s.Next() {
								errs <- fmt.Errorf("stream %d: no first snapshot: %v", i, s.Err())
								continue
							}
							streams[i] = s
							continue
						}
						req, _ := http.NewRequest(http.MethodPost, base+"/threads/advancestream", bytes.NewReader(reqBody))
						req.Header.Set("Authorization", "Bearer "+testKey)
						resp, err := hc.Do(req)
						if err != nil {
							errs <- err
							continue
						}
						br := bufio.NewReader(resp.Body)
						for {
							line, err := br.ReadSlice('\n')
							if err != nil {
								errs <- err
								break
							}
							if len(bytes.TrimSpace(line)) == 0 {
								break
							}
						}
						raws[i], bodies[i] = br, resp.Body
					}
				})
			}
			t0 := time.Now()
			for i := range n {
				work <- i
			}
			close(work)
			wg.Wait()
			opened := time.Since(t0)
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			heap1, g1 := liveHeap()
			b.ReportMetric(float64(int64(heap1)-int64(heap0))/float64(n), impl+"-idle-heap+stack-B/stream")
			b.ReportMetric(float64(g1-g0)/float64(n), impl+"-idle-goroutines/stream")
			b.ReportMetric(float64(opened.Milliseconds()), impl+"-open-ms")

			// Release every stream and read each to its end, all at once.
			if resp, err := http.Get(base + "/release"); err == nil {
				resp.Body.Close()
			} else {
				b.Fatal(err)
			}
			var done sync.WaitGroup
			completed := make(chan bool, n)
			for i := range n {
				done.Go(func() {
					if impl == "sdk" {
						s := streams[i]
						for s.Next() {
						}
						completed <- s.Err() == nil
						s.Close()
						return
					}
					_, err := baselineDecode(raws[i], nil)
					bodies[i].Close()
					completed <- err == nil
				})
			}
			done.Wait()
			close(completed)
			ok := 0
			for c := range completed {
				if c {
					ok++
				}
			}
			if ok != n {
				b.Fatalf("%s: %d of %d streams ended cleanly", impl, ok, n)
			}
			b.ReportMetric(float64(ok), impl+"-completed")
			tr.CloseIdleConnections()
			stop()
		}
	}
}
