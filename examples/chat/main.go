// Command chat is a small command-line chat. Each line you type is sent to
// the thread and the reply streams back. "/new" starts a new thread; Ctrl-C
// stops the reply in progress (and cancels the generation on the service);
// Ctrl-C at the prompt or end of input (Ctrl-D) exits.
//
//	go run ./examples/chat
//
// With THREADS_BASE_URL and THREADS_API_KEY set it talks to that service
// (new threads go to THREADS_PROJECT_ID, else the key's project);
// without, to a fake service started in this process. The file uses only
// the SDK's public packages: copy it whole to start a program of your own.
// ("threads chat", in cmd/threads, is the same chat with more care for
// the terminal.)
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"unicode"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	client, projectID, stop, err := connect(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(1)
	}
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	err = run(client, projectID, os.Stdin, os.Stdout, interrupt)
	signal.Stop(interrupt)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(1)
	}
}

// connect returns a client for the service that the environment names, and
// the project for new threads; without THREADS_BASE_URL, a client for a fake
// service started here, which stop stops.
func connect(ctx context.Context) (client *threads.Client, projectID string, stop func(), err error) {
	if os.Getenv(threads.EnvBaseURL) == "" {
		srv := threadstest.Start()
		fmt.Printf("(THREADS_BASE_URL is not set: using a fake service at %s)\n\n", srv.URL)
		return srv.Client(), srv.ProjectID, srv.Close, nil
	}
	client, err = threads.NewClient() // reads THREADS_BASE_URL, THREADS_API_KEY...
	if err != nil {
		return nil, "", nil, err
	}
	projectID = os.Getenv("THREADS_PROJECT_ID")
	if projectID == "" {
		// Creating a thread needs a project; the key belongs to one.
		p, err := client.Projects.Current(ctx)
		if err != nil {
			return nil, "", nil, fmt.Errorf("reading the API key's project (or set THREADS_PROJECT_ID): %w", err)
		}
		projectID = p.ID
	}
	return client, projectID, func() {}, nil
}

// run chats over in and out on a new thread until in ends or an interrupt
// arrives at the prompt. An error of a reply is shown and the chat goes
// on; one creating a thread ends it.
func run(client *threads.Client, projectID string, in io.Reader, out io.Writer, interrupt <-chan os.Signal) error {
	ctx := context.Background()
	threadID, err := newThread(ctx, client, projectID, out)
	if err != nil {
		return err
	}
	// The lines are read on their own goroutine, so that Ctrl-C at the
	// prompt is seen while a read waits. done stops it when the chat ends
	// first.
	lines, done := make(chan string), make(chan struct{})
	defer close(done)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	for {
		fmt.Fprint(out, "> ")
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(out)
				return nil
			}
			line = strings.TrimSpace(l)
		case <-interrupt:
			fmt.Fprintln(out)
			return nil
		}
		switch line {
		case "":
		case "/new":
			if threadID, err = newThread(ctx, client, projectID, out); err != nil {
				return err
			}
		default:
			if err := reply(client, threadID, line, out, interrupt); err != nil {
				fmt.Fprintln(out, "[error]", printable(err.Error()))
			}
		}
	}
}

func newThread(ctx context.Context, client *threads.Client, projectID string, out io.Writer) (string, error) {
	t, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: projectID})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(out, "[new thread %s]\n", printable(t.ID))
	return t.ID, nil
}

// reply sends text and prints the reply as it streams. Ctrl-C stops it:
// the stream is closed and, since hanging up does not stop the service's
// generation, the thread's generation is cancelled.
func reply(client *threads.Client, threadID, text string, out io.Writer, interrupt <-chan os.Signal) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.Threads.AdvanceStream(ctx, threadID, threads.AdvanceParams{Message: threads.UserMessage(text)})
	if err != nil {
		return err
	}
	defer stream.Close()
	interrupted := make(chan bool, 1)
	go func() {
		select {
		case <-interrupt:
			cancel() // the stream ends with context.Canceled
			interrupted <- true
		case <-ctx.Done():
			interrupted <- false
		}
	}()
	shown := "" // the message whose text is being printed
	for stream.Next() {
		ev := stream.Current()
		if ev.TextDelta == "" && !ev.TextReset {
			continue
		}
		if ev.TextReset || (shown != "" && ev.Message.ID != shown) {
			// Another message, or this one rewritten: its text starts
			// on a line of its own (TextDelta is then its whole text).
			fmt.Fprintln(out)
		}
		shown = ev.Message.ID
		fmt.Fprint(out, printable(ev.TextDelta))
	}
	err = stream.Err()
	cancel()
	if <-interrupted {
		if _, err := client.Threads.Cancel(context.Background(), threadID); err != nil {
			return err
		}
		fmt.Fprintln(out, " [cancelled]")
		return nil
	}
	fmt.Fprintln(out)
	return err
}

// printable drops the control characters of text the service sent, line
// breaks and tabs excepted, so that no escape sequence reaches the
// terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
}
