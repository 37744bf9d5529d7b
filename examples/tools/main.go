// Command tools lets the model call two Go functions while it answers:
// threads.NewTool turns each function into a client-side tool, and
// RunStream runs them when the model asks, sends their results back and
// streams every round of the reply on one Stream.
//
//	go run ./examples/tools
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // get_time works where the system has no zone database

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// WeatherArgs are get_weather's arguments: the model sees each field as a
// parameter (json name, description tag; required unless a pointer or
// omitempty).
type WeatherArgs struct {
	City  string `json:"city" description:"City name, such as Lisbon"`
	Units string `json:"units,omitempty" description:"Temperature units" enum:"celsius,fahrenheit"`
}

// TimeArgs are get_time's arguments.
type TimeArgs struct {
	Zone string `json:"zone" description:"IANA time zone, such as Europe/Lisbon"`
}

func weather(_ context.Context, a WeatherArgs) (string, error) {
	if a.Units == "fahrenheit" {
		return fmt.Sprintf("72°F and sunny in %s", a.City), nil
	}
	return fmt.Sprintf("22°C and sunny in %s", a.City), nil
}

func localTime(_ context.Context, a TimeArgs) (string, error) {
	loc, err := time.LoadLocation(a.Zone)
	if err != nil {
		return "", fmt.Errorf("unknown time zone %q", a.Zone) // the model reads this and may try again
	}
	return time.Date(2026, 11, 22, 14, 5, 0, 0, time.UTC).In(loc).Format("15:04 MST"), nil
}

var tools = []threads.Tool{
	threads.NewTool("get_weather", "Current weather for a city", weather),
	threads.NewTool("get_time", "Current local time in a time zone", localTime),
}

func main() {
	env, err := setupDemo()
	if err != nil {
		exitDemo("tools", err)
	}
	defer env.Close()
	if err := run(context.Background(), env, os.Stdout); err != nil {
		exitDemo("tools", err)
	}
}

func run(ctx context.Context, env *demoEnv, out io.Writer) error {
	client := env.Client
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: env.ProjectID})
	if err != nil {
		return err
	}
	question := "What's the weather and the time in Lisbon?"
	if env.Fake != nil {
		// The fake service has no model: script the calls a model would make.
		env.Fake.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
			{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}},
			{Name: "get_time", Arguments: map[string]any{"zone": "Europe/Lisbon"}},
		}})
	}
	fmt.Fprintln(out, "You:", question)

	stream, err := client.Threads.RunStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage(question)}, tools)
	if err != nil {
		return err
	}
	// Every round arrives here: the tool calls (stage FETCHING_CONTEXT)
	// and the final answer. RunStream has already run each tool when the
	// next event arrives.
	for ev, err := range stream.All() {
		if err != nil {
			// A stream that stops early leaves the service's generation
			// running: Cancel stops it.
			_, _ = client.Threads.Cancel(context.WithoutCancel(ctx), thread.ID)
			return err
		}
		if req := ev.Message.ToolCallRequest; req != nil && ev.GenerationStage == threads.GenerationStageFetchingContext {
			fmt.Fprintf(out, "  (the model calls %s%v)\n", req.ToolName, args(req))
			continue
		}
		if ev.TextDelta != "" {
			fmt.Fprint(out, ev.TextDelta)
		}
		if ev.GenerationStage == threads.GenerationStageComplete {
			fmt.Fprintln(out)
		}
	}
	return nil
}

// args renders a call's arguments as (name=value, ...).
func args(req *threads.ToolCallRequest) string {
	parts := make([]string, 0, len(req.Parameters))
	for _, p := range req.Parameters {
		parts = append(parts, fmt.Sprintf("%s=%v", p.ParameterName, p.ParameterValue))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
