// Command officialclients serves proxy.Handler in front of the SDK's fake
// for check.mjs, which drives it with the service's official clients
// (@tambo-ai/typescript-sdk and @tambo-ai/client, from the npm registry;
// they stay out of the Go module). See README.md here.
//
// It prints one line: the base URL for the clients (the handler is under
// /api) and the id of a thread of another end user, bob. The handler acts
// for alice whatever the client sends, and offers one server-side tool,
// lookup. POST /control/mixed makes the fake's next run call the browser
// tool get_location and lookup in one pause.
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	fake := threadstest.Start(threadstest.WithLiveHabits(), threadstest.WithThrottle(0))
	defer fake.Close()
	bob, err := runs.New(fake.Client()).ForUser("bob").CreateThread(context.Background(), runs.CreateThreadParams{})
	if err != nil {
		log.Fatal(err)
	}
	lookup := threads.NewTool("lookup", "Looks a word up in the backend's dictionary",
		func(_ context.Context, a struct {
			Q string `json:"q"`
		}) (string, error) {
			return "a definition of " + a.Q, nil
		})
	h, err := proxy.New(fake.Client(), func(*http.Request) (proxy.User, error) { return proxy.User{Key: "alice"}, nil },
		proxy.WithTools(lookup))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	mux.HandleFunc("POST /control/mixed", func(w http.ResponseWriter, _ *http.Request) {
		fake.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
			{Name: "get_location"}, {Name: "lookup", Arguments: map[string]any{"q": "tea"}},
		}})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/api %s\n", ln.Addr(), bob.ID)
	log.Fatal(http.Serve(ln, mux))
}
