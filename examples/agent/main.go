// Command agent is a small /v1 agent: two Go tools and one UI component
// offered to the model, the tool loop run by runs.Client.RunTools, and
// every event (text, "calling get_weather…", the component's props as a Go
// struct) printed as it streams.
//
//	go run ./examples/agent                      # against the built-in fake
//	THREADS_BASE_URL=https://api.tambo.co THREADS_API_KEY=... \
//	THREADS_USER_KEY=user-1 go run ./examples/agent   # against the service
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// WeatherArgs are get_weather's arguments; the model sees the json names,
// descriptions and enum values.
type WeatherArgs struct {
	City  string `json:"city" description:"City name, such as Lisbon"`
	Units string `json:"units,omitempty" description:"Temperature units" enum:"celsius,fahrenheit"`
}

// Forecast is get_weather's result, sent to the model as JSON.
type Forecast struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
	Sky         string  `json:"sky"`
}

// PackArgs are packing_list's arguments.
type PackArgs struct {
	Sky string `json:"sky" description:"The sky at the destination" enum:"sunny,rainy"`
}

// WeatherCard is the component's props.
type WeatherCard struct {
	City        string  `json:"city" description:"The city shown"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit,omitempty" enum:"celsius,fahrenheit"`
}

func weather(_ context.Context, a WeatherArgs) (Forecast, error) {
	if a.City == "Atlantis" {
		return Forecast{}, errors.New("no weather station in Atlantis") // the model reads it (isError)
	}
	return Forecast{City: a.City, Temperature: 22, Sky: "sunny"}, nil
}

func packing(_ context.Context, a PackArgs) (string, error) {
	if a.Sky == "rainy" {
		return "umbrella, raincoat", nil
	}
	return "sunglasses, hat", nil
}

var (
	tools = []threads.Tool{
		threads.NewJSONTool("get_weather", "Current weather for a city", weather),
		threads.NewTool("packing_list", "What to pack for a sky", packing),
	}
	card = runs.NewComponent[WeatherCard]("WeatherCard", "Shows the weather for a city")
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	var client *threads.Client
	user := os.Getenv("THREADS_USER_KEY")
	if os.Getenv(threads.EnvBaseURL) != "" {
		// An HTTP client of our own, whose idle keep-alive connections
		// are closed when run returns: the process (or a test under
		// goleak) is left with no connection open.
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		defer hc.CloseIdleConnections()
		c, err := threads.NewClient(threads.WithHTTPClient(hc))
		if err != nil {
			return err
		}
		client = c
	} else {
		srv := threadstest.Start()
		defer srv.Close()
		fmt.Fprintf(out, "(THREADS_BASE_URL is not set: using the built-in fake at %s)\n", srv.URL)
		client = srv.Client()
		// The fake has no model: script what a model would do.
		srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
			{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}},
			{Name: "get_weather", Arguments: map[string]any{"city": "Atlantis"}},
		}})
		srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
			{Name: "packing_list", Arguments: map[string]any{"sky": "sunny"}},
		}})
		srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "WeatherCard",
			Props: map[string]any{"city": "Lisbon", "temperature": 22, "unit": "celsius"}}, Text: "Pack sunglasses and a hat."})
	}
	if user == "" {
		user = "example-user"
	}
	agent := runs.New(client).ForUser(user)
	ts, err := agent.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content:             []runs.Content{runs.Text("I'm going to Lisbon (or Atlantis). What should I pack? Show me the weather.")},
		AvailableComponents: []runs.AvailableComponent{card.Available()},
	}}, runs.ToolRunner{Tools: tools, MaxRounds: 5})
	if err != nil {
		return err
	}
	defer ts.Close()
	for ts.Next() {
		if ev, ok := card.Decode(ts, ts.Current()); ok {
			if ev.Final {
				fmt.Fprintf(out, "\n[WeatherCard] %s: %.0f° %s\n", ev.Props.City, ev.Props.Temperature, ev.Props.Unit)
			}
			continue
		}
		switch ev := ts.Current().(type) {
		case runs.TextMessageContent:
			fmt.Fprint(out, ev.Delta)
		case runs.ToolRunStart:
			fmt.Fprintf(out, "(calling %s %s…)\n", ev.ToolName, ev.Arguments)
		case runs.ToolRunResult:
			status := "ok"
			if ev.IsError {
				status = "failed"
			}
			fmt.Fprintf(out, "(%s %s: %s)\n", ev.ToolName, status, strings.TrimSpace(ev.Text))
		}
	}
	fmt.Fprintln(out)
	if err := ts.Err(); err != nil {
		return err
	}
	fmt.Fprintf(out, "thread %s, %d tool rounds\n", ts.ThreadID(), ts.Rounds())
	return nil
}
