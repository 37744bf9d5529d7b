// Command runs uses the service's /v1 API (package runs): threads per end
// user and runs that stream typed events. It starts a run that creates its
// thread and prints the reply as it streams, answers a client tool call the
// model makes (the run pauses; the next run carries the tool result), then
// starts a long run and cancels it, and lists the thread's messages.
//
// With THREADS_BASE_URL unset it starts the SDK's built-in fake service in
// this process, so it runs anywhere:
//
//	go run ./examples/runs
//
// Against the real service, set THREADS_BASE_URL and THREADS_API_KEY (on
// /v1 the key always travels in x-api-key), and optionally
// THREADS_USER_KEY, the end user the threads belong to (default
// "example-user").
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "runs: %v\n", err)
		os.Exit(1)
	}
}

// weather is the client tool this program offers: the model may call it,
// and this program answers with the result.
var weather = runs.ToolDefinition{
	Name:        "get_weather",
	Description: "Get the current weather for a city",
	InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string", "description": "City name"}},
		"required":   []string{"city"},
	},
}

func run(ctx context.Context) error {
	client, done, err := setup()
	if err != nil {
		return err
	}
	defer done()
	userKey := os.Getenv("THREADS_USER_KEY")
	if userKey == "" {
		userKey = "example-user"
	}
	user := runs.New(client).ForUser(userKey)

	// 1. A run that creates its thread and offers a tool. Its events stream
	// as they arrive; a tool call pauses the run (AwaitingInput), and the
	// next run sends the results with PreviousRunID.
	params := runs.RunParams{Content: []runs.Content{runs.Text("Paris")}, ToolDefinitions: []runs.ToolDefinition{weather}}
	s, err := user.CreateAndRun(ctx, runs.CreateRunParams{RunParams: params})
	if err != nil {
		return fmt.Errorf("starting a run: %w", err)
	}
	fmt.Printf("Run %s on the new thread %s\n", s.RunID(), s.ThreadID())
	threadID := s.ThreadID()
	for round := 1; ; round++ {
		pending, err := show(s)
		if err != nil {
			return err
		}
		if len(pending) == 0 || round == 5 {
			break
		}
		var results []runs.Content
		for _, call := range pending {
			fmt.Printf("(the model calls %s %s; this program answers)\n", call.ToolName, call.Arguments)
			results = append(results, runs.ToolResult(call.ToolCallID, "18°C and cloudy"))
		}
		s, err = user.Run(ctx, threadID, runs.RunParams{PreviousRunID: s.RunID(), ToolDefinitions: params.ToolDefinitions, Content: results})
		if err != nil {
			return fmt.Errorf("sending the tool results: %w", err)
		}
	}

	// 2. A run cancelled after its first words: Stream.Cancel asks the
	// service (DELETE .../runs/{runId}) and reads on to the end; closing
	// the stream early would cancel it too.
	th, err := user.GetThread(ctx, threadID)
	if err != nil {
		return err
	}
	s, err = user.Run(ctx, threadID, runs.RunParams{PreviousRunID: th.LastCompletedRunID,
		Content: []runs.Content{runs.Text("Tell me a long story about the sea, the wind and the ships.")}})
	if err != nil {
		return fmt.Errorf("starting the long run: %w", err)
	}
	fmt.Print("\nassistant: ")
	cancelled := false
	for ev, err := range s.All() {
		if err != nil {
			return err
		}
		if d, ok := ev.(runs.TextMessageContent); ok {
			fmt.Print(d.Delta)
			if !cancelled {
				cancelled = true
				if err := s.Cancel(ctx); err != nil {
					return fmt.Errorf("cancelling: %w", err)
				}
			}
		}
	}
	fmt.Printf("... (the run ended %s)\n", s.Outcome())

	// 3. The thread's messages, oldest first, page after page.
	fmt.Println("\nMessages:")
	for m, err := range user.AllMessages(ctx, threadID, nil) {
		if err != nil {
			return err
		}
		note := ""
		if m.IsCancelled {
			note = " (cancelled)"
		}
		for _, c := range m.Content {
			switch c.Type {
			case runs.ContentToolUse:
				note += fmt.Sprintf(" [calls %s]", c.Name)
			case runs.ContentToolResult:
				note += fmt.Sprintf(" [result of %s]", c.ToolUseID)
			}
		}
		fmt.Printf("  %-9s %q%s\n", m.Role, m.Text(), note)
	}

	// 4. Once a thread has a completed run, a run must name it in
	// PreviousRunID; the refusal matches the package's sentinels.
	_, err = user.Run(ctx, threadID, runs.RunParams{Content: []runs.Content{runs.Text("hello?")}})
	var p *threads.Problem
	if errors.As(err, &p) {
		fmt.Printf("\nA run without PreviousRunID: %d %s (errors.Is(err, runs.ErrInvalidPreviousRun): %v)\n",
			p.Status, p.Detail, errors.Is(err, runs.ErrInvalidPreviousRun))
	}
	return nil
}

// show prints a run's events as they arrive and returns the tool calls it
// awaits results for.
func show(s *runs.Stream) ([]runs.PendingToolCall, error) {
	var pending []runs.PendingToolCall
	for ev, err := range s.All() { // the loop closes the stream
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", s.RunID(), err)
		}
		switch ev := ev.(type) {
		case runs.TextMessageStart:
			fmt.Print("assistant: ")
		case runs.TextMessageContent:
			fmt.Print(ev.Delta)
		case runs.TextMessageEnd:
			fmt.Println()
		case runs.AwaitingInput:
			pending = ev.PendingToolCalls
		}
	}
	return pending, nil
}

// setup returns a client for the real service when THREADS_BASE_URL is
// set, else for a fake started in this process (paced like the live
// service, so the cancel has words to interrupt), and a function that
// releases it.
func setup() (*threads.Client, func(), error) {
	if os.Getenv(threads.EnvBaseURL) != "" {
		c, err := threads.NewClient()
		return c, func() {}, err
	}
	srv := threadstest.Start(threadstest.WithLiveHabits())
	fmt.Printf("(THREADS_BASE_URL is not set: using the built-in fake service at %s)\n\n", srv.URL)
	return srv.Client(), srv.Close, nil
}
