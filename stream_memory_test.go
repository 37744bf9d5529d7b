package threads_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
)

// Attacks on a stream's memory and error strings, from the attacker review:
// a hostile (or broken) server must not make a Stream take memory beyond
// its bounds, nor make its errors show a token the service handed out.

// atkPeakHeap samples the heap until the returned function is called, and
// returns the highest HeapAlloc seen. The 2ms between samples is pacing,
// not a bound: a late sample only lowers the peak seen, so tests pair it
// with the bytes allocated (an upper bound) or with heapNow after a GC.
func atkPeakHeap() func() uint64 {
	var mu sync.Mutex
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapAlloc)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(stop); <-done; return peak }
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// emptyParts is a snapshot event of message id whose content is n empty
// parts: 3 bytes of JSON per Go struct.
func emptyParts(id string, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `data: {"responseMessageDto":{"id":%q,"threadId":"t","role":"assistant","content":[`, id)
	b.WriteString(strings.Repeat("{},", n-1))
	b.WriteString("{}]},\"generationStage\":\"STREAMING_RESPONSE\"}\n\n")
	return b.Bytes()
}

func gzipServer(t *testing.T, body []byte) *httptest.Server {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	t.Logf("body %d bytes, %d gzipped on the wire", len(body), gz.Len())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// One event of 15 MB (under the 16 MiB event cap, 15 KiB gzipped) would
// decode into 5M ContentParts: about 900 MiB. The stream refuses it before
// decoding, with ErrEventTooLarge.
func TestAttackStreamDecodedBlowup(t *testing.T) {
	body := append(emptyParts("m1", 5_000_000), "data: DONE\n\n"...)
	srv := gzipServer(t, body)
	c := atkClient(t, srv.URL)
	body = nil
	base := heapNow()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := atkPeakHeap()
	st, err := c.Threads.AdvanceStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Collect()
	p := peak()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("err=%v msgs=%d; peak heap %d MiB over a base of %d MiB; allocated %d MiB", err, len(msgs), (p-min(p, base))>>20, base>>20, alloc>>20)
	if !errors.Is(err, threads.ErrEventTooLarge) {
		t.Errorf("err = %v, want ErrEventTooLarge", err)
	}
	// Margins: the bound is 256 MiB; decoding the event took about 900
	// MiB before the fix, and the call now allocates about 92 MiB in all
	// (with or without -race) and the sampled peak is about 68 MiB.
	// The sampled peak can miss the top between two samples (a busy
	// machine only makes that likelier), so it is a lower bound of the
	// true peak; the bytes allocated are an upper bound that no scheduling
	// changes (the test is not parallel: nothing else allocates meanwhile).
	if p-min(p, base) > 256<<20 {
		t.Errorf("peak heap %d MiB over the base, want under 256 MiB", (p-base)>>20)
	}
	if alloc > 256<<20 {
		t.Errorf("allocated %d MiB, want under 256 MiB", alloc>>20)
	}
	runtime.KeepAlive(msgs)
}

// The retained bound of Messages counts Go memory, not JSON bytes: four
// refused 15 MB events keep nothing, and many events each within the
// per-event budget (100k empty parts, 300 KB of JSON, about 20 MiB of Go
// memory each) keep about 64 MiB's worth, not all of them.
func TestAttackStreamRetainedBlowup(t *testing.T) {
	t.Run("huge", func(t *testing.T) {
		var body []byte
		for i := range 4 {
			body = append(body, emptyParts(fmt.Sprint("m", i), 5_000_000)...)
		}
		srv := gzipServer(t, append(body, "data: DONE\n\n"...))
		body = nil
		c := atkClient(t, srv.URL)
		base := heapNow()
		st, err := c.Threads.AdvanceStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")})
		if err != nil {
			t.Fatal(err)
		}
		for st.Next() {
		}
		held := heapNow()
		t.Logf("err=%v kept=%d; heap retained while the stream is held: %d MiB over the base", st.Err(), len(st.Messages()), (held-min(held, base))>>20)
		if !errors.Is(st.Err(), threads.ErrEventTooLarge) {
			t.Errorf("err = %v, want ErrEventTooLarge", st.Err())
		}
		if held-min(held, base) > 256<<20 {
			t.Errorf("stream holds %d MiB, want under 256 MiB", (held-base)>>20)
		}
		runtime.KeepAlive(st)
		st.Close()
	})
	t.Run("many", func(t *testing.T) {
		const events, parts = 40, 100_000
		var body []byte
		for i := range events {
			body = append(body, emptyParts(fmt.Sprint("m", i), parts)...)
		}
		srv := gzipServer(t, append(body, "data: DONE\n\n"...))
		body = nil
		c := atkClient(t, srv.URL)
		base := heapNow()
		st, err := c.Threads.AdvanceStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for st.Next() {
			n++
		}
		held := heapNow()
		kept := len(st.Messages())
		t.Logf("err=%v events=%d kept=%d; heap retained while the stream is held: %d MiB over the base", st.Err(), n, kept, (held-min(held, base))>>20)
		if st.Err() != nil || n != events {
			t.Fatalf("err = %v after %d events, want nil after %d", st.Err(), n, events)
		}
		if held-min(held, base) > 256<<20 {
			t.Errorf("stream holds %d MiB, want under 256 MiB", (held-base)>>20)
		}
		if kept >= events {
			t.Errorf("kept all %d messages; the retained bound should have dropped the oldest", kept)
		}
		runtime.KeepAlive(st)
		st.Close()
	})
}
