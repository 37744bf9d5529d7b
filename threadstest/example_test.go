package threadstest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// ExampleNewServer tests code that uses the SDK against the fake: a Fault
// makes the service fail once, a Script shapes the next reply.
//
// In a test, NewServer(t) starts the server and closes it when the test
// ends:
//
//	func TestSummary(t *testing.T) {
//		srv := threadstest.NewServer(t)
//		client := srv.Client()
//		...
//	}
//
// An example has no *testing.T, so this one calls Start and Close, which do
// the same outside a test.
func ExampleNewServer() {
	srv := threadstest.Start() // in a test: threadstest.NewServer(t, ...)
	defer srv.Close()          // in a test: done by NewServer
	client := srv.Client()
	ctx := context.Background()

	// A Fault: the next POST /threads answers 503 with Retry-After; the
	// client retries (a 503 provably did not act) and one thread exists.
	srv.Inject(threadstest.Fault{
		Method: http.MethodPost, Path: "/threads", Status: http.StatusServiceUnavailable,
		Header: http.Header{"Retry-After": {"0"}},
	})
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "support"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created", thread.Name, "after", srv.Count("POST", "/threads"), "requests;", len(srv.ThreadIDs()), "thread")

	// A Script: the next reply is these two messages.
	srv.PushScript(threadstest.Script{Replies: []string{"Looking it up...", "Your order shipped on Monday."}})
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("Where is my order?")})
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
		fmt.Println(m.Role+":", m.Text())
	}

	// What the client sent, as the server received it.
	reqs := srv.Requests()
	if adv, err := reqs[len(reqs)-1].Advance(); err == nil && adv.MessageToAppend != nil {
		fmt.Println("sent:", adv.MessageToAppend.Role, adv.MessageToAppend.Text())
	}
	// Output:
	// created support after 2 requests; 1 thread
	// assistant: Looking it up...
	// assistant: Your order shipped on Monday.
	// sent: user Where is my order?
}

// ExampleServer_PushScript scripts a client-tool conversation: the reply
// asks for a tool, and the tool's result is answered.
func ExampleServer_PushScript() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}

	srv.PushScript(threadstest.Script{
		ToolCalls: []threadstest.ScriptedToolCall{{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}}},
		Replies:   []string{"It is sunny in Lisbon."},
	})
	weather := threads.ClientTool{Name: "get_weather", Description: "Current weather for a city",
		Parameters: []threads.ToolParameter{{Name: "city", Type: "string", IsRequired: true}}}

	params := threads.AdvanceParams{Message: threads.UserMessage("Weather in Lisbon?"), ClientTools: []threads.ClientTool{weather}}
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err := stream.Collect()
	if err != nil {
		fmt.Println(err)
		return
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].ToolCallRequest == nil {
		fmt.Println("no tool call")
		return
	}
	call := msgs[len(msgs)-1]
	for _, p := range call.ToolCallRequest.Parameters {
		fmt.Printf("the model calls %s(%s=%v)\n", call.ToolCallRequest.ToolName, p.ParameterName, p.ParameterValue)
	}

	params.Message = threads.ToolResult(call.ToolCallID, "sunny, 22°C")
	stream, err = client.Threads.AdvanceStream(ctx, thread.ID, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err = stream.Collect()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Println(m.Role+":", m.Text())
	}
	// Output:
	// the model calls get_weather(city=Lisbon)
	// assistant: It is sunny in Lisbon.
}

// ExampleWithLiveHabits runs the fake the way the live deployment behaves
// where the spec says otherwise: the key in x-api-key, no GET /threads.
// Server.Client already sends x-api-key; the client lists through the
// key's project when GET /threads answers 404.
func ExampleWithLiveHabits() {
	srv := threadstest.Start(threadstest.WithLiveHabits())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "first"}); err != nil {
		fmt.Println(err)
		return
	}

	for range 2 {
		page, err := client.Threads.List(ctx, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("listed", page.Count)
	}
	fmt.Println("GET /threads", srv.Count("GET", "/threads"), "| GET /projects", srv.Count("GET", "/projects"),
		"| GET /threads/project/...", srv.Count("GET", "/threads/project/"+srv.ProjectID))

	// An unknown thread id is 403, as live.
	_, err := client.Threads.Get(ctx, "thr_unknown0.000000")
	fmt.Println(errors.Is(err, threads.ErrForbidden))

	// A client that sends the key as the spec says (Bearer) is refused
	// once; it sends the call again with the key in x-api-key, which the
	// service reads, and keeps that header.
	bearer, err := threads.NewClient(threads.WithoutEnvironmentDefaults(),
		threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := bearer.Projects.Current(ctx)
	fmt.Println(err == nil && p.ID == srv.ProjectID)

	// A wrong key is refused both ways, and the error says what to check.
	wrong, err := threads.NewClient(threads.WithoutEnvironmentDefaults(),
		threads.WithBaseURL(srv.URL), threads.WithAPIKey("sk-not-the-key"))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = wrong.Projects.Current(ctx)
	fmt.Println(err)
	// Output:
	// listed 1
	// listed 1
	// GET /threads 1 | GET /projects 1 | GET /threads/project/... 2
	// true
	// true
	// threads: GET /projects: 403 Forbidden: Forbidden resource (the key was refused both as Authorization: Bearer and in x-api-key: check the key, or name the header the service reads with THREADS_API_KEY_HEADER or WithAPIKeyHeader)
}
