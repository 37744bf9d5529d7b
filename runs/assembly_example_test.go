package runs_test

import (
	"context"
	"fmt"

	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// The model's reasoning arrives as its own events, under the service's
// THINKING_* names or AG-UI's REASONING_* ones alike, and stays out of the
// reply: Result keeps it per message, apart from the text.
func ExampleReasoning() {
	srv := threadstest.Start()
	defer srv.Close()
	srv.PushRunScript(threadstest.RunScript{Text: "Hello!", Reasoning: &threadstest.RunReasoning{
		Names: threadstest.ReasoningThinking, Blocks: []string{"The user greets me.", "Keep it short."}}})

	alice := runs.New(srv.Client()).ForUser("alice")
	s, err := alice.CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("hi")}}})
	if err != nil {
		panic(err)
	}
	for ev, err := range s.All() {
		if err != nil {
			panic(err)
		}
		switch ev := ev.(type) {
		case runs.ReasoningMessageStart:
			fmt.Printf("(%s) ", ev.EventType())
		case runs.ReasoningMessageContent:
			fmt.Print(ev.Delta)
		case runs.ReasoningMessageEnd:
			fmt.Println()
		case runs.TextMessageContent:
			fmt.Print(ev.Delta)
		}
	}
	res, _ := s.Collect()
	fmt.Println()
	fmt.Printf("reply %q; reasoning %q\n", res.Messages[0].Text(), res.Reasoning[0].Parts)
	// Output:
	// (THINKING_TEXT_MESSAGE_START) The user greets me.
	// (THINKING_TEXT_MESSAGE_START) Keep it short.
	// Hello!
	// reply "Hello!"; reasoning ["The user greets me." "Keep it short."]
}
