// Command tools shows a client-side tool round trip: the model asks for a
// tool in the last snapshot of its message (ToolCallRequest, ToolCallID,
// stage FETCHING_CONTEXT); the client runs it and answers with
// threads.ToolResult, then streams the follow-up.
//
//	go run ./examples/tools
package main

import (
	"context"
	"fmt"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/examples/internal/demo"
)

// weather is the tool this client offers to the model.
var weather = threads.ClientTool{
	Name:        "get_weather",
	Description: "Current weather for a city",
	Parameters: []threads.ToolParameter{
		{Name: "city", Type: "string", Description: "City name", IsRequired: true},
	},
}

// runTool runs a tool locally. Arguments arrive as name/value pairs.
func runTool(req *threads.ToolCallRequest) string {
	args := map[string]any{}
	for _, p := range req.Parameters {
		args[p.ParameterName] = p.ParameterValue
	}
	switch req.ToolName {
	case "get_weather":
		return fmt.Sprintf("22°C and sunny in %v", args["city"])
	default:
		return "unknown tool " + req.ToolName
	}
}

func main() {
	if err := run(context.Background()); err != nil {
		demo.Exit("tools", err)
	}
}

func run(ctx context.Context) error {
	env, err := demo.Setup()
	if err != nil {
		return err
	}
	defer env.Close()
	client := env.Client

	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: env.ProjectID})
	if err != nil {
		return err
	}
	params := threads.AdvanceParams{
		Message:        threads.UserMessage("Lisbon"),
		ClientTools:    []threads.ClientTool{weather},
		ToolCallCounts: map[string]int{},
	}
	fmt.Println("You: What's the weather in Lisbon?")
	for round := 1; round <= 5; round++ {
		stream, err := client.Threads.AdvanceStream(ctx, thread.ID, params)
		if err != nil {
			return err
		}
		var last threads.StreamEvent
		var text strings.Builder
		for ev, err := range stream.All() {
			if err != nil {
				return err
			}
			text.WriteString(ev.TextDelta)
			last = ev
		}
		if t := strings.TrimSpace(text.String()); t != "" {
			fmt.Println("Assistant:", t)
		}
		req := last.Message.ToolCallRequest
		if last.GenerationStage != threads.GenerationStageFetchingContext || req == nil {
			return nil // a plain answer: the round trip is over
		}
		result := runTool(req)
		fmt.Printf("  (the model called %s; we answered %q)\n", req.ToolName, result)
		params.ToolCallCounts[req.ToolName]++ // loop protection, as the service expects
		params.Message = threads.ToolResult(last.Message.ToolCallID, result)
	}
	return fmt.Errorf("the model kept calling tools")
}
