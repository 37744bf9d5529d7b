package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// serveSSE answers every request with body as a run's event stream, as
// the service does (201, text/event-stream, X-Run-Id).
func serveSSE(t *testing.T, body []byte) *threads.Client {
	t.Helper()
	runID := regexp.MustCompile(`"runId":"([^"]+)"`).FindSubmatch(body)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if runID != nil {
			w.Header().Set("X-Run-Id", string(runID[1]))
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk-relay-test-key"))
	require.NoError(t, err)
	return c
}

// The relay writes the service's recorded streams back byte for byte:
// text, a client tool call, text then a tool call, a component, parallel
// tool calls, a cancel, and a failure (whose second RUN_ERROR the stream
// does not keep); and the replays of events typed after the relay was
// written (reasoning under both names, tambo.message.parent, subagents, a
// RUN_FINISHED with an outcome), members the SDK does not model included.
// The replays' comment lines (their provenance) are not events.
func TestRelayIsByteCompatible(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "sse", "*.sse"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			c := serveSSE(t, body)
			s, err := runs.New(c).ForUser("user-1").Run(context.Background(), "thr_x.000000", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
			require.NoError(t, err)

			w := newRecorder()
			res, err := proxy.Relay(w, httptest.NewRequest("GET", "/stream", nil), s)
			want := regexp.MustCompile(`(?m)^:.*\n`).ReplaceAllString(string(body), "")
			if evs := events(want); strings.Contains(evs[len(evs)-1], `"RUN_ERROR"`) && strings.Contains(evs[len(evs)-2], `"RUN_ERROR"`) {
				want = want[:strings.LastIndex(want, "data: ")] // the duplicate
				var failed *runs.RunFailedError
				assert.ErrorAs(t, err, &failed)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, want, w.Body())
			assert.False(t, res.Left)
			assert.Equal(t, len(events(want)), res.Events)
			assert.Equal(t, http.StatusOK, w.Status())
			assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
			assert.Equal(t, s.RunID(), w.Header().Get("X-Run-Id"))
			assert.GreaterOrEqual(t, w.flushes, 2, "the head, then the events, flushed")
			assert.Zero(t, w.Unflushed(), "every event written is flushed")
		})
	}
}

// A server that echoes the project key, or the end user's token, in any
// JSON spelling, in a known event, an event the SDK does not model or a
// failure, never gets it to the browser: each spelling reads
// [REDACTED], and every event is still one valid JSON object.
func TestRelayRedactsSecrets(t *testing.T) {
	t.Parallel()
	const key, token = "sk-relay-test-key", "tok-end-user-secret"
	body := strings.Join([]string{
		`data: {"type":"RUN_STARTED","threadId":"thr_k","runId":"run_k","timestamp":1}`,
		`data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","echo":"sk-relay-test-key","timestamp":2}`,
		`data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"key sk\u002drelay-test-key token tok-end-user-secret","timestamp":3}`,
		`data: {"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":4}`,
		`data: {"type":"SOMETHING_NEW","headers":{"x-api-key":"sk-relay-test-key","authorization":"Bearer tok\u002Dend-user-secret"}}`,
		`data: {"type":"RUN_ERROR","message":"upstream said sk-relay-test-key","code":"X","category":"model","isRetryable":false,"status":500,"timestamp":5}`,
		``, ``}, "\n\n")
	c := serveSSE(t, []byte(body))
	s, err := runs.New(c).ForToken(threads.NewToken(token)).Run(context.Background(), "thr_k", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
	require.NoError(t, err)
	w := newRecorder()
	res, err := proxy.Relay(w, httptest.NewRequest("GET", "/stream", nil), s)
	var failed *runs.RunFailedError
	require.ErrorAs(t, err, &failed)
	assert.Equal(t, 6, res.Events, "every event relayed")
	out := w.Body()
	for _, secret := range []string{key, token} {
		assert.False(t, redact.Contains(out, secret), "%s reached the browser: %s", secret, out)
	}
	assert.Equal(t, 6, strings.Count(out, "[REDACTED]"), out)
	for _, ev := range events(out) {
		assert.True(t, jsontext.Value(ev).IsValid(), ev)
	}
}

// A run that waits on the model gets keep-alive comments, which SSE
// readers skip; the run's events then follow.
func TestRelayKeepAlive(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		hold := make(chan struct{})
		srv.PushRunScript(threadstest.RunScript{Text: "slow answer", Hold: hold, HoldAfter: 1})
		s, err := runs.New(srv.Client()).ForUser("user-1").CreateAndRun(context.Background(),
			runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)

		w := newRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err := proxy.Relay(w, httptest.NewRequest("GET", "/stream", nil), s, proxy.WithKeepAlive(5*time.Second))
			assert.NoError(t, err)
			assert.False(t, res.Left)
		}()
		time.Sleep(12 * time.Second) // virtual: the run is held, the relay idle
		synctest.Wait()
		body := w.Body()
		assert.Equal(t, 2, strings.Count(body, ": keep-alive\n\n"), body)
		assert.Len(t, events(body), 2, "RUN_STARTED and TEXT_MESSAGE_START")
		close(hold)
		<-done
		evs := events(w.Body())
		assert.Contains(t, evs[len(evs)-1], `"type":"RUN_FINISHED"`)
	})
}

// The browser leaves mid-run: the run is cancelled on the service, and
// the relay reports the browser leaving, not a failure.
func TestRelayBrowserLeaves(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		hold := make(chan struct{})
		defer close(hold)
		srv.PushRunScript(threadstest.RunScript{Text: "one two three four", Hold: hold, HoldAfter: 2})
		var ends []threads.CallEnd
		u := runs.New(srv.Client(threads.WithObserver(endObserver(&ends)))).ForUser("user-1")
		ctx, leave := context.WithCancel(context.Background())
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)

		w := newRecorder()
		var res proxy.RelayResult
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err = proxy.Relay(w, httptest.NewRequest("GET", "/stream", nil).WithContext(ctx), s)
		}()
		synctest.Wait()
		require.Len(t, events(w.Body()), 3, "RUN_STARTED, TEXT_MESSAGE_START, one delta; then the run is held")
		leave() // the tab closes
		<-done
		assert.NoError(t, err)
		assert.True(t, res.Left)
		assert.Equal(t, 3, res.Events)

		synctest.Wait() // the fake has seen the connection close
		th, err := u.GetThread(context.Background(), s.ThreadID())
		require.NoError(t, err)
		assert.True(t, th.LastRunCancelled, "cancelled on the service")
		assert.Equal(t, runs.RunStatusIdle, th.RunStatus)
		require.Len(t, ends, 2, "the run, then the read")
		assert.True(t, ends[0].Left, "the observer hears the caller leaving")
	})
}

// endObserver records each call's end.
func endObserver(ends *[]threads.CallEnd) threads.Observer { return callEnd{ends} }

type callEnd struct{ ends *[]threads.CallEnd }

func (c callEnd) StartCall(ctx context.Context, _ threads.CallInfo) (context.Context, threads.CallObserver) {
	return ctx, c
}
func (callEnd) Observe(threads.CallEvent) {}
func (c callEnd) End(e threads.CallEnd)   { *c.ends = append(*c.ends, e) }

// A browser that stops reading cannot hold the run: once a write has
// waited the write timeout, the relay ends as the browser leaving and the
// run is cancelled.
func TestRelaySlowReader(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	hold := make(chan struct{})
	defer close(hold)
	deltas := make([]string, 64)
	for i := range deltas {
		deltas[i] = strings.Repeat("x", 16<<10)
	}
	// After the deltas the run is held, so only the relay's bound can end it.
	fake.PushRunScript(threadstest.RunScript{Deltas: deltas, Hold: hold, HoldAfter: len(deltas) + 1})
	u := runs.New(fake.Client()).ForUser("user-1")

	type out struct {
		res proxy.RelayResult
		err error
	}
	outs := make(chan out, 1)
	// The run itself is not read back: over real sockets the fake sees
	// the close on its own schedule (TestRelayBrowserLeaves shows that a
	// closed stream cancels the run).
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := u.CreateAndRun(r.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		if err != nil {
			outs <- out{err: err}
			return
		}
		res, err := proxy.Relay(w, r, s, proxy.WithWriteTimeout(300*time.Millisecond))
		outs <- out{res, err}
	})
	front := smallBufferServer(t, h)

	conn := dialSmall(t, front)
	_, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReaderSize(conn, 16)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, "200")
	// Then the browser reads nothing more.
	o := <-outs
	require.NoError(t, o.err)
	assert.True(t, o.res.Left, "a reader that stalls is gone")
	assert.Less(t, o.res.Events, len(deltas)+3, "not every event could be written")
}

// smallBufferServer serves h on a listener whose connections have small
// socket buffers, so that a reader that stops reading blocks the writer
// after a few hundred KiB rather than after the kernel's megabytes.
func smallBufferServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = smallListener{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

type smallListener struct{ net.Listener }

func (l smallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

func dialSmall(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_ = c.(*net.TCPConn).SetReadBuffer(8 << 10)
	t.Cleanup(func() { c.Close() })
	return c
}

// A backend endpoint that relays a run to the browser: the backend picks
// the end user (from its own session, never from the browser), starts the
// run, and Relay writes the events as the service writes them. A browser
// that leaves (a closed tab) cancels the run, and is not an error.
func ExampleRelay() {
	srv := threadstest.Start() // the service; in production threads.NewClient()
	defer srv.Close()
	base := runs.New(srv.Client())

	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := base.ForUser("alice") // the backend's decision: here one user
		s, err := user.CreateAndRun(r.Context(), runs.CreateRunParams{RunParams: runs.RunParams{
			Content: []runs.Content{runs.Text(r.FormValue("q"))},
		}})
		if err != nil {
			http.Error(w, "the run did not start", http.StatusBadGateway)
			return
		}
		if res, err := proxy.Relay(w, r, s); err != nil {
			fmt.Println("the run failed after", res.Events, "events:", err)
		}
	}))
	defer backend.Close()

	// The browser's side (an EventSource): one event per data line.
	resp, err := backend.Client().Get(backend.URL + "/stream?q=hello")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev struct{ Type, Delta string }
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				fmt.Println(err)
				return
			}
			if ev.Delta != "" {
				fmt.Printf("%s %q\n", ev.Type, ev.Delta)
			} else {
				fmt.Println(ev.Type)
			}
		}
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT "You "
	// TEXT_MESSAGE_CONTENT "said: "
	// TEXT_MESSAGE_CONTENT "hello"
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}

// Relay called directly (not through the Handler) copies the stream's ids
// into X-Run-Id and X-Thread-Id: a service that echoes the project key or
// the end user's token as an id must not hand it to the browser there.
// Before, runs.Stream kept the ids as the server sent them.
func TestRelayHeadersRedactSecretIDs(t *testing.T) {
	t.Parallel()
	const key, tok = "sk-relay-id-key-0123456789", "eut-relay-id-token-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Run-Id", key)
		w.Header().Set("X-Thread-Id", tok)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `data: {"type":"RUN_STARTED","threadId":"`+tok+`","runId":"`+key+`","timestamp":1}`+"\n\n"+
			`data: {"type":"RUN_FINISHED","threadId":"`+tok+`","runId":"`+key+`","timestamp":2}`+"\n\n")
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(key))
	require.NoError(t, err)
	s, err := runs.New(c).ForToken(threads.NewToken(tok)).Run(t.Context(), "thr_1", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	_, err = proxy.Relay(w, httptest.NewRequest("GET", "/", nil), s)
	require.NoError(t, err)
	out := w.Body.String()
	for name, vals := range w.Header() {
		out += "\n" + name + ": " + strings.Join(vals, ", ")
	}
	assert.NotContains(t, out, "id-key", "the project key")
	assert.NotContains(t, out, "id-token", "the end user's token")
	assert.NotContains(t, s.RunID()+s.ThreadID(), "id-key")
	assert.NotContains(t, s.RunID()+s.ThreadID(), "id-token")
}

// handlerRun posts a run through a Handler in front of c as user and
// returns what the browser got.
func handlerRun(t *testing.T, c *threads.Client, user proxy.User) (*recorder, error) {
	t.Helper()
	var failed []string
	l, logger := newLogs(t)
	h, err := proxy.New(c, func(*http.Request) (proxy.User, error) { return user, nil }, proxy.WithLogger(logger))
	require.NoError(t, err)
	r := httptest.NewRequest("POST", "/v1/threads/thr_x.000000/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
	r.Header.Set("Content-Type", "application/json")
	w := newRecorder()
	h.ServeHTTP(w, r)
	failed = l.failures()
	if len(failed) > 0 {
		return w, fmt.Errorf("logged: %q", failed)
	}
	return w, nil
}

// Through the Handler, which relays a run from the service's bytes
// without decoding most events, the browser gets the same bytes as from
// Relay: the service's recorded streams byte for byte, comment lines
// aside and a failure's second RUN_ERROR dropped, flushed.
func TestHandlerRelayIsByteCompatible(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "sse", "*.sse"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			w, logged := handlerRun(t, serveSSE(t, body), proxy.User{Key: "user-1"})
			want := regexp.MustCompile(`(?m)^:.*\n`).ReplaceAllString(string(body), "")
			if evs := events(want); strings.Contains(evs[len(evs)-1], `"RUN_ERROR"`) && strings.Contains(evs[len(evs)-2], `"RUN_ERROR"`) {
				want = want[:strings.LastIndex(want, "data: ")]
				assert.Error(t, logged, "a failed run is logged")
			} else {
				assert.NoError(t, logged)
			}
			assert.Equal(t, want, w.Body())
			assert.Equal(t, http.StatusCreated, w.Status())
			assert.Zero(t, w.Unflushed())
		})
	}
}

// The Handler gets every spelling of the key and of the end user's token
// out of the events, whatever their form, and keeps each event valid JSON;
// events in other SSE forms (comments, several data lines, CRLF, id:
// lines) reach the browser in the service's own form, as Relay writes
// them.
func TestHandlerRelayRedactsSecrets(t *testing.T) {
	t.Parallel()
	const key, token = "sk-relay-test-key", "tok-end-user-secret"
	body := strings.Join([]string{
		`data: {"type":"RUN_STARTED","threadId":"thr_k","runId":"run_k","timestamp":1}`,
		": a comment\n" + `data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","echo":"sk-relay-test-key","timestamp":2}`,
		`data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"key sk\u002drelay-test-key token tok-end-user-secret","timestamp":3}`,
		"id: 4\r\n" + `data: {"type":"TEXT_MESSAGE_END",` + "\r\n" + `data: "messageId":"m","timestamp":4}` + "\r\n",
		`data: {"type":"SOMETHING_NEW","headers":{"x-api-key":"sk-relay-test-key","authorization":"Bearer tok\u002Dend-user-secret"}}`,
		`data: {"type":"RUN_ERROR","message":"upstream said sk-relay-test-key","code":"X","category":"model","isRetryable":false,"status":500,"timestamp":5}`,
		``, ``}, "\n\n")
	w, _ := handlerRun(t, serveSSE(t, []byte(body)), proxy.User{Token: threads.NewToken(token)})
	out := w.Body()
	for _, secret := range []string{key, token} {
		assert.False(t, redact.Contains(out, secret), "%s reached the browser: %s", secret, out)
	}
	assert.Equal(t, 6, strings.Count(out, "[REDACTED]"), out)
	evs := events(out)
	require.Len(t, evs, 6)
	for _, ev := range evs {
		ev = strings.ReplaceAll(ev, "\ndata: ", "\n") // an event of several data lines
		assert.True(t, jsontext.Value(ev).IsValid(), ev)
	}

	s, err := runs.New(serveSSE(t, []byte(body))).ForToken(threads.NewToken(token)).Run(context.Background(), "thr_k", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
	require.NoError(t, err)
	r := newRecorder()
	_, _ = proxy.Relay(r, httptest.NewRequest("GET", "/stream", nil), s)
	assert.Equal(t, r.Body(), out, "the Handler's bytes are Relay's")
}

// statusWriter is the package doc's logging middleware's writer: it
// records the status and unwraps, so that the relay still flushes and
// sets write deadlines through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int)           { w.status = s; w.ResponseWriter.WriteHeader(s) }
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Behind the package doc's logging middleware, a run still streams: its
// first events reach the browser while the run is held on the service.
func TestHandlerBehindLoggingMiddlewareStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	hold := make(chan struct{})
	e.fake.PushRunScript(threadstest.RunScript{Text: "one two three", Hold: hold, HoldAfter: 2})
	status := make(chan int, 1)
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: 200}
		e.h.ServeHTTP(sw, r)
		status <- sw.status
	})
	srv := httptest.NewServer(logged)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/threads/runs", strings.NewReader(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: "session", Value: "s-alice"})
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for n := 0; n < 3; {
		line, err := br.ReadString('\n')
		require.NoError(t, err, "the first events arrive while the run is held")
		if strings.HasPrefix(line, "data: ") {
			n++
		}
	}
	close(hold)
	_, err = io.Copy(io.Discard, br)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, <-status)
	assert.Empty(t, e.logs.failures())
}

// batchStream is a Stream of n text deltas whose events arrive in groups
// of ten: Buffered is false after each tenth.
type batchStream struct {
	n, i int
	raw  []byte
}

func (s *batchStream) Next() bool {
	if s.i == s.n {
		return false
	}
	s.i++
	s.raw = fmt.Appendf(s.raw[:0], `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"%d"}`, s.i)
	return true
}
func (s *batchStream) Current() runs.Event {
	return runs.TextMessageContent{MessageID: "m", Delta: strconv.Itoa(s.i)}
}
func (s *batchStream) EventJSON() []byte { return s.raw }
func (s *batchStream) Err() error        { return nil }
func (s *batchStream) Close() error      { return nil }
func (s *batchStream) RunID() string     { return "" }
func (s *batchStream) ThreadID() string  { return "" }
func (s *batchStream) Buffered() bool    { return s.i%10 != 0 }

// Relay writes the events that have arrived together as one batch, and
// flushes when the stream would wait: once per arrival, not per event.
func TestRelayBatchesWhatHasArrived(t *testing.T) {
	t.Parallel()
	w := newRecorder()
	res, err := proxy.Relay(w, httptest.NewRequest("GET", "/stream", nil), &batchStream{n: 100})
	require.NoError(t, err)
	assert.Equal(t, 100, res.Events)
	assert.Len(t, events(w.Body()), 100)
	assert.Equal(t, 1+10, w.flushes, "the head, then one flush per ten events")
	assert.Zero(t, w.Unflushed())
}

// Relay holds a run's pause until the run's end, as the Handler does: the
// service records the run as complete only after the pause.
func TestRelayHoldsThePause(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener())
		window, opened := make(chan struct{}), make(chan struct{})
		srv.PushRunScript(threadstest.RunScript{
			ToolCalls:   []threadstest.RunToolCall{{ID: "call_r", Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}}},
			PauseWindow: window, OnPauseWindow: func() { close(opened) },
		})
		s, err := runs.New(srv.Client()).ForUser("user-1").CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		require.NoError(t, err)
		w := newRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := proxy.Relay(w, httptest.NewRequest("GET", "/stream", nil), s)
			assert.NoError(t, err)
		}()
		<-opened
		synctest.Wait()
		assert.NotContains(t, w.Body(), "awaiting_input", "held while the run is not complete")
		assert.Contains(t, w.Body(), "TOOL_CALL_END", "what came before it is written")
		close(window)
		<-done
		evs := events(w.Body())
		require.GreaterOrEqual(t, len(evs), 2)
		assert.Contains(t, evs[len(evs)-2], "tambo.run.awaiting_input")
		assert.Contains(t, evs[len(evs)-1], "RUN_FINISHED")
	})
}
