// Command errors shows how failures look: *threads.Problem for every non-2xx
// answer (branch with errors.Is, read with errors.As), transport errors,
// and failures inside a 2xx stream.
//
//	go run ./examples/errors
package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	if err := run(context.Background()); err != nil {
		exitDemo("errors", err)
	}
}

func run(ctx context.Context) error {
	env, err := setupDemo()
	if err != nil {
		return err
	}
	defer env.Close()
	client := env.Client

	// An unknown thread: 403, from the fake as from the live service.
	_, err = client.Threads.Get(ctx, "thr_unknown0.000000")
	describe("Get an unknown thread", err)

	// A contextKey that is not the thread's: 404 (a problem+json body). Get
	// takes the key as a query parameter, through WithQuery.
	owned, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: env.ProjectID, ContextKey: "user-42"})
	if err != nil {
		return err
	}
	if _, err := client.Threads.Get(ctx, owned.ID, threads.WithContextKey("user-42")); err != nil {
		return err // the thread's own key: found
	}
	_, err = client.Threads.Get(ctx, owned.ID, threads.WithContextKey("someone-else"))
	describe("Get with another contextKey", err)

	// A bad request: the live service answers in its framework shape, a list of messages.
	_, err = client.Threads.Create(ctx, threads.CreateThreadParams{})
	describe("Create without ProjectID", err)

	// Client-side validation: caught before anything is sent.
	_, err = client.Threads.AdvanceStream(ctx, "thr_any.000000", threads.AdvanceParams{
		Message: threads.MessageRequest{Role: threads.RoleTool},
	})
	describe("A tool message without its ToolCallID", err)

	// A transport error: nothing listens on port 1.
	offline, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"),
		threads.WithAPIKey("demo-key"), threads.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		return err
	}
	_, err = offline.Threads.List(ctx, nil)
	describe("No server", err)

	// A failure inside a 2xx stream: the service's error line.
	if env.Fake != nil {
		env.Fake.PushScript(threadstest.Script{Error: true, ErrorAfter: 2})
		stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("hello world")})
		if err != nil {
			return err
		}
		msgs, err := stream.Collect() // the messages so far and the stream's error
		fmt.Printf("(the stream failed after %d message(s) had started)\n", len(msgs))
		describe("A stream that fails half-way", err)
	}
	return nil
}

func describe(what string, err error) {
	fmt.Printf("%s\n  error: %v\n", what, err)
	var p *threads.Problem
	var se *threads.StreamError
	var ue *url.Error
	switch {
	case errors.As(err, &p):
		fmt.Printf("  *Problem: status=%d title=%q detail=%q code=%q type=%q\n", p.Status, p.Title, p.Detail, p.Code, p.Type)
		for _, s := range []struct {
			name string
			err  error
		}{{"ErrNotFound", threads.ErrNotFound}, {"ErrForbidden", threads.ErrForbidden}, {"ErrBadRequest", threads.ErrBadRequest}, {"ErrServer", threads.ErrServer}} {
			if errors.Is(err, s.err) {
				fmt.Printf("  errors.Is(err, threads.%s)\n", s.name)
			}
		}
	case errors.As(err, &se):
		fmt.Printf("  *StreamError: %q (errors.Is ErrStreamFailed: %v)\n", se.Message, errors.Is(err, threads.ErrStreamFailed))
	case errors.As(err, &ue):
		fmt.Printf("  transport error (*url.Error, op %s)\n", ue.Op)
	default:
		fmt.Println("  invalid input, nothing was sent")
	}
	fmt.Println()
}
