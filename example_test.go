package threads_test

import (
	"context"
	"errors"
	"fmt"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// Example sends a message and prints the reply as it streams.
func Example() {
	srv := threadstest.Start(threadstest.WithThrottle(0)) // a fake service; use your base URL and key instead
	defer srv.Close()

	client, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{
		Message: threads.UserMessage("Hello, threads!"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range stream.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(ev.TextDelta)
	}
	fmt.Println()
	// Output: You said: Hello, threads!
}

func ExampleNewClient() {
	// With no options, NewClient reads THREADS_BASE_URL and THREADS_API_KEY.
	_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example.com"))
	fmt.Println(err)

	client, err := threads.NewClient(
		threads.WithBaseURL("https://api.example.com"),
		threads.WithAPIKey("sk_live_123456"),
		threads.WithMaxRetries(3),
	)
	fmt.Println(client, err)
	// Output:
	// threads: no API key: use WithAPIKey or set THREADS_API_KEY
	// threads.Client{baseURL:"https://api.example.com" apiKey:[REDACTED] maxRetries:3} <nil>
}

func ExampleThreadsService_Create() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client()

	thread, err := client.Threads.Create(context.Background(), threads.CreateThreadParams{
		ProjectID: srv.ProjectID,
		Name:      "support chat",
		Metadata:  map[string]any{"customer": "acme"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(thread.Name, thread.GenerationStage, thread.Metadata["customer"])
	// Output: support chat IDLE acme
}

func ExampleThreadsService_List() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	for _, name := range []string{"first", "second", "third"} {
		if _, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: name}); err != nil {
			fmt.Println(err)
			return
		}
	}

	page, err := client.Threads.List(ctx, &threads.ListParams{Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d:", page.Count, page.Total)
	for _, t := range page.Items {
		fmt.Print(" ", t.Name) // newest first
	}
	fmt.Println()
	// Output: 2 of 3: third second
}

func ExampleThreadsService_All() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	for i := range 5 {
		if _, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: fmt.Sprint("t", i)}); err != nil {
			fmt.Println(err)
			return
		}
	}

	// All fetches pages of two as the loop needs them.
	for thread, err := range client.Threads.All(ctx, &threads.ListParams{Limit: 2}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(thread.Name, " ")
	}
	fmt.Println()
	// Output: t4 t3 t2 t1 t0
}

func ExampleThreadsService_Get() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range stream.All() {
	}
	threadID := stream.Messages()[0].ThreadID

	thread, err := client.Threads.Get(ctx, threadID)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range thread.Messages {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// user: hi
	// assistant: You said: hi
}

// ExampleThreadsService_AdvanceStream reads a stream with Next, Current and
// Err, and shows the snapshot semantics: each event is the whole message so
// far, TextDelta the new part.
func ExampleThreadsService_AdvanceStream() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}

	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("one two")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	for stream.Next() {
		ev := stream.Current()
		fmt.Printf("%-18s %-22q +%q\n", ev.GenerationStage, ev.Message.Text(), ev.TextDelta)
	}
	if err := stream.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// STREAMING_RESPONSE " "                    +""
	// STREAMING_RESPONSE "You"                  +"You"
	// STREAMING_RESPONSE "You said:"            +" said:"
	// STREAMING_RESPONSE "You said: one"        +" one"
	// STREAMING_RESPONSE "You said: one two"    +" two"
	// STREAMING_RESPONSE "You said: one two"    +""
	// COMPLETE           "You said: one two"    +""
}

// ExampleThreadsService_Advance uses the deprecated non-streaming call: the
// service answers 410 and the client follows its advice to the streaming
// endpoint, once, reporting the move.
func ExampleThreadsService_Advance() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client(threads.WithDeprecationHandler(func(d threads.Deprecation) {
		fmt.Printf("moved: %s -> %s (advice %q)\n", d.From, d.To, d.MigrateTo)
	}))
	ctx := context.Background()

	for _, text := range []string{"first", "second"} {
		reply, err := client.Threads.CreateAndAdvance(ctx, threads.AdvanceParams{Message: threads.UserMessage(text)})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(reply.GenerationStage, reply.Message.Text())
	}
	// Output:
	// moved: POST /threads/advance -> POST /threads/advancestream (advice "POST /advancestream")
	// COMPLETE You said: first
	// COMPLETE You said: second
}

// Example_errors branches on the sentinels and reads a *Problem.
func Example_errors() {
	srv := threadstest.Start(threadstest.WithThrottle(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// The service answers 403 for a thread id it does not know (or that is
	// in another project), and 404 for a contextKey that is not the
	// thread's.
	_, err := client.Threads.Get(ctx, "thr_missing.000000")
	if errors.Is(err, threads.ErrForbidden) {
		fmt.Println("forbidden")
	}
	th, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Threads.Get(ctx, th.ID, threads.WithQuery("contextKey", "someone-else"))
	if errors.Is(err, threads.ErrNotFound) {
		fmt.Println("not found")
	}
	var p *threads.Problem
	if errors.As(err, &p) {
		fmt.Println(p.Status, p.Title, "|", p.Detail)
	}

	_, err = client.Threads.Create(ctx, threads.CreateThreadParams{}) // no ProjectID
	fmt.Println(err)

	// A failure inside a 2xx stream is a *StreamError.
	srv.PushScript(threadstest.Script{Error: true})
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, err := range stream.All() {
		var se *threads.StreamError
		if errors.As(err, &se) {
			fmt.Println("stream failed:", se.Message, errors.Is(err, threads.ErrStreamFailed))
		}
	}
	// Output:
	// forbidden
	// not found
	// 404 Not Found | Thread not found
	// threads: POST /threads: 400 Bad Request: projectId must be a string
	// stream failed: Error in streaming response true
}
