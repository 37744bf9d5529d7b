package threadstest_test

import (
	"context"
	"fmt"

	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// A scripted /v1 run: the model says something, then calls a client tool;
// the run pauses until the next run sends the tool's result.
func ExampleServer_PushRunScript() {
	srv := threadstest.Start()
	defer srv.Close()
	srv.PushRunScript(threadstest.RunScript{
		Text:      "Let me look that up.",
		ToolCalls: []threadstest.RunToolCall{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}},
	})

	ctx := context.Background()
	alice := runs.New(srv.Client()).ForUser("alice")
	s, err := alice.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Weather in Paris?")}}})
	if err != nil {
		panic(err)
	}
	res, err := s.Collect()
	if err != nil {
		panic(err)
	}
	call := res.PendingToolCalls[0]
	fmt.Println(res.Outcome, res.Messages[0].Text(), call.ToolName, call.Arguments)

	s, err = alice.Run(ctx, res.ThreadID, runs.RunParams{PreviousRunID: res.RunID,
		Content: []runs.Content{runs.ToolResult(call.ToolCallID, "18°C and cloudy")}})
	if err != nil {
		panic(err)
	}
	res, err = s.Collect()
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Outcome, res.Messages[0].Text())
	// Output:
	// awaiting_tools Let me look that up. get_weather {"city":"Paris"}
	// finished The tool said: 18°C and cloudy.
}
