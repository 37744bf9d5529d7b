package threadsmcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	threads "github.com/threadsapi/threads-go"
)

// State is where an MCP connection stands.
type State int

// The states of a [Conn], in the order a connection goes through them.
// StateFailed is left for StateConnected when a later request gets an
// answer; StateClosed is final.
const (
	// StateConnecting: the handshake (initialize) is under way.
	StateConnecting State = iota
	// StateConnected: the server answered its last request (an answer
	// that is a JSON-RPC error counts: the server is there).
	StateConnected
	// StateFailed: the handshake failed, a request got no answer (the
	// transport failed: refused, cut, an HTTP error, a token that could
	// not be minted), or the connection ended without Close. Status.Err
	// says why: the first failure, kept until a request is answered
	// again (later failures are the calls' errors).
	StateFailed
	// StateClosed: Close was called.
	StateClosed
)

// String names the state: connecting, connected, failed or closed.
func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateFailed:
		return "failed"
	case StateClosed:
		return "closed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is an MCP connection's state, and why it failed.
type Status struct {
	State State
	// Err is why the connection is StateFailed; nil in the other states.
	Err error
	// Server is the server's name and version as it gave them in the
	// handshake; nil before it answered.
	Server *mcp.Implementation
}

// Options configures [Connect] and [ConnectService]. The zero value is
// ready to use.
type Options struct {
	// Client names this client to the server; nil sends "threads-go" and
	// the SDK's version.
	Client *mcp.Implementation
	// Tools shapes the tools that [Conn.Tools] returns.
	Tools ToolOptions
	// Elicit, when set, answers the server's elicitation requests (a
	// question for the user, with a schema for the answer), and the client
	// tells the server it can. Nil: the client declares no elicitation,
	// and the server gets an error if it asks. On a session of
	// [ConnectService] bound to a thread, the service forwards its upstream
	// servers' elicitation requests here, while the request that caused
	// them waits. At most MaxElicitations run at once; a request that comes
	// while that many run is refused (the server gets an error). Its
	// context ends when the Conn is closed; Close waits for it to return.
	Elicit func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// OnStatus, when set, is told each change of the connection's
	// [Status] (connecting, connected, failed and why, closed), on the
	// goroutine that caused it. Calls never overlap; a change made while
	// one runs (also from inside it) is told when it returns, so the last
	// call always has the latest status, though quick changes may be told
	// as one. It may call the Conn's methods.
	OnStatus func(Status)
	// ToolsChanged, when set, is called after the server said its tool
	// list changed (notifications/tools/list_changed); the next
	// [Conn.Tools] lists them again. It runs on the session's goroutine.
	ToolsChanged func()
	// Logger, when set, logs the MCP client's activity (the go-sdk's).
	Logger *slog.Logger
}

// Conn is an MCP client session with its server's tools as
// [threads.Tool] values ([Conn.Tools], kept up to date), its resources and
// prompts, and its [Status]. Make one with [Connect] or [ConnectService];
// Close it when done. A Conn is safe for concurrent use.
type Conn struct {
	session *mcp.ClientSession
	opts    Options
	redact  func(string) string // removes the tokens from error text; nil: none
	life    context.Context     // ends when Close is called: it ends the calls in flight
	end     context.CancelFunc
	elicit  chan struct{} // one slot per elicitation running

	mu      sync.Mutex
	status  Status
	told    bool // status was set once (its zero value is StateConnecting)
	closing bool
	tools   []threads.Tool
	listed  bool // tools is the server's current list
	gen     int  // list changes seen
	done    chan struct{}

	nmu       sync.Mutex // guards notifying and pending
	notifying bool
	pending   bool
}

// Connect opens an MCP client session over t (an in-memory, command,
// stdio or Streamable HTTP transport of the go-sdk) and makes the
// handshake. When it fails, OnStatus has been told (StateFailed) and the
// error says why. The Conn follows the server's tool list ([Conn.Tools])
// and reports its [Status]; Close ends the session and the goroutine that
// watches it.
//
// Connect does not see the bytes a caller's transport reads: bound them
// there. The go-sdk's stdio, command and io transports bound each frame
// (MaxLineLength, 16 MiB by default); a Streamable HTTP transport bounds
// each event (MaxEventSize) but reads a JSON answer whole, so give it an
// http.Client whose Transport bounds response bodies (as
// [ConnectService] does, see ServiceOptions.MaxResponseBytes).
func Connect(ctx context.Context, t mcp.Transport, opts *Options) (*Conn, error) {
	if t == nil {
		return nil, errors.New("threadsmcp: Connect: nil transport")
	}
	return connect(ctx, t, opts, nil, nil)
}

func connect(ctx context.Context, t mcp.Transport, opts *Options, sessOpts *mcp.ClientSessionOptions, redact func(string) string) (*Conn, error) {
	c := &Conn{redact: redact, done: make(chan struct{}), elicit: make(chan struct{}, MaxElicitations)}
	c.life, c.end = context.WithCancel(context.Background())
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Tools.MaxResultBytes < 0 {
		return nil, fmt.Errorf("threadsmcp: ToolOptions.MaxResultBytes is %d; want at least 1 (0: the default)", c.opts.Tools.MaxResultBytes)
	}
	c.setStatus(Status{State: StateConnecting})
	impl := c.opts.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "threads-go", Version: threads.Version}
	}
	co := &mcp.ClientOptions{
		Logger: c.opts.Logger,
		// No roots (the go-sdk's historical default): this client has none.
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.toolsChanged() },
	}
	if c.opts.Elicit != nil {
		co.ElicitationHandler = c.elicitation
	}
	client := mcp.NewClient(impl, co)
	client.AddSendingMiddleware(c.observe)
	session, err := client.Connect(ctx, t, sessOpts)
	if err != nil {
		c.end()
		err = fmt.Errorf("threadsmcp: connecting to the MCP server: %w", c.clean(err))
		c.setStatus(Status{State: StateFailed, Err: err})
		return nil, err
	}
	c.session = session
	var server *mcp.Implementation
	if r := session.InitializeResult(); r != nil {
		server = r.ServerInfo
	}
	c.setStatus(Status{State: StateConnected, Server: server})
	go c.wait()
	return c, nil
}

// Session returns the go-sdk session, for what this package does not
// wrap (subscriptions, completions, its own paging). Calls made on it
// count in the Conn's [Status] too.
func (c *Conn) Session() *mcp.ClientSession { return c.session }

// Status returns the connection's current status.
func (c *Conn) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Close ends the calls in flight on the session (their error is
// [ErrClosed]), then the session (for a Streamable HTTP session with a
// session id, the go-sdk tells the server), and waits for the goroutine
// that watches it. It does not wait for a server that does not answer a
// call; telling a Streamable HTTP server is bounded by the go-sdk (5 s).
// It waits for an Options.Elicit that is running, whose context it ends. The status becomes StateClosed.
// Idempotent.
func (c *Conn) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closing = true
	c.mu.Unlock()
	c.end() // the calls in flight end with ErrClosed; the session can then close
	err := c.session.Close()
	<-c.done
	c.setStatus(Status{State: StateClosed})
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("threadsmcp: closing the MCP session: %w", c.clean(err))
	}
	return nil
}

// wait watches the session: one that ends without Close has failed.
func (c *Conn) wait() {
	defer close(c.done)
	err := c.session.Wait()
	c.mu.Lock()
	closing, failed := c.closing, c.status.State == StateFailed
	c.mu.Unlock()
	if closing || failed { // a failure before is the cause
		return
	}
	if err == nil {
		err = errors.New("the server closed it")
	}
	c.setStatus(Status{State: StateFailed, Err: fmt.Errorf("threadsmcp: the MCP connection ended: %w", c.clean(err))})
}

// Tools returns the server's tools as [threads.Tool] values (see the
// function [Tools] for what they do), shaped by Options.Tools. The list
// is kept until the server says it changed, then listed again on the next
// call. A server that offers no tools (it declares no tools capability,
// as the service's /mcp does when no upstream server answers) has none:
// nil and no error.
func (c *Conn) Tools(ctx context.Context) ([]threads.Tool, error) {
	c.mu.Lock()
	if c.listed {
		tools := slices.Clone(c.tools)
		c.mu.Unlock()
		return tools, nil
	}
	gen := c.gen
	c.mu.Unlock()
	tools, err := Tools(ctx, c.session, &c.opts.Tools)
	if err != nil {
		return nil, c.clean(err)
	}
	for i := range tools {
		tools[i] = c.cleanTool(tools[i])
	}
	c.mu.Lock()
	if gen == c.gen { // no change came while it listed
		c.tools, c.listed = tools, true
	}
	c.mu.Unlock()
	return slices.Clone(tools), nil
}

// cleanTool is t whose errors show no token.
func (c *Conn) cleanTool(t threads.Tool) threads.Tool {
	callParts := t.CallParts
	t.CallParts = func(ctx context.Context, call threads.ToolCall) ([]threads.ContentPart, error) {
		parts, err := callParts(ctx, call)
		var te *ToolError
		if errors.As(err, &te) && c.redact != nil {
			return nil, &ToolError{ToolName: te.ToolName, Text: c.redact(te.Text)}
		}
		return parts, c.clean(err)
	}
	t.Call = func(ctx context.Context, call threads.ToolCall) (string, error) {
		parts, err := t.CallParts(ctx, call)
		if err != nil {
			return "", err
		}
		return threads.ToolResultText(parts)
	}
	return t
}

func (c *Conn) toolsChanged() {
	c.mu.Lock()
	c.gen++
	c.listed, c.tools = false, nil
	c.mu.Unlock()
	if c.opts.ToolsChanged != nil {
		c.opts.ToolsChanged()
	}
}

// capabilities are the server's, from the handshake (nil before it).
func (c *Conn) capabilities() *mcp.ServerCapabilities {
	if r := c.session.InitializeResult(); r != nil && r.Capabilities != nil {
		return r.Capabilities
	}
	if r := c.session.InitializeResult(); r != nil {
		return &mcp.ServerCapabilities{}
	}
	return nil
}

// The bounds of the lists a Conn gathers.
const (
	// MaxResources is how many resources [Conn.Resources] gathers.
	MaxResources = 10000
	// MaxPrompts is how many prompts [Conn.Prompts] gathers.
	MaxPrompts = 1000
)

// Resources lists the server's resources, every page, each URI once, at
// most MaxResources (more is an error); a server that pages without
// bringing new ones is stopped (see MaxIdlePages). A server that declares no resources
// capability has none: nil and no error (the service's /mcp declares
// none when no upstream MCP server answers, and would answer "Method not
// found").
func (c *Conn) Resources(ctx context.Context) ([]*mcp.Resource, error) {
	if caps := c.capabilities(); caps != nil && caps.Resources == nil {
		return nil, nil
	}
	return gather(ctx, c, "resources", MaxResources, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := c.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	}, func(r *mcp.Resource) string {
		if r == nil {
			return ""
		}
		return r.URI
	})
}

// ReadResource reads the resource uri: its contents, each text or a blob
// with its MIME type. Turn them into message parts with [Content]
// (/v1) or [ContentPart] (package threads).
func (c *Conn) ReadResource(ctx context.Context, uri string) ([]*mcp.ResourceContents, error) {
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("threadsmcp: reading resource %q: %w", uri, c.clean(err))
	}
	return res.Contents, nil
}

// Prompts lists the server's prompts, every page, each name once, at most
// MaxPrompts (more is an error); a server that pages without bringing new
// ones is stopped (see MaxIdlePages). A server that declares no prompts capability has
// none: nil and no error.
func (c *Conn) Prompts(ctx context.Context) ([]*mcp.Prompt, error) {
	if caps := c.capabilities(); caps != nil && caps.Prompts == nil {
		return nil, nil
	}
	return gather(ctx, c, "prompts", MaxPrompts, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := c.session.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	}, func(p *mcp.Prompt) string {
		if p == nil {
			return ""
		}
		return p.Name
	})
}

// GetPrompt gets the prompt name with its arguments.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	res, err := c.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("threadsmcp: getting prompt %q: %w", name, c.clean(err))
	}
	return res, nil
}

// MaxIdlePages is how many pages of one listing may bring nothing new
// (no item not listed before, or a next cursor seen before) before the
// listing stops with an error: a server that pages forever is stopped
// after a few pages, not by the caller's context.
const MaxIdlePages = 3

// page is one page of a listing: its items and the next cursor.
type page[T any] func(ctx context.Context, cursor string) ([]T, string, error)

// pages walks a listing page by page; add takes each item and reports
// whether it was new. It stops at the last page, at add's error, or after
// MaxIdlePages pages that brought nothing new.
func pages[T any](ctx context.Context, what string, list page[T], add func(T) (bool, error)) error {
	seen := map[string]bool{}
	idle, cursor := 0, ""
	for {
		items, next, err := list(ctx, cursor)
		if err != nil {
			return fmt.Errorf("threadsmcp: listing the server's %s: %w", what, err)
		}
		fresh := false
		for _, v := range items {
			isNew, err := add(v)
			if err != nil {
				return err
			}
			fresh = fresh || isNew
		}
		if next == "" {
			return nil
		}
		if !fresh || seen[next] {
			if idle++; idle > MaxIdlePages {
				return fmt.Errorf("threadsmcp: listing the server's %s: stopped after %d pages that brought nothing new (no new %s, or a cursor seen before)", what, idle, what)
			}
		}
		seen[next] = true
		cursor = next
	}
}

// gather lists every page, at most max items, each once (by key).
func gather[T any](ctx context.Context, c *Conn, what string, max int, list page[T], key func(T) string) ([]T, error) {
	var out []T
	keys := map[string]bool{}
	err := pages(ctx, what, list, func(v T) (bool, error) {
		k := key(v)
		if keys[k] {
			return false, nil
		}
		if len(out) == max {
			return false, fmt.Errorf("threadsmcp: the server lists more than %d %s", max, what)
		}
		keys[k] = true
		out = append(out, v)
		return true, nil
	})
	if err != nil {
		return nil, c.clean(err)
	}
	return out, nil
}

// observe is the session's sending middleware: every request's outcome
// sets the status, and its error is cleaned of the tokens.
func (c *Conn) observe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// A call ends when Close is called. Not subscriptions/listen: the
		// go-sdk keeps its context past this return, and closing the
		// session ends it.
		if method != "subscriptions/listen" && !strings.HasPrefix(method, "notifications/") {
			var cancel context.CancelCauseFunc
			ctx, cancel = context.WithCancelCause(ctx)
			defer cancel(nil)
			stop := context.AfterFunc(c.life, func() { cancel(ErrClosed) })
			defer stop()
		}
		res, err := next(ctx, method, req)
		if err != nil && context.Cause(ctx) == ErrClosed {
			return nil, fmt.Errorf("%w: %w", ErrClosed, c.clean(err))
		}
		c.after(ctx, err)
		return res, c.clean(err)
	}
}

// elicitation runs Options.Elicit, at most MaxElicitations at once.
func (c *Conn) elicitation(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	select {
	case c.elicit <- struct{}{}:
	default:
		return nil, fmt.Errorf("threadsmcp: refused: %d elicitation requests are already waiting for an answer", MaxElicitations)
	}
	defer func() { <-c.elicit }()
	// Close waits for the handlers running: this one's context ends with
	// Close, so that one that honours it does not hold Close.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.life, cancel)
	defer stop()
	return c.opts.Elicit(ctx, req)
}

// after sets the status from a request's outcome, once connected: an
// answer (a JSON-RPC error is one) means connected; the caller's own
// context ending says nothing about the connection; anything else failed.
func (c *Conn) after(ctx context.Context, err error) {
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil, errors.As(err, &rpcErr):
		c.mu.Lock()
		recovered := c.status.State == StateFailed && !c.closing
		c.mu.Unlock()
		if recovered {
			c.setStatus(Status{State: StateConnected})
		}
	case ctx.Err() != nil:
	default:
		// The first failure is kept while failed: it is the cause, the
		// later ones its consequences.
		c.mu.Lock()
		live := c.status.State == StateConnected
		c.mu.Unlock()
		if live {
			c.setStatus(Status{State: StateFailed, Err: c.clean(err)})
		}
	}
}

// setStatus records s (Server kept from before when s has none) and tells
// OnStatus. StateClosed is final.
func (c *Conn) setStatus(s Status) {
	c.mu.Lock()
	if c.status.State == StateClosed && s.State != StateClosed {
		c.mu.Unlock()
		return
	}
	if s.Server == nil {
		s.Server = c.status.Server
	}
	changed := !c.told || s.State != c.status.State
	c.status, c.told = s, true
	c.mu.Unlock()
	if changed {
		c.notify()
	}
}

// notify tells OnStatus the latest status: one call at a time; a change
// during a call is told after it (by the goroutine already telling).
func (c *Conn) notify() {
	if c.opts.OnStatus == nil {
		return
	}
	c.nmu.Lock()
	if c.notifying {
		c.pending = true
		c.nmu.Unlock()
		return
	}
	c.notifying = true
	for {
		c.pending = false
		c.nmu.Unlock()
		c.opts.OnStatus(c.Status())
		c.nmu.Lock()
		if !c.pending {
			break
		}
	}
	c.notifying = false
	c.nmu.Unlock()
}

// clean returns err without the tokens in its text, nor in the text of
// any error it wraps (err itself when none has one); nil for nil.
func (c *Conn) clean(err error) error {
	if err == nil || c.redact == nil || !c.leaks(err, 0) {
		return err
	}
	if _, ok := err.(*cleanError); ok {
		return err
	}
	return &cleanError{text: c.redact(err.Error()), err: err, conn: c}
}

// leaks reports whether err, or an error it wraps, has a token in its
// text (or in what its fmt verbs show).
func (c *Conn) leaks(err error, depth int) bool {
	if err == nil || depth > 64 {
		return false
	}
	text := err.Error()
	if c.redact(text) != text {
		return true
	}
	if f := fmt.Sprintf("%+v", err); c.redact(f) != f {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return c.leaks(u.Unwrap(), depth+1)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if c.leaks(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// cleanError is an error whose chain had a token: its text without it.
// What it wraps is cleaned the same way, so no error in its chain shows a
// token; errors.Is sees the original chain, and errors.As finds a
// *jsonrpc.Error or a *ToolError as a cleaned copy.
type cleanError struct {
	text string
	err  error
	conn *Conn
}

func (e *cleanError) Error() string { return e.text }

func (e *cleanError) Unwrap() []error {
	var inner []error
	switch u := e.err.(type) {
	case interface{ Unwrap() error }:
		inner = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	out := make([]error, 0, len(inner))
	for _, x := range inner {
		if x != nil {
			out = append(out, e.conn.clean(x))
		}
	}
	return out
}

// Is matches the original chain: a sentinel carries no token.
func (e *cleanError) Is(target error) bool { return errors.Is(e.err, target) }

// As finds the types a caller inspects, as cleaned copies.
func (e *cleanError) As(target any) bool {
	redact := e.conn.redact
	switch t := target.(type) {
	case **jsonrpc.Error:
		var w *jsonrpc.Error
		if !errors.As(e.err, &w) {
			return false
		}
		*t = &jsonrpc.Error{Code: w.Code, Message: redact(w.Message)}
		if d := redact(string(w.Data)); d == string(w.Data) {
			(*t).Data = w.Data
		}
		return true
	case **ToolError:
		var te *ToolError
		if !errors.As(e.err, &te) {
			return false
		}
		*t = &ToolError{ToolName: redact(te.ToolName), Text: redact(te.Text)}
		return true
	}
	return false
}

// redactor removes each of secrets from text.
func redactor(secrets func() []string) func(string) string {
	return func(text string) string {
		for _, s := range secrets() {
			if s != "" {
				text = strings.ReplaceAll(text, s, "[REDACTED]")
			}
		}
		return text
	}
}

// ErrClosed is the error (matched by errors.Is) of a call that the Conn's
// Close ended.
var ErrClosed = errors.New("threadsmcp: the MCP connection was closed")

// MaxElicitations is how many of the server's elicitation requests
// Options.Elicit answers at once; the server gets an error for each
// request that comes while that many are running.
const MaxElicitations = 4
