package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// streamFrom decodes body as a stream, without any network.
func streamFrom(body io.Reader, opts ...threads.RequestOption) *threads.Stream {
	return threads.NewStreamFrom(body, opts...)
}

// collect reads s to its end.
func collect(t *testing.T, s *threads.Stream) ([]threads.StreamEvent, error) {
	t.Helper()
	var evs []threads.StreamEvent
	for ev, err := range s.All() {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func joinDeltas(evs []threads.StreamEvent, id string) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Message.ID == id {
			b.WriteString(ev.TextDelta)
		}
	}
	return b.String()
}

// oneByteReader returns one byte per Read: every split point is exercised.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestStreamTranscripts(t *testing.T) {
	t.Parallel()
	const plainID, plainText = "msg_DnP7cK51.ab7abf", "Hello from the fake model."
	tests := []struct {
		file    string
		events  int
		final   threads.GenerationStage
		texts   map[string]string // message id -> joined deltas (== final text)
		wantErr error
	}{
		{"live/stream-plain.sse", 7, threads.GenerationStageComplete, map[string]string{plainID: plainText}, nil},
		{"live/stream-create.sse", 7, threads.GenerationStageComplete, map[string]string{"msg_tIZonYPD.779066": plainText}, nil},
		{"live/stream-after-cancel.sse", 7, threads.GenerationStageComplete, map[string]string{"msg_TH0HX7.1e0d26": plainText}, nil},
		{"stream-crlf.sse", 7, threads.GenerationStageComplete, map[string]string{plainID: plainText}, nil},
		{"stream-cr.sse", 7, threads.GenerationStageComplete, map[string]string{plainID: plainText}, nil},
		{"stream-keepalive.sse", 7, threads.GenerationStageComplete, map[string]string{plainID: plainText}, nil},
		{"stream-tool-call.sse", 4, threads.GenerationStageFetchingContext, map[string]string{"msg_Tool0001.aaaaaa": ""}, nil},
		{"stream-two-messages.sse", 8, threads.GenerationStageComplete,
			map[string]string{"msg_First001.111111": "Let me check.", "msg_Second02.222222": "It is sunny."}, nil},
		{"stream-synthetic.sse", 2, threads.GenerationStageCancelled, nil, nil},
		{"live/stream-error-after-placeholder.sse", 1, threads.GenerationStageStreamingResponse, map[string]string{"msg_e7KVMoa.2a8aa6": ""}, threads.ErrStreamFailed},
		{"live/stream-error-only.sse", 0, "", nil, threads.ErrStreamFailed},
		{"stream-truncated.sse", 4, threads.GenerationStageStreamingResponse, map[string]string{plainID: "Hello from the fake"}, threads.ErrStreamTruncated},
		{"stream-malformed.sse", 2, threads.GenerationStageStreamingResponse, nil, threads.ErrStreamFailed},
	}
	for _, tt := range tests {
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bytewise=%v", tt.file, split), func(t *testing.T) {
				t.Parallel()
				var r io.Reader = bytes.NewReader(fixture(t, tt.file))
				if split {
					r = oneByteReader{r}
				}
				s := streamFrom(r)
				evs, err := collect(t, s)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				assert.Len(t, evs, tt.events)
				if tt.events > 0 {
					assert.Equal(t, tt.final, evs[len(evs)-1].GenerationStage)
				}
				msgs := s.Messages()
				for id, text := range tt.texts {
					assert.Equal(t, text, joinDeltas(evs, id), id)
					var last threads.Message
					for _, m := range msgs {
						if m.ID == id {
							last = m
						}
					}
					if text != "" {
						assert.Equal(t, text, last.Text(), id)
					}
				}
				assert.False(t, s.Next(), "no event after the end")
			})
		}
	}
}

func TestStreamErrorLine(t *testing.T) {
	t.Parallel()
	_, err := collect(t, streamFrom(bytes.NewReader(fixture(t, "live/stream-error-after-placeholder.sse"))))
	var se *threads.StreamError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Error in streaming response", se.Message)
	assert.ErrorIs(t, err, threads.ErrStreamFailed)
}

func TestStreamTruncatedIsUnexpectedEOF(t *testing.T) {
	t.Parallel()
	_, err := collect(t, streamFrom(bytes.NewReader(fixture(t, "stream-truncated.sse"))))
	assert.ErrorIs(t, err, threads.ErrStreamTruncated)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestStreamMalformedNamesEvent(t *testing.T) {
	t.Parallel()
	_, err := collect(t, streamFrom(bytes.NewReader(fixture(t, "stream-malformed.sse"))))
	require.Error(t, err)
	assert.ErrorIs(t, err, threads.ErrStreamFailed)
	assert.Contains(t, err.Error(), "event 2 is not a snapshot")
	assert.NotContains(t, err.Error(), `{"responseMessageDto"`, "the event may hold a token: it is not quoted")
}

func TestStreamToolCallFields(t *testing.T) {
	t.Parallel()
	evs, err := collect(t, streamFrom(bytes.NewReader(fixture(t, "stream-tool-call.sse"))))
	require.NoError(t, err)
	for _, ev := range evs[:len(evs)-1] {
		assert.Nil(t, ev.Message.ToolCallRequest, "intermediate snapshots hide the request")
	}
	last := evs[len(evs)-1].Message
	require.NotNil(t, last.ToolCallRequest)
	assert.Equal(t, "get_weather", last.ToolCallRequest.ToolName)
	assert.Equal(t, []threads.ToolCallParameter{{ParameterName: "city", ParameterValue: "Paris"}}, last.ToolCallRequest.Parameters)
	assert.Equal(t, "call_7Hq2", last.ToolCallID)
}

func TestStreamSyntheticKeptAsLatest(t *testing.T) {
	t.Parallel()
	s := streamFrom(bytes.NewReader(fixture(t, "stream-synthetic.sse")))
	evs, err := collect(t, s)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	msgs := s.Messages()
	require.Len(t, msgs, 1) // id-less snapshots: only the latest is kept
	assert.Len(t, msgs[0].Content, 1)
	assert.Equal(t, "Thread cancelled", evs[1].StatusMessage)
}

func TestStreamDelta(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ prev, cur, want string }{
		{"", " ", ""},
		{" ", "Hello", "Hello"},
		{"Hello", "Hello world", " world"},
		{"Hello world", "Hello world", ""},
		{"Hello world", "Goodbye", "Goodbye"},
		{"Hello", "  ", ""},
		{"", "Hi", "Hi"},
	} {
		var body strings.Builder
		for i, text := range []string{tt.prev, tt.cur} {
			if i == 0 && text == "" {
				continue // nothing shown yet
			}
			snap, err := json.Marshal(map[string]any{"responseMessageDto": map[string]any{"id": "msg_D.1", "threadId": "thr_a.1",
				"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}, "componentState": map[string]any{},
				"createdAt": "2026-11-21T23:57:44.826Z"}, "generationStage": "STREAMING_RESPONSE"})
			require.NoError(t, err)
			fmt.Fprintf(&body, "data: %s\n\n", snap)
		}
		body.WriteString("data: DONE\n\n")
		evs, err := collect(t, streamFrom(strings.NewReader(body.String())))
		require.NoError(t, err)
		assert.Equal(t, tt.want, evs[len(evs)-1].TextDelta, "%q -> %q", tt.prev, tt.cur)
	}
}

// bigEvent is one snapshot whose text has n bytes, in the live format.
func bigEvent(n int) []byte {
	snap := map[string]any{
		"responseMessageDto": map[string]any{"id": "msg_Big00001.bbbbbb", "threadId": "thr_a.1", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": strings.Repeat("a", n)}}, "componentState": map[string]any{},
			"createdAt": "2026-11-21T23:57:44.826Z"},
		"generationStage": "COMPLETE", "statusMessage": "Complete",
	}
	b, _ := json.Marshal(snap)
	return append(append([]byte("data: "), b...), "\n\n"...)
}

func TestStreamLargeEvents(t *testing.T) {
	t.Parallel()
	body := append(bigEvent(4<<20), "data: DONE\n\n"...)
	evs, err := collect(t, streamFrom(bytes.NewReader(body)))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Len(t, evs[0].TextDelta, 4<<20)

	body = append(bigEvent(2<<20), "data: DONE\n\n"...)
	_, err = collect(t, streamFrom(bytes.NewReader(body), threads.WithMaxEventSize(1<<20)))
	assert.ErrorIs(t, err, threads.ErrEventTooLarge)
}

func TestStreamEndToEnd(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)

	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("what is the weather")})
	require.NoError(t, err)
	evs, err := collect(t, s)
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	assert.Equal(t, threads.GenerationStageComplete, evs[len(evs)-1].GenerationStage)
	id := evs[0].Message.ID
	assert.Equal(t, "You said: what is the weather", joinDeltas(evs, id))

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.Equal(t, "text/event-stream", last.Header.Get("Accept"))
	assert.Equal(t, "application/json", last.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"messageToAppend":{"role":"user","content":[{"type":"text","text":"what is the weather"}]}}`, string(last.Body))

	got, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	require.Len(t, got.Messages, 2)
	assert.Equal(t, "You said: what is the weather", got.Messages[1].Text())

	// Create-and-advance makes a thread; its id is in the snapshots.
	s, err = c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("new")})
	require.NoError(t, err)
	evs, err = collect(t, s)
	require.NoError(t, err)
	assert.NotEqual(t, th.ID, evs[0].Message.ThreadID)
	assert.Equal(t, 2, len(srv.ThreadIDs()))
}

func TestStreamTwoMessagesAndToolCallEndToEnd(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	srv.PushScript(threadstest.Script{Replies: []string{"Let me look.", "Done looking."}})
	s, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	_, err = collect(t, s)
	require.NoError(t, err)
	msgs := s.Messages()
	require.Len(t, msgs, 2)
	assert.Equal(t, "Let me look.", msgs[0].Text())
	assert.Equal(t, "Done looking.", msgs[1].Text())

	tools := []threads.ClientTool{{Name: "get_weather", Description: "Weather for a city", Parameters: []threads.ToolParameter{{Name: "city", Type: "string", Description: "City", IsRequired: true}}}}
	s, err = c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("Paris"), ClientTools: tools})
	require.NoError(t, err)
	evs, err := collect(t, s)
	require.NoError(t, err)
	last := evs[len(evs)-1]
	assert.Equal(t, threads.GenerationStageFetchingContext, last.GenerationStage)
	require.NotNil(t, last.Message.ToolCallRequest)
	assert.Equal(t, "get_weather", last.Message.ToolCallRequest.ToolName)
	require.NotEmpty(t, last.Message.ToolCallID)

	s, err = c.Threads.AdvanceStream(ctx, last.Message.ThreadID, threads.AdvanceParams{
		Message: threads.ToolResult(last.Message.ToolCallID, "22C and sunny"), ClientTools: tools})
	require.NoError(t, err)
	evs, err = collect(t, s)
	require.NoError(t, err)
	assert.Equal(t, "The tool returned: 22C and sunny", evs[len(evs)-1].Message.Text())
}

func TestStreamFaultsEndToEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script threadstest.Script
		want   error
		events int
	}{
		{"error before snapshots", threadstest.Script{Error: true, ErrorAfter: 0}, threads.ErrStreamFailed, 0},
		{"error after two", threadstest.Script{Error: true, ErrorAfter: 2}, threads.ErrStreamFailed, 2},
		{"drop", threadstest.Script{Drop: true, DropAfter: 3}, threads.ErrStreamTruncated, 3},
		{"oversize", threadstest.Script{Oversize: 2 << 20}, threads.ErrEventTooLarge, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, srv := setup(t, threads.WithMaxEventSize(1<<20))
			srv.PushScript(tt.script)
			s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("a b c d")})
			require.NoError(t, err)
			evs, err := collect(t, s)
			assert.ErrorIs(t, err, tt.want)
			assert.Len(t, evs, tt.events)
		})
	}
}

func TestStreamProblemBeforeEvents(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	_, err := c.Threads.AdvanceStream(context.Background(), "thr_missing.000000", threads.AdvanceParams{Message: threads.UserMessage("x")})
	assert.ErrorIs(t, err, threads.ErrForbidden, "an unknown thread is 403, as live")

	srv := serveCanned(t, 201, "text/html", []byte("<html></html>"))
	c = cannedClient(t, srv)
	_, err = c.Threads.AdvanceStream(context.Background(), "thr_a.1", threads.AdvanceParams{Message: threads.UserMessage("x")})
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.ErrorContains(t, err, "want text/event-stream, got text/html")
}

// heldStream starts a create-and-advance stream whose server pauses after
// holdAfter snapshots until the test ends.
func heldStream(t *testing.T, ctx context.Context, c *threads.Client, srv *threadstest.Server, holdAfter int, text string) *threads.Stream {
	t.Helper()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) }) // before the server closes: cleanups run last-in first-out
	srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: holdAfter})
	s, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage(text)})
	require.NoError(t, err)
	return s
}

// TestStreamDeliversBeforeNextBytes proves that an event reaches the caller
// while the server still holds the rest of the stream back.
func TestStreamDeliversBeforeNextBytes(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	hold := make(chan struct{})
	srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: 1})
	s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("hello")})
	require.NoError(t, err)
	defer s.Close()
	require.True(t, s.Next(), s.Err())
	assert.Equal(t, " ", s.Current().Message.Text()) // the placeholder, while the server waits
	close(hold)
	for s.Next() {
	}
	require.NoError(t, s.Err())
}

func TestStreamCloseWhileNextBlocks(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	s := heldStream(t, context.Background(), c, srv, 1, "hello")
	require.True(t, s.Next())

	done := make(chan bool)
	go func() { done <- s.Next() }()
	// Close races with Next entering its read; either order must end Next.
	require.NoError(t, s.Close())
	assert.False(t, <-done)
	assert.NoError(t, s.Err())
	require.NoError(t, s.Close()) // idempotent
	assert.False(t, s.Next())
}

func TestStreamContextCancel(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := heldStream(t, ctx, c, srv, 2, "one two three")
	require.True(t, s.Next())
	require.True(t, s.Next())
	cancel()
	assert.False(t, s.Next())
	assert.ErrorIs(t, s.Err(), context.Canceled)
}

// TestStreamIdleTimeout: a stream whose server goes silent after one
// event ends with ErrStreamIdle once the idle timeout has passed. In a
// synctest bubble: the first event cannot be late on a busy machine, and
// the timeout is exact on the fake clock.
func TestStreamIdleTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, srv := setupInMemory(t, threads.WithStreamIdleTimeout(20*time.Millisecond))
		s := heldStream(t, context.Background(), c, srv, 1, "x")
		defer s.Close()
		require.True(t, s.Next(), s.Err())
		start := time.Now()
		assert.False(t, s.Next())
		assert.ErrorIs(t, s.Err(), threads.ErrStreamIdle)
		assert.Equal(t, 20*time.Millisecond, time.Since(start), "fake time")
	})
}

// TestStreamIdleClockOnlyWhileWaiting: time the caller spends between
// events does not count against WithStreamIdleTimeout. In a synctest
// bubble over the in-memory transport, the caller's 500ms pause (twice
// the timeout) is fake time, and the server's next write waits for the
// read, so only the idle clock could end the stream early.
func TestStreamIdleClockOnlyWhileWaiting(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := setupInMemory(t, threads.WithStreamIdleTimeout(250*time.Millisecond))
		s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("a b")})
		require.NoError(t, err)
		defer s.Close()
		require.True(t, s.Next())
		time.Sleep(500 * time.Millisecond) // the caller works on the event (fake clock)
		n := 1
		for s.Next() {
			n++
		}
		assert.NoError(t, s.Err())
		assert.Greater(t, n, 1, "events after the pause")
	})
}

func TestStreamBreakClosesConnection(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	s := heldStream(t, context.Background(), c, srv, 1, "x")
	for range s.All() {
		break
	}
	assert.False(t, s.Next())
	assert.NoError(t, s.Err())
}

func TestStreamCancelStopsGeneration(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	hold := make(chan struct{})
	srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: 2})
	s, err := c.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("a b c d e")})
	require.NoError(t, err)
	require.True(t, s.Next())
	threadID := s.Current().Message.ThreadID
	th, err := c.Threads.Cancel(ctx, threadID)
	require.NoError(t, err)
	assert.Equal(t, threads.GenerationStageCancelled, th.GenerationStage)
	close(hold)
	var last threads.StreamEvent
	for s.Next() {
		last = s.Current()
	}
	require.NoError(t, s.Err())
	assert.Equal(t, threads.GenerationStageCancelled, last.GenerationStage)
}

// TestStreamOutlivesRequestTimeout: the per-attempt timeout covers the
// wait for headers only. In a synctest bubble with the in-memory fake, the
// stream's pacing is exact on the fake clock.
func TestStreamOutlivesRequestTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithThrottle(50*time.Millisecond))
		c := srv.Client(threads.WithRequestTimeout(150 * time.Millisecond))
		s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("one two three")})
		require.NoError(t, err)
		start := time.Now()
		evs, err := collect(t, s)
		require.NoError(t, err)
		require.Len(t, evs, 8) // the placeholder, 5 growing texts, the repeat, the closing snapshot
		assert.Equal(t, 7*50*time.Millisecond, time.Since(start), "well past the 150ms request timeout")
		assert.Equal(t, threads.GenerationStageComplete, evs[len(evs)-1].GenerationStage)
	})
}

func TestStreamConcurrentClients(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage(fmt.Sprint("m", i))})
			if err != nil {
				errs <- err
				return
			}
			var text string
			for ev, err := range s.All() {
				if err != nil {
					errs <- err
					return
				}
				text += ev.TextDelta
			}
			if text != fmt.Sprint("You said: m", i) {
				errs <- errors.New("wrong text " + text)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Equal(t, 20, len(srv.ThreadIDs()))
}

func TestAdvanceReadsMigratedStream(t *testing.T) {
	t.Parallel()
	// A canned server that answers /advance with 410 and the replacement with a transcript.
	mux := http.NewServeMux()
	mux.HandleFunc("POST /threads/{id}/advance", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(410)
		w.Write(fixture(t, "live/problem-410-advance-by-id.json"))
	})
	mux.HandleFunc("POST /threads/{id}/advancestream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(201)
		w.Write(fixture(t, "live/stream-plain.sse"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey))
	require.NoError(t, err)
	out, err := c.Threads.Advance(context.Background(), "thr_iSp004Xf.f4a5d7", threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	assert.Equal(t, threads.GenerationStageComplete, out.GenerationStage)
	assert.Equal(t, "Hello from the fake model.", out.Message.Text())
}

// TestStreamSlowFirstByte: the live service sends its headers only with the
// first snapshot; the call waits for them (within WithRequestTimeout).
func TestStreamSlowFirstByte(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	first := make(chan struct{})
	srv.PushScript(threadstest.Script{FirstByte: first})
	type result struct {
		s   *threads.Stream
		err error
	}
	got := make(chan result, 1)
	go func() {
		s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("hi")})
		got <- result{s, err}
	}()
	// Once the server holds the request, the client cannot have headers.
	for srv.Count("POST", "/threads/advancestream") == 0 {
		runtime.Gosched()
	}
	select {
	case r := <-got:
		t.Fatalf("returned before the headers: %v", r.err)
	default:
	}
	close(first)
	r := <-got
	require.NoError(t, r.err)
	evs, err := collect(t, r.s)
	require.NoError(t, err)
	assert.Equal(t, "You said: hi", joinDeltas(evs, evs[0].Message.ID))
	assert.Equal(t, 1, srv.Count("POST", "/threads/advancestream"))
}

// TestStreamCloseDuringAll: Close from another goroutine ends a range over
// All that is blocked in a read, without an error.
func TestStreamCloseDuringAll(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	s := heldStream(t, context.Background(), c, srv, 1, "x")
	first := make(chan struct{})
	done := make(chan []error)
	go func() {
		var errs []error
		n := 0
		for _, err := range s.All() {
			if err != nil {
				errs = append(errs, err)
			}
			if n++; n == 1 {
				close(first)
			}
		}
		done <- errs
	}()
	<-first
	require.NoError(t, s.Close())
	assert.Empty(t, <-done)
	assert.NoError(t, s.Err())
}

// gatedBody gives first in one read, then blocks until rest is closed and
// ends; it records whether a read after first has started.
type gatedBody struct {
	first string
	rest  chan struct{}
	mu    sync.Mutex
	reads int
	eof   bool
}

func (b *gatedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	b.reads++
	n := b.reads
	b.mu.Unlock()
	if n == 1 {
		return copy(p, b.first), nil
	}
	<-b.rest
	b.mu.Lock()
	b.eof = true
	b.mu.Unlock()
	return 0, io.EOF
}

// No goroutine per stream at its end: the Next that reads DONE returns at
// once without reading on, nothing reads the body behind the caller's back
// (a goroutine did, until the two streams shared one engine), and Close
// reads what follows DONE to the body's end, so that the connection can be
// reused.
func TestStreamDoneStartsNoGoroutine(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		body := &gatedBody{first: snap("m", "a") + "data: DONE\n\n", rest: make(chan struct{})}
		s := streamFrom(body)
		require.True(t, s.Next())
		require.False(t, s.Next())
		require.NoError(t, s.Err())
		synctest.Wait() // a goroutine reading the body would be blocked in it now
		body.mu.Lock()
		reads := body.reads
		body.mu.Unlock()
		assert.Equal(t, 1, reads, "the body is read after DONE behind the caller's back")
		close(body.rest)
		s.Close()
		body.mu.Lock()
		defer body.mu.Unlock()
		assert.True(t, body.eof, "Close did not read the body to its end")
	})
}
