package proxy_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/cputime"
	"github.com/threadsapi/threads-go/internal/loopback"
	"github.com/threadsapi/threads-go/proxy"
)

const benchKey = "sk-bench-relay-key"

// relayPair is a browser's run through the Handler and through the plain
// alternative, httputil.ReverseProxy that sets the key and the end user,
// in front of the same upstream.
type relayPair struct {
	handler, reverse, upstream *httptest.Server
}

func newRelayPair(b testing.TB, upstream *httptest.Server, hc *http.Client) *relayPair {
	opts := []threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(upstream.URL), threads.WithAPIKey(benchKey)}
	if hc != nil {
		opts = append(opts, threads.WithHTTPClient(hc))
	}
	c, err := threads.NewClient(opts...)
	if err != nil {
		b.Fatal(err)
	}
	h, err := proxy.New(c, func(*http.Request) (proxy.User, error) { return proxy.User{Key: "user-1"}, nil })
	if err != nil {
		b.Fatal(err)
	}
	target, _ := url.Parse(upstream.URL)
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Header.Set("X-Api-Key", benchKey)
		r.Out.Header.Set("X-User-Key", "user-1")
	}}
	if hc != nil {
		rp.Transport = hc.Transport
	}
	return &relayPair{handler: httptest.NewServer(h), reverse: httptest.NewServer(rp), upstream: upstream}
}

func (p *relayPair) Close() {
	p.handler.Close()
	p.reverse.Close()
}

const benchRunBody = `{"message":{"role":"user","content":[{"type":"text","text":"weather in Lisbon?"}]}}`

// BenchmarkRelayPaired is a browser reading a 10,000-delta /v1 run (the
// service's wire format, 1.2 MB, written at once by a loopback upstream)
// through proxy.Handler (sdk) and through httputil.ReverseProxy
// (baseline), back to back in each iteration, in turns (cputime.Paired),
// with the floor (the upstream read directly) beside. The bar is read
// from x-cpu: ReverseProxy's process CPU over the Handler's, at least
// 0.25 (the Handler within 4x) in every round. Both relay the same bytes
// (checked before the rounds).
//
//	go test -c -o /tmp/proxy.test ./proxy
//	for r in 1 2 3 4 5; do (cd proxy && /tmp/proxy.test -test.run '^$' -test.bench 'BenchmarkRelayPaired' -test.benchtime 40x); done
func BenchmarkRelayPaired(b *testing.B) {
	body := loopback.DeltaRun(10_000)
	events := bytes.Count(body, []byte("data: "))
	up := loopback.Body(body)
	defer up.Close()
	p := newRelayPair(b, up, nil)
	defer p.Close()
	header := http.Header{"Cookie": {"session=s"}}
	for _, base := range []string{p.handler.URL, p.reverse.URL} {
		if got := fetchRun(b, base, header); !bytes.Equal(got, body) {
			b.Fatalf("%s relays %d bytes, not the upstream's %d", base, len(got), len(body))
		}
	}
	read := loopback.Discard(events)
	path := "/v1/threads/runs"
	cputime.Paired(b,
		loopback.Post(b, p.handler.URL+path, header, []byte(benchRunBody), events, read),
		loopback.Post(b, p.reverse.URL+path, header, []byte(benchRunBody), events, read),
		loopback.Post(b, up.URL+path, header, []byte(benchRunBody), events, read))
}

// BenchmarkRelayAllocs is the same run through each side alone, with the
// process's allocations per relayed event (allocs/event: the Handler's
// bar is at most 3) and bytes per event.
//
//	for r in 1 2 3; do (cd proxy && /tmp/proxy.test -test.run '^$' -test.bench 'BenchmarkRelayAllocs' -test.benchtime 40x -test.benchmem); done
func BenchmarkRelayAllocs(b *testing.B) {
	body := loopback.DeltaRun(10_000)
	events := bytes.Count(body, []byte("data: "))
	up := loopback.Body(body)
	defer up.Close()
	p := newRelayPair(b, up, nil)
	defer p.Close()
	header := http.Header{"Cookie": {"session=s"}}
	for _, side := range []struct{ name, base string }{{"handler", p.handler.URL}, {"reverseproxy", p.reverse.URL}} {
		b.Run("impl="+side.name, func(b *testing.B) {
			run := loopback.Post(b, side.base+"/v1/threads/runs", header, []byte(benchRunBody), events, loopback.Discard(events))
			run() // connections made, buffers grown
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			n := 0
			for b.Loop() {
				run()
				n++
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(n*events), "allocs/event")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(n*events), "B/event")
		})
	}
}

// fetchRun returns the body of one run relayed from base.
func fetchRun(b testing.TB, base string, header http.Header) []byte {
	req, _ := http.NewRequest("POST", base+"/v1/threads/runs", strings.NewReader(benchRunBody))
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	return got
}

const holdRelayServerEnv = "THREADS_HOLD_RELAY_SERVER"

// TestHelperHoldRelayServer is not a test: run with
// THREADS_HOLD_RELAY_SERVER=1, it is the upstream of BenchmarkManyRelays
// (loopback.Serve): each run sends RUN_STARTED, holds until GET /release,
// then sends the rest of a 10-delta run.
func TestHelperHoldRelayServer(t *testing.T) {
	if os.Getenv(holdRelayServerEnv) != "1" {
		t.Skip("a helper process for BenchmarkManyRelays")
	}
	run := loopback.DeltaRun(10)
	first := bytes.Index(run, []byte("\n\n")) + 2
	loopback.Serve(t, run[:first], run[first:])
}

// BenchmarkManyRelays holds N relayed runs open at once (THREADS_MANY_STREAMS,
// default 10,000), each read by its browser to its first event and then
// idle upstream, through proxy.Handler and through httputil.ReverseProxy
// (each side against an upstream process of its own), and reports the
// live heap with goroutine stacks and the goroutines per idle relay
// (loopback.Run's metrics: sdk- is the Handler, baseline- ReverseProxy);
// then releases them all and requires every run through the Handler to
// complete (ReverseProxy loses a few of thousands, "read error during body
// copy: use of closed network connection": counted, not a failure). Each relay
// holds three of the process's file descriptors (the browser's, the
// front's, the upstream's): the benchmark raises the soft limit to the
// hard one and skips, saying so, when that is below four per relay.
//
//	(cd proxy && /tmp/proxy.test -test.run '^$' -test.bench BenchmarkManyRelays -test.benchtime 1x)
func BenchmarkManyRelays(b *testing.B) {
	n := loopback.Count()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Skip("cannot read RLIMIT_NOFILE:", err)
	}
	if need := uint64(4 * n); lim.Max < need {
		b.Skipf("%d open relays need about %d file descriptors; the hard limit is %d (raise it, or set THREADS_MANY_STREAMS lower)", n, need, lim.Max)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			b.Skip("cannot raise RLIMIT_NOFILE:", err)
		}
	}
	body := loopback.DeltaRun(10)
	events := bytes.Count(body, []byte("data: "))
	finish := func(r *bufio.Reader) bool {
		rest, err := io.ReadAll(r)
		return err == nil && bytes.Count(rest, []byte("data: "))+1 == events
	}
	header := http.Header{"Cookie": {"session=s"}, "Content-Type": {"application/json"}}
	for b.Loop() {
		for _, side := range []string{"baseline", "sdk"} {
			base, stop := loopback.Start(b, "TestHelperHoldRelayServer", holdRelayServerEnv)
			up := httptest.NewUnstartedServer(nil)
			up.URL = base // the helper process serves it
			upstream := loopback.Client(n)
			p := newRelayPair(b, up, upstream)
			front := p.handler.URL
			if side == "baseline" {
				front = p.reverse.URL
			}
			browser := loopback.Client(n)
			impl := loopback.Raw(browser, n, front+"/v1/threads/runs", header, []byte(benchRunBody), finish)
			impl.Name, impl.Lossy = side, side == "baseline"
			loopback.Run(b, base, n, impl)
			browser.CloseIdleConnections()
			p.Close()
			upstream.CloseIdleConnections()
			stop()
		}
	}
}
