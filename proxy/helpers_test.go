package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/threadstest"
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

// firstMessage is the body a page sends to start a run on a new thread:
// the user's text and, if any, the browser's tools (each as JSON).
func firstMessage(text string, tools ...string) string {
	q, _ := json.Marshal(text)
	body := `{"message":{"role":"user","content":[{"type":"text","text":` + string(q) + `}]}`
	if len(tools) > 0 {
		body += `,"tools":[` + strings.Join(tools, ",") + `]`
	}
	return body + `}`
}

// refundCall is the model asking for a refund of amount.
func refundCall(id string, amount int) threadstest.RunToolCall {
	return threadstest.RunToolCall{ID: id, Name: "refund", Arguments: map[string]any{"amount": amount}}
}

// startRun has the model answer the next run with calls, starts that run
// as session's user with body and requires 201.
func (e *env) startRun(t *testing.T, session, body string, calls ...threadstest.RunToolCall) *httptest.ResponseRecorder {
	t.Helper()
	e.fake.PushRunScript(threadstest.RunScript{ToolCalls: calls})
	w := e.do(t, session, "POST", "/v1/threads/runs", body)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	return w
}

// locationCall is the model asking for the browser's get_location tool.
func locationCall(id string) threadstest.RunToolCall {
	return threadstest.RunToolCall{ID: id, Name: "get_location"}
}

// lookupCall is the model asking the server's lookup tool about q.
func lookupCall(id, q string) threadstest.RunToolCall {
	return threadstest.RunToolCall{ID: id, Name: "lookup", Arguments: map[string]any{"q": q}}
}

// twoInstances is a backend run as two instances sharing one Store, each
// with the lookup tool l: e may serve a pause and e2 its continuation.
func twoInstances(t *testing.T, l *lookup) (e, e2 *env, store *proxy.MemoryStore) {
	t.Helper()
	store = proxy.NewMemoryStore(0, 0)
	e = newEnv(t, nil, proxy.WithTools(l.tool()), proxy.WithStore(store))
	other, err := proxy.New(e.fake.Client(), userBySession, proxy.WithTools(l.tool()), proxy.WithStore(store))
	require.NoError(t, err)
	return e, &env{fake: e.fake, h: other, logs: e.logs}, store
}

// newEnvWithStoreDown is a backend with the lookup tool l whose Store
// fails every call.
func newEnvWithStoreDown(t *testing.T, l *lookup) *env {
	t.Helper()
	broken := &failingStore{Store: proxy.NewMemoryStore(0, 0)}
	broken.fail.Store(true)
	return newEnv(t, nil, proxy.WithTools(l.tool()), proxy.WithStore(broken))
}
