package chatui_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/chatui"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestContinueThread: with ThreadID the chat continues that thread; with no
// ProjectID, /new asks the key's project.
func TestContinueThread(t *testing.T) {
	srv := threadstest.NewServer(t)
	client := srv.Client()
	th, err := client.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	srv.PushScript(threadstest.Script{Replies: []string{"one", "two"}})

	var out bytes.Buffer
	err = chatui.Run(chatui.Config{
		Client: client, ThreadID: th.ID,
		In: strings.NewReader("hi\n/new\n"), Out: &out, Interrupt: make(chan os.Signal),
	})
	require.NoError(t, err)
	assert.Contains(t, out.String(), "[thread "+th.ID+"]\n> one\ntwo\n> [new thread thr_")
	assert.Equal(t, 2, len(srv.ThreadIDs()))
	assert.Equal(t, 1, srv.Count("GET", "/projects"))
}

// TestPrinterFiltersEscapes: a reply's escape sequences and control
// characters never reach the terminal, even when one is split between two
// deltas, or left open at the end of a message.
func TestPrinterFiltersEscapes(t *testing.T) {
	ev := func(id, delta string) threads.StreamEvent {
		var e threads.StreamEvent
		e.Message.ID = id
		e.TextDelta = delta
		return e
	}
	var out bytes.Buffer
	p := chatui.NewPrinter(&out)
	for _, e := range []threads.StreamEvent{
		ev("m1", "ok \x1b"), ev("m1", "]0;pw"), ev("m1", "ned\x07"), ev("m1", "\x1b["), ev("m1", "2J\r\nEVIL"),
		ev("m1", " \u009b"), ev("m1", "31m\u202eend\x1b]8;;http://x"), // left open...
		ev("m2", "next\x1b"), ev("m2", "[1mbold\x1b"), // ...and dropped at the next message
	} {
		p.Print(e)
	}
	p.EndLine()
	assert.Equal(t, "ok \nEVIL end\nnextbold\n", out.String())
}
