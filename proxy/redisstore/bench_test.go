package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/proxy/redisstore"
	"github.com/threadsapi/threads-go/runs"
)

// benchEvent is a run event of a typical size: a text delta of the
// service's, about 160 bytes of JSON.
var benchEvent = []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_VlqwIW0I.3375b5","delta":"` + strings.Repeat("word ", 12) + `","timestamp":1796163295939}`)

// BenchmarkRunLog measures a detached run's log on each store, with one
// page tailing it (ReadLog with a wait, as the resume route does):
//   - mode=throughput: the owner appends as fast as it can; events/s is
//     what one instance's log takes, the page reading along;
//   - mode=latency: one event at a time, the next once the page has read
//     it; p50 and p99 are the time from an event's Append to the page's
//     read: the latency the log adds to an event.
//
// The baseline (store=channel) is the hand-off from a reading goroutine
// to a writing one that a relay without a log does.
func BenchmarkRunLog(b *testing.B) {
	stores := []struct {
		name string
		new  func(b *testing.B) logStore
	}{
		{"channel", func(*testing.B) logStore { return newChanLog() }},
		{"memory", func(*testing.B) logStore { return storeLog{proxy.NewMemoryStore(0, 0)} }},
		{"redis", func(b *testing.B) logStore {
			s, err := redisstore.New(sharedServer(b).client(b))
			if err != nil {
				b.Fatal(err)
			}
			return storeLog{s}
		}},
	}
	for _, mode := range []string{"throughput", "latency"} {
		for _, st := range stores {
			b.Run("mode="+mode+"/store="+st.name, func(b *testing.B) {
				s := st.new(b)
				ctx := context.Background()
				key := "bench-" + time.Now().Format("150405.000000") + ":v1:log:u:" + strings.ReplaceAll(b.Name(), "/", "-")
				defer func() { _ = s.Delete(ctx, key) }()
				first, err := s.Append(ctx, key, benchEvent, proxy.RunLogLength, time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				sent := make([]time.Time, b.N)
				lat := make([]time.Duration, 0, b.N)
				got := make(chan struct{}, 1)
				done := make(chan error, 1)
				go func() {
					after := first
					for len(lat) < b.N {
						es, whole, err := s.ReadLog(ctx, key, after, 256, time.Second)
						if err != nil || !whole {
							done <- err
							return
						}
						now := time.Now()
						for range es {
							lat = append(lat, now.Sub(sent[len(lat)]))
						}
						if len(es) > 0 {
							after = es[len(es)-1].ID
							if mode == "latency" {
								got <- struct{}{}
							}
						}
					}
					done <- nil
				}()
				b.ResetTimer()
				for i := range b.N {
					sent[i] = time.Now()
					if _, err := s.Append(ctx, key, benchEvent, proxy.RunLogLength, time.Minute); err != nil {
						b.Fatal(err)
					}
					if mode == "latency" {
						<-got
					}
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
				if mode == "latency" {
					b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
					b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
				}
			})
		}
	}
}

// logStore is the part of a store the benchmark uses.
type logStore interface {
	Append(ctx context.Context, key string, value []byte, maxLen int, ttl time.Duration) (string, error)
	ReadLog(ctx context.Context, key, after string, n int, wait time.Duration) ([]proxy.LogEntry, bool, error)
	Delete(ctx context.Context, key string) error
}

type storeLog struct{ proxy.Store }

// chanLog is the baseline: events handed over a channel, no log.
type chanLog struct {
	ch      chan []byte
	started bool
}

func newChanLog() *chanLog { return &chanLog{ch: make(chan []byte, 256)} }

func (c *chanLog) Append(_ context.Context, _ string, v []byte, _ int, _ time.Duration) (string, error) {
	if !c.started {
		c.started = true // the log's first entry: a channel needs none
		return "", nil
	}
	c.ch <- v
	return "", nil
}

func (c *chanLog) ReadLog(ctx context.Context, _, _ string, n int, wait time.Duration) ([]proxy.LogEntry, bool, error) {
	select {
	case v := <-c.ch:
		out := []proxy.LogEntry{{Value: v}}
		for len(out) < n {
			select {
			case v := <-c.ch:
				out = append(out, proxy.LogEntry{Value: v})
				continue
			default:
			}
			break
		}
		return out, true, nil
	case <-time.After(wait):
		return nil, true, nil
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

func (c *chanLog) Delete(context.Context, string) error { return nil }

// BenchmarkRelayDetachedLatency is the latency a detached relay adds to
// each event, end to end over loopback: an upstream in the service's /v1
// run format writes one text delta at a time, the next once the browser
// has read the last, and the browser reads it through proxy.Relay of a
// backend of its own, three ways in turn, each iteration one event
// through each: side=plain (Relay, no log), side=memory and side=redis
// (Relay under Handler.Detach: the owner appends each event to the
// store's log, the browser is served from the log, one ReadLog round trip
// per batch). p50/p99 are from the upstream's write to the browser's read;
// added-p50 is the side's p50 over the plain side's, in the same run.
func BenchmarkRelayDetachedLatency(b *testing.B) {
	up := newSteppedUpstream(b)
	client, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(up.srv.URL), threads.WithAPIKey("sk-bench"))
	if err != nil {
		b.Fatal(err)
	}
	rs, err := redisstore.New(sharedServer(b).client(b))
	if err != nil {
		b.Fatal(err)
	}
	user := func(*http.Request) (proxy.User, error) { return proxy.User{Key: "user-1"}, nil }
	prefix := "bench-" + time.Now().Format("150405.000000")
	sides := []*latencySide{{name: "plain"}, {name: "memory", store: proxy.NewMemoryStore(0, 0)}, {name: "redis", store: rs}}
	for _, sd := range sides {
		if sd.store != nil {
			if sd.h, err = proxy.New(client, user, proxy.WithDetachedRuns(time.Minute), proxy.WithStore(sd.store), proxy.WithStoreKeyPrefix(prefix)); err != nil {
				b.Fatal(err)
			}
		}
		sd.start(b, client, up)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, sd := range sides {
			sd.event(b)
		}
	}
	b.StopTimer()
	for _, sd := range sides {
		sd.finish(b)
	}
	plain := pct(sides[0].lat, 50)
	for _, sd := range sides {
		b.ReportMetric(float64(pct(sd.lat, 50).Nanoseconds())/1e3, sd.name+"-p50-µs")
		b.ReportMetric(float64(pct(sd.lat, 99).Nanoseconds())/1e3, sd.name+"-p99-µs")
		if sd.store != nil {
			b.ReportMetric(float64((pct(sd.lat, 50)-plain).Nanoseconds())/1e3, sd.name+"-added-p50-µs")
		}
	}
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// latencySide is one way of relaying in BenchmarkRelayDetachedLatency: a
// backend (Relay, detached by h when h is set) and its browser's run.
type latencySide struct {
	name  string
	store proxy.Store
	h     *proxy.Handler
	srv   *httptest.Server
	body  io.ReadCloser
	rd    *bufio.Reader
	step  chan struct{}
	lat   []time.Duration
}

func (sd *latencySide) start(b *testing.B, client *threads.Client, up *steppedUpstream) {
	rc := runs.New(client).ForUser("user-1")
	sd.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var opts []proxy.RelayOption
		if sd.h != nil {
			var detach proxy.RelayOption
			ctx, detach = sd.h.Detach(r, proxy.User{Key: "user-1"})
			opts = append(opts, detach)
		}
		s, err := rc.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		_, _ = proxy.Relay(w, r, s, opts...)
	}))
	resp, err := http.Post(sd.srv.URL, "application/json", nil)
	if err != nil {
		b.Fatal(err)
	}
	sd.body, sd.rd, sd.step = resp.Body, bufio.NewReader(resp.Body), <-up.started
	if ev := readEvent(b, sd.rd); !strings.Contains(ev, "RUN_STARTED") {
		b.Fatalf("%s: first event %q", sd.name, ev)
	}
}

// event has the upstream write one event, and times it to the browser.
func (sd *latencySide) event(b *testing.B) {
	t0 := time.Now()
	sd.step <- struct{}{}
	if ev := readEvent(b, sd.rd); !strings.Contains(ev, "TEXT_MESSAGE_CONTENT") {
		b.Fatalf("%s: %q", sd.name, ev)
	}
	sd.lat = append(sd.lat, time.Since(t0))
}

func (sd *latencySide) finish(b *testing.B) {
	close(sd.step)
	if _, err := io.Copy(io.Discard, sd.body); err != nil {
		b.Fatal(err)
	}
	sd.body.Close()
	if sd.h != nil {
		if err := sd.h.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	sd.srv.Close()
}

// readEvent reads one SSE event's data (comments and id: lines skipped).
func readEvent(b *testing.B, rd *bufio.Reader) string {
	var data string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		switch {
		case line == "\n" && data != "":
			return data
		case strings.HasPrefix(line, "data: "):
			data += line[len("data: "):]
		}
	}
}

// steppedUpstream answers each run with RUN_STARTED, then one text delta
// per value on its step channel (sent on started), then RUN_FINISHED
// once the channel is closed.
type steppedUpstream struct {
	srv     *httptest.Server
	started chan chan struct{}
}

func newSteppedUpstream(b *testing.B) *steppedUpstream {
	up := &steppedUpstream{started: make(chan chan struct{}, 8)}
	var n atomic.Int64
	up.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		thread, run := fmt.Sprintf("thr_bench%d", i), fmt.Sprintf("run_bench%d", i)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Thread-Id", thread)
		w.Header().Set("X-Run-Id", run)
		w.WriteHeader(http.StatusCreated)
		rc := http.NewResponseController(w)
		write := func(ev string) {
			_, _ = io.WriteString(w, "data: "+ev+"\n\n")
			_ = rc.Flush()
		}
		write(`{"type":"RUN_STARTED","threadId":"` + thread + `","runId":"` + run + `","timestamp":1796163295939}`)
		step := make(chan struct{})
		up.started <- step
		for range step {
			write(string(benchEvent))
		}
		write(`{"type":"RUN_FINISHED","threadId":"` + thread + `","runId":"` + run + `","timestamp":1796163295939}`)
	}))
	b.Cleanup(up.srv.Close)
	return up
}
