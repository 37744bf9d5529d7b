package loopback

// The many-streams benchmarks of both stream packages (BenchmarkManyStreams
// in package threads, BenchmarkManyRunStreams in package runs): N streams
// on one client, each read to its first event and left idle, the live heap
// (with goroutine stacks) and the goroutines per idle stream, then all
// released at once and read to their end. The server runs in its own
// process (the test binary, re-run as a helper test): one process holding
// both ends of 10,000 connections needs more file descriptors than the
// usual limit.

import (
	"bufio"
	"bytes"
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
)

// Count is the number of streams of the many-streams benchmarks: THREADS_MANY_STREAMS, default 10,000.
func Count() int {
	if v, err := strconv.Atoi(os.Getenv("THREADS_MANY_STREAMS")); err == nil && v > 0 {
		return v
	}
	return 10_000
}

// Serve is the many-streams helper test's body: it serves, on loopback, every request
// but GET /release with first (flushed), then holds it until GET /release,
// then sends rest. It prints its address on stdout and returns when stdin
// closes.
func Serve(t *testing.T, first, rest []byte) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var once sync.Once
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/release" {
			once.Do(func() { close(release) })
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		w.Write(first)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write(rest)
	})}
	go srv.Serve(ln)
	fmt.Printf("%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
}

// Impl is one side of a many-streams benchmark.
type Impl struct {
	Name string
	// Open starts stream i and reads it to its first event.
	Open func(i int) error
	// Finish reads stream i to its end, closes it, and reports whether it
	// ended as it should.
	Finish func(i int) bool
	// Lossy: streams that fail to open or do not end cleanly are counted
	// (name-completed; the idle figures are per open stream), not a
	// failure: a baseline that is not the SDK's own code
	// (httputil.ReverseProxy loses a few of thousands under load).
	Lossy bool
}

// Start runs this test binary again as the helper test named test (run
// with env=1, it calls Serve) and returns its base URL, and the function
// that stops it.
func Start(b *testing.B, test, env string) (base string, stop func()) {
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$")
	cmd.Env = append(os.Environ(), env+"=1")
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
	return "http://" + strings.TrimSpace(line), func() {
		stdin.Close()
		cmd.Wait()
	}
}

// Client returns the HTTP client the streams of one side share: enough
// idle connections kept for all n.
func Client(n int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DialContext: (&net.Dialer{}).DialContext}}
}

// Run opens n streams with impl (64 at a time) against the server at base,
// reports the heap and goroutine stacks and the goroutines per idle stream
// and the time to open them all (name-idle-heap+stack-B/stream,
// name-idle-goroutines/stream, name-open-ms), releases them all at once
// and requires each to finish (name-completed).
func Run(b *testing.B, base string, n int, impl Impl) {
	heap0, g0 := liveHeap()
	var wg sync.WaitGroup
	work := make(chan int)
	errs := make(chan error, n)
	failed := make([]bool, n)
	for range 64 {
		wg.Go(func() {
			for i := range work {
				if err := impl.Open(i); err != nil {
					failed[i] = true
					errs <- fmt.Errorf("stream %d: %w", i, err)
				}
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
	open := n
	for err := range errs {
		if !impl.Lossy {
			b.Fatal(err)
		}
		open--
	}
	heap1, g1 := liveHeap()
	b.ReportMetric(float64(int64(heap1)-int64(heap0))/float64(open), impl.Name+"-idle-heap+stack-B/stream")
	b.ReportMetric(float64(g1-g0)/float64(open), impl.Name+"-idle-goroutines/stream")
	b.ReportMetric(float64(opened.Milliseconds()), impl.Name+"-open-ms")

	// Release every stream and read each to its end, all at once.
	resp, err := http.Get(base + "/release")
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	var done sync.WaitGroup
	completed := make(chan bool, n)
	for i := range n {
		if !failed[i] {
			done.Go(func() { completed <- impl.Finish(i) })
		}
	}
	done.Wait()
	close(completed)
	ok := 0
	for c := range completed {
		if c {
			ok++
		}
	}
	if ok != n && !impl.Lossy {
		b.Fatalf("%s: %d of %d streams ended cleanly", impl.Name, ok, n)
	}
	b.ReportMetric(float64(ok), impl.Name+"-completed")
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

// Stream is what the SDK's streams of both generations offer.
type Stream interface {
	Next() bool
	Err() error
	Close() error
}

// SDK is the SDK's side of a many-streams benchmark for n streams: each
// opened by open and read to its first event; at the end, read on to the
// stream's end, closed, and checked by ok with the number of events it
// delivered (the first included).
func SDK[S Stream](n int, open func() (S, error), ok func(s S, events int) bool) Impl {
	streams := make([]S, n)
	return Impl{
		Name: "sdk",
		Open: func(i int) error {
			s, err := open()
			if err != nil {
				return err
			}
			if !s.Next() {
				return fmt.Errorf("no first event: %w", s.Err())
			}
			streams[i] = s
			return nil
		},
		Finish: func(i int) bool {
			s, events := streams[i], 1
			for s.Next() {
				events++
			}
			defer s.Close()
			return s.Err() == nil && ok(s, events)
		},
	}
}

// Raw is raw net/http's side for n streams: each a POST of reqBody to url
// with header, read with bufio to the blank line that ends its first
// event; at the end, read on with finish, which reports whether the rest
// was what it should be.
func Raw(hc *http.Client, n int, url string, header http.Header, reqBody []byte, finish func(r *bufio.Reader) bool) Impl {
	raws := make([]*bufio.Reader, n)
	bodies := make([]io.ReadCloser, n)
	return Impl{
		Name: "baseline",
		Open: func(i int) error {
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(reqBody))
			for k, v := range header {
				req.Header[k] = v
			}
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			raws[i], bodies[i] = bufio.NewReader(resp.Body), resp.Body
			for {
				line, err := raws[i].ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimSpace(line)) == 0 {
					return nil
				}
			}
		},
		Finish: func(i int) bool {
			defer bodies[i].Close()
			return finish(raws[i])
		},
	}
}

// Many runs a many-streams benchmark: each side (sdk and raw, made for
// the client and the base URL given) against a server process of its own
// (the helper test named test, run with env=1), since one side's release
// would let the other's streams through.
func Many(b *testing.B, test, env string, sdk, raw func(hc *http.Client, base string, n int) Impl) {
	n := Count()
	for _, side := range []func(*http.Client, string, int) Impl{sdk, raw} {
		base, stop := Start(b, test, env)
		hc := Client(n)
		Run(b, base, n, side(hc, base, n))
		hc.CloseIdleConnections()
		stop()
	}
}
