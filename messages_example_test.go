package threads_test

import (
	"context"
	"errors"
	"fmt"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// exampleThread starts a fake service and returns a client for it and a
// thread that holds one exchange: "Hello" and the fake's reply.
func exampleThread() (*threadstest.Server, *threads.Client, *threads.Thread) {
	srv := threadstest.Start()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		panic(err)
	}
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("Hello")})
	if err != nil {
		panic(err)
	}
	if _, err := stream.Collect(); err != nil {
		panic(err)
	}
	return srv, client, thread
}

func ExampleThreadsService_Update() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	// Fields left empty keep their values; the live service wants the project.
	updated, err := client.Threads.Update(context.Background(), thread.ID, threads.UpdateThreadParams{
		ProjectID: thread.ProjectID,
		Name:      "Greetings",
		Metadata:  map[string]any{"topic": "hello"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(updated.Name, updated.Metadata["topic"])
	// Output: Greetings hello
}

func ExampleThreadsService_Delete() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	if err := client.Threads.Delete(ctx, thread.ID); err != nil {
		fmt.Println(err)
		return
	}
	// The thread is gone: its id is now refused like any unknown id.
	_, err := client.Threads.Get(ctx, thread.ID)
	fmt.Println(errors.Is(err, threads.ErrForbidden))
	// Output: true
}

func ExampleThreadsService_GenerateName() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	// The fake names a thread after its first user message.
	named, err := client.Threads.GenerateName(context.Background(), thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(named.Name)
	// Output: Hello
}

func ExampleMessagesService_List() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	msgs, err := client.Messages.List(context.Background(), thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// user: Hello
	// assistant: You said: Hello
}

func ExampleMessagesService_Create() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	// Appends without asking for a reply.
	m, err := client.Messages.Create(context.Background(), thread.ID, threads.UserMessage("Noted for later"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Role, m.Text(), m.ThreadID == thread.ID)
	// Output: user Noted for later true
}

func ExampleMessagesService_Delete() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := client.Messages.Delete(ctx, thread.ID, msgs[0].ID); err != nil {
		fmt.Println(err)
		return
	}
	left, err := client.Messages.List(ctx, thread.ID)
	fmt.Println(len(left), left[0].Role, err)
	// Output: 1 assistant <nil>
}

func ExampleMessagesService_GenerateSuggestions() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := msgs[len(msgs)-1]
	suggestions, err := client.Messages.GenerateSuggestions(ctx, thread.ID, reply.ID, threads.GenerateSuggestionsParams{MaxSuggestions: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range suggestions {
		fmt.Printf("%s: %s\n", s.Title, s.DetailedSuggestion)
	}
	// Output:
	// Tell me more: Tell me more (re: You said: Hello)
	// Give an example: Give an example (re: You said: Hello)
}

func ExampleMessagesService_Suggestions() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := msgs[len(msgs)-1]
	if _, err := client.Messages.GenerateSuggestions(ctx, thread.ID, reply.ID, threads.GenerateSuggestionsParams{}); err != nil {
		fmt.Println(err)
		return
	}
	// Later: read what was generated, without calling the model again.
	stored, err := client.Messages.Suggestions(ctx, thread.ID, reply.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(stored), stored[0].Title)
	// Output: 3 Tell me more
}

func ExampleMessagesService_UpdateComponentState() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := msgs[len(msgs)-1]
	m, err := client.Messages.UpdateComponentState(ctx, thread.ID, reply.ID, threads.UpdateComponentStateParams{
		State: map[string]any{"expanded": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ComponentState["expanded"])
	// Output: true
}
