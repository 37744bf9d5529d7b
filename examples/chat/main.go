// Command chat is a small command-line chat. Each line you type is sent to
// the thread and the reply streams back. "/new" starts a new thread; Ctrl-C
// stops the reply in progress (and cancels the generation on the service);
// Ctrl-C at the prompt or end of input (Ctrl-D) exits.
//
//	go run ./examples/chat
//
// The chat itself lives in internal/chatui, shared with "threads chat"
// (cmd/threads).
package main

import (
	"io"
	"os"
	"os/signal"

	"github.com/threadsapi/threads-go/examples/internal/demo"
	"github.com/threadsapi/threads-go/internal/chatui"
)

func main() {
	env, err := demo.Setup()
	if err != nil {
		demo.Exit("chat", err)
	}
	defer env.Close()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	if err := run(env, os.Stdin, os.Stdout, interrupt); err != nil {
		env.Close()
		demo.Exit("chat", err)
	}
}

// run chats over in and out until in ends or an interrupt arrives at the
// prompt.
func run(env *demo.Env, in io.Reader, out io.Writer, interrupt <-chan os.Signal) error {
	return chatui.Run(chatui.Config{
		Client:    env.Client,
		ProjectID: env.ProjectID,
		In:        in,
		Out:       out,
		Interrupt: interrupt,
	})
}
