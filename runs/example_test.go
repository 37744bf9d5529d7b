package runs_test

import (
	"context"
	"fmt"

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
