// Command specroutes is the quickstart on the spec's routes (package
// threads: threads per project, replies streamed as snapshots): it creates
// a thread, lists threads, reads the thread back, sends a message and
// prints the reply as it streams, then sends another and waits for the
// whole reply (Stream.Collect). examples/quickstart does the same on /v1.
//
// With THREADS_BASE_URL unset it starts the SDK's built-in fake service in
// this process, so it runs anywhere:
//
//	go run ./examples/specroutes
//
// Against the real service, set THREADS_BASE_URL and THREADS_API_KEY. The
// key goes as Authorization: Bearer, as the spec says; the live deployment
// reads x-api-key instead, and the client switches to it after the first
// refused call (THREADS_API_KEY_HEADER=x-api-key saves that call). The
// project id that creating a thread needs is read with Projects.Current;
// THREADS_PROJECT_ID overrides it.
// Listing works on either deployment: where GET /threads answers 404, the
// client lists the key's project through GET /threads/project/{projectId}.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	threads "github.com/threadsapi/threads-go"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		exitDemo("specroutes", err)
	}
}

func run(ctx context.Context) error {
	env, err := setupDemo()
	if err != nil {
		return err
	}
	defer env.Close()
	client, projectID := env.Client, env.ProjectID

	// 1. Create a thread.
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{
		ProjectID: projectID,
		Name:      "quickstart " + time.Now().Format(time.TimeOnly),
	})
	if err != nil {
		return fmt.Errorf("creating a thread: %w", err)
	}
	fmt.Printf("Created thread %s (%q, stage %s)\n", thread.ID, thread.Name, thread.GenerationStage)

	// 2. List the newest threads; ours is first.
	page, err := client.Threads.List(ctx, &threads.ListParams{Limit: 5})
	if err != nil {
		return fmt.Errorf("listing threads: %w", err)
	}
	fmt.Printf("\nThe project has %d thread(s) without a context key; the newest %d:\n", page.Total, len(page.Items))
	for _, t := range page.Items {
		mark := " "
		if t.ID == thread.ID {
			mark = "*"
		}
		fmt.Printf(" %s %s  %-24q created %s\n", mark, t.ID, t.Name, t.CreatedAt.Format(time.RFC3339))
	}

	// 3. Read it back.
	got, err := client.Threads.Get(ctx, thread.ID)
	if err != nil {
		return fmt.Errorf("reading the thread: %w", err)
	}
	fmt.Printf("\nRead back %s: %d message(s), stage %s\n", got.ID, len(got.Messages), got.GenerationStage)

	// 4. Send a message and print the reply as it streams.
	question := "What can you do?"
	fmt.Printf("\nYou: %s\nAssistant: ", question)
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage(question)})
	if err != nil {
		return fmt.Errorf("sending a message: %w", err)
	}
	for ev, err := range stream.All() {
		if err != nil {
			return fmt.Errorf("streaming the reply: %w", err)
		}
		fmt.Print(ev.TextDelta)
	}
	fmt.Println()

	// 5. Send another message and wait for the whole reply: Collect reads
	// the stream to its end and returns the final messages.
	question = "Thanks. Anything else?"
	stream, err = client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage(question)})
	if err != nil {
		return fmt.Errorf("sending a message: %w", err)
	}
	reply, err := stream.Collect()
	if err != nil {
		return fmt.Errorf("waiting for the reply: %w", err)
	}
	fmt.Printf("\nYou: %s\n", question)
	for _, m := range reply {
		fmt.Printf("Assistant (whole reply): %s\n", m.Text())
	}

	// 6. The thread now holds all four messages.
	got, err = client.Threads.Get(ctx, thread.ID)
	if err != nil {
		return fmt.Errorf("reading the thread: %w", err)
	}
	fmt.Printf("\nThread %s is %s with %d messages:\n", got.ID, got.GenerationStage, len(got.Messages))
	for _, m := range got.Messages {
		fmt.Printf("  %-11s %s\n", m.Role+":", m.Text())
	}
	return nil
}
