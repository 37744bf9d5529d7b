// Package demo gives the examples a client: for the real service when
// THREADS_BASE_URL is set, otherwise for a fake service started in this
// process.
package demo

import (
	"context"
	"fmt"
	"os"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// Env is what an example needs to run.
type Env struct {
	Client    *threads.Client
	ProjectID string              // THREADS_PROJECT_ID, or the fake's project
	Fake      *threadstest.Server // nil against the real service
}

// Setup returns the example's environment; call Close when done.
func Setup(opts ...threads.ClientOption) (*Env, error) {
	if os.Getenv(threads.EnvBaseURL) != "" {
		c, err := threads.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		env := &Env{Client: c, ProjectID: os.Getenv("THREADS_PROJECT_ID")}
		if env.ProjectID == "" {
			// Creating a thread needs the project id; the key knows it. This
			// is the first call: its error (a refused key, say) is the one
			// to show.
			p, err := c.Projects.Current(context.Background())
			if err != nil {
				return nil, fmt.Errorf("reading the API key's project (or set THREADS_PROJECT_ID): %w", err)
			}
			env.ProjectID = p.ID
		}
		return env, nil
	}
	srv := threadstest.Start()
	fmt.Printf("(THREADS_BASE_URL is not set: using the built-in fake service at %s)\n\n", srv.URL)
	return &Env{Client: srv.Client(opts...), ProjectID: srv.ProjectID, Fake: srv}, nil
}

// Close stops the fake service, if any.
func (e *Env) Close() {
	if e.Fake != nil {
		e.Fake.Close()
	}
}

// Exit prints err as one line and exits 1.
func Exit(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}
