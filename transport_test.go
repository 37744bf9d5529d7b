package threads_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"testing/synctest"
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

// TestCompressedBodiesDecodeInBoundedMemory: small gzip bodies that inflate into
// millions of empty objects (47 KiB for List, 248 KiB for Get; 6.4 GiB and
// 5.9 GiB of heap before) are refused with bounded memory, by the wire cap
// (counted after decompression) or, when the caller raised it, by the
// pre-scan of the decoded size. A dense body under the budget decodes.
func TestCompressedBodiesDecodeInBoundedMemory(t *testing.T) {
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
// TestCompressedBodiesDecodeInBoundedMemory cost per call (-benchmem's B/op, and the
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

// WithRequestTimeout against servers that trickle: a JSON call's whole
// answer is bounded, a stream only until its headers.

// trickle writes the headers and then one byte of body every gap, until
// the client goes away.
func trickle(status int, contentType string, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// callWithin runs fn and fails the test when it has not returned within
// limit (the goroutine is then left behind: the old code never returned).
// In a synctest bubble, limit is fake time: a call that never returns
// fails here, not at the suite's deadline.
func callWithin(t *testing.T, limit time.Duration, fn func() error) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(limit):
		t.Fatalf("the call did not return within %v", limit)
		return 0, nil
	}
}

// TestTricklingBodiesEndWithinRequestTimeout: WithRequestTimeout covers a JSON call's
// whole answer: a 2xx body, an error body, and the drain of a 503 that is
// retried, all trickling, end within the timeout per attempt under
// context.Background(). Run in a synctest bubble over an in-memory network,
// so the bound is exact on the fake clock whatever the machine's load.
func TestTricklingBodiesEndWithinRequestTimeout(t *testing.T) {
	t.Parallel()
	const d = time.Second
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		retries int
		call    func(c *threads.Client) error
	}{
		{"json 200", trickle(200, "application/json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
		{"error 400 on a POST", trickle(400, "application/problem+json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p"})
			return err
		}},
		{"error 400 on a stream", trickle(400, "application/problem+json", 50*time.Millisecond), 2, func(c *threads.Client) error {
			_, err := c.Threads.AdvanceStream(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
			return err
		}},
		{"503 drained between attempts", trickle(503, "application/json", 50*time.Millisecond), 1, func(c *threads.Client) error {
			_, err := c.Threads.Get(context.Background(), "thr_1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				base, tr := pipeServer(t, tc.h)
				c := hardClient(t, base, threads.WithHTTPClient(&http.Client{Transport: tr}),
					threads.WithRequestTimeout(d), threads.WithMaxRetries(tc.retries))
				attempts := time.Duration(1)
				if strings.HasPrefix(tc.name, "503") {
					attempts = time.Duration(tc.retries + 1)
				}
				took, err := callWithin(t, attempts*2*d+time.Second, func() error { return tc.call(c) })
				require.Error(t, err)
				t.Logf("%s: %v after %v of fake time", tc.name, err, took)
				// Each attempt ends at its timeout; the retry waits add at
				// most 2ms each.
				require.LessOrEqual(t, took, attempts*d+time.Duration(tc.retries)*2*time.Millisecond, "took %v", took)
				if tc.name == "json 200" {
					require.ErrorIs(t, err, context.DeadlineExceeded)
				}
			})
		})
	}
}

// TestRequestTimeoutSparesPausesInsideStream: a stream whose headers arrived in
// time is not cut by WithRequestTimeout (in a synctest bubble: the server's
// pauses and the timeout run on the fake clock).
func TestRequestTimeoutSparesPausesInsideStream(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testRequestTimeoutSparesPausesInsideStream)
}

func testRequestTimeoutSparesPausesInsideStream(t *testing.T) {
	const d = 200 * time.Millisecond
	base, tr := pipeServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, text := range []string{"a", "ab", "abc"} {
			if i > 0 {
				time.Sleep(2 * d)
			}
			fmt.Fprintf(w, "data: {\"responseMessageDto\":{\"id\":\"m1\",\"threadId\":\"thr_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":%q}]},\"generationStage\":\"STREAMING_RESPONSE\"}\n\n", text)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: DONE\n\n")
	}))
	c := hardClient(t, base, threads.WithHTTPClient(&http.Client{Transport: tr}), threads.WithRequestTimeout(d))
	s, err := c.Threads.AdvanceStream(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	defer s.Close()
	start := time.Now()
	var last string
	for s.Next() {
		last = s.Current().Message.Text()
	}
	require.NoError(t, s.Err())
	require.Equal(t, 4*d, time.Since(start), "two pauses of 2d each, on the fake clock")
	require.Equal(t, "abc", last)
}

// A caller's transport may answer with a Body-less response (a test
// double's http.Response literal), which net/http reads as empty: the
// attempt's timeout wrapper must too, not wrap the nil Body and panic on
// the read.
func TestTransportAnswerWithoutBody(t *testing.T) {
	t.Parallel()
	tr := rtFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Request: r}, nil
	})
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example"),
		threads.WithAPIKey(testKey), threads.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	require.NoError(t, c.Threads.Delete(context.Background(), "thr_1"))
	_, err = c.Projects.Current(context.Background())
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	_, err = c.Storage.Upload(context.Background(), strings.NewReader("x"), "text/plain", 1)
	require.Error(t, err)

	// Neither an answer nor an error: an error, as net/http gives.
	c, err = threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example"),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0), threads.WithHTTPClient(&http.Client{Transport: rtFunc(func(*http.Request) (*http.Response, error) { return nil, nil })}))
	require.NoError(t, err)
	_, err = c.Projects.Current(context.Background())
	require.Error(t, err)
}
