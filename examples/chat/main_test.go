package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestChat types two lines and /new, then ends the input: the chat answers
// each line and exits cleanly.
func TestChat(t *testing.T) {
	srv := threadstest.NewServer(t)
	var out bytes.Buffer
	in := strings.NewReader("hello there\nhow are you\n/new\n")
	require.NoError(t, run(srv.Client(), srv.ProjectID, in, &out, make(chan os.Signal)))
	got := out.String()
	assert.Contains(t, got, "You said: hello there\n")
	assert.Contains(t, got, "You said: how are you\n")
	assert.Equal(t, 2, strings.Count(got, "[new thread thr_"))
	assert.Equal(t, 2, len(srv.ThreadIDs()))
}

// TestChatInterruptAtPrompt exits on Ctrl-C at the prompt.
func TestChatInterruptAtPrompt(t *testing.T) {
	srv := threadstest.NewServer(t)
	interrupt := make(chan os.Signal, 1)
	interrupt <- os.Interrupt
	r, w, err := os.Pipe() // input that never ends
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	var out bytes.Buffer
	require.NoError(t, run(srv.Client(), srv.ProjectID, r, &out, interrupt))
}

// notifyWriter collects output and closes seen once it contains want.
type notifyWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *notifyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestChatCtrlCCancelsReply: Ctrl-C while a reply streams stops it, cancels
// the generation on the service, and the chat goes on.
func TestChatCtrlCCancelsReply(t *testing.T) {
	srv := threadstest.NewServer(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.PushScript(threadstest.Script{Hold: hold, HoldAfter: 2}) // the reply stalls after "You"
	out := &notifyWriter{want: "You", seen: make(chan struct{})}
	interrupt := make(chan os.Signal, 1)
	go func() {
		<-out.seen
		interrupt <- os.Interrupt
	}()
	require.NoError(t, run(srv.Client(), srv.ProjectID, strings.NewReader("tell me a long story\n"), out, interrupt))
	assert.Contains(t, out.String(), "[cancelled]")
	threads := srv.ThreadIDs()
	require.Len(t, threads, 1)
	th, err := srv.Client().Threads.Get(context.Background(), threads[0])
	require.NoError(t, err)
	assert.Equal(t, "CANCELLED", string(th.GenerationStage))
}

// TestChatHidesEscapes: an escape sequence in the reply's text never
// reaches the terminal; the text around it does.
func TestChatHidesEscapes(t *testing.T) {
	srv := threadstest.NewServer(t)
	srv.PushScript(threadstest.Script{Replies: []string{"red \x1b[31mALERT\x1b[0m\x07 done"}})
	var out bytes.Buffer
	require.NoError(t, run(srv.Client(), srv.ProjectID, strings.NewReader("hi\n"), &out, make(chan os.Signal)))
	assert.NotContains(t, out.String(), "\x1b")
	assert.NotContains(t, out.String(), "\x07")
	assert.Contains(t, out.String(), "red [31mALERT[0m done\n")
}
