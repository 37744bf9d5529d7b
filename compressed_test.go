package threads_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
)

// gzipRepeat returns the gzip of head, then part n times, then tail, built
// without holding the whole plain text.
func gzipRepeat(t testing.TB, head, part, tail string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	io.WriteString(zw, head)
	chunk := []byte(strings.Repeat(part, 4096))
	for ; n >= 4096; n -= 4096 {
		zw.Write(chunk)
	}
	io.WriteString(zw, strings.Repeat(part, n))
	io.WriteString(zw, tail)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// serveGzip answers every request with body, sent gzip-encoded.
func serveGzip(t testing.TB, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// heapDuring runs fn and returns the peak of the live heap above what it
// was before (sampled every 200µs) and the bytes allocated meanwhile, an
// upper bound of that peak. The 200µs is pacing, not a bound: a sample
// taken late on a busy machine can only miss the top, so a test that
// asserts on the peak alone cannot fail for the machine's load.
func heapDuring(fn func()) (peak, allocated uint64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var hi uint64
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > hi {
				hi = v
			}
			select {
			case <-stop:
				done <- hi
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	fn()
	close(stop)
	hi := <-done
	runtime.ReadMemStats(&after)
	if hi > base {
		peak = hi - base
	}
	return peak, after.TotalAlloc - before.TotalAlloc
}

// TestHardenCompressedBodiesBounded: small gzip bodies that inflate into
// millions of empty objects (47 KiB for List, 248 KiB for Get; 6.4 GiB and
// 5.9 GiB of heap before) are refused with bounded memory, by the wire cap
// (counted after decompression) or, when the caller raised it, by the
// pre-scan of the decoded size. A dense body under the budget decodes.
func TestHardenCompressedBodiesBounded(t *testing.T) {
	// Not parallel: it measures the heap.
	const mib = 1 << 20
	list := gzipRepeat(t, `{"items":[{}`, `,{}`, `],"total":1}`, 16_300_000)
	get := gzipRepeat(t, `{"id":"thr_1","projectId":"p","messages":[{}`, `,{}`, `]}`, 87_000_000)
	t.Logf("gzip bodies: list %d KiB, get %d KiB", len(list)>>10, len(get)>>10)
	for _, tc := range []struct {
		name string
		body []byte
		opts []threads.RequestOption
		call func(c *threads.Client, opts []threads.RequestOption) error
	}{
		{"list, default cap", list, nil, func(c *threads.Client, o []threads.RequestOption) error {
			_, err := c.Threads.List(context.Background(), nil, o...)
			return err
		}},
		{"get, default cap", get, nil, func(c *threads.Client, o []threads.RequestOption) error {
			_, err := c.Threads.Get(context.Background(), "thr_1", o...)
			return err
		}},
		{"list, cap raised to 64 MiB: the pre-scan refuses", list, []threads.RequestOption{threads.WithMaxResponseSize(64 * mib)}, func(c *threads.Client, o []threads.RequestOption) error {
			_, err := c.Threads.List(context.Background(), nil, o...)
			return err
		}},
	} {
		url := serveGzip(t, tc.body)
		c := hardClient(t, url)
		var err error
		peak, alloc := heapDuring(func() { err = tc.call(c, tc.opts) })
		t.Logf("%s: peak heap +%d MiB, allocated %d MiB: %v", tc.name, peak/mib, alloc/mib, err)
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, tc.name)
		// Margins: before the fix these calls took 5.9-6.4 GiB. Now the
		// sampled peak is 73-109 MiB (105-176 MiB under -race) against a
		// bound of 256 MiB; the sample can only miss the top, never add to
		// it. The bytes allocated, an upper bound of the peak that no
		// scheduling changes, are 73-109 MiB (147-218 MiB under -race),
		// bounded at 512 MiB: still a twelfth of the old cost.
		require.Less(t, peak, uint64(256*mib), tc.name)
		require.Less(t, alloc, uint64(512*mib), tc.name)
	}

	// The densest body the default budget accepts still decodes, in bounded memory.
	n := 200_000
	dense := gzipRepeat(t, `{"id":"thr_1","projectId":"p","messages":[{}`, `,{}`, `]}`, n-1)
	c := hardClient(t, serveGzip(t, dense))
	var got *threads.ThreadWithMessages
	var err error
	peak, alloc := heapDuring(func() { got, err = c.Threads.Get(context.Background(), "thr_1") })
	require.NoError(t, err)
	require.Len(t, got.Messages, n)
	t.Logf("dense get of %d empty messages: peak heap +%d MiB, allocated %d MiB", n, peak/mib, alloc/mib)
	// Margin: the sampled peak is about 159 MiB (with or without -race)
	// against 256 MiB; a late sample can only lower it.
	require.Less(t, peak, uint64(256*mib))
}

// BenchmarkCompressedBodies reports what the decompression-bomb bodies of
// TestHardenCompressedBodiesBounded cost per call (-benchmem's B/op, and the
// peak heap above the start of the call): 47 KiB of gzip for List and
// 248 KiB for Get, refused within the default WithMaxResponseSize.
func BenchmarkCompressedBodies(b *testing.B) {
	const mib = 1 << 20
	for _, bc := range []struct {
		name string
		body []byte
		call func(c *threads.Client) error
	}{
		{"list-47KiB-gzip", gzipRepeat(b, `{"items":[{}`, `,{}`, `],"total":1}`, 16_300_000), func(c *threads.Client) error {
			_, err := c.Threads.List(context.Background(), nil)
			return err
		}},
		{"get-248KiB-gzip", gzipRepeat(b, `{"id":"thr_1","projectId":"p","messages":[{}`, `,{}`, `]}`, 87_000_000), func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := hardClient(b, serveGzip(b, bc.body))
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				var err error
				p, _ := heapDuring(func() { err = bc.call(c) })
				if !errors.Is(err, threads.ErrUnexpectedResponse) {
					b.Fatalf("want ErrUnexpectedResponse, got %v", err)
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/mib, "peak-heap-MiB")
		})
	}
}
