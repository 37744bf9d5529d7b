package redisstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/proxy/redisstore"
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
