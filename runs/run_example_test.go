package runs_test

import (
	"context"
	"fmt"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// A run that creates its thread, its reply printed as it streams, then a
// second run on the same thread, which names the first as its previous run.
func ExampleClient_CreateAndRun() {
	srv := threadstest.Start() // in a test: threadstest.NewServer(t)
	defer srv.Close()
	ctx := context.Background()

	alice := runs.New(srv.Client()).ForUser("alice")
	s, err := alice.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Hello")},
	}})
	if err != nil {
		fmt.Println(err) // a *threads.Problem
		return
	}
	for ev, err := range s.All() { // breaking out closes the stream and cancels the run
		if err != nil {
			fmt.Println(err) // a *runs.RunFailedError, threads.ErrStreamTruncated...
			return
		}
		if t, ok := ev.(runs.TextMessageContent); ok {
			fmt.Print(t.Delta)
		}
	}
	fmt.Println()

	s, err = alice.Run(ctx, s.ThreadID(), runs.RunParams{
		PreviousRunID: s.RunID(), // without it: runs.ErrInvalidPreviousRun
		Content:       []runs.Content{runs.Text("And again")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Collect()
	fmt.Println(res.Outcome, res.Messages[0].Text(), err)
	// Output:
	// You said: Hello
	// finished You said: And again <nil>
}

// Go functions as client tools: RunTools answers each pause of the run by
// calling them and streams every run on one ToolStream.
func ExampleClient_RunTools() {
	srv := threadstest.Start()
	defer srv.Close()
	ctx := context.Background()

	type WeatherArgs struct {
		City string `json:"city" description:"City name"`
	}
	weather := threads.NewTool("get_weather", "Current weather for a city",
		func(_ context.Context, a WeatherArgs) (string, error) {
			return "18°C in " + a.City, nil
		})
	// The fake has no model: script the call a model would make.
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
	}})

	alice := runs.New(srv.Client()).ForUser("alice")
	ts, err := alice.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Weather in Paris?")},
	}}, runs.ToolRunner{Tools: []threads.Tool{weather}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ts.Close()
	for ts.Next() {
		switch ev := ts.Current().(type) {
		case runs.ToolRunStart:
			fmt.Println("calling", ev.ToolName, ev.Arguments)
		case runs.ToolRunResult:
			fmt.Println("result", ev.Text)
		case runs.TextMessageContent:
			fmt.Print(ev.Delta)
		}
	}
	fmt.Println()
	fmt.Println(ts.Err(), ts.Rounds())
	// Output:
	// calling get_weather {"city":"Paris"}
	// result 18°C in Paris
	// The tool said: 18°C in Paris.
	// <nil> 1
}

// An agent: two Go tools and a UI component whose props are a Go struct.
// RunTools answers the model's tool calls round after round; the
// component's props arrive decoded.
func ExampleClient_RunTools_agent() {
	srv := threadstest.Start()
	defer srv.Close()
	ctx := context.Background()

	type CityArgs struct {
		City string `json:"city" description:"City name"`
	}
	type SkyArgs struct {
		Sky string `json:"sky" enum:"sunny,rainy"`
	}
	type WeatherCard struct {
		City        string  `json:"city"`
		Temperature float64 `json:"temperature"`
	}
	tools := []threads.Tool{
		threads.NewTool("get_weather", "Current weather for a city",
			func(_ context.Context, a CityArgs) (string, error) { return "sunny, 22°C in " + a.City, nil }),
		threads.NewTool("packing_list", "What to pack for a sky",
			func(_ context.Context, a SkyArgs) (string, error) {
				if a.Sky == "rainy" {
					return "umbrella", nil
				}
				return "sunglasses, hat", nil
			}),
	}
	card := runs.NewComponent[WeatherCard]("WeatherCard", "Shows the weather for a city")

	// The fake has no model: script what a model would do, one run each.
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}}}})
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{Name: "packing_list", Arguments: map[string]any{"sky": "sunny"}}}})
	srv.PushRunScript(threadstest.RunScript{Text: "Pack sunglasses.", Component: &threadstest.RunComponent{
		Name: "WeatherCard", Props: map[string]any{"city": "Lisbon", "temperature": 22}}})

	alice := runs.New(srv.Client()).ForUser("alice")
	ts, err := alice.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content:             []runs.Content{runs.Text("Going to Lisbon: what should I pack?")},
		AvailableComponents: []runs.AvailableComponent{card.Available()},
	}}, runs.ToolRunner{Tools: tools})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ts.Close()
	for ts.Next() {
		if ev, ok := card.Decode(ts, ts.Current()); ok {
			if ev.Final {
				fmt.Printf("[WeatherCard %s %.0f°]\n", ev.Props.City, ev.Props.Temperature)
			}
			continue
		}
		switch ev := ts.Current().(type) {
		case runs.ToolRunResult:
			fmt.Println(ev.ToolName+":", ev.Text)
		case runs.TextMessageContent:
			fmt.Print(ev.Delta)
		}
	}
	fmt.Println()
	fmt.Println(ts.Err(), ts.Rounds())
	// Output:
	// get_weather: sunny, 22°C in Lisbon
	// packing_list: sunglasses, hat
	// [WeatherCard Lisbon 22°]
	// Pack sunglasses.
	// <nil> 2
}
