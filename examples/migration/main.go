// Command migration shows what the client does when the service retires
// an endpoint: the deprecated Advance answers 410 ENDPOINT_DEPRECATED with
// migrateToEndpoint advice; the client follows it once, remembers it, and
// reports it. Then the same call with WithoutAutoMigrate.
//
//	go run ./examples/migration
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	threads "github.com/threadsapi/threads-go"
)

func main() {
	if err := run(context.Background()); err != nil {
		exitDemo("migration", err)
	}
}

func run(ctx context.Context) error {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env, err := setupDemo(
		threads.WithLogger(logger),
		threads.WithDeprecationHandler(func(d threads.Deprecation) {
			fmt.Printf("handler: %s moved to %s (the service said %q)\n", d.From, d.To, d.MigrateTo)
		}),
	)
	if err != nil {
		return err
	}
	defer env.Close()
	client := env.Client

	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: env.ProjectID})
	if err != nil {
		return err
	}
	for i, text := range []string{"first call", "second call"} {
		//lint:ignore SA1019 this example shows the deprecated call on purpose
		reply, err := client.Threads.Advance(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage(text)})
		if err != nil {
			return err
		}
		fmt.Printf("call %d: %s -> %q\n", i+1, reply.GenerationStage, reply.Message.Text())
	}
	if env.Fake != nil {
		fmt.Printf("requests to /advance: %d, to /advancestream: %d (the second call skipped the 410)\n\n",
			env.Fake.Count("POST", "/threads/"+thread.ID+"/advance"), env.Fake.Count("POST", "/threads/"+thread.ID+"/advancestream"))
	}

	// Turned off for one call: the 410 comes back, with the resolved replacement.
	//lint:ignore SA1019 this example shows the deprecated call on purpose
	_, err = client.Threads.CreateAndAdvance(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")}, threads.WithoutAutoMigrate())
	fmt.Println("with WithoutAutoMigrate:", err)
	var p *threads.Problem
	if errors.As(err, &p) {
		if d, ok := p.Deprecation(); ok {
			fmt.Printf("Deprecation(): from %q to %q\n", d.From, d.To)
		}
	}
	return nil
}
