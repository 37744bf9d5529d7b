package runs

// The run stream's decoding beside a baseline measured in the same run on
// the same bytes: what a careful hand-written client does (bufio lines,
// encoding/json into one struct with every member the events carry, then
// the CUSTOM value into its own struct). Run the rounds interleaved:
//
//	go test -c -o /tmp/runs.test ./runs
//	for r in 1 2 3 4 5; do /tmp/runs.test -test.run '^$' -test.benchmem -test.bench 'BenchmarkRunStreamDecode/impl=(sdk|baseline)$'; done

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/threadsapi/threads-go/internal/cputime"
	"io"
	"testing"
	"time"
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

// sdkCollect reads the stream with Collect, which runs the parser without
// the pull form's coroutine.
func sdkCollect(body []byte) (int, error) {
	s := newStream(context.Background(), io.NopCloser(bytes.NewReader(body)), limits{}, nil, "", "")
	_, err := s.Collect()
	return s.index, err
}

func BenchmarkRunStreamDecode(b *testing.B) {
	streams, _ := benchMix(b)
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
			for b.Loop() {
				if n := count(impl.run); n != want {
					b.Fatal(n, want)
				}
			}
			b.ReportMetric(float64(want)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkRunStreamPaired runs the SDK and the baseline on each stream of
// the mix back to back, in alternating order, and reports each side's time
// per pass over the mix and the baseline's time over the SDK's (the
// throughput ratio): on a shared machine, load that comes and goes then
// falls on both sides alike.
func BenchmarkRunStreamPaired(b *testing.B) {
	streams, _ := benchMix(b)
	for _, sdk := range []struct {
		name string
		run  func([]byte) (int, error)
	}{{"next", sdkRun}, {"collect", sdkCollect}} {
		b.Run("sdk="+sdk.name, func(b *testing.B) { pairedRounds(b, streams, sdk.run) })
	}
}

func pairedRounds(b *testing.B, streams [][]byte, sdkRun func([]byte) (int, error)) {
	var sdkT, baseT, sdkCPU, baseCPU time.Duration
	i := 0
	for b.Loop() {
		for _, body := range streams {
			sdk := func() {
				t := time.Now()
				if _, err := sdkRun(body); err != nil && !errors.As(err, new(*RunFailedError)) {
					b.Fatal(err)
				}
				sdkT += time.Since(t)
			}
			base := func() {
				t := time.Now()
				if _, err := baselineRun(bytes.NewReader(body)); err != nil {
					b.Fatal(err)
				}
				baseT += time.Since(t)
			}
			if i%2 == 0 {
				sdkCPU += cputime.Process(b, sdk)
				baseCPU += cputime.Process(b, base)
			} else {
				baseCPU += cputime.Process(b, base)
				sdkCPU += cputime.Process(b, sdk)
			}
			i++
		}
	}
	b.ReportMetric(float64(sdkT.Nanoseconds())/float64(b.N), "sdk-ns/op")
	b.ReportMetric(float64(baseT.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(baseT)/float64(sdkT), "x-throughput")
	b.ReportMetric(float64(baseCPU)/float64(sdkCPU), "x-cpu")
}
