package runs

// The run stream's decoding beside a baseline measured in the same run on
// the same bytes: what a careful hand-written client does (bufio lines,
// encoding/json into one struct with every member the events carry, then
// the CUSTOM value into its own struct). Run the rounds interleaved:
//
//	go test -c -o /tmp/runs.test ./runs
//	for r in 1 2 3 4 5; do /tmp/runs.test -test.run '^$' -test.benchmem -test.bench 'BenchmarkRunStreamDecode/.*/impl=(sdk|baseline)$'; done

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"runtime"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/cputime"
	"github.com/threadsapi/threads-go/internal/loopback"
)

// benchMix is the recorded event mix: the run captures of each family
// (text, tool call, text then tool call, component, two parallel calls,
// failure), each stream ending at its terminal event, repeated.
func benchMix(b *testing.B) (streams [][]byte, events int) {
	for _, name := range []string{"26", "30", "39", "43", "52", "87", "118", "129", "132", "123"} {
		body := loadCapture(b, name).respBody
		streams = append(streams, body)
		events += bytes.Count(body, []byte("\ndata: ")) + 1
	}
	return streams, events
}

type baselineEvent struct {
	Type            string          `json:"type"`
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	MessageID       string          `json:"messageId"`
	Role            string          `json:"role"`
	Delta           string          `json:"delta"`
	ToolCallID      string          `json:"toolCallId"`
	ToolCallName    string          `json:"toolCallName"`
	ParentMessageID string          `json:"parentMessageId"`
	Message         string          `json:"message"`
	Code            string          `json:"code"`
	Category        string          `json:"category"`
	IsRetryable     bool            `json:"isRetryable"`
	Status          int             `json:"status"`
	Name            string          `json:"name"`
	Value           json.RawMessage `json:"value"`
	Timestamp       int64           `json:"timestamp"`
}

// baselineRun reads one run's stream to its terminal event.
func baselineRun(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		var ev baselineEvent
		if err := json.Unmarshal(line[len("data: "):], &ev); err != nil {
			return n, err
		}
		n++
		switch ev.Type {
		case "CUSTOM":
			var v any
			switch ev.Name {
			case CustomAwaitingInput:
				v = new(wireAwaiting)
			case CustomComponentStart:
				v = new(wireComponentStart)
			case CustomPropsDelta:
				v = new(wirePropsDelta)
			case CustomComponentEnd:
				v = new(wireComponentEnd)
			}
			if v != nil {
				if err := json.Unmarshal(ev.Value, v); err != nil {
					return n, err
				}
			}
		case "RUN_FINISHED", "RUN_ERROR":
			return n, nil
		}
	}
	return n, io.ErrUnexpectedEOF
}

func sdkRun(body []byte) (int, error) {
	s := newStream(context.Background(), io.NopCloser(bytes.NewReader(body)), limits{}, nil, "", "")
	n := 0
	for s.Next() {
		n++
	}
	return n, s.Err()
}

// sdkCollect reads the stream with Collect, which also assembles the
// run's Result.
func sdkCollect(body []byte) (int, error) {
	s := newStream(context.Background(), io.NopCloser(bytes.NewReader(body)), limits{}, nil, "", "")
	_, err := s.Collect()
	return s.index, err
}

func BenchmarkRunStreamDecode(b *testing.B) {
	mix, _ := benchMix(b)
	for _, input := range []struct {
		name    string
		streams [][]byte
	}{{"mix", mix}, {"deltas", [][]byte{deltaRun(10_000)}}} {
		b.Run("input="+input.name, func(b *testing.B) { decodeRounds(b, input.streams) })
	}
}

// decodeRounds reads streams with the SDK (Next, Collect) and the baseline,
// and reports per event what each allocates (allocs-per-event,
// B-per-event) beside the usual per-pass figures.
func decodeRounds(b *testing.B, streams [][]byte) {
	var total int64
	for _, s := range streams {
		total += int64(len(s))
	}
	// Each side's own count of events read (the SDK stops at the first
	// RUN_ERROR, the baseline too).
	count := func(run func([]byte) (int, error)) int {
		n := 0
		for _, s := range streams {
			k, err := run(s)
			var f *RunFailedError
			if err != nil && !errors.As(err, &f) {
				b.Fatal(err)
			}
			n += k
		}
		return n
	}
	baseline := func(body []byte) (int, error) { return baselineRun(bytes.NewReader(body)) }
	for _, impl := range []struct {
		name string
		run  func([]byte) (int, error)
	}{{"sdk", sdkRun}, {"sdk-collect", sdkCollect}, {"baseline", baseline}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			want := count(impl.run)
			b.SetBytes(total)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if n := count(impl.run); n != want {
					b.Fatal(n, want)
				}
			}
			runtime.ReadMemStats(&after)
			events := float64(want) * float64(b.N)
			b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs-per-event")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/events, "B-per-event")
		})
	}
}

// BenchmarkRunStreamPaired runs the SDK and the baseline over the mix back
// to back, in turns (cputime.Paired), and reports each side's time per
// pass over the mix and the baseline's CPU and time over the SDK's: on a
// shared machine, load that comes and goes then falls on both sides alike.
func BenchmarkRunStreamPaired(b *testing.B) {
	streams, _ := benchMix(b)
	for _, sdk := range []struct {
		name string
		run  func([]byte) (int, error)
	}{{"next", sdkRun}, {"collect", sdkCollect}} {
		b.Run("sdk="+sdk.name, func(b *testing.B) {
			cputime.Paired(b, func() {
				for _, body := range streams {
					if _, err := sdk.run(body); err != nil && !errors.As(err, new(*RunFailedError)) {
						b.Fatal(err)
					}
				}
			}, func() {
				for _, body := range streams {
					if _, err := baselineRun(bytes.NewReader(body)); err != nil {
						b.Fatal(err)
					}
				}
			}, nil)
		})
	}
}

// deltaRun is one run's stream as the service writes it: RUN_STARTED, a
// text message of n 11-character deltas, a tool call, the awaiting-input
// event and RUN_FINISHED.
func deltaRun(n int) []byte { return loopback.DeltaRun(n) }

// BenchmarkRunStreamEndToEnd is the /v1 run stream end to end, paired:
// from sending the request to the run's last event, over a loopback
// server that writes the whole body at once (10,000 11-character deltas
// and a tool call), the SDK (Client.CreateAndRun, then Next or Collect)
// and the baseline (net/http, bufio.Scanner, encoding/json into one
// struct with the AG-UI members, then the CUSTOM value into its own)
// back to back in each iteration, in turns (cputime.Paired). The floor,
// the same request read and discarded, is measured beside them. It reports
// each side's wall and CPU time per stream, and the baseline's process CPU
// over the SDK's (x-cpu, the bar) and its wall time over the SDK's
// (x-throughput); and over the floor's (floor-x-cpu), and x-cpu with the
// floor taken from both (x-cpu-over-floor).
//
//	go test -c -o /tmp/runs.test ./runs
//	for r in 1 2 3 4 5; do /tmp/runs.test -test.run '^$' -test.bench BenchmarkRunStreamEndToEnd -test.benchtime 20x; done
func BenchmarkRunStreamEndToEnd(b *testing.B) {
	const deltas = 10_000
	body := deltaRun(deltas)
	events := bytes.Count(body, []byte("data: "))
	srv := loopback.Body(body)
	defer srv.Close()
	c := newTestClient(b, srv.URL).ForUser("user-1")
	params := CreateRunParams{RunParams: RunParams{Content: []Content{Text("weather in Lisbon?")}}}
	reqBody := []byte(`{"message":{"role":"user","content":[{"type":"text","text":"weather in Lisbon?"}]},"thread":{"userKey":"user-1"}}`)
	url, key := srv.URL+"/v1/threads/runs", http.Header{"X-Api-Key": {testKey}}
	baseline := loopback.Post(b, url, key, reqBody, events, baselineRun)
	floor := loopback.Post(b, url, key, reqBody, events, loopback.Discard(events))
	sdks := []struct {
		name string
		read func(*Stream) int
	}{
		{"next", func(s *Stream) int {
			n := 0
			for s.Next() {
				n++
			}
			return n
		}},
		{"collect", func(s *Stream) int {
			res, _ := s.Collect()
			if len(res.ToolCalls) != 1 || len(res.Messages) != 1 {
				b.Fatal(res)
			}
			return s.index
		}},
	}
	for _, sdk := range sdks {
		b.Run("sdk="+sdk.name, func(b *testing.B) {
			run := func() {
				s, err := c.CreateAndRun(context.Background(), params)
				if err != nil {
					b.Fatal(err)
				}
				n := sdk.read(s)
				if s.Err() != nil || n != events || s.Outcome() != OutcomeAwaitingTools {
					b.Fatal(n, events, s.Err(), s.Outcome())
				}
				s.Close()
			}
			cputime.Paired(b, run, baseline, floor)
		})
	}
}

const holdRunServerEnv = "THREADS_HOLD_RUN_SERVER"

// TestHelperHoldRunServer is not a test: run with THREADS_HOLD_RUN_SERVER=1,
// it serves /v1 run streams on loopback that send RUN_STARTED and then hold
// until GET /release, then send the rest of deltaRun(10)
// (loopback.Serve).
func TestHelperHoldRunServer(t *testing.T) {
	if os.Getenv(holdRunServerEnv) != "1" {
		t.Skip("a helper process for BenchmarkManyRunStreams")
	}
	run := deltaRun(10)
	first := bytes.Index(run, []byte("\n\n")) + 2
	loopback.Serve(t, run[:first], run[first:])
}

// BenchmarkManyRunStreams is BenchmarkManyStreams (package threads) for
// /v1 run streams: N streams on one client (THREADS_MANY_STREAMS, default
// 10,000), each read to its first event (RUN_STARTED) and left idle, the
// live heap (with goroutine stacks) and goroutines per idle stream beside
// raw net/http + bufio holding the same responses after their first event;
// then all released at once and read to RUN_FINISHED.
//
//	go test -c -o /tmp/runs.test ./runs && (cd runs && /tmp/runs.test -test.run '^$' -test.bench BenchmarkManyRunStreams -test.benchtime 1x)
func BenchmarkManyRunStreams(b *testing.B) {
	reqBody := []byte(`{"message":{"role":"user","content":[{"type":"text","text":"x"}]},"thread":{"userKey":"user-1"}}`)
	events := bytes.Count(deltaRun(10), []byte("data: "))
	for b.Loop() {
		loopback.Many(b, "TestHelperHoldRunServer", holdRunServerEnv, func(hc *http.Client, base string, n int) loopback.Impl {
			c := newTestClient(b, base, threads.WithHTTPClient(hc)).ForUser("user-1")
			return loopback.SDK(n, func() (*Stream, error) {
				return c.CreateAndRun(context.Background(), CreateRunParams{RunParams: RunParams{Content: []Content{Text("x")}}})
			}, func(s *Stream, k int) bool { return k == events && s.Outcome() == OutcomeAwaitingTools })
		}, func(hc *http.Client, base string, n int) loopback.Impl {
			return loopback.Raw(hc, n, base+"/v1/threads/runs", http.Header{"X-Api-Key": {testKey}}, reqBody, func(r *bufio.Reader) bool {
				k, err := baselineRun(r)
				return err == nil && k+1 == events
			})
		})
	}
}
