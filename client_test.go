package threads_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestNewClientErrors(t *testing.T) {
	t.Setenv(threads.EnvAPIKey, "")
	t.Setenv(threads.EnvBaseURL, "")
	tests := []struct {
		name string
		opts []threads.ClientOption
		want string
	}{
		{"no base URL", []threads.ClientOption{threads.WithAPIKey("k")}, "no base URL"},
		{"no key", []threads.ClientOption{threads.WithBaseURL("https://api.example.com")}, "no API key"},
		{"ftp", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("ftp://example.com")}, "scheme must be http or https"},
		{"no scheme", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("api.example.com")}, "scheme must be http or https"},
		{"no host", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("https:///x")}, "no host"},
		{"userinfo", []threads.ClientOption{threads.WithAPIKey("k"), threads.WithBaseURL("https://u:p@example.com")}, "credentials"},
		{"negative retries", []threads.ClientOption{threads.WithMaxRetries(-1)}, "WithMaxRetries(-1)"},
		{"retry wait order", []threads.ClientOption{threads.WithRetryWait(2, 1)}, "need 0 <= minWait <= maxWait"},
		{"bad header name", []threads.ClientOption{threads.WithHeader("bad name", "v")}, "not a valid header name"},
		{"reserved header", []threads.ClientOption{threads.WithHeader("authorization", "x")}, "sets this header itself"},
		{"header value", []threads.ClientOption{threads.WithHeader("X-A", "a\r\nb")}, "cannot carry"},
		{"key with newline", []threads.ClientOption{threads.WithAPIKey("a\nb")}, "cannot carry"},
		{"nil option", []threads.ClientOption{nil}, "option 0 is nil"},
		{"max event size", []threads.ClientOption{threads.WithMaxEventSize(0)}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := threads.NewClient(tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewClientFromEnvironment(t *testing.T) {
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	t.Setenv(threads.EnvAPIKey, testKey)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	c, err := threads.NewClient()
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+testKey, srv.requests()[0].Header.Get("Authorization"))

	// Options win over the environment; WithoutEnvironmentDefaults ignores it.
	c, err = threads.NewClient(threads.WithAPIKey("other-key"))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	assert.Equal(t, "Bearer other-key", srv.requests()[1].Header.Get("Authorization"))
	_, err = threads.NewClient(threads.WithoutEnvironmentDefaults())
	assert.ErrorContains(t, err, "no base URL")
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 201, "application/json; charset=utf-8", fixture(t, "live/create.json"))
	c := cannedClient(t, srv, threads.WithHeader("X-Tenant", "acme"), threads.WithUserAgent("my-app/2.0"))
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"}, threads.WithHeader("X-Call", "one"))
	require.NoError(t, err)
	h := srv.requests()[0].Header
	assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "my-app/2.0 threads-go/"+threads.Version), h.Get("User-Agent"))
	assert.Equal(t, "acme", h.Get("X-Tenant"))
	assert.Equal(t, "one", h.Get("X-Call"))

	// A per-call header does not stick to the client.
	_, err = c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p_1"})
	require.NoError(t, err)
	assert.Empty(t, srv.requests()[1].Header.Get("X-Call"))
}

func TestAPIKeyHeader(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	c := cannedClient(t, srv, threads.WithAPIKeyHeader("x-api-key"))
	_, err := c.Threads.Get(context.Background(), "thr_1.a")
	require.NoError(t, err)
	h := srv.requests()[0].Header
	assert.Equal(t, testKey, h.Get("X-Api-Key"))
	assert.Empty(t, h.Get("Authorization"))
}

func TestPathEscaping(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	c := cannedClient(t, srv)
	for id, want := range map[string]string{
		"thr_aB3dE9xZ.1f2e3d": "/threads/thr_aB3dE9xZ.1f2e3d",
		"a/b":                 "/threads/a%2Fb",
		"../../admin":         "/threads/..%2F..%2Fadmin",
		"x?y#z":               "/threads/x%3Fy%23z",
		"sp ace":              "/threads/sp%20ace",
	} {
		_, err := c.Threads.Get(context.Background(), id)
		require.NoError(t, err, id)
		reqs := srv.requests()
		assert.Equal(t, want, reqs[len(reqs)-1].Path, id)
		assert.Empty(t, reqs[len(reqs)-1].RawQuery, id)
	}
	_, err := c.Threads.Get(context.Background(), "")
	assert.ErrorContains(t, err, "empty thread id")
}

func TestBaseURLPrefix(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 200, "application/json", fixture(t, "live/get-empty.json"))
	for _, base := range []string{srv.URL + "/api", srv.URL + "/api/"} {
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey))
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		require.NoError(t, err)
	}
	for _, r := range srv.requests() {
		assert.Equal(t, "/api/threads/thr_1.a", r.Path)
	}
}

// BaseURL gives the base URL as configured, the prefix a companion
// package derives an endpoint from; "" for a nil client.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example.com/v2/"), threads.WithAPIKey(testKey))
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/v2/", c.BaseURL())
	var nilClient *threads.Client
	assert.Empty(t, nilClient.BaseURL())
}

func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", threads.ClientConfig(c)), fmt.Sprintf("%+v", struct{ C any }{threads.ClientConfig(c)}),
		fmt.Sprintf("%+v", threads.WithAPIKey(testKey)), fmt.Sprintf("%#v", threads.WithAPIKey(testKey)), fmt.Sprintf("%#v", threads.ClientConfig(c))} {
		assert.NotContains(t, s, testKey)
	}
	// A connection error names the call, not the key.
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), testKey)
	assert.Contains(t, err.Error(), "GET /threads/thr_1.a")
}

func TestRedirectToOtherHostKeepsKey(t *testing.T) {
	t.Parallel()
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = append(leaked, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		w.WriteHeader(200)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirect.Close()
	for _, opt := range []threads.ClientOption{threads.WithAPIKeyHeader("Authorization"), threads.WithAPIKeyHeader("x-api-key")} {
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(redirect.URL), threads.WithAPIKey(testKey), opt)
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		var p *threads.Problem
		require.ErrorAs(t, err, &p)
		assert.Equal(t, http.StatusFound, p.Status)
	}
	assert.Empty(t, leaked)
}

// TestMisuseFailsWithoutPanicOrRequest: zero values and bad ids fail with an error naming the
// problem, without a panic or a request.
func TestMisuseFailsWithoutPanicOrRequest(t *testing.T) {
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

// TestThousandConcurrentStreams runs 1,000 streams at once through one
// Client, then 1,000 more through 50 workers: every stream completes, the
// second wave reuses connections (at most the idle pool plus the
// concurrency), and goleak (TestMain) finds no goroutine left behind.
func TestThousandConcurrentStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 streams")
	}
	const idlePool = 50
	srv := threadstest.Start(threadstest.WithAPIKey(testKey))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: idlePool, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey),
		threads.WithHTTPClient(&http.Client{Transport: tr}), threads.WithMaxRetries(0))
	require.NoError(t, err)

	run := func(id int) error {
		s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("hello")})
		if err != nil {
			return err
		}
		n := 0
		for _, err := range s.All() {
			if err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			t.Errorf("stream %d had no events", id)
		}
		return nil
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2000)
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- run(i)
		}()
	}
	wg.Wait()
	firstWave := srv.Connections()
	assert.LessOrEqual(t, firstWave, 1000+idlePool)

	const workers = 50
	jobs := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				errs <- run(i)
			}
		}()
	}
	for i := range 1000 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	secondWave := srv.Connections() - firstWave
	assert.LessOrEqual(t, secondWave, idlePool+workers, "connections are reused after DONE")
	assert.Equal(t, 2000, len(srv.ThreadIDs()))
	t.Logf("connections: %d for 1,000 at once, %d more for 1,000 through %d workers", firstWave, secondWave, workers)
}

// The fault suite: what a server or network can do, each case ending
// within its deadline with a typed, readable error, and leaving no
// goroutine or connection behind. Each case runs in a synctest bubble over
// an in-memory network (pipeServer): its deadlines and the server's pacing
// run on the bubble's clock, so "within" is asserted exactly whatever the
// machine's load, and the bubble fails on any goroutine left behind.

type faultCase struct {
	name          string
	handler       http.HandlerFunc // nil: nothing listens
	opts          []threads.ClientOption
	noCompression bool // the transport does not ask for gzip
	call          func(ctx context.Context, c *threads.Client) error
	check         func(t *testing.T, err error)
	within        time.Duration // of the bubble's fake time; 0: 1s
}

func getThread(ctx context.Context, c *threads.Client) error {
	_, err := c.Threads.Get(ctx, "thr_a.1")
	return err
}

func streamAll(ctx context.Context, c *threads.Client) error {
	s, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")})
	if err != nil {
		return err
	}
	for _, err := range s.All() {
		if err != nil {
			return err
		}
	}
	return nil
}

func hijack(w http.ResponseWriter) net.Conn {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	return conn
}

// slowBytes writes body one byte per interval until the client leaves.
func slowBytes(w http.ResponseWriter, r *http.Request, body string, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for i := 0; i < len(body); i++ {
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		if _, err := io.WriteString(w, body[i:i+1]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

func TestFaultSuite(t *testing.T) {
	event := string(fixture(t, "live/stream-plain.sse")[:400])
	var sent100MiB atomic.Int64
	cases := []faultCase{
		{
			name: "connection refused",
			call: getThread,
			check: func(t *testing.T, err error) {
				var ue *url.Error
				require.ErrorAs(t, err, &ue)
				var oe *net.OpError
				assert.ErrorAs(t, err, &oe)
			},
		},
		{
			name:    "reset before headers",
			handler: func(w http.ResponseWriter, r *http.Request) { hijack(w).Close() },
			call:    getThread,
			check: func(t *testing.T, err error) {
				var ue *url.Error
				assert.ErrorAs(t, err, &ue)
				assert.Contains(t, err.Error(), "GET /threads/thr_a.1")
			},
		},
		{
			name: "reset mid-body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "500")
				w.WriteHeader(200)
				io.WriteString(w, `{"id":"thr_a.1","projectId":"p","mess`)
				w.(http.Flusher).Flush()
				hijack(w).Close()
			},
			call:  getThread,
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, io.ErrUnexpectedEOF) },
		},
		{
			name: "stall before headers",
			handler: func(w http.ResponseWriter, r *http.Request) {
				// Read the body first: the server notices a client that hung
				// up only once it reads the connection again.
				io.Copy(io.Discard, r.Body)
				<-r.Context().Done()
			},
			opts: []threads.ClientOption{threads.WithRequestTimeout(50 * time.Millisecond), threads.WithMaxRetries(0)},
			call: streamAll,
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Contains(t, err.Error(), "WithRequestTimeout")
			},
		},
		{
			name: "stall mid-stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(201)
				io.WriteString(w, strings.Split(string(fixture(t, "live/stream-plain.sse")), "\n\n")[0]+"\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			},
			opts:  []threads.ClientOption{threads.WithStreamIdleTimeout(100 * time.Millisecond)},
			call:  streamAll,
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, threads.ErrStreamIdle) },
		},
		{
			name: "half-written event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(201)
				io.WriteString(w, event)
				w.(http.Flusher).Flush()
				hijack(w).Close()
			},
			call: streamAll,
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, threads.ErrStreamTruncated)
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			},
		},
		{
			name:    "gzip error body, decoded by the transport",
			handler: gzipError,
			call:    getThread,
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, threads.ErrServer)
				assert.Contains(t, err.Error(), "database is down")
			},
		},
		{
			name:          "gzip error body the client did not ask for",
			handler:       gzipError,
			noCompression: true,
			call:          getThread,
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, threads.ErrServer)
				assert.Contains(t, err.Error(), "database is down")
			},
		},
		{
			name: "200 with HTML",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<!doctype html><h1>Sign in</h1>")
			},
			call: getThread,
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
				assert.Contains(t, err.Error(), "Sign in")
			},
		},
		{
			name: "2xx stream with the wrong content type",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(201)
				io.WriteString(w, `{"ok":true}`)
			},
			call:  streamAll,
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, threads.ErrUnexpectedResponse) },
		},
		{
			name: "100 MiB error body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(500)
				n, _ := io.Copy(w, io.LimitReader(zeros{}, 100<<20))
				sent100MiB.Store(n)
			},
			opts: []threads.ClientOption{threads.WithMaxRetries(0)},
			call: getThread,
			check: func(t *testing.T, err error) {
				var p *threads.Problem
				require.ErrorAs(t, err, &p)
				assert.Len(t, p.Body, threads.MaxProblemBody)
				synctest.Wait() // the handler has seen the hang-up
				// The client read the cap and hung up: the server could
				// write little more than that (the pipe has no buffer; the
				// server's own is 4 KiB).
				assert.Positive(t, sent100MiB.Load(), "the handler has returned")
				assert.Less(t, sent100MiB.Load(), int64(1<<20), "bytes the server got to write")
			},
		},
		{
			name: "slow-loris JSON body, one byte per second",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				w.(http.Flusher).Flush()
				slowBytes(w, r, `{"id":"thr_a.1","projectId":"p","messages":[]}`, time.Second)
			},
			call: func(ctx context.Context, c *threads.Client) error {
				ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
				defer cancel()
				return getThread(ctx, c)
			},
			check:  func(t *testing.T, err error) { assert.ErrorIs(t, err, context.DeadlineExceeded) },
			within: 3 * time.Second,
		},
		{
			name: "slow-loris stream, one byte per second",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(201)
				w.(http.Flusher).Flush()
				slowBytes(w, r, event, time.Second)
			},
			opts:   []threads.ClientOption{threads.WithStreamIdleTimeout(1500 * time.Millisecond)},
			call:   streamAll,
			check:  func(t *testing.T, err error) { assert.ErrorIs(t, err, threads.ErrStreamIdle) },
			within: 3 * time.Second,
		},
	}
	for _, fc := range cases {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var h http.Handler
				if fc.handler != nil {
					h = fc.handler
				}
				base, tr := pipeServer(t, h)
				tr.DisableCompression = fc.noCompression
				opts := append([]threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey),
					threads.WithRetryWait(time.Millisecond, 2*time.Millisecond), threads.WithHTTPClient(&http.Client{Transport: tr})}, fc.opts...)
				c, err := threads.NewClient(opts...)
				require.NoError(t, err)

				within := fc.within
				if within == 0 {
					within = time.Second
				}
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				start := time.Now()
				err = fc.call(ctx, c)
				elapsed := time.Since(start) // fake time: exact
				require.Error(t, err)
				fc.check(t, err)
				assert.Less(t, elapsed, within, "took %v of fake time", elapsed)
				assert.NotContains(t, err.Error(), testKey)
				t.Logf("%v after %v", err, elapsed)
			})
		})
	}
}

func gzipError(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, `{"statusCode":500,"message":"database is down","error":"Internal Server Error"}`)
	zw.Close()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(500)
	w.Write(b.Bytes())
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Client.Do reaches any route through the one request path: the key, the
// decoding of the answer, a *Problem for an error, the retries of a GET.
func TestDoGoesThroughTheRequestPath(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	var th threads.Thread
	require.NoError(t, c.Do(ctx, "POST", "/threads", []byte(`{"projectId":"`+srv.ProjectID+`", "name":"raw body"}`), &th))
	assert.Equal(t, "raw body", th.Name)
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.Equal(t, `{"projectId":"`+srv.ProjectID+`", "name":"raw body"}`, string(last.Body), "a []byte body is sent byte for byte")
	assert.Equal(t, "application/json", last.Header.Get("Content-Type"))
	assert.Equal(t, "Bearer "+testKey, last.Header.Get("Authorization"))

	// A GET answered 503 once is retried, as every GET is.
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads/" + th.ID, Status: http.StatusServiceUnavailable})
	var raw json.RawMessage
	require.NoError(t, c.Do(ctx, "GET", "/threads/"+url.PathEscape(th.ID)+"?contextKey=", nil, &raw))
	assert.Contains(t, string(raw), `"name":"raw body"`)
	assert.Equal(t, 2, srv.Count("GET", "/threads/"+th.ID))

	// A Go value is encoded with encoding/json; nil out drops the answer.
	require.NoError(t, c.Do(ctx, "PUT", "/threads/"+th.ID, map[string]any{"projectId": srv.ProjectID, "name": "renamed"}, nil))
	got, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, "renamed", got.Name)

	err = c.Do(ctx, "GET", "/no/such/route", nil, &raw)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.ErrorIs(t, err, threads.ErrNotFound)

	err = c.Do(ctx, "DELETE", "/threads/"+th.ID, nil, &raw) // 200 with no body: out is left alone
	require.NoError(t, err)
}

// Every path that could leave its route is refused before anything is
// sent, naming why; so is a /v1 route, which needs an end user.
func TestDoChecksThePath(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	for path, want := range map[string]string{
		"/threads/..":                  "dot segment",
		"/threads/%2E%2e/projects":     "dot segment",
		"/threads/a%2Fb":               "encoded separator",
		"/threads/a%5cb":               "encoded separator",
		"//evil.example/threads":       "names a host",
		"https://evil.example/threads": "does not start with /",
		"/threads//x":                  "empty segment",
		"/threads/%20":                 "white space",
		"/v1/threads":                  "use runs.Client.Do",
	} {
		err := c.Do(context.Background(), "GET", path, nil, nil)
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), want, path)
	}
	err := c.Do(context.Background(), "get", "/threads", nil, nil)
	assert.ErrorContains(t, err, "not an HTTP method")
	err = c.Do(context.Background(), "POST", "/threads", strings.NewReader("{}"), nil)
	assert.ErrorContains(t, err, "the body is an io.Reader")
	assert.Empty(t, srv.Requests())
}

// A path of one of the SDK's routes is that route: the service's 410
// advice is followed and remembered, as for the typed method. Any other
// route's 410 is returned.
func TestDoMigratesTheSpecRoutes(t *testing.T) {
	t.Parallel()
	var old, moved atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/threads/thr_1", "/custom/thr_1":
			old.Add(1)
			w.WriteHeader(http.StatusGone)
			io.WriteString(w, `{"statusCode":410,"code":"ENDPOINT_DEPRECATED","message":"moved","details":{"migrateToEndpoint":"GET /threads/:id/v2"}}`)
		case "/threads/thr_1/v2":
			moved.Add(1)
			io.WriteString(w, `{"id":"thr_1","name":"moved"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	require.NoError(t, err)
	ctx := context.Background()
	for range 2 {
		var th threads.Thread
		require.NoError(t, c.Do(ctx, "GET", "/threads/thr_1", nil, &th))
		assert.Equal(t, "moved", th.Name)
	}
	assert.Equal(t, int32(1), old.Load(), "the move is remembered")
	assert.Equal(t, int32(2), moved.Load())

	err = c.Do(ctx, "GET", "/custom/thr_1", nil, nil)
	assert.ErrorIs(t, err, threads.ErrEndpointDeprecated, "a route the SDK does not know is not migrated")
}

// WithJSONSet, WithJSONDelete and WithRequestBody change the body of any
// call, typed methods included; misuse fails before sending.
func TestBodyOptions(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "n", Metadata: map[string]any{"a": 1}},
		threads.WithJSONSet("/metadata/source", "go"), threads.WithJSONSet("/future", []int{1}), threads.WithJSONDelete("/name"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": float64(1), "source": "go"}, th.Metadata)
	assert.Empty(t, th.Name)
	reqs := srv.Requests()
	var sent map[string]any
	require.NoError(t, json.Unmarshal(reqs[len(reqs)-1].Body, &sent))
	assert.Equal(t, []any{float64(1)}, sent["future"])
	assert.NotContains(t, sent, "name")

	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID},
		threads.WithRequestBody("application/json", []byte(`{"projectId":"`+srv.ProjectID+`","name":"whole"}`)))
	require.NoError(t, err)
	reqs = srv.Requests()
	assert.Equal(t, `{"projectId":"`+srv.ProjectID+`","name":"whole"}`, string(reqs[len(reqs)-1].Body))

	n := len(srv.Requests())
	_, err = c.Threads.Get(ctx, th.ID, threads.WithJSONSet("/x", 1))
	assert.ErrorContains(t, err, `WithJSONSet("/x"): a GET sends no body`)
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "n"}, threads.WithJSONSet("/metadata/x/y", 1),
		threads.WithJSONSet("/name/x", 1))
	assert.ErrorContains(t, err, `WithJSONSet("/name/x"): "x" goes into a JSON string`)
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{}, threads.WithJSONSet("x", 1))
	assert.ErrorContains(t, err, "does not start with /")
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{}, threads.WithJSONSet("/x", func() {}))
	assert.ErrorContains(t, err, "encoding the value")
	_, err = c.Threads.Create(ctx, threads.CreateThreadParams{}, threads.WithRequestBody("not a type", nil))
	assert.ErrorContains(t, err, "not a media type")
	assert.Equal(t, n, len(srv.Requests()), "nothing was sent")

	_, err = threads.NewClient(threads.WithBaseURL("http://x"), threads.WithAPIKey("k"), threads.WithJSONSet("/x", 1))
	assert.ErrorContains(t, err, "for a single call")
}

// With WithRawJSON off (the default), decoded values record nothing and
// compare equal to the same values built in Go.
func TestRawJSONOffByDefault(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "n"})
	require.NoError(t, err)
	assert.Nil(t, th.RawJSON())
	assert.Nil(t, th.ExtraFields())
	assert.Equal(t, threads.Raw{}, th.Raw)
}
