// Command chat is a small command-line chat. Each line you type is sent to
// the thread and the reply streams back. "/new" starts a new thread; Ctrl-C
// stops the reply in progress (and cancels the generation on the service);
// Ctrl-C at the prompt or end of input (Ctrl-D) exits.
//
//	go run ./examples/chat
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/examples/internal/demo"
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

type chat struct {
	client    *threads.Client
	projectID string
	threadID  string
	out       io.Writer
	interrupt <-chan os.Signal
}

// run chats over in and out until in ends or an interrupt arrives at the
// prompt.
func run(env *demo.Env, in io.Reader, out io.Writer, interrupt <-chan os.Signal) error {
	c := &chat{client: env.Client, projectID: env.ProjectID, out: out, interrupt: interrupt}
	if err := c.newThread(); err != nil {
		return err
	}

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		fmt.Fprint(out, "> ")
		select {
		case line, ok := <-lines:
			if !ok {
				fmt.Fprintln(out)
				return nil
			}
			switch line = strings.TrimSpace(line); line {
			case "":
			case "/new":
				if err := c.newThread(); err != nil {
					return err
				}
			default:
				if err := c.reply(line); err != nil {
					fmt.Fprintln(out, "\n[error]", err)
				}
			}
		case <-c.interrupt:
			fmt.Fprintln(out)
			return nil
		}
	}
}

func (c *chat) newThread() error {
	t, err := c.client.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: c.projectID})
	if err != nil {
		return err
	}
	c.threadID = t.ID
	fmt.Fprintf(c.out, "[new thread %s]\n", t.ID)
	return nil
}

// reply streams the answer to text; Ctrl-C stops it.
func (c *chat) reply(text string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := c.client.Threads.AdvanceStream(ctx, c.threadID, threads.AdvanceParams{Message: threads.UserMessage(text)})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		for ev, err := range stream.All() {
			if err != nil {
				done <- err
				return
			}
			fmt.Fprint(c.out, ev.TextDelta)
		}
		done <- nil
	}()
	select {
	case err := <-done:
		fmt.Fprintln(c.out)
		return err
	case <-c.interrupt:
		cancel() // hang up: the stream ends with context.Canceled
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		// Hanging up does not stop the service; Cancel does.
		if _, err := c.client.Threads.Cancel(context.Background(), c.threadID); err != nil {
			return err
		}
		fmt.Fprintln(c.out, " [cancelled]")
		return nil
	}
}
