package threads_test

// Benchmarks: each SDK figure beside a baseline measured in the same run on
// the same bytes (raw net/http, bufio and encoding/json into the same
// generated types). BENCHMARKS.md has the figures and the command.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	sse "github.com/tmaxmax/go-sse"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/cputime"
	"github.com/threadsapi/threads-go/internal/loopback"
	"github.com/threadsapi/threads-go/threadstest"
)

// snapshotLine renders one event in the live service's format: the
// message id, thread id and text as given.
func snapshotLine(msgID, text, stage string) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"responseMessageDto":{"id":"`)
	b.WriteString(msgID)
	b.WriteString(`","threadId":"thr_iSp004Xf.f4a5d7","isCancelled":false,"createdAt":"2026-11-21T23:57:44.826Z","additionalContext":{},"componentState":{},"content":[{"type":"text","text":`)
	t, _ := json.Marshal(text)
	b.Write(t)
	b.WriteString(`}],"component":{"message":`)
	b.Write(t)
	b.WriteString(`,"componentName":"","props":null,"componentState":null,"role":"assistant"},"role":"assistant","reasoning":[]},"generationStage":"`)
	b.WriteString(stage)
	b.WriteString(`","statusMessage":"Streaming response..."}` + "\n\n")
	return b.Bytes()
}

// growingStream is n snapshots of messages that each grow to 2 KiB in 100
// steps, then DONE.
func growingStream(n int) []byte {
	full := strings.Repeat("All work and no play makes a fine gopher. ", 50)[:2048]
	var b bytes.Buffer
	for i := range n {
		step := i%100 + 1
		b.Write(snapshotLine(fmt.Sprintf("msg_Bench%03d.abcdef", i/100), full[:step*2048/100], "STREAMING_RESPONSE"))
	}
	b.WriteString("data: DONE\n\n")
	return b.Bytes()
}

// baselineDecode is what a careful hand-written client does: bufio lines,
// encoding/json into the same generated type.
func baselineDecode(r io.Reader, each func(*threads.AdvanceResponse)) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), threads.DefaultMaxEventSize)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		data := line[len("data: "):]
		if string(data) == "DONE" {
			return n, nil
		}
		var ev threads.AdvanceResponse
		if err := json.Unmarshal(data, &ev); err != nil {
			return n, err
		}
		if each != nil {
			each(&ev)
		}
		n++
	}
	return n, io.ErrUnexpectedEOF
}

const benchEvents = 10_000

func reportPerEvent(b *testing.B, events int) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkStreamDecode(b *testing.B) {
	body := growingStream(benchEvents)
	b.Run("impl=sdk", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			s := streamFrom(bytes.NewReader(body))
			n := 0
			for s.Next() {
				n++
			}
			if s.Err() != nil || n != benchEvents {
				b.Fatal(n, s.Err())
			}
		}
		reportPerEvent(b, benchEvents)
	})
	b.Run("impl=sdk-all", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range streamFrom(bytes.NewReader(body)).All() {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != benchEvents {
				b.Fatal(n)
			}
		}
		reportPerEvent(b, benchEvents)
	})
	// The parser alone, without JSON: the floor the SDK's decoding stands on.
	b.Run("impl=go-sse-only", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for ev, err := range sse.Read(bytes.NewReader(body), &sse.ReadConfig{MaxEventSize: threads.DefaultMaxEventSize}) {
				if err != nil {
					b.Fatal(err)
				}
				if ev.Data != "DONE" {
					n++
				}
			}
			if n != benchEvents {
				b.Fatal(n)
			}
		}
		reportPerEvent(b, benchEvents)
	})
	b.Run("impl=bufio-only", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			sc := bufio.NewScanner(bytes.NewReader(body))
			sc.Buffer(make([]byte, 64<<10), threads.DefaultMaxEventSize)
			n := 0
			for sc.Scan() {
				if bytes.HasPrefix(sc.Bytes(), []byte("data: {")) {
					n++
				}
			}
			if n != benchEvents {
				b.Fatal(n)
			}
		}
		reportPerEvent(b, benchEvents)
	})
	b.Run("impl=baseline", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			n, err := baselineDecode(bytes.NewReader(body), nil)
			if err != nil || n != benchEvents {
				b.Fatal(n, err)
			}
		}
		reportPerEvent(b, benchEvents)
	})
}

// BenchmarkStreamLoopback streams from the fake server, throttle off.
func BenchmarkStreamLoopback(b *testing.B) {
	srv := threadstest.Start(threadstest.WithAPIKey(testKey))
	defer srv.Close()
	reply := strings.Repeat("word ", 400) // 401 snapshots per stream
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(threads.AdvanceParams{Message: threads.UserMessage("x")})
	// The fake sends a placeholder, one snapshot per word (and one for the
	// empty tail after the last space), then the final text twice.
	count := 1 + strings.Count(reply, " ") + 1 + 2
	b.Run("impl=sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			srv.PushScript(threadstest.Script{Replies: []string{reply}})
			s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for s.Next() {
				n++
			}
			if s.Err() != nil || n != count {
				b.Fatal(n, count, s.Err())
			}
		}
		reportPerEvent(b, count)
	})
	b.Run("impl=baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			srv.PushScript(threadstest.Script{Replies: []string{reply}})
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/threads/advancestream", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			n, err := baselineDecode(resp.Body, nil)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || n != count {
				b.Fatal(n, err)
			}
		}
		reportPerEvent(b, count)
	})
}

// specEndToEnd serves 10,000 growing snapshots (the bytes of
// BenchmarkStreamDecode) from a loopback server that writes them at once,
// and returns one read of them by the SDK's stream, by raw net/http with
// bufio and encoding/json, and by the floor (read and discarded); and the
// body's length. The caller closes srv.
func specEndToEnd(b *testing.B) (srv *httptest.Server, sdk, baseline, floor func(), size int) {
	body := growingStream(benchEvents)
	srv = loopback.Body(body)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	params := threads.AdvanceParams{Message: threads.UserMessage("x")}
	reqBody, _ := json.Marshal(params)
	sdk = func() {
		s, err := c.Threads.CreateAndAdvanceStream(context.Background(), params)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for s.Next() {
			n++
		}
		if s.Err() != nil || n != benchEvents {
			b.Fatal(n, s.Err())
		}
		s.Close()
	}
	url, auth := srv.URL+"/threads/advancestream", http.Header{"Authorization": {"Bearer " + testKey}}
	baseline = loopback.Post(b, url, auth, reqBody, benchEvents, func(r io.Reader) (int, error) { return baselineDecode(r, nil) })
	floor = loopback.Post(b, url, auth, reqBody, benchEvents, loopback.Discard(benchEvents))
	return srv, sdk, baseline, floor, len(body)
}

// BenchmarkStreamEndToEnd streams 10,000 growing snapshots from a loopback
// server (specEndToEnd): the SDK's stream against raw net/http with bufio
// and encoding/json, each reading the whole reply.
func BenchmarkStreamEndToEnd(b *testing.B) {
	srv, sdk, baseline, _, size := specEndToEnd(b)
	defer srv.Close()
	for _, impl := range []struct {
		name string
		read func()
	}{{"sdk", sdk}, {"baseline", baseline}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				impl.read()
			}
			reportPerEvent(b, benchEvents)
		})
	}
}

// BenchmarkStreamPaired is BenchmarkStreamEndToEnd with the SDK's stream,
// the baseline and the floor (the same request read and discarded) run back
// to back in each iteration, in turns (cputime.Paired), so that load from
// other processes falls on all alike. It reports each side's wall and CPU
// time per stream, the baseline's CPU over the SDK's (x-cpu, the bar) and
// its time over the SDK's (x-throughput), and over the floor.
func BenchmarkStreamPaired(b *testing.B) {
	srv, sdk, baseline, floor, _ := specEndToEnd(b)
	defer srv.Close()
	cputime.Paired(b, sdk, baseline, floor)
}

// getServer serves GET /threads/{id} with 50 messages, as the live service
// shapes them.
func getServer(b *testing.B) *httptest.Server {
	var msgs []string
	for i := range 50 {
		role, text := "user", fmt.Sprintf("Question %d: what about the gophers?", i)
		if i%2 == 1 {
			role, text = "assistant", strings.Repeat("Gophers dig burrows. ", 20)
		}
		msgs = append(msgs, fmt.Sprintf(`{"id":"msg_Get%05d.abcdef","threadId":"thr_iSp004Xf.f4a5d7","role":%q,"createdAt":"2026-11-21T23:57:44.709Z","content":[{"text":%q,"type":"text"}],"componentState":{},"isCancelled":false,"additionalContext":{},"component":{"role":"assistant","props":null,"message":%q,"componentName":"","componentState":null},"reasoning":[]}`, i, role, text, text))
	}
	body := []byte(`{"id":"thr_iSp004Xf.f4a5d7","createdAt":"2026-11-21T23:57:29.551Z","updatedAt":"2026-11-21T23:57:45.487Z","generationStage":"COMPLETE","statusMessage":"Complete","projectId":"p_DSr8JxVP.57a223","messages":[` + strings.Join(msgs, ",") + `]}`)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(body)
	}))
}

// getCalls returns one Get of the SDK and one of raw net/http +
// encoding/json, of the thread getServer serves.
func getCalls(b *testing.B, srv *httptest.Server) (sdk, raw func()) {
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sdk = func() {
		t, err := c.Threads.Get(ctx, "thr_iSp004Xf.f4a5d7")
		if err != nil || len(t.Messages) != 50 {
			b.Fatal(err)
		}
	}
	raw = func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/threads/thr_iSp004Xf.f4a5d7", nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var t threads.ThreadWithMessages
		err = json.NewDecoder(resp.Body).Decode(&t)
		resp.Body.Close()
		if err != nil || len(t.Messages) != 50 {
			b.Fatal(err)
		}
	}
	return sdk, raw
}

func BenchmarkGet(b *testing.B) {
	srv := getServer(b)
	defer srv.Close()
	sdk, raw := getCalls(b, srv)
	for _, impl := range []struct {
		name string
		get  func()
	}{{"sdk", sdk}, {"baseline", raw}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.get()
			}
		})
	}
}

// BenchmarkGetPaired is BenchmarkGet with the SDK and the baseline back to
// back in each iteration, in turns (cputime.Paired): the bar is x-cpu, the
// baseline's process CPU over the SDK's (at least 1/0.7).
func BenchmarkGetPaired(b *testing.B) {
	srv := getServer(b)
	defer srv.Close()
	sdk, raw := getCalls(b, srv)
	const calls = 20 // per side and iteration: a Get is short
	cputime.Paired(b, func() {
		for range calls {
			sdk()
		}
	}, func() {
		for range calls {
			raw()
		}
	}, nil)
}

// BenchmarkTimeToFirstEvent measures the gap between the server's flush of
// the first event and the caller receiving it, with the rest of the stream
// held back. It reports the median and p99 gap.
func BenchmarkTimeToFirstEvent(b *testing.B) {
	flushed := make(chan time.Time, 1)
	release := make(chan struct{})
	event := snapshotLine("msg_First000.aaaaaa", "Hello", "STREAMING_RESPONSE")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(201)
		w.(http.Flusher).Flush()
		t0 := time.Now()
		w.Write(event)
		w.(http.Flusher).Flush()
		flushed <- t0
		select {
		case <-release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "data: DONE\n\n")
	}))
	defer srv.Close()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(threads.AdvanceParams{Message: threads.UserMessage("x")})
	report := func(b *testing.B, gaps []time.Duration) {
		slices.Sort(gaps)
		b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds()), "µs-median")
		b.ReportMetric(float64(gaps[len(gaps)*99/100].Microseconds()), "µs-p99")
	}
	b.Run("impl=sdk", func(b *testing.B) {
		var gaps []time.Duration
		for b.Loop() {
			s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
			if err != nil {
				b.Fatal(err)
			}
			if !s.Next() {
				b.Fatal(s.Err())
			}
			got := time.Now()
			gaps = append(gaps, got.Sub(<-flushed))
			release <- struct{}{}
			for s.Next() {
			}
			s.Close()
		}
		report(b, gaps)
	})
	b.Run("impl=baseline", func(b *testing.B) {
		var gaps []time.Duration
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/threads/advancestream", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					b.Fatal(err)
				}
				if len(bytes.TrimSpace(line)) == 0 {
					break // the blank line that ends the first event
				}
			}
			got := time.Now()
			gaps = append(gaps, got.Sub(<-flushed))
			release <- struct{}{}
			io.Copy(io.Discard, br)
			resp.Body.Close()
		}
		report(b, gaps)
	})
}

// endlessStream yields snapshots forever from a few fixed events, without
// holding the whole body in memory.
type endlessStream struct {
	events [][]byte
	i, off int
}

func (e *endlessStream) Read(p []byte) (int, error) {
	ev := e.events[e.i%len(e.events)]
	n := copy(p, ev[e.off:])
	e.off += n
	if e.off == len(ev) {
		e.i, e.off = e.i+1, 0
	}
	return n, nil
}

// BenchmarkStreamMemory streams 1M events through one Stream and reports
// the live heap after 10k and after 1M events: it must not grow with the
// count. Run it with -benchtime=1x.
func BenchmarkStreamMemory(b *testing.B) {
	full := strings.Repeat("x", 2048)
	var events [][]byte
	for m := range 3 {
		for step := 1; step <= 100; step++ {
			events = append(events, snapshotLine(fmt.Sprintf("msg_Mem%05d.abcdef", m), full[:step*20], "STREAMING_RESPONSE"))
		}
	}
	heap := func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc)
	}
	for b.Loop() {
		s := streamFrom(&endlessStream{events: events})
		var at10k, at1M float64
		for n := 1; n <= 1_000_000; n++ {
			if !s.Next() {
				b.Fatal(s.Err())
			}
			switch n {
			case 10_000:
				at10k = heap()
			case 1_000_000:
				at1M = heap()
			}
		}
		s.Close()
		b.ReportMetric(at10k/(1<<20), "MiB-heap-10k")
		b.ReportMetric(at1M/(1<<20), "MiB-heap-1M")
		b.ReportMetric((at1M-at10k)/(1<<20), "MiB-growth")
	}
}

// newIDStream yields snapshots forever, each of a message with a new id.
type newIDStream struct {
	n   int
	cur []byte
}

func (e *newIDStream) Read(p []byte) (int, error) {
	if len(e.cur) == 0 {
		e.cur = snapshotLine(fmt.Sprintf("msg_%09d.abcdef", e.n), "Hello there", "STREAMING_RESPONSE")
		e.n++
	}
	n := copy(p, e.cur)
	e.cur = e.cur[n:]
	return n, nil
}

// BenchmarkStreamNewIDs streams 1M events, each of a new message id,
// through one Stream: the live heap must stay bounded (Messages keeps at
// most 1,024 ids). Run it with -benchtime=1x.
func BenchmarkStreamNewIDs(b *testing.B) {
	heap := func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc)
	}
	for b.Loop() {
		before := heap()
		s := streamFrom(&newIDStream{})
		var at10k, at1M float64
		for n := 1; n <= 1_000_000; n++ {
			if !s.Next() {
				b.Fatal(s.Err())
			}
			switch n {
			case 10_000:
				at10k = heap()
			case 1_000_000:
				at1M = heap()
			}
		}
		if len(s.Messages()) != threads.MaxMessages {
			b.Fatal(len(s.Messages()))
		}
		s.Close()
		b.ReportMetric((at1M-before)/(1<<20), "MiB-growth-1M")
		b.ReportMetric((at1M-at10k)/(1<<20), "MiB-growth-10k-to-1M")
	}
}

// chunkReader returns data in reads of at most n bytes.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p, c.data[:min(len(c.data), c.n)])
	c.data = c.data[k:]
	return k, nil
}

// BenchmarkStreamSplitEvent decodes one 15 MiB event sent whole and sent
// in 1 KiB reads: the cost must be linear in the bytes, however split.
func BenchmarkStreamSplitEvent(b *testing.B) {
	body := append(bigEvent(15<<20), "data: DONE\n\n"...)
	for _, chunk := range []int{len(body), 1 << 10} {
		b.Run(fmt.Sprintf("read=%d", chunk), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				s := streamFrom(&chunkReader{data: body, n: chunk})
				n := 0
				for s.Next() {
					n++
				}
				if s.Err() != nil || n != 1 {
					b.Fatal(n, s.Err())
				}
			}
		})
	}
}
