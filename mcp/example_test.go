package threadsmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	threadsmcp "github.com/threadsapi/threads-go/mcp"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// An MCP server's tools offered to a /v1 run: the model (here the fake,
// threadstest) calls the server's tool, the runner calls the server, and
// the result goes back to the model. The server runs in process; a real
// one is reached with mcp.CommandTransport or mcp.StreamableClientTransport.
func Example() {
	ctx := context.Background()

	// An MCP server with one tool.
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_weather", Description: "The weather in a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			City string `json:"city"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "18°C and cloudy in " + in.City}}}, nil, nil
		})
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	session, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Wait()

	// Its tools as threads.Tool values.
	conn, err := threadsmcp.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	tools, err := conn.Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}

	// A run that offers them; the fake's model calls get_weather.
	fake := threadstest.Start()
	defer fake.Close()
	fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
	}})
	client := runs.New(fake.Client()).ForUser("user-1")
	ts, err := client.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("What is the weather in Paris?")},
	}}, runs.ToolRunner{Tools: tools})
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range ts.All() {
		if err != nil {
			log.Fatal(err)
		}
		if r, ok := ev.(runs.ToolRunResult); ok {
			fmt.Println("tool:", r.ToolName, "->", r.Text)
		}
	}
	res, err := ts.Collect()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("reply:", res.Messages[len(res.Messages)-1].Text())
	// Output:
	// tool: get_weather -> 18°C and cloudy in Paris
	// reply: The tool said: 18°C and cloudy in Paris.
}
