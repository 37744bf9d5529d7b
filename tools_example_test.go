package threads_test

import (
	"context"
	"fmt"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// RunStream answers the model's tool calls with Go functions until the
// reply completes. Here the fake service scripts the call a model would
// make.
func ExampleThreadsService_RunStream() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	type WeatherArgs struct {
		City string `json:"city" description:"City name"`
	}
	weather := threads.NewTool("get_weather", "Current weather for a city",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			return "22°C and sunny in " + a.City, nil
		})

	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}},
	}})
	stream, err := client.Threads.RunStream(ctx, thread.ID,
		threads.AdvanceParams{Message: threads.UserMessage("Weather in Lisbon?")},
		[]threads.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err := stream.Collect()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		if req := m.ToolCallRequest; req != nil {
			fmt.Printf("%s asked for %s\n", m.Role, req.ToolName)
			continue
		}
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// assistant asked for get_weather
	// assistant: The tool returned: 22°C and sunny in Lisbon
}
