package threadsmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

// ServiceOptions configures [ConnectService].
type ServiceOptions struct {
	Options
	// ThreadID binds the session to a thread: its tokens are minted for
	// the thread (the service's session), and the service forwards the
	// elicitation requests of the project's MCP servers to Options.Elicit.
	// Empty: sessionless tokens, for ContextKey.
	ThreadID string
	// ContextKey names the end user a sessionless token acts for (see
	// [threads.MCPTokenParams]).
	ContextKey string
	// HTTPClient sends the MCP requests (its Transport, CheckRedirect and
	// Timeout; keep Timeout 0 for event streams); nil uses
	// http.DefaultClient's. The API key never goes through it: the tokens
	// are minted by the threads client.
	HTTPClient *http.Client
	// TokenOptions are the options of the token calls
	// ([threads.AuthService.MCPAccessToken]).
	TokenOptions []threads.RequestOption
	// MaxResponseBytes bounds each answer read from the endpoint before it
	// is decoded: a JSON answer's body, and each event of an event stream;
	// 0 means DefaultMaxResponseBytes. A listing page (tools, resources,
	// resource templates, prompts) answered as JSON is bounded by
	// MaxListPageBytes, or MaxResponseBytes when smaller. A longer answer
	// is the call's error, [ErrResponseTooLarge]; the session goes on.
	MaxResponseBytes int

	now func() time.Time // the clock that ages the tokens; nil: time.Now
}

// The service's /mcp endpoint speaks MCP Streamable HTTP statelessly
// (captures-turn4 37-41): JSON answers, no Mcp-Session-Id, and protocol
// version 2025-11-25, which the helper asks for directly (the go-sdk would
// first try the 2026-07-28 discovery the service does not know).
const serviceProtocolVersion = "2025-11-25"

// The bounds of what ConnectService reads from the endpoint.
const (
	// DefaultMaxResponseBytes is ServiceOptions.MaxResponseBytes's
	// default: 8 MiB. A tool's result that reaches the model is bounded
	// further by ToolOptions.MaxResultBytes.
	DefaultMaxResponseBytes = 8 << 20
	// MaxListPageBytes bounds one page of a listing as ConnectService reads
	// it: 1 MiB (a page costs tens of times its bytes once decoded, and
	// the service pages long lists).
	MaxListPageBytes = 1 << 20
)

// ErrResponseTooLarge is the error (matched by errors.Is) of a call on a
// [ConnectService] session whose answer was longer than its bound
// (ServiceOptions.MaxResponseBytes, MaxListPageBytes): it was not decoded.
var ErrResponseTooLarge = errors.New("threadsmcp: the MCP answer is larger than its bound")

// renewBefore is how long before its expiry a token is replaced: a
// request in flight must not carry one that expires on the way.
const renewBefore = 30 * time.Second

// ConnectService opens an MCP client session to the service's own MCP
// endpoint, <base URL>/mcp (the threads client's [threads.Client.BaseURL]),
// where the project's MCP servers' resources and prompts are served (no
// tools today). It authenticates with an access token that it mints with
// [threads.AuthService.MCPAccessToken] (thread-bound with opts.ThreadID,
// else sessionless for opts.ContextKey) before the first request, and
// mints anew before it expires, and once after a 401. The token goes to
// that endpoint only, and never appears in an error or the status.
//
// A failure (no token: the project has no MCP servers,
// [threads.ErrNoMCPServers]; a refused token; the endpoint down) is the
// error of the call that met it and the Conn's [Status]; a session the
// go-sdk ended stays failed: connect again. The context of ConnectService
// bounds the handshake only; each call's context bounds that call. What
// the service's /mcp serves today: the package doc's "The service's /mcp".
func ConnectService(ctx context.Context, client *threads.Client, opts *ServiceOptions) (*Conn, error) {
	if client == nil {
		return nil, errors.New("threadsmcp: ConnectService: nil client")
	}
	var o ServiceOptions
	if opts != nil {
		o = *opts
	}
	base := client.BaseURL()
	endpoint, err := url.Parse(strings.TrimSuffix(base, "/") + "/mcp")
	if err != nil || base == "" {
		return nil, fmt.Errorf("threadsmcp: ConnectService: the client's base URL %q gives no MCP endpoint", base)
	}
	params := threads.MCPTokenParams{ThreadID: o.ThreadID, ContextKey: o.ContextKey}
	if o.now == nil {
		o.now = time.Now
	}
	if o.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("threadsmcp: ServiceOptions.MaxResponseBytes is %d; want at least 1 (0: the default)", o.MaxResponseBytes)
	}
	if o.MaxResponseBytes == 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	src := &tokenSource{
		mint: func(ctx context.Context) (*threads.MCPAccessToken, error) {
			return client.Auth.MCPAccessToken(ctx, params, o.TokenOptions...)
		},
		now:  o.now,
		lock: make(chan struct{}, 1),
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	mcpHTTP := &http.Client{
		Transport:     &tokenTransport{next: next, endpoint: endpoint, src: src, max: o.MaxResponseBytes},
		CheckRedirect: hc.CheckRedirect,
		Timeout:       hc.Timeout,
	}
	t := &mcp.StreamableClientTransport{
		Endpoint:   endpoint.String(),
		HTTPClient: mcpHTTP,
		// A sessionless token has no session to listen to; a thread's
		// session may get requests outside a call (elicitation).
		DisableStandaloneSSE: o.ThreadID == "",
		MaxEventSize:         o.MaxResponseBytes,
	}
	return connect(ctx, t, &o.Options, &mcp.ClientSessionOptions{ProtocolVersion: serviceProtocolVersion}, redactor(src.secrets))
}

// tokenSource mints and keeps the access token.
type tokenSource struct {
	mint func(context.Context) (*threads.MCPAccessToken, error)
	now  func() time.Time
	lock chan struct{} // one slot: one mint at a time, waited on with the request's context

	mu     sync.Mutex // guards the fields below
	tok    string
	expiry time.Time // zero: the service gave none
	seen   []string  // the last tokens, for redaction
}

// token returns a token that is not about to expire and is not stale (the
// one a 401 just refused, "" for none), minting one if needed.
func (s *tokenSource) token(ctx context.Context, stale string) (string, error) {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.lock }()
	s.mu.Lock()
	tok, expiry := s.tok, s.expiry
	s.mu.Unlock()
	if tok != "" && tok != stale && (expiry.IsZero() || s.now().Before(expiry.Add(-renewBefore))) {
		return tok, nil
	}
	t, err := s.mint(ctx)
	if err != nil {
		return "", fmt.Errorf("threadsmcp: minting the MCP access token: %w", err)
	}
	tok = t.Token.Reveal()
	s.mu.Lock()
	s.tok, s.expiry = tok, t.ExpiresAt
	s.seen = append(s.seen, tok)
	if len(s.seen) > 4 {
		s.seen = s.seen[len(s.seen)-4:]
	}
	s.mu.Unlock()
	return tok, nil
}

func (s *tokenSource) secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// tokenTransport adds the token to the requests for the endpoint, and
// refuses every other request.
type tokenTransport struct {
	next     http.RoundTripper
	endpoint *url.URL
	src      *tokenSource
	max      int // MaxResponseBytes
}

// HostError is the error of a request that the MCP session of
// [ConnectService] was about to send somewhere other than the service's
// MCP endpoint (a redirect to another host, say): it was not sent, and the
// token never left.
type HostError struct {
	// URL is where the request was going (without user information,
	// query or fragment); Endpoint the service's MCP endpoint.
	URL, Endpoint string
}

// Error says where the token was not sent.
func (e *HostError) Error() string {
	return fmt.Sprintf("threadsmcp: refused to send the MCP access token to %s: only the service's MCP endpoint %s gets it", e.URL, e.Endpoint)
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !sameEndpoint(req.URL, t.endpoint) {
		closeBody(req)
		return nil, &HostError{URL: shown(req.URL), Endpoint: shown(t.endpoint)}
	}
	tok, err := t.src.token(req.Context(), "")
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.send(req, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return t.bound(req, resp, err)
	}
	// Refused: the token expired early or was revoked. Mint a new one,
	// once, and send the request again if its body can be sent again.
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil
	}
	tok2, err := t.src.token(req.Context(), tok)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) //nolint:errcheck // only to reuse the connection
	resp.Body.Close()
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	resp, err = t.send(again, tok2)
	return t.bound(req, resp, err)
}

// bound reads a JSON answer whole, at most its bound, before the go-sdk
// sees it (the go-sdk reads it whole, without a bound, then decodes it);
// an event stream is bounded per event by the go-sdk (MaxEventSize).
// Refusing it here, as an error of the round trip, fails the call and
// not the session.
func (t *tokenTransport) bound(req *http.Request, resp *http.Response, err error) (*http.Response, error) {
	if err != nil || resp.Body == nil || resp.Body == http.NoBody || mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		return resp, err
	}
	max, what := t.max, "answer"
	if m := method(req); strings.HasSuffix(m, "/list") {
		max, what = min(max, MaxListPageBytes), m+" page"
	}
	tooLarge := func() (*http.Response, error) {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: the %s is longer than %d bytes", ErrResponseTooLarge, what, max)
	}
	if resp.ContentLength > int64(max) {
		return tooLarge()
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("threadsmcp: reading the MCP answer: %w", err)
	}
	if len(body) > max {
		return tooLarge()
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// method is the JSON-RPC method of a request this client sends ("" for
// none): its body is the go-sdk's, small and sent again at will.
func method(req *http.Request) string {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	b, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer b.Close()
	var m struct {
		Method string `json:"method"`
	}
	if json.NewDecoder(io.LimitReader(b, 1<<20)).Decode(&m) != nil {
		return ""
	}
	return m.Method
}

func mediaType(ct string) string {
	t, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// send sends a copy of req with the token (a RoundTripper must not
// change the caller's request).
func (t *tokenTransport) send(req *http.Request, tok string) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.next.RoundTrip(r)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// sameEndpoint reports whether u is the endpoint: the same scheme, host
// and port (a default port written or not) and path, and no user
// information.
func sameEndpoint(u, ep *url.URL) bool {
	return u.User == nil && strings.EqualFold(u.Scheme, ep.Scheme) && strings.EqualFold(hostPort(u), hostPort(ep)) &&
		u.EscapedPath() == ep.EscapedPath()
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// shown is u for an error: without user information, query or fragment.
func shown(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.Fragment, v.RawFragment = nil, "", "", ""
	return v.String()
}

// Content returns an MCP resource's contents (from
// [Conn.ReadResource], or a tool's embedded resource) as a /v1 message's
// resource part: its text, or its blob base64-encoded, with its URI and
// MIME type. It is [runs.ResourceContent] for an MCP resource; [ContentPart]
// is its counterpart for package threads.
func Content(rc *mcp.ResourceContents) runs.Content {
	p := ContentPart(rc).Resource
	return runs.ResourceContent(runs.Resource{URI: p.URI, MIMEType: p.MIMEType, Text: p.Text, Blob: p.Blob})
}
