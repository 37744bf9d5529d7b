package threads_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
)

const hardKey = "sk_hard/9f8e+7d6c5b4a"

// hardServer serves every request with h and counts the requests.
func hardServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func hardClient(t testing.TB, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url), threads.WithAPIKey(hardKey),
		threads.WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// TestHardenNoRetryOf2xxOr410: x-should-retry overrides the status rule
// for failures only. A 2xx has acted: retrying it created three threads.
// A 410 is final too.
func TestHardenNoRetryOf2xxOr410(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
	}{
		{201, `{"id":"thr_1","projectId":"p_1","name":"x"}`},
		{200, `{"id":"thr_1","projectId":"p_1","name":"x"}`},
		{410, `{"title":"Gone","code":"SOMETHING_ELSE"}`},
		{410, `{"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"nonsense"}}`},
	} {
		srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Should-Retry", "true")
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		})
		c := hardClient(t, srv.URL, threads.WithMaxRetries(2))
		_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1", Name: "x"})
		if tc.status < 300 {
			require.NoError(t, err)
		} else {
			require.Error(t, err)
		}
		require.EqualValues(t, 1, n.Load(), "status %d with x-should-retry: true was sent %d times", tc.status, n.Load())
	}
	// The override still works for a failure.
	srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(500)
	})
	c := hardClient(t, srv.URL, threads.WithMaxRetries(2))
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"})
	require.ErrorIs(t, err, threads.ErrServer)
	require.EqualValues(t, 3, n.Load())
}

// migrationServer answers POST /threads/{id}/advance with a 410 (or
// deprecatedStatus) advising advice, and everything else with other.
type migrationServer struct {
	mu   sync.Mutex
	seen []string // "METHOD /path?query" of every request
}

func (m *migrationServer) log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.seen...)
}

func newMigrationServer(t *testing.T, deprecatedStatus int, advice string, other func(w http.ResponseWriter, r *http.Request)) (*migrationServer, string) {
	t.Helper()
	m := &migrationServer{}
	srv, _ := hardServer(t, func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, r.Method+" "+r.URL.RequestURI())
		m.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/advance") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(deprecatedStatus)
			fmt.Fprintf(w, `{"title":"Gone","code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":%q}}`, advice)
			return
		}
		other(w, r)
	})
	return m, srv.URL
}

func sseFinal(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"responseMessageDto\":{\"id\":\"m1\",\"threadId\":\"thr_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},\"generationStage\":\"COMPLETE\"}\n\ndata: DONE\n\n")
}

// TestHardenMigrationRefusals: advice that switches the method, climbs
// with encoded dot segments or drops the thread id is refused: nothing
// but the one deprecated call is sent.
func TestHardenMigrationRefusals(t *testing.T) {
	t.Parallel()
	for _, advice := range []string{
		"DELETE /threads/:id", "GET /:id", "PUT /:id/advancestream",
		"POST /:id/%2e%2e/%2E%2E/admin", "POST /%2E./x/:id", "POST /.%2e/:id/x",
		"POST /advancestream", "POST /threads/advancestream?x=1",
		"POST /advancestream?project=:projectId",
	} {
		m, url := newMigrationServer(t, http.StatusGone, advice, sseFinal)
		c := hardClient(t, url)
		_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
		require.ErrorIs(t, err, threads.ErrEndpointDeprecated, advice)
		require.Equal(t, []string{"POST /threads/thr_1/advance"}, m.log(), "advice %q", advice)
		require.Contains(t, err.Error(), "migration not followed", advice)
	}
}

// TestHardenMigrationQueryPlaceholder: a placeholder in the advice's query
// is filled like one in its path.
func TestHardenMigrationQueryPlaceholder(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusGone, "POST /advancestream2?thread=:id", sseFinal)
	c := hardClient(t, url)
	got, err := c.Threads.Advance(context.Background(), "thr 1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	require.Equal(t, "hi", got.Message.Text())
	require.Equal(t, []string{"POST /threads/thr%201/advance", "POST /threads/advancestream2?thread=thr+1"}, m.log())
}

// TestHardenMigrationOnly410 : a 500 that carries ENDPOINT_DEPRECATED is
// a server error, not advice.
func TestHardenMigrationOnly410(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusInternalServerError, "POST /:id/advancestream", sseFinal)
	c := hardClient(t, url, threads.WithMaxRetries(0))
	_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.ErrorIs(t, err, threads.ErrServer)
	require.Equal(t, []string{"POST /threads/thr_1/advance"}, m.log())
}

// TestHardenMigrationRememberedOnly2xx: a replacement that answers 404 is
// not remembered: the next call asks the deprecated route again (and is
// migrated once the replacement works).
func TestHardenMigrationRememberedOnly2xx(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	broken.Store(true)
	var moves atomic.Int64
	m, url := newMigrationServer(t, http.StatusGone, "POST /:id/advancestream", func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.NotFound(w, r)
			return
		}
		sseFinal(w, r)
	})
	c := hardClient(t, url, threads.WithDeprecationHandler(func(threads.Deprecation) { moves.Add(1) }))
	adv := func() error {
		_, err := c.Threads.Advance(context.Background(), "thr_1", threads.AdvanceParams{Message: threads.UserMessage("x")})
		return err
	}
	require.ErrorIs(t, adv(), threads.ErrNotFound)
	require.ErrorIs(t, adv(), threads.ErrNotFound)
	require.EqualValues(t, 0, moves.Load())
	broken.Store(false)
	require.NoError(t, adv())
	require.NoError(t, adv())
	require.EqualValues(t, 1, moves.Load())
	require.Equal(t, []string{
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advance", "POST /threads/thr_1/advancestream",
		"POST /threads/thr_1/advancestream",
	}, m.log())
}

// TestHardenMigrationCreateAdvance: the live create-and-advance advice
// (no placeholder on either side) is still followed.
func TestHardenMigrationCreateAdvance(t *testing.T) {
	t.Parallel()
	m, url := newMigrationServer(t, http.StatusGone, "POST /advancestream", sseFinal)
	c := hardClient(t, url)
	got, err := c.Threads.CreateAndAdvance(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	require.Equal(t, "hi", got.Message.Text())
	require.Equal(t, []string{"POST /threads/advance", "POST /threads/advancestream"}, m.log())
}

var _ = errors.New

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

// TestHardenTricklingBodiesEnd: WithRequestTimeout covers a JSON call's
// whole answer: a 2xx body, an error body, and the drain of a 503 that is
// retried, all trickling, end within the timeout per attempt under
// context.Background(). Run in a synctest bubble over an in-memory network,
// so the bound is exact on the fake clock whatever the machine's load.
func TestHardenTricklingBodiesEnd(t *testing.T) {
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

// TestHardenStreamOutlivesRequestTimeout: a stream whose headers arrived in
// time is not cut by WithRequestTimeout (in a synctest bubble: the server's
// pauses and the timeout run on the fake clock).
func TestHardenStreamOutlivesRequestTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testHardenStreamOutlivesRequestTimeout)
}

func testHardenStreamOutlivesRequestTimeout(t *testing.T) {
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
// upper bound of that peak.
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
		require.Less(t, peak, uint64(256*mib), tc.name)
		require.Less(t, alloc, uint64(256*mib), tc.name)
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
	require.Less(t, peak, uint64(256*mib))
}

// rtFunc is an http.RoundTripper made of a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// cannedClient returns a client whose every request is answered by a
// response built from status, header and body, without a network.
func cannedResponseClient(t testing.TB, key string, status int, header http.Header, body []byte, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	rt := rtFunc(func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			r.Body.Close()
		}
		return &http.Response{StatusCode: status, Header: header.Clone(), Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example.com"), threads.WithAPIKey(key),
		threads.WithHTTPClient(&http.Client{Transport: rt}), threads.WithMaxRetries(0),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// jsonEscapeAll spells every character of s as \uXXXX.
func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// renderings is every way a caller may show a *Problem: its error string,
// the fmt verbs, and each field.
func renderings(p *threads.Problem) map[string]string {
	out := map[string]string{
		"Error": p.Error(), "%v": fmt.Sprintf("%v", p), "%+v": fmt.Sprintf("%+v", p), "%#v": fmt.Sprintf("%#v", p),
		"%s": fmt.Sprintf("%s", p), "*p %+v": fmt.Sprintf("%+v", *p),
		"Type": p.Type, "Title": p.Title, "Detail": p.Detail, "Instance": p.Instance, "Code": p.Code,
		"RequestID": p.RequestID, "Body": string(p.Body), "Details": fmt.Sprintf("%#v", p.Details),
	}
	for k, v := range p.Extensions {
		out["Extensions key "+k] = k
		out["Extensions["+k+"]"] = string(v)
	}
	for k, vs := range p.Header {
		out["Header key "+k] = k
		out["Header["+k+"]"] = strings.Join(vs, "\n")
	}
	if d, ok := p.Deprecation(); ok {
		out["Deprecation"] = fmt.Sprintf("%+v %s %s %s", d, d.From, d.To, d.MigrateTo)
	}
	return out
}

// requireNoKey fails when any rendering holds key in any spelling (raw,
// JSON-escaped, or as %#v shows a []byte).
func requireNoKey(t testing.TB, key string, shown map[string]string) {
	t.Helper()
	hexed := fmt.Sprintf("%#v", []byte(key))
	hexed = hexed[len("[]byte{") : len(hexed)-1]
	for where, s := range shown {
		if redact.Contains(s, key) || strings.Contains(s, hexed) {
			t.Fatalf("the key is in %s: %q", where, s)
		}
	}
}

// TestHardenProblemNeverShowsKey: the key echoed by the server, raw or
// JSON-escaped (\/, \uXXXX), in any member, header or the raw body, never
// reaches any rendering of the *Problem; a short key neither.
func TestHardenProblemNeverShowsKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{hardKey, "ab1x"} {
		esc := strings.ReplaceAll(key, "/", `\/`)
		uesc := jsonEscapeAll(key)
		body := fmt.Sprintf(`{"title":"bad key %[1]s","detail":"%[2]s","code":"X%[3]s","instance":"/t?key=%[2]s",`+
			`"details":{"k":"%[2]s","%[3]s":["%[1]s",{"deep":"%[3]s"}],"migrateToEndpoint":"POST /%[2]s"},`+
			`"ext":"%[3]s","more":{"%[2]s":1}}`, key, esc, uesc)
		h := http.Header{"Content-Type": {"application/problem+json"}, "X-Request-Id": {key}, "X-Echo": {"Bearer " + key}}
		for _, status := range []int{400, 401, 410, 500} {
			c := cannedResponseClient(t, key, status, h, []byte(body))
			_, err := c.Threads.Get(context.Background(), "thr_1")
			var p *threads.Problem
			require.ErrorAs(t, err, &p)
			requireNoKey(t, key, renderings(p))
			require.Equal(t, "[REDACTED]", p.RequestID)
		}
		// A 2xx body that is not JSON, echoing the key.
		c := cannedResponseClient(t, key, 200, http.Header{"Content-Type": {"text/plain"}}, []byte("oops "+key+" "+uesc))
		_, err := c.Threads.Get(context.Background(), "thr_1")
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
		requireNoKey(t, key, map[string]string{"error": err.Error(), "%+v": fmt.Sprintf("%+v", err)})
	}
}

// TestHardenTransportErrorsRedactURL: a failed connection's error (a
// *url.Error) and the logger's error field show the URL without the
// values of credential-like query parameters or the key.
func TestHardenTransportErrorsRedactURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more: every attempt fails to connect
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := hardClient(t, url, threads.WithMaxRetries(1), threads.WithLogger(logger))
	_, err := c.Threads.Get(context.Background(), "thr_1",
		threads.WithQuery("api_key", "v-apikey"), threads.WithQuery("access_token", "v-token"),
		threads.WithQuery("client_secret", "v-secret"), threads.WithQuery("password", "v-password"),
		threads.WithQuery("Authorization", "v-auth"), threads.WithQuery("echo", hardKey), threads.WithQuery("page", "2"))
	require.Error(t, err)
	var ue *neturl.Error
	require.ErrorAs(t, err, &ue)
	for where, s := range map[string]string{"error": err.Error(), "url.Error.URL": ue.URL, "log": logs.String()} {
		for _, v := range []string{"v-apikey", "v-token", "v-secret", "v-password", "v-auth", hardKey, neturl.QueryEscape(hardKey)} {
			require.NotContains(t, s, v, where)
		}
		require.Contains(t, s, "page=2", where)
	}
	require.Contains(t, logs.String(), "error=")
}

// TestHardenProblemErrorOneLine: CR, LF, ANSI escapes, other control and
// format characters from a JSON error never reach Error(), which is one
// line with each part capped; the fields keep what was sent.
func TestHardenProblemErrorOneLine(t *testing.T) {
	t.Parallel()
	title := "Bad\r\nInjected: yes\x1b[31mRED\x1b[0m\x1b]0;title\x07\x00\u202e\u2028x"
	detail := strings.Repeat("long detail \t", 4_000)
	body, _ := json.Marshal(map[string]any{"title": title, "detail": detail, "code": "C\nODE\u009b2J"})
	c := cannedResponseClient(t, hardKey, 400, http.Header{"Content-Type": {"application/json"}}, body)
	_, err := c.Threads.Get(context.Background(), "thr_1")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	require.Equal(t, title, p.Title)
	msg := p.Error()
	t.Logf("%.200s", msg)
	for _, r := range msg {
		require.False(t, unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028', "%U in %q", r, msg)
	}
	require.NotContains(t, msg, "[31m")
	require.NotContains(t, msg, "title")
	require.Contains(t, msg, "Bad Injected: yes RED x")
	require.Less(t, utf8.RuneCountInString(msg), 1600)
	require.Equal(t, msg, fmt.Sprintf("%v", err))
}

// TestHardenMisuse: zero values and bad ids fail with an error naming the
// problem, without a panic or a request.
func TestHardenMisuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := threads.AdvanceParams{Message: threads.UserMessage("x")}
	for name, fn := range map[string]func() error{
		"zero Client Get":  func() error { _, err := (&threads.Client{}).Threads.Get(ctx, "thr_1"); return err },
		"zero Client List": func() error { _, err := (&threads.Client{}).Threads.List(ctx, nil); return err },
		"zero Client Create": func() error {
			_, err := (&threads.Client{}).Threads.Create(ctx, threads.CreateThreadParams{})
			return err
		},
		"zero Client Stream":    func() error { _, err := (&threads.Client{}).Threads.AdvanceStream(ctx, "thr_1", p); return err },
		"zero Client Advance":   func() error { _, err := (&threads.Client{}).Threads.Advance(ctx, "thr_1", p); return err },
		"zero Client Cancel":    func() error { _, err := (&threads.Client{}).Threads.Cancel(ctx, "thr_1"); return err },
		"zero Client CreateAdv": func() error { _, err := (&threads.Client{}).Threads.CreateAndAdvanceStream(ctx, p); return err },
		"new ThreadsService":    func() error { _, err := new(threads.ThreadsService).Get(ctx, "thr_1"); return err },
		"new ProjectsService":   func() error { _, err := new(threads.ProjectsService).Current(ctx); return err },
	} {
		var err error
		require.NotPanics(t, func() { err = fn() }, name)
		require.ErrorContains(t, err, "NewClient", name)
	}

	srv, n := hardServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	c := hardClient(t, srv.URL)
	for _, id := range []string{" ", "\t\n", ".", "..", " .. "} {
		_, err := c.Threads.Get(ctx, id)
		require.ErrorContains(t, err, "thread id", "%q", id)
		_, err = c.Threads.AdvanceStream(ctx, id, p)
		require.ErrorContains(t, err, "thread id", "%q", id)
		_, err = c.Threads.Cancel(ctx, id)
		require.ErrorContains(t, err, "thread id", "%q", id)
	}
	require.Zero(t, n.Load())
}

// spell writes key in one of several spellings a server may echo: raw,
// with "\/", every character as \uXXXX (lower or upper hex), or a mix
// chosen by the bits of mode.
func spell(key string, mode uint8) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case mode%4 == 0:
			b.WriteRune(r)
		case mode%4 == 1 && r == '/':
			b.WriteString(`\/`)
		case mode%4 == 1:
			b.WriteRune(r)
		case mode%4 == 2:
			fmt.Fprintf(&b, `\u%04x`, r)
		case (mode>>2)&(1<<(i%6)) != 0:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FuzzProblemSecrets: whatever the error body around it, the key embedded
// in any spelling (and echoed in headers) never reaches any rendering of
// the *Problem: Error, %v, %+v, %#v, or any field.
func FuzzProblemSecrets(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"title":"`, `"}`},
		{`{"detail":"bad key: `, `","code":"UNAUTHORIZED"}`},
		{`{"details":{"migrateToEndpoint":"POST /`, `"},"code":"ENDPOINT_DEPRECATED"}`},
		{`{"details":{"`, `":[1,{"a":null}]}}`},
		{`{"statusCode":401,"message":["a","`, `"],"error":"Unauthorized"}`},
		{`{"extra":{"k":"`, `"},"title":"t"}`},
		{`<html>`, `</html>`},
		{``, ``},
	} {
		for mode := uint8(0); mode < 4; mode++ {
			f.Add(401, []byte(seed[0]), []byte(seed[1]), mode, false)
		}
	}
	f.Add(410, []byte(`{"code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"POST /:id/`), []byte(`"}}`), uint8(0), true)
	f.Fuzz(func(t *testing.T, status int, prefix, suffix []byte, mode uint8, short bool) {
		key := hardKey
		if short {
			key = "ab1x"
		}
		if status < 0 {
			status = -status
		}
		status = 400 + status%200
		body := append(append(append([]byte(nil), prefix...), spell(key, mode)...), suffix...)
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {spell(key, mode)}, "X-" + key[:2]: {key}}
		c := cannedResponseClient(t, key, status, h, body)
		_, err := c.Threads.Get(context.Background(), "thr_1")
		var p *threads.Problem
		if !errors.As(err, &p) {
			t.Fatalf("not a *Problem: %v", err)
		}
		requireNoKey(t, key, renderings(p))
	})
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
