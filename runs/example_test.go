package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// A thread for one end user, listed back with the iterator that pages to
// the end.
func Example() {
	srv := threadstest.Start() // in a test: threadstest.NewServer(t)
	defer srv.Close()
	ctx := context.Background()

	alice := runs.New(srv.Client()).ForUser("alice")
	for _, topic := range []string{"billing", "travel"} {
		if _, err := alice.CreateThread(ctx, runs.CreateThreadParams{Metadata: map[string]any{"topic": topic}}); err != nil {
			fmt.Println(err)
			return
		}
	}
	for th, err := range alice.AllThreads(ctx, &runs.ListThreadsParams{Limit: 1}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(th.UserKey, th.RunStatus, th.Metadata["topic"])
	}
	// Another end user sees none of them.
	page, _ := alice.ForUser("bob").ListThreads(ctx, nil)
	fmt.Println(len(page.Items))
	// Output:
	// alice idle travel
	// alice idle billing
	// 0
}

// A route the package does not model, for an end user: the user key goes
// where the service reads it (here the query of a GET).
func ExampleClient_Do() {
	srv := threadstest.Start()
	defer srv.Close()
	ctx := context.Background()
	alice := runs.New(srv.Client()).ForUser("alice")
	th, err := alice.CreateThread(ctx, runs.CreateThreadParams{})
	if err != nil {
		fmt.Println(err)
		return
	}

	var got struct {
		ID        string `json:"id"`
		UserKey   string `json:"userKey"`
		RunStatus string `json:"runStatus"`
	}
	if err := alice.Do(ctx, "GET", "/v1/threads/"+url.PathEscape(th.ID), nil, &got); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.ID == th.ID, got.UserKey, got.RunStatus)
	// Output: true alice idle
}

// End-user tokens that renew: the source exchanges the identity
// provider's token for the service's and keeps it until it nearly
// expires; every call asks it first, and once more after a 401.
func ExampleClient_ForTokenSource() {
	srv := threadstest.Start()
	defer srv.Close()
	ctx := context.Background()
	base := runs.New(srv.Client())
	idpToken := "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsInN1YiI6ImFsaWNlIn0." // from your identity provider

	var (
		mu     sync.Mutex
		cached *runs.AccessToken
	)
	alice := base.ForTokenSource(runs.TokenSourceFunc(func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if cached == nil || (!cached.Expiry.IsZero() && time.Until(cached.Expiry) < time.Minute) {
			tok, err := base.ExchangeToken(ctx, idpToken)
			if err != nil {
				return "", err
			}
			cached = tok
		}
		return cached.Token.Reveal(), nil
	}))
	th, err := alice.CreateThread(ctx, runs.CreateThreadParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(th.UserKey)
	// Output: oauth:user:idp.example.com:alice
}

// Values every run of a Client carries in its additionalContext, as the
// official client's context helpers.
func ExampleClient_WithContextHelper() {
	srv := threadstest.Start()
	defer srv.Close()
	ctx := context.Background()
	alice := runs.New(srv.Client()).ForUser("alice").
		WithContextHelper("currentPage", func(ctx context.Context) (any, error) {
			return map[string]any{"path": "/billing"}, nil // an error here fails the run before it is sent
		})

	s, err := alice.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("Where am I?")}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := s.Collect(); err != nil {
		fmt.Println(err)
		return
	}
	reqs := srv.Requests()
	var sent struct {
		Message struct {
			AdditionalContext map[string]any `json:"additionalContext"`
		} `json:"message"`
	}
	_ = json.Unmarshal(reqs[len(reqs)-1].Body, &sent)
	fmt.Println(sent.Message.AdditionalContext)
	// Output: map[currentPage:map[path:/billing]]
}

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

// A run's tools with guards: the refund above 20 € waits for the
// approver, which refuses it (the model reads the reason); the other
// runs at once. The pause is delivered twice, as a retry would, and each
// refund still runs once.
func ExampleToolRunner_guards() {
	srv := threadstest.Start() // a fake service; use your base URL and key instead
	defer srv.Close()
	srv.PushRunScript(threadstest.RunScript{PauseTwice: true, ToolCalls: []threadstest.RunToolCall{
		{Name: "refund", Arguments: map[string]any{"order": "A-1042", "amount": 12}},
		{Name: "refund", Arguments: map[string]any{"order": "B-7", "amount": 480}},
	}})
	agent := runs.New(srv.Client()).ForUser("user-1")

	refunds := 0
	refund := threads.NewTool("refund", "Refund an order", func(_ context.Context, a struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}) (string, error) {
		refunds++
		return fmt.Sprintf("refunded %.0f € on %s", a.Amount, a.Order), nil
	})
	refund.NeedsApproval = func(call threads.ToolCall) bool {
		amount, _ := call.Arguments["amount"].(float64)
		return amount > 20
	}
	ts, err := agent.CreateAndRunTools(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Refund A-1042 and B-7")},
	}}, runs.ToolRunner{Tools: []threads.Tool{refund}, Guards: threads.ToolGuards{
		Approver: func(_ context.Context, req threads.ApprovalRequest) (threads.Approval, error) {
			return threads.Approval{Reason: "a manager refunds over 100 €"}, nil
		},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range ts.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if r, ok := ev.(runs.ToolRunResult); ok {
			fmt.Printf("round %d: %s\n", r.Round, r.Text)
		}
	}
	fmt.Println("refunds run:", refunds)
	// Output:
	// round 1: refunded 12 € on A-1042
	// round 1: the call was not approved: a manager refunds over 100 €
	// round 2: refunded 12 € on A-1042
	// round 2: the call was not approved: a manager refunds over 100 €
	// refunds run: 1
}
