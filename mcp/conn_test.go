package threadsmcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

// Close ends the calls in flight and returns, whatever the server does:
// a resource read without a deadline, on a server that never answers it,
// ends with an error when the Conn is closed (before, Close waited for it
// forever).
func TestCloseEndsCallsInFlight(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	notes := notesServer()
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m, _ := methodOf(r); m == "resources/read" {
			close(arrived)
			<-release // never answers while the test runs, ignoring the request's context
			return
		}
		notes.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(release) }) // before the server closes (cleanups run last first)
	conn, err := ConnectService(t.Context(), fs.client(t), &ServiceOptions{ContextKey: "user-1", now: fs.clock})
	require.NoError(t, err)
	called := make(chan error, 1)
	go func() {
		_, err := conn.ReadResource(context.Background(), "file:///slow")
		called <- err
	}()
	<-arrived
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	require.NoError(t, <-closed)
	err = <-called
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrClosed)
	assert.Equal(t, StateClosed, conn.Status().State)
}

// The same over a caller's transport: a tool that never answers does not
// hold Close.
func TestCloseEndsToolCallsInFlight(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(arrived)
			<-release
			return &mcp.CallToolResult{}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { close(release); ss.Close() })
	conn, err := Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	require.Len(t, tools, 1)
	called := make(chan error, 1)
	go func() {
		_, err := tools[0].CallParts(context.Background(), threadsToolCall("hang"))
		called <- err
	}()
	<-arrived
	require.NoError(t, conn.Close())
	err = <-called
	assert.ErrorIs(t, err, ErrClosed)
}

// A server that sends many elicitation requests at once gets at most
// MaxElicitations answered at a time; the rest are refused with an error
// the server reads (before, 3,000 requests ran 3,000 Elicit calls at
// once).
func TestElicitationsBounded(t *testing.T) {
	t.Parallel()
	const asked = 50
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var refused atomic.Int32
	allRefused := make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var wg sync.WaitGroup
			for range asked {
				wg.Go(func() {
					if _, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}); err != nil {
						if refused.Add(1) == asked-MaxElicitations {
							close(allRefused)
						}
					}
				})
			}
			wg.Wait()
			return &mcp.CallToolResult{}, nil
		})
	fs := newFakeService(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	var mu sync.Mutex
	running, most := 0, 0
	gate := make(chan struct{})
	over := make(chan struct{}) // closed when more than MaxElicitations run at once
	var overOnce sync.Once
	conn := connectService(t, fs, &ServiceOptions{ThreadID: "thr_1", Options: Options{Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		running++
		most = max(most, running)
		if running > MaxElicitations {
			overOnce.Do(func() { close(over) })
		}
		mu.Unlock()
		<-gate // hold each one until the refusals are in
		mu.Lock()
		running--
		mu.Unlock()
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}})
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := tools[0].CallParts(t.Context(), threadsToolCall("ask"))
		done <- err
	}()
	select {
	case <-allRefused:
	case <-over:
	case err := <-done:
		t.Fatalf("the call ended early: %v", err)
	}
	close(gate)
	require.NoError(t, <-done)
	assert.Equal(t, asked-MaxElicitations, int(refused.Load()))
	mu.Lock()
	defer mu.Unlock()
	assert.LessOrEqual(t, most, MaxElicitations)
}

// The minted token is in no error's text, however deep in the chain: the
// token a server echoes in a JSON-RPC error, and in a tool's error text.
func TestTokenRedactedFromWrappedErrors(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "tambo-service", Version: "1.0.0"}, nil)
	var tok atomic.Value
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad token " + tok.Load().(string)}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, fmt.Errorf("upstream refused %s", tok.Load().(string))
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok.Store(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		h.ServeHTTP(w, r)
	}))
	conn := connectService(t, fs, nil)
	_, err := conn.ReadResource(t.Context(), "file:///a")
	require.Error(t, err)
	assertNoTokenInChain(t, err)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	_, err = tools[0].CallParts(t.Context(), threadsToolCall("echo"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad token [REDACTED]")
	assertNoTokenInChain(t, err)
	_, err = tools[0].Call(t.Context(), threadsToolCall("echo"))
	require.Error(t, err)
	assertNoTokenInChain(t, err)
}

func assertNoTokenInChain(t *testing.T, err error) {
	t.Helper()
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		assert.NotContains(t, e.Error(), "mcp-tok-", "%T", e)
		assert.NotContains(t, fmt.Sprintf("%+v", e), "mcp-tok-", "%T", e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	var te *ToolError
	if errors.As(err, &te) {
		assert.NotContains(t, te.Text, "mcp-tok-")
	}
}

func threadsToolCall(name string) threads.ToolCall {
	return threads.ToolCall{ID: "call_1", Name: name, Arguments: map[string]any{}}
}
