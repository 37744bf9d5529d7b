package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/route/routecheck"
)

// routes.go's comment says it lists every route of the package: no other
// production file declares an endpoint or builds a route.Route by hand.
func TestEveryRouteIsInRoutesGo(t *testing.T) {
	t.Parallel()
	found, err := routecheck.Literals(".", "endpoint[", "route.Route")
	require.NoError(t, err)
	var outside []string
	for _, f := range found {
		if f[:len("routes.go:")] != "routes.go:" {
			outside = append(outside, f)
		}
	}
	assert.Empty(t, outside, "routes built outside routes.go")
	assert.GreaterOrEqual(t, len(found), 28, "routes.go lists every route: %v", found)
}

// Every operation that puts an id in its path refuses ".", ".." and " "
// with an error that matches ErrInvalidID, before anything is sent.
func TestEveryIDRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Add(1) }))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	ctx := context.Background()
	msg := threads.AdvanceParams{Message: threads.UserMessage("hi")}
	for _, bad := range []string{".", "..", " ", ""} {
		calls := map[string]func() error{
			"Threads.Get":           func() error { _, err := c.Threads.Get(ctx, bad); return err },
			"Threads.Update":        func() error { _, err := c.Threads.Update(ctx, bad, threads.UpdateThreadParams{}); return err },
			"Threads.Delete":        func() error { return c.Threads.Delete(ctx, bad) },
			"Threads.Cancel":        func() error { _, err := c.Threads.Cancel(ctx, bad); return err },
			"Threads.GenerateName":  func() error { _, err := c.Threads.GenerateName(ctx, bad); return err },
			"Threads.AdvanceStream": func() error { _, err := c.Threads.AdvanceStream(ctx, bad, msg); return err },
			"Threads.Advance":       func() error { _, err := c.Threads.Advance(ctx, bad, msg); return err },
			"Threads.List ProjectID": func() error { // bad+"\t": an empty ProjectID means none
				_, err := c.Threads.List(ctx, &threads.ListParams{ProjectID: bad + "\t"})
				return err
			},
			"Messages.List":         func() error { _, err := c.Messages.List(ctx, bad); return err },
			"Messages.Delete":       func() error { return c.Messages.Delete(ctx, "thr_1", bad) },
			"Messages.Suggestions":  func() error { _, err := c.Messages.Suggestions(ctx, bad, "msg_1"); return err },
			"Projects.Get":          func() error { _, err := c.Projects.Get(ctx, bad); return err },
			"Projects.APIKeys":      func() error { _, err := c.Projects.APIKeys(ctx, bad); return err },
			"Projects.DeleteAPIKey": func() error { return c.Projects.DeleteAPIKey(ctx, "p_1", bad) },
			"Projects.ProviderKeys": func() error { _, err := c.Projects.ProviderKeys(ctx, bad); return err },
			"Projects.DeleteProviderKey": func() error {
				return c.Projects.DeleteProviderKey(ctx, bad, "pk_1")
			},
			"Registry.Get": func() error { _, err := c.Registry.Get(ctx, bad); return err },
		}
		for name, call := range calls {
			assert.ErrorIs(t, call(), threads.ErrInvalidID, "%s(%q)", name, bad)
		}
	}
	assert.Zero(t, sent.Load(), "requests sent")
}
