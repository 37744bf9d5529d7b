package threads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// Client talks to the Conversation Threads API. Create one with NewClient
// and share it: a Client is safe for concurrent use, keeps no goroutine of
// its own, and needs no closing (idle connections belong to its
// http.Client's Transport, by default [http.DefaultTransport]).
// Its /v1 counterpart, runs.Client, is made from a Client (runs.New).
type Client struct {
	// Threads creates, lists, reads, updates, deletes, names, advances and
	// cancels threads, and runs client-side tools (RunStream).
	Threads *ThreadsService
	// Projects reads the API key's project (Current, Get) and lists and
	// deletes its API keys and provider keys.
	Projects *ProjectsService
	// Messages lists, appends and deletes a thread's messages, and reads
	// their suggestions and component state.
	Messages *MessagesService
	// Storage uploads files that messages attach (Presign, Upload).
	Storage *StorageService
	// Audio transcribes speech.
	Audio *AudioService
	// Auth hands out short-lived MCP access tokens.
	Auth *AuthService
	// Registry reads the component registry.
	Registry *RegistryService

	cfg  config
	base *url.URL
	hc   *http.Client

	xAPIKeyCfg config // cfg sending the key in x-api-key, for calls without options

	learned
}

// learned is what a Client learns from the service's answers and keeps for
// its life, shared by all its calls (each field is safe for concurrent
// use). Each piece is learned only from a 2xx and forgotten as its file
// says, so that a client never keeps failing on what it once learned.
type learned struct {
	// Remembered moves (migrate.go): a route the service answered 410
	// with usable advice, once the replacement answered 2xx; forgotten
	// when the replacement answers 404 or 410.
	moves    sync.Map // route key -> route.Move learned from 410 advice
	reported sync.Map // route key -> struct{}: the move was reported

	// The key header that worked (keyheader.go), when neither
	// WithAPIKeyHeader nor its variable names one: Bearer, as the spec
	// says, until a call refused as Bearer was accepted with the key in
	// x-api-key; never forgotten.
	authOK  atomic.Bool // some answer was 2xx: the key reaches the service
	xAPIKey atomic.Bool // x-api-key got a 2xx after Bearer was refused: send it there

	// The listing route (threads.go): GET /threads, or per project
	// through GET /threads/project/{projectId} when the service has no
	// GET /threads; forgotten on a refusal (401, 403, 404, 410).
	listTurn   chan struct{} // one slot, held while finding out how the service lists
	perProject atomic.Bool   // GET /threads answered 404: list per project
	specList   atomic.Bool   // GET /threads answered 2xx
	projects   sync.Map      // API key -> its project id, learned from GET /projects
}

// NewClient returns a Client configured by opts. It does no network I/O.
//
// The base URL (WithBaseURL or $THREADS_BASE_URL) and the API key
// (WithAPIKey or $THREADS_API_KEY) are required; NewClient returns an error
// naming what is missing or invalid.
func NewClient(opts ...ClientOption) (*Client, error) {
	cfg := defaultConfig()
	if err := cfg.applyClient(opts); err != nil {
		return nil, err
	}
	if err := cfg.fromEnvironment(); err != nil {
		return nil, err
	}
	base, err := parseBaseURL(cfg.baseURL)
	if err != nil {
		return nil, err
	}
	if cfg.apiKey.get() == "" {
		return nil, fmt.Errorf("threads: no API key: use WithAPIKey or set %s", EnvAPIKey)
	}
	c := &Client{cfg: cfg, base: base, learned: learned{listTurn: make(chan struct{}, 1)}}
	c.xAPIKeyCfg = cfg
	c.xAPIKeyCfg.apiKeyHeader = xAPIKeyHeader
	c.hc = c.httpClient(cfg.httpClient)
	c.Threads = &ThreadsService{client: c}
	c.Projects = &ProjectsService{client: c}
	c.Messages = &MessagesService{client: c}
	c.Storage = &StorageService{client: c}
	c.Audio = &AudioService{client: c}
	c.Auth = &AuthService{client: c}
	c.Registry = &RegistryService{client: c}
	return c, nil
}

// String describes the client without its API key.
func (c *Client) String() string {
	if c == nil {
		return "threads.Client(nil)"
	}
	return "threads.Client" + c.cfg.String()
}

// BaseURL returns the base URL the client calls (WithBaseURL or
// $THREADS_BASE_URL), the prefix of every route: a companion package
// derives a service endpoint from it, such as the MCP endpoint
// <BaseURL>/mcp (package github.com/threadsapi/threads-go/mcp). It holds
// no credentials (NewClient refuses a URL with user information); "" for
// a nil Client.
func (c *Client) BaseURL() string {
	if c == nil || c.base == nil {
		return ""
	}
	return c.base.String()
}

// GoString is String, for %#v.
func (c *Client) GoString() string { return c.String() }

// Format makes every verb (%v, %+v, %#v, %s) print String, so that no
// formatting of a Client can reach its key.
func (c *Client) Format(f fmt.State, verb rune) { io.WriteString(f, c.String()) }

func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("threads: no base URL: use WithBaseURL or set %s", EnvBaseURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, credentials and all; keep only
		// its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("threads: base URL %q: %v", shownURL(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("threads: base URL %q: scheme must be http or https", shownURL(raw))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("threads: base URL %q: no host", shownURL(raw))
	}
	if u.User != nil {
		return nil, fmt.Errorf("threads: base URL %q: credentials belong in WithAPIKey, not in the URL", shownURL(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("threads: base URL %q: must not have a query or fragment", shownURL(raw))
	}
	return u, nil
}

// shownURL is raw as an error may show it: without user information, query
// or fragment, which may hold credentials, and cut to a sane length.
func shownURL(raw string) string {
	s := raw
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i] + "?…"
	}
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		end := strings.IndexAny(rest, "/?")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			s = s[:i+3] + "…@" + rest[at+1:]
		}
	} else if at := strings.LastIndex(s, "@"); at >= 0 {
		s = "…@" + s[at+1:]
	}
	return excerpt([]byte(s), 200)
}

// c returns the service's Client: nil for a nil or zero ThreadsService
// (such as the Threads field of a Client not made by NewClient), whose
// calls then fail with settings' error instead of panicking.
func (s *ThreadsService) c() *Client {
	if s == nil {
		return nil
	}
	return s.client
}

// Do calls a route the SDK does not model (or one it does, in a way its
// method does not), through the same request path as every method: the
// client's base URL, API key and headers, retries, timeouts, redaction,
// observer and middlewares; a non-2xx answer is a [*Problem]. method is an
// HTTP method ("GET", "POST"...); path is the route under the base URL,
// escaped as in a URL, with an optional query. body is sent as JSON (nil:
// none; []byte and json.RawMessage byte for byte); out receives the 2xx
// answer (nil drops it; a *json.RawMessage takes its bytes):
//
//	var page struct{ Items []json.RawMessage }
//	err := c.Do(ctx, "GET", "/threads/project/"+url.PathEscape(id)+"?limit=5", nil, &page)
//
// How the path is checked, which answers are errors, what is retried and
// why the /v1 routes are refused: the package doc's "Calling a route the
// SDK does not model".
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...RequestOption) error {
	cl, err := c.genericCall(method, path, body)
	if err != nil {
		return err
	}
	resp, cfg, o, err := c.exchangeObserved(ctx, opts, cl)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil || core.Empty(resp) {
		drainClose(resp.Body)
		o.end(nil)
		return nil
	}
	err = decodeJSON(resp, cl.Route.Method, pathOf(cl.Route), out, int64(cfg.maxResponseSize), cfg.redact, nil, cfg.wire.keepRaw)
	o.end(err)
	return err
}

// genericCall checks Do's method, path and body and returns the call.
func (c *Client) genericCall(method, path string, body any) (core.Call, error) {
	shown := path
	if c != nil && c.base != nil {
		shown = c.cfg.redact(path) // a query may carry a secret
	}
	r, known, q, err := route.Literal(method, path, routeTemplates(method))
	if err != nil {
		return core.Call{}, fmt.Errorf("threads: Do(%s %.80q): %w", method, shown, err)
	}
	if strings.HasPrefix(r.Template, "/v1/") {
		return core.Call{}, fmt.Errorf("threads: Do(%s %.80q): a /v1 route needs an end user: use runs.Client.Do", method, shown)
	}
	cl := core.Call{Route: r, Query: q, NoMigrate: !known, Generic: true}
	if !known {
		cl.Name = route.Named(r.Template) // one name per route, not per thread
	}
	switch b := body.(type) {
	case nil:
	case json.RawMessage:
		if len(b) > 0 {
			cl.Raw = append([]byte{}, b...)
		}
	case []byte:
		if len(b) > 0 {
			cl.Raw = append([]byte{}, b...)
		}
	case io.Reader:
		return core.Call{}, fmt.Errorf("threads: Do(%s %.80q): the body is an io.Reader: pass its bytes (a []byte is sent as it is)", method, shown)
	default:
		cl.Body = body
	}
	return cl, nil
}
