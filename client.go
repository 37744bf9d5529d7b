package threads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/threadsapi/threads-go/internal/retry"
	"github.com/threadsapi/threads-go/internal/route"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

var defaultUserAgent = "threads-go/" + Version + " (" + runtime.Version() + ")"

// Client talks to the Conversation Threads API. Create one with NewClient
// and share it: a Client is safe for concurrent use, keeps no goroutine of
// its own, and needs no closing (idle connections belong to its
// http.Client's Transport).
type Client struct {
	// Threads lists, creates, reads, advances and cancels threads.
	Threads *ThreadsService
	// Projects reads the API key's project.
	Projects *ProjectsService
	// Messages lists, appends and deletes a thread's messages, and reads
	// their suggestions and component state.
	Messages *MessagesService

	cfg  config
	base *url.URL
	hc   *http.Client

	moves    sync.Map    // route key -> route.Move learned from 410 advice
	reported sync.Map    // route key -> struct{}: the move was reported
	authOK   atomic.Bool // some answer was 2xx: the key reaches the service

	listMu     sync.Mutex  // held while finding out how the service lists
	perProject atomic.Bool // GET /threads answered 404: list per project
	specList   atomic.Bool // GET /threads answered 2xx
	projects   sync.Map    // API key -> its project id, learned from GET /projects
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
	c := &Client{cfg: cfg, base: base}
	c.hc = c.httpClient(cfg.httpClient)
	c.Threads = &ThreadsService{client: c}
	c.Projects = &ProjectsService{client: c}
	c.Messages = &MessagesService{client: c}
	return c, nil
}

// String describes the client without its API key.
func (c *Client) String() string {
	if c == nil {
		return "threads.Client(nil)"
	}
	return "threads.Client" + c.cfg.String()
}

// GoString is String, for %#v.
func (c *Client) GoString() string { return c.String() }

// Format makes every verb (%v, %+v, %#v, %s) print String, so that no
// formatting of a Client can reach its key.
func (c *Client) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

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

// httpClient wraps the caller's client (never changing it) with the
// per-attempt header timeout and a redirect policy that never carries the
// key to another origin.
func (c *Client) httpClient(user *http.Client) *http.Client {
	var hc http.Client
	if user != nil {
		hc = *user
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = &attemptTransport{next: next}
	userCheck := hc.CheckRedirect
	base := c.base
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !route.SameOrigin(req.URL, base) {
			// Hand back the redirect itself: following it would send the
			// credentials (in whatever header) to a host the caller never named.
			return http.ErrUseLastResponse
		}
		if userCheck != nil {
			return userCheck(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &hc
}

// settings returns the configuration for one call.
func (c *Client) settings(opts []RequestOption) (*config, error) {
	if c == nil || c.base == nil {
		return nil, errors.New("threads: the Client was not made by NewClient")
	}
	if len(opts) == 0 {
		return &c.cfg, nil
	}
	cfg := c.cfg
	if err := cfg.applyRequest(opts); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// call is one operation: its route, query, JSON body and expected answer.
type call struct {
	route  route.Route
	query  url.Values
	body   any  // encoded as JSON when not nil
	stream bool // the operation reads text/event-stream
}

// do sends cl and returns the 2xx response, whose body the caller closes.
// Every other answer becomes a *Problem. A 410 ENDPOINT_DEPRECATED with
// usable advice is followed once, and the move is remembered.
func (c *Client) do(ctx context.Context, cfg *config, cl call) (*http.Response, error) {
	if ctx == nil {
		return nil, errors.New("threads: nil context")
	}
	var body []byte
	if cl.body != nil {
		var err error
		if body, err = json.Marshal(cl.body); err != nil {
			return nil, fmt.Errorf("threads: %s: encoding the request body: %w", cl.route.String(), err)
		}
	}
	r := cl.route
	if !cfg.noAutoMigrate {
		if m, ok := c.moves.Load(r.Key()); ok {
			r = m.(route.Move).Route(r.Values)
		}
	}
	resp, err := c.send(ctx, cfg, r, cl, body)
	if err != nil {
		return nil, err
	}
	if ok2xx(resp.StatusCode) {
		c.authOK.Store(true)
		return resp, nil
	}
	p := decodeProblem(resp, r.Method, pathOf(r), cfg.apiKey.get())
	c.hintAuth(cfg, p)
	if p.Code != CodeEndpointDeprecated {
		return nil, p
	}

	move, err := route.Resolve(p.MigrateTo(), c.base, r)
	if err != nil {
		p.migration = err.Error()
		return nil, p
	}
	to := move.Route(r.Values)
	p.deprecation = &Deprecation{From: r.String(), To: to.String(), MigrateTo: p.MigrateTo(), Problem: p}
	if cfg.noAutoMigrate {
		p.migration = "WithoutAutoMigrate"
		return nil, p
	}
	resp, err = c.send(ctx, cfg, to, cl, body)
	if err != nil {
		return nil, err
	}
	if !ok2xx(resp.StatusCode) {
		p2 := decodeProblem(resp, to.Method, pathOf(to), cfg.apiKey.get())
		if p2.Code == CodeEndpointDeprecated {
			p.migration = "the replacement " + to.String() + " answered 410 too"
			return nil, p
		}
		c.remember(cfg, cl.route.Key(), move, *p.deprecation)
		return nil, p2
	}
	c.remember(cfg, cl.route.Key(), move, *p.deprecation)
	return resp, nil
}

// hintAuth tells the caller how to send the key another way when a key sent
// as "Authorization: Bearer" is refused before this client ever got through:
// the live service reads x-api-key and refuses Bearer with 403.
func (c *Client) hintAuth(cfg *config, p *Problem) {
	if cfg.apiKeyHeader != "" || c.authOK.Load() {
		return
	}
	if p.Status != http.StatusUnauthorized && p.Status != http.StatusForbidden {
		return
	}
	if p.Code != "" || p.Type != "about:blank" {
		// An RFC 9457 problem about something else, not the auth guard.
		return
	}
	p.hint = "the key was sent as Authorization: Bearer; if the service reads it from another header, set " +
		EnvAPIKeyHeader + " (e.g. x-api-key) or use WithAPIKeyHeader"
}

// remember stores a move and reports it once per client.
func (c *Client) remember(cfg *config, key string, m route.Move, d Deprecation) {
	c.moves.Store(key, m)
	if _, loaded := c.reported.LoadOrStore(key, struct{}{}); loaded {
		return
	}
	if cfg.logger != nil {
		cfg.logger.Warn("threads: endpoint deprecated; following the service's migration advice",
			slog.String("from", d.From), slog.String("to", d.To), slog.String("migrateToEndpoint", d.MigrateTo))
	}
	if c.cfg.onDeprecation != nil {
		c.cfg.onDeprecation(d)
	}
}

func ok2xx(status int) bool { return status >= 200 && status <= 299 }

func pathOf(r route.Route) string {
	p, err := r.Path()
	if err != nil {
		return r.Template
	}
	p, _, _ = strings.Cut(p, "?")
	return p
}

// send makes one call (with its retries) to route r.
func (c *Client) send(ctx context.Context, cfg *config, r route.Route, cl call, body []byte) (*http.Response, error) {
	path, err := r.Path()
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, r.Template, err)
	}
	u, err := route.Join(c.base, path)
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, path, err)
	}
	for _, q := range [...]url.Values{cl.query, cfg.query} {
		if len(q) > 0 {
			if u.RawQuery != "" {
				u.RawQuery += "&"
			}
			u.RawQuery += q.Encode()
		}
	}
	logPath := u.EscapedPath()

	a := &attempts{cfg: cfg, method: r.Method, path: logPath, rawQuery: u.RawQuery, idempotent: r.Method == http.MethodGet || r.Method == http.MethodHead}
	if !a.idempotent {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { a.wrote.Store(true) }})
	}
	if cfg.requestTimeout > 0 {
		ctx = context.WithValue(ctx, attemptTimeoutKey{}, cfg.requestTimeout)
	}
	var raw any // retryablehttp wants an untyped nil for "no body"
	if body != nil {
		raw = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.Method, u.String(), raw)
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, logPath, err)
	}
	c.setHeaders(req.Header, cfg, cl.stream, body != nil)

	rc := &retryablehttp.Client{
		HTTPClient:     c.hc,
		RetryMax:       cfg.maxRetries,
		RetryWaitMin:   cfg.retryWaitMin,
		RetryWaitMax:   cfg.retryWaitMax,
		CheckRetry:     a.check,
		Backoff:        a.backoff,
		ErrorHandler:   lastResult,
		RequestLogHook: a.before,
	}
	resp, err := rc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, logPath, err)
	}
	return resp, nil
}

func (c *Client) setHeaders(h http.Header, cfg *config, stream, hasBody bool) {
	for k, vs := range cfg.headers {
		h[k] = append([]string(nil), vs...)
	}
	if stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	if hasBody {
		h.Set("Content-Type", "application/json")
	}
	if cfg.userAgent != "" {
		h.Set("User-Agent", cfg.userAgent+" "+defaultUserAgent)
	} else {
		h.Set("User-Agent", defaultUserAgent)
	}
	if cfg.apiKeyHeader != "" {
		h.Set(cfg.apiKeyHeader, cfg.apiKey.get())
	} else {
		h.Set("Authorization", "Bearer "+cfg.apiKey.get())
	}
}

// lastResult hands the last attempt's outcome to the caller as it is,
// instead of go-retryablehttp's "giving up after N attempts".
func lastResult(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			drainClose(resp.Body)
		}
		return nil, err
	}
	return resp, nil
}

func drainClose(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}

// attempts carries one call's retry state through go-retryablehttp's hooks,
// which it calls one after another on the calling goroutine.
type attempts struct {
	cfg        *config
	method     string
	path       string
	rawQuery   string
	idempotent bool
	n          int         // the attempt in flight, from 0
	wrote      atomic.Bool // set by the transport (another goroutine)
	wait       time.Duration
	start      time.Time
}

func (a *attempts) before(_ retryablehttp.Logger, req *http.Request, i int) {
	a.n = i
	a.wrote.Store(false)
	a.start = time.Now()
	if i > 0 {
		// The previous attempt may still hold the old header map.
		req.Header = req.Header.Clone()
		req.Header.Set("X-Retry-Count", strconv.Itoa(i))
	}
}

func (a *attempts) check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	again := ctx.Err() == nil && retry.ShouldRetry(a.idempotent, resp, err, a.wrote.Load())
	a.wait = 0
	if again && a.n < a.cfg.maxRetries {
		a.wait = retry.Wait(a.cfg.retryWaitMin, a.cfg.retryWaitMax, a.n, resp, time.Now())
	}
	if l := a.cfg.logger; l != nil && l.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{
			slog.String("method", a.method),
			slog.String("path", a.path),
			slog.Int("attempt", a.n+1),
			slog.Duration("elapsed", time.Since(a.start)),
		}
		if q := redactQuery(a.rawQuery); q != "" {
			attrs = append(attrs, slog.String("query", q))
		}
		if resp != nil {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		if again && a.n < a.cfg.maxRetries {
			attrs = append(attrs, slog.Duration("wait", a.wait))
		}
		l.LogAttrs(ctx, slog.LevelDebug, "threads: attempt", attrs...)
	}
	return again, nil
}

func (a *attempts) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return a.wait
}

// redactQuery renders a query with the values of credential-like keys
// hidden.
func redactQuery(raw string) string {
	q, _ := url.ParseQuery(raw)
	if len(q) == 0 {
		return ""
	}
	out := make(url.Values, len(q))
	for k, vs := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "key") || strings.Contains(lk, "token") || strings.Contains(lk, "secret") {
			out[k] = []string{redacted}
			continue
		}
		out[k] = vs
	}
	return out.Encode()
}

type attemptTimeoutKey struct{}

// attemptTransport bounds each attempt until its response headers arrive.
// The body is not bounded: a stream lives as long as its context.
//
// It deliberately has no CloseIdleConnections method: go-retryablehttp
// calls that on every failed call, and passing it through would drop the
// idle connections of a Transport the caller may share (such as
// http.DefaultTransport) whenever one call fails.
type attemptTransport struct{ next http.RoundTripper }

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	d, _ := req.Context().Value(attemptTimeoutKey{}).(time.Duration)
	if d <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(d, func() { cancel(&timeoutError{d: d}) })
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if !timer.Stop() {
		// The headers lost the race against the timer.
		if resp != nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, &timeoutError{d: d}
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose releases the attempt's context with its body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// timeoutError is the per-attempt timeout. It matches
// context.DeadlineExceeded and reports Timeout() like net errors do.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return "no response headers within " + e.d.String() + " (WithRequestTimeout)"
}
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
func (e *timeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded
}

// maxJSONBody caps a 2xx JSON body: far above any thread the service
// stores (its request limit is 10 MB), low enough that a broken or hostile
// server cannot exhaust memory.
const maxJSONBody = 256 << 20

// readBody reads a 2xx body up to limit bytes.
func readBody(resp *http.Response, method, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: reading the response: %w", method, path, err)
	}
	if int64(len(data)) > limit {
		return nil, unexpectedResponse(method, path, resp.StatusCode, "the body exceeds %d bytes", limit)
	}
	return data, nil
}

// decodeJSON reads a 2xx JSON body into out.
func decodeJSON(resp *http.Response, method, path string, out any) error {
	data, err := readBody(resp, method, path, maxJSONBody)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return unexpectedResponse(method, path, resp.StatusCode, "%s body is not the expected JSON (%v): %s",
			orUnknown(resp.Header.Get("Content-Type")), err, excerpt(bytes.TrimSpace(data), 120))
	}
	return nil
}

func orUnknown(ct string) string {
	if ct == "" {
		return "untyped"
	}
	return ct
}

// doJSON makes a call whose 2xx answer is JSON, decoded into out. A call
// migrated to a streaming replacement (Advance) reads that stream to its end
// and keeps the last snapshot in out, which must then be *AdvanceResponse.
func (c *Client) doJSON(ctx context.Context, opts []RequestOption, cl call, out any) error {
	cfg, err := c.settings(opts)
	if err != nil {
		return err
	}
	resp, err := c.do(ctx, cfg, cl)
	if err != nil {
		return err
	}
	if cfg.respHeader != nil {
		*cfg.respHeader = resp.Header.Clone()
	}
	if ar, ok := out.(*AdvanceResponse); ok && isEventStream(resp) {
		return lastSnapshot(newStream(ctx, resp.Body, cfg), ar)
	}
	defer resp.Body.Close()
	return decodeJSON(resp, cl.route.Method, pathOf(cl.route), out)
}

// doStream makes a call whose 2xx answer must be an event stream.
func (c *Client) doStream(ctx context.Context, opts []RequestOption, cl call) (*Stream, error) {
	cfg, err := c.settings(opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, cfg, cl)
	if err != nil {
		return nil, err
	}
	if !isEventStream(resp) {
		ct := resp.Header.Get("Content-Type")
		drainClose(resp.Body)
		return nil, unexpectedResponse(cl.route.Method, pathOf(cl.route), resp.StatusCode, "want text/event-stream, got %s", orUnknown(ct))
	}
	if cfg.respHeader != nil {
		*cfg.respHeader = resp.Header.Clone()
	}
	return newStream(ctx, resp.Body, cfg), nil
}

// lastSnapshot reads s to its end and keeps its last event in out.
func lastSnapshot(s *Stream, out *AdvanceResponse) error {
	defer s.Close()
	seen := false
	for s.Next() {
		*out, seen = s.Current().AdvanceResponse, true
	}
	if err := s.Err(); err != nil {
		return err
	}
	if !seen {
		return fmt.Errorf("%w: the stream ended without a snapshot", ErrStreamFailed)
	}
	return nil
}

func isEventStream(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	const es = "text/event-stream"
	return len(ct) >= len(es) && strings.EqualFold(ct[:len(es)], es)
}
