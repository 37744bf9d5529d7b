package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"time"

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
