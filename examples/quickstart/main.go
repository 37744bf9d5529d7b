// Command quickstart uses the service's /v1 API (package runs), the one
// its official clients use: it starts a run that creates a thread and
// prints the reply as it streams, lists the end user's threads, sends a
// second message and waits for the whole reply (Stream.Collect), then
// reads the thread back with its messages.
//
// With THREADS_BASE_URL unset it starts the SDK's built-in fake service in
// this process, so it runs anywhere:
//
//	go run ./examples/quickstart
//
// Against the real service, set THREADS_BASE_URL and THREADS_API_KEY (on
// /v1 the key always travels in x-api-key), and optionally
// THREADS_USER_KEY, the end user the thread belongs to (default
// "example-user"). The same steps on the spec's routes are
// examples/specroutes.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "quickstart: %v\n", err)
		os.Exit(1)
	}
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
	// Every /v1 call acts for one end user: here a user key of our choice.
	user := runs.New(client).ForUser(userKey)

	// 1. A run that creates its thread; print the reply as it streams.
	question := "What can you do?"
	s, err := user.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text(question)},
	}})
	if err != nil {
		return fmt.Errorf("starting a run: %w", err)
	}
	threadID := s.ThreadID()
	fmt.Printf("Created thread %s (run %s)\n", threadID, s.RunID())
	fmt.Printf("\nYou: %s\nAssistant: ", question)
	for ev, err := range s.All() { // the loop closes the stream
		if err != nil {
			return fmt.Errorf("streaming the reply: %w", err)
		}
		if t, ok := ev.(runs.TextMessageContent); ok {
			fmt.Print(t.Delta)
		}
	}
	fmt.Println()

	// 2. List the user's newest threads; ours is first.
	page, err := user.ListThreads(ctx, &runs.ListThreadsParams{Limit: 5})
	if err != nil {
		return fmt.Errorf("listing threads: %w", err)
	}
	fmt.Printf("\n%s's newest threads:\n", userKey)
	for _, t := range page.Items {
		mark := " "
		if t.ID == threadID {
			mark = "*"
		}
		fmt.Printf(" %s %s  %-8s created %s\n", mark, t.ID, t.RunStatus, t.CreatedAt.Format(time.RFC3339))
	}

	// 3. Another message on the same thread. A run after the first names
	// the thread's last run: PreviousRunID, or AfterLastRun to let the SDK
	// read it. Collect waits for the whole reply.
	question = "Thanks. Anything else?"
	s, err = user.Run(ctx, threadID, runs.RunParams{
		Content:       []runs.Content{runs.Text(question)},
		PreviousRunID: s.RunID(),
	})
	if err != nil {
		return fmt.Errorf("sending a message: %w", err)
	}
	res, err := s.Collect()
	if err != nil {
		return fmt.Errorf("waiting for the reply: %w", err)
	}
	fmt.Printf("\nYou: %s\n", question)
	for _, m := range res.Messages {
		fmt.Printf("Assistant (whole reply, run %s): %s\n", res.Outcome, m.Text())
	}

	// 4. The thread now holds all four messages, oldest first.
	th, err := user.GetThread(ctx, threadID)
	if err != nil {
		return fmt.Errorf("reading the thread: %w", err)
	}
	fmt.Printf("\nThread %s is %s with %d messages:\n", th.ID, th.RunStatus, len(th.Messages))
	for _, m := range th.Messages {
		fmt.Printf("  %-11s %s\n", m.Role+":", m.Text())
	}
	return nil
}

// setup returns a client for the real service when THREADS_BASE_URL is
// set, else for a fake started in this process, and a function that
// releases it.
func setup() (*threads.Client, func(), error) {
	if os.Getenv(threads.EnvBaseURL) != "" {
		c, err := threads.NewClient() // THREADS_BASE_URL, THREADS_API_KEY
		return c, func() {}, err
	}
	srv := threadstest.Start()
	fmt.Printf("(THREADS_BASE_URL is not set: using the built-in fake service at %s)\n\n", srv.URL)
	return srv.Client(), srv.Close, nil
}
