package proxy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// recorder is an http.ResponseWriter that a test may read while the
// handler still writes (httptest.ResponseRecorder may not be read then).
type recorder struct {
	mu        sync.Mutex
	header    http.Header
	status    int
	body      bytes.Buffer
	flushes   int
	unflushed int // bytes written since the last flush
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.unflushed += len(b)
	return r.body.Write(b)
}

func (r *recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
	r.unflushed = 0
}

// Unflushed returns how many bytes were written since the last flush.
func (r *recorder) Unflushed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unflushed
}

// Body returns what was written so far.
func (r *recorder) Body() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.String()
}

func (r *recorder) Status() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// events returns the data: payloads written so far, in order.
func events(body string) []string {
	var out []string
	for _, block := range strings.Split(body, "\n\n") {
		if strings.HasPrefix(block, "id: ") {
			_, block, _ = strings.Cut(block, "\n") // a detached run's event id
		}
		if d, ok := strings.CutPrefix(block, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// logs records what a handler logs, to check that nothing is logged as a
// failure.
type logs struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logs) Enabled(context.Context, slog.Level) bool { return true }
func (l *logs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}
func (l *logs) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logs) WithGroup(string) slog.Handler      { return l }

// failures returns the messages logged at warn level or above.
func (l *logs) failures() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.records {
		if r.Level >= slog.LevelWarn {
			out = append(out, r.Message)
		}
	}
	return out
}

func (l *logs) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.records {
		out = append(out, r.Level.String()+" "+r.Message)
	}
	return out
}

func newLogs(t *testing.T) (*logs, *slog.Logger) {
	l := &logs{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logged: %q", l.all())
		}
	})
	return l, slog.New(l)
}

// inProcess is an http.RoundTripper that serves each request with h in
// this process, the response's body streamed through a pipe as h writes
// it (each write reaches the reader at once): a browser in front of a
// handler inside a synctest bubble.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, head: make(chan int, 1)}
	go func() {
		p.h.ServeHTTP(w, r)
		w.WriteHeader(http.StatusOK)
		pw.Close()
	}()
	status := <-w.head
	return &http.Response{StatusCode: status, Header: w.header, Body: readCloser{pr}, Request: r}, nil
}

// readCloser is the pipe's reading end; closing it (or the request's
// context ending) is the browser leaving.
type readCloser struct{ *io.PipeReader }

func (r readCloser) Close() error { return r.PipeReader.CloseWithError(errors.New("the browser left")) }

type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	once   sync.Once
	head   chan int
}

func (w *pipeWriter) Header() http.Header { return w.header }
func (w *pipeWriter) WriteHeader(status int) {
	w.once.Do(func() {
		w.header = w.header.Clone()
		w.head <- status
	})
}
func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}
func (w *pipeWriter) Flush() {}
