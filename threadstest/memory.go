package threadstest

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
)

// memoryURL is the base URL of a server made with [WithoutListener]: a
// name that no resolver answers, so a request that misses the in-memory
// transport fails instead of reaching another host.
const memoryURL = "http://threadstest.invalid"

// WithoutListener makes the server open no socket: it is reached only in
// memory, through [Server.Client], [Server.HTTPClient] and
// [Server.Transport], and its URL is "http://threadstest.invalid". This is
// the mode for tests under testing/synctest, where time is fake and a
// goroutine waiting on a real socket would keep the bubble from ever
// advancing it: with it, streams paced by [WithThrottle], request
// timeouts and retry waits take no real time. [Server.Connections] stays 0.
// It cannot be combined with [WithAddr].
func WithoutListener() Option { return option(func(c *config) { c.noListener = true }) }

// errClosed is what the in-memory transport answers once the server is
// closed.
var errClosed = errors.New("threadstest: server closed")

// errReset is what the in-memory transport answers when the fake cuts the
// connection before the response headers ([Fault] Reset, ActThenReset).
var errReset = fmt.Errorf("threadstest: the server closed the connection without an answer: %w", io.EOF)

// memory tracks the requests served in memory, so that Close can end them.
type memory struct {
	mu      sync.Mutex
	closed  bool
	cancels map[*int]context.CancelFunc
	wg      sync.WaitGroup
}

// close cancels every request in progress, waits for their handlers to
// return and refuses the requests that come later.
func (m *memory) close() {
	m.mu.Lock()
	m.closed = true
	for _, cancel := range m.cancels {
		cancel()
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// Transport returns an [http.RoundTripper] that serves each request by
// calling the server's handler in memory, without a socket, whatever the
// request's host: the same routes, faults, scripts and recording as over
// TCP. A response body streams as the handler writes it (an event reaches
// the client as soon as the handler flushes it); closing the body, or the
// request's context ending, ends the handler's request context, as a
// disconnect does. It reports the httptrace events WroteHeaders,
// WroteRequest and GotFirstResponseByte, and, like [http.DefaultTransport],
// asks for gzip and inflates a gzip answer unless the request set
// Accept-Encoding itself. After [Server.Close] it refuses every request.
// It works with or without [WithoutListener].
func (s *Server) Transport() http.RoundTripper { return memTransport{s} }

type memTransport struct{ s *Server }

func (t memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	m := &t.s.mem
	ctx, cancel := context.WithCancel(req.Context())
	key := new(int)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		cancel()
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errClosed
	}
	if m.cancels == nil {
		m.cancels = map[*int]context.CancelFunc{}
	}
	m.cancels[key] = cancel
	m.wg.Add(1)
	m.mu.Unlock()

	in, inflate := serverRequest(ctx, req)
	trace := httptrace.ContextClientTrace(req.Context())
	if trace != nil && trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}

	pr, pw := io.Pipe()
	w := &memWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// As net/http: a handler's panic (http.ErrAbortHandler
				// included) cuts the connection.
				w.abort()
			}
			w.finish()
			in.Body.Close()
			cancel()
			m.mu.Lock()
			delete(m.cancels, key)
			m.mu.Unlock()
			m.wg.Done()
		}()
		t.s.serve(w, in)
	}()

	select {
	case <-w.ready:
	case <-req.Context().Done():
	}
	// A request whose context has ended fails with its error, even when
	// the headers look ready: a handler whose request ended returns, and
	// its end sends a 200 that nothing wrote.
	if err := req.Context().Err(); err != nil {
		cancel()
		pr.CloseWithError(err)
		return nil, err
	}
	if w.reset {
		pr.Close()
		return nil, errReset
	}
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	return clientResponse(req, w, &memBody{r: pr, cancel: cancel}, inflate), nil
}

// serverRequest is the server's view of req, as net/http would build it;
// inflate says that the transport asked for gzip on the caller's behalf.
func serverRequest(ctx context.Context, req *http.Request) (in *http.Request, inflate bool) {
	in = req.Clone(ctx)
	in.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	in.RequestURI = in.URL.RequestURI()
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	in.RemoteAddr = "threadstest.memory:1"
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	if req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" {
		in.Header.Set("Accept-Encoding", "gzip")
		inflate = true
	}
	return in, inflate
}

// clientResponse is the caller's response once w's headers are sent.
func clientResponse(req *http.Request, w *memWriter, body io.ReadCloser, inflate bool) *http.Response {
	resp := &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          body,
		ContentLength: -1,
		Request:       req,
	}
	if inflate && resp.Header.Get("Content-Encoding") == "gzip" {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.Body = &gzipBody{body: resp.Body}
		resp.Uncompressed = true
	}
	return resp
}

// memWriter is the handler's side of an in-memory response.
type memWriter struct {
	header http.Header
	pw     *io.PipeWriter

	mu      sync.Mutex
	status  int
	sent    http.Header // the header as it was when sent
	ready   chan struct{}
	started bool
	reset   bool // cut before the headers
	cut     bool // cut after them
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start(code)
}

// start sends the headers once; w.mu is held.
func (w *memWriter) start(code int) {
	if w.started {
		return
	}
	w.started = true
	w.status = code
	w.sent = w.header.Clone()
	close(w.ready)
}

func (w *memWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.start(http.StatusOK)
	cut := w.cut
	w.mu.Unlock()
	if cut {
		return 0, http.ErrHijacked
	}
	return w.pw.Write(p)
}

// Flush sends the headers if they are not sent yet; the body has no buffer
// to flush (each Write waits for the client to read it).
func (w *memWriter) Flush() {
	w.mu.Lock()
	w.start(http.StatusOK)
	w.mu.Unlock()
}

// abort cuts the connection: before the headers the round trip fails;
// after them the body ends with io.ErrUnexpectedEOF.
func (w *memWriter) abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.reset = true
		w.started = true
		close(w.ready)
		return
	}
	w.cut = true
	w.pw.CloseWithError(io.ErrUnexpectedEOF)
}

// finish ends the response when the handler returns.
func (w *memWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start(http.StatusOK)
	w.pw.Close() // after abort, the first error stays
}

// memBody is the client's side of an in-memory response body.
type memBody struct {
	r      *io.PipeReader
	cancel context.CancelFunc
}

func (b *memBody) Read(p []byte) (int, error) { return b.r.Read(p) }

// Close ends the handler's request context, as a client that hangs up
// does, and makes its pending and later writes fail.
func (b *memBody) Close() error {
	b.cancel()
	b.r.CloseWithError(errors.New("threadstest: response body closed"))
	return nil
}

// gzipBody inflates a gzip answer on first read, as net/http's transport
// does.
type gzipBody struct {
	body io.ReadCloser
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

func (g *gzipBody) Close() error { return g.body.Close() }
