package main

import (
	"context"
	"fmt"
	"os"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// This file gives the example its client, so that the folder can be copied
// whole: for the real service when THREADS_BASE_URL is set (with
// THREADS_API_KEY), otherwise for the SDK's fake service (threadstest)
// started in this process.

// demoEnv is what the example needs to run.
type demoEnv struct {
	Client    *threads.Client
	ProjectID string              // THREADS_PROJECT_ID, or the key's project, or the fake's
	Fake      *threadstest.Server // nil against the real service
}

// setupDemo returns the example's environment; call Close when done.
func setupDemo(opts ...threads.ClientOption) (*demoEnv, error) {
	if os.Getenv(threads.EnvBaseURL) == "" {
		srv := threadstest.Start()
		fmt.Printf("(THREADS_BASE_URL is not set: using the built-in fake service at %s)\n\n", srv.URL)
		return &demoEnv{Client: srv.Client(opts...), ProjectID: srv.ProjectID, Fake: srv}, nil
	}
	c, err := threads.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	env := &demoEnv{Client: c, ProjectID: os.Getenv("THREADS_PROJECT_ID")}
	if env.ProjectID == "" {
		// Creating a thread needs the project id, which the key knows. This
		// is the first call: its error (a refused key, say) is the one to
		// show.
		p, err := c.Projects.Current(context.Background())
		if err != nil {
			return nil, fmt.Errorf("reading the API key's project (or set THREADS_PROJECT_ID): %w", err)
		}
		env.ProjectID = p.ID
	}
	return env, nil
}

// Close stops the fake service, if any.
func (e *demoEnv) Close() {
	if e.Fake != nil {
		e.Fake.Close()
	}
}

// exitDemo prints err as one line and exits 1.
func exitDemo(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}
