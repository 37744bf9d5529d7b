// Package chatui is the interactive command-line chat of "threads chat":
// each line typed is sent to the thread and the reply streams back; "/new"
// starts a new thread; Ctrl-C stops the reply in progress and cancels the
// generation on the service; Ctrl-C at the prompt or the end of the input
// exits. Its Printer filters escape sequences split across deltas
// (internal/termtext). examples/chat is the same chat written for users to
// copy, with the SDK's public packages only.
package chatui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// Config is what a chat needs.
type Config struct {
	Client *threads.Client
	// ProjectID is the project new threads are created in; empty: the
	// key's project, from Client.Projects.Current.
	ProjectID string
	// ThreadID is the thread to continue; empty: the chat starts a new one.
	ThreadID string
	In       io.Reader
	Out      io.Writer
	// Interrupt delivers Ctrl-C (os.Interrupt) to the chat.
	Interrupt <-chan os.Signal
}

type chat struct {
	Config
}

// Run chats over c.In and c.Out until the input ends or an interrupt arrives
// at the prompt. It returns the error of creating the first thread; an
// error during a reply is shown and the chat goes on.
func Run(cfg Config) error {
	c := &chat{Config: cfg}
	if c.ThreadID == "" {
		if err := c.newThread(); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.Out, "[thread %s]\n", termtext.Line(c.ThreadID))
	}

	lines := make(chan string)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(c.In)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-stop:
				return
			}
		}
	}()
	for {
		fmt.Fprint(c.Out, "> ")
		select {
		case line, ok := <-lines:
			if !ok {
				fmt.Fprintln(c.Out)
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
					fmt.Fprintln(c.Out, "\n[error]", termtext.Line(err.Error()))
				}
			}
		case <-c.Interrupt:
			fmt.Fprintln(c.Out)
			return nil
		}
	}
}

func (c *chat) newThread() error {
	ctx := context.Background()
	if c.ProjectID == "" {
		p, err := c.Client.Projects.Current(ctx)
		if err != nil {
			return fmt.Errorf("reading the API key's project (or set THREADS_PROJECT_ID): %w", err)
		}
		c.ProjectID = p.ID
	}
	t, err := c.Client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: c.ProjectID})
	if err != nil {
		return err
	}
	c.ThreadID = t.ID
	fmt.Fprintf(c.Out, "[new thread %s]\n", termtext.Line(t.ID))
	return nil
}

// reply streams the answer to text; Ctrl-C stops it.
func (c *chat) reply(text string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := c.Client.Threads.AdvanceStream(ctx, c.ThreadID, threads.AdvanceParams{Message: threads.UserMessage(text)})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		p := NewPrinter(c.Out)
		for ev, err := range stream.All() {
			if err != nil {
				done <- err
				return
			}
			p.Print(ev)
		}
		done <- nil
	}()
	select {
	case err := <-done:
		fmt.Fprintln(c.Out)
		return err
	case <-c.Interrupt:
		cancel() // hang up: the stream ends with context.Canceled
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		// Hanging up does not stop the service; Cancel does.
		if _, err := c.Client.Threads.Cancel(context.Background(), c.ThreadID); err != nil {
			return err
		}
		fmt.Fprintln(c.Out, " [cancelled]")
		return nil
	}
}

// Printer writes the text of a streamed reply as it arrives: each event's
// TextDelta, and a line break between two messages. The text is filtered
// for the terminal (see package termtext): an escape sequence the service
// sends is dropped, even split between two deltas.
type Printer struct {
	w       io.Writer
	message string // id of the message being printed
	midLine bool   // the last text written did not end a line
	filter  termtext.Filter
}

// NewPrinter returns a Printer that writes to w.
func NewPrinter(w io.Writer) *Printer { return &Printer{w: w} }

// Print writes what ev adds to the reply's text.
func (p *Printer) Print(ev threads.StreamEvent) {
	if ev.TextDelta == "" && !ev.TextReset {
		return
	}
	if (ev.Message.ID != p.message && p.message != "") || ev.TextReset {
		// A new message, or this one rewritten: what was printed stays,
		// and the new text starts on a line of its own.
		p.EndLine()
	}
	p.message = ev.Message.ID
	if text := p.filter.Write(ev.TextDelta); text != "" {
		fmt.Fprint(p.w, text)
		p.midLine = !strings.HasSuffix(text, "\n")
	}
}

// EndLine ends the current line, if text was written on it. An escape
// sequence left open is dropped (nothing of it was written): the text that
// follows starts afresh.
func (p *Printer) EndLine() {
	if text := p.filter.Flush(); text != "" {
		fmt.Fprint(p.w, text)
		p.midLine = true
	}
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}
