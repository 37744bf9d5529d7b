package threads_test

import (
	"bytes"
	"compress/gzip"
	"context"
	threads "github.com/threadsapi/threads-go"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
