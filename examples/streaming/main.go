// Command streaming shows the Stream API: Next, Current and Err; the
// difference between a snapshot and its TextDelta; several messages in one
// stream; and cancelling a generation with Threads.Cancel.
//
//	go run ./examples/streaming
package main

import (
	"context"
	"fmt"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	if err := run(context.Background()); err != nil {
		exitDemo("streaming", err)
	}
}

func run(ctx context.Context) error {
	env, err := setupDemo()
	if err != nil {
		return err
	}
	defer env.Close()
	client := env.Client

	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: env.ProjectID})
	if err != nil {
		return err
	}

	// 1. Every event is a full snapshot; TextDelta is what it adds.
	if env.Fake != nil {
		// The fake can answer with two messages, as the service does after a server-side tool.
		env.Fake.PushScript(threadstest.Script{Replies: []string{"Let me look that up.", "Go 1.23 added range-over-func iterators."}})
	}
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{
		Message: threads.UserMessage("What did Go 1.23 add?"),
	})
	if err != nil {
		return err
	}
	fmt.Println("event  stage                message              snapshot text              delta")
	n := 0
	for stream.Next() {
		ev := stream.Current()
		n++
		fmt.Printf("%5d  %-19s  %-19s  %-25q  %q\n", n, ev.GenerationStage, short(ev.Message.ID), short(ev.Message.Text()), ev.TextDelta)
	}
	if err := stream.Err(); err != nil {
		return err
	}
	fmt.Println("\nFinal messages of the stream:")
	for _, m := range stream.Messages() {
		fmt.Printf("  %s: %s\n", m.Role, m.Text())
	}

	// 2. Stop a reply half-way: closing the stream only hangs up; Cancel stops the generation.
	stream, err = client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{
		Message: threads.UserMessage("Tell me a very long story about gophers and their many burrows"),
	})
	if err != nil {
		return err
	}
	fmt.Print("\nA reply we cancel after three events: ")
	for i := 0; i < 3 && stream.Next(); i++ {
		fmt.Print(stream.Current().TextDelta)
	}
	cancelled, err := client.Threads.Cancel(ctx, thread.ID)
	if err != nil {
		return err
	}
	var last threads.StreamEvent
	for stream.Next() {
		last = stream.Current()
	}
	if err := stream.Err(); err != nil {
		return err
	}
	fmt.Printf("\nThread is now %s; the stream's last snapshot says %s.\n", cancelled.GenerationStage, last.GenerationStage)
	return nil
}

func short(s string) string {
	if len(s) > 24 {
		return s[:21] + "..."
	}
	return s
}
