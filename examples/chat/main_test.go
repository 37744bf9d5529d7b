package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/examples/internal/demo"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestChat types two lines and /new, then ends the input: the chat answers
// each line and exits cleanly.
func TestChat(t *testing.T) {
	srv := threadstest.NewServer(t, threadstest.WithThrottle(0))
	env := &demo.Env{Client: srv.Client(), ProjectID: srv.ProjectID, Fake: srv}
	var out bytes.Buffer
	in := strings.NewReader("hello there\nhow are you\n/new\n")
	require.NoError(t, run(env, in, &out, make(chan os.Signal)))
	got := out.String()
	assert.Contains(t, got, "You said: hello there\n")
	assert.Contains(t, got, "You said: how are you\n")
	assert.Equal(t, 2, strings.Count(got, "[new thread thr_"))
	assert.Equal(t, 2, srv.ThreadCount())
}

// TestChatInterruptAtPrompt exits on Ctrl-C at the prompt.
func TestChatInterruptAtPrompt(t *testing.T) {
	srv := threadstest.NewServer(t, threadstest.WithThrottle(0))
	env := &demo.Env{Client: srv.Client(), ProjectID: srv.ProjectID, Fake: srv}
	interrupt := make(chan os.Signal, 1)
	interrupt <- os.Interrupt
	r, w, err := os.Pipe() // input that never ends
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	var out bytes.Buffer
	require.NoError(t, run(env, r, &out, interrupt))
}
