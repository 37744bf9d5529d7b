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

	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/retry"
	"github.com/threadsapi/threads-go/internal/route"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

var defaultUserAgent = "threads-go/" + Version + " (" + runtime.Version() + ")"

// Client talks to the Conversation Threads API. Create one with NewClient
// and share it: a Client is safe for concurrent use, keeps no goroutine of
// its own, and needs no closing (idle connections belong to its
// http.Client's Transport, by default [http.DefaultTransport]).
type Client struct {
	// Threads creates, lists, reads, updates, deletes, names, advances and
	// cancels threads, and runs client-side tools (RunStream).
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

	listTurn   chan struct{} // one slot, held while finding out how the service lists
	perProject atomic.Bool   // the per-project route answered 2xx (after GET /threads answered 404)
	specList   atomic.Bool   // GET /threads answered 2xx
	projects   sync.Map      // API key -> its project id from GET /projects, once listing it answered 2xx
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
	c := &Client{cfg: cfg, base: base, listTurn: make(chan struct{}, 1)}
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

// c returns the service's Client: nil for a nil or zero ThreadsService
// (such as the Threads field of a Client not made by NewClient), whose
// calls then fail with settings' error instead of panicking.
func (s *ThreadsService) c() *Client {
	if s == nil {
		return nil
	}
	return s.client
}

// checkID refuses, before anything is sent, an id that cannot name a thread
// or a message: empty or white space only, or "." and "..", which a server
// or proxy would resolve as a path step even escaped ("%2E%2E"). kind names
// the id in the error ("thread", "message").
func checkID(kind, id string) error {
	switch strings.TrimSpace(id) {
	case "":
		if id == "" {
			return fmt.Errorf("empty %s id", kind)
		}
		return fmt.Errorf("%s id %q is only white space", kind, id)
	case ".", "..":
		return fmt.Errorf("%s id %q is a dot segment, not an id", kind, id)
	}
	return nil
}

// settings returns the configuration for one call.
func (c *Client) settings(opts []RequestOption) (*config, error) {
	if c == nil || c.base == nil {
		return nil, errors.New("threads: the Client was not made by NewClient (a zero Client or service cannot send; use threads.NewClient)")
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
// usable advice is followed once, and the move is remembered once the
// replacement answered 2xx.
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
	c.hintAuth(cfg, r, p)
	// Only the service's removal notice migrates: a 410 with its code. The
	// code on any other status (a 500 that says ENDPOINT_DEPRECATED) is
	// not advice.
	if p.Status != http.StatusGone || p.Code != CodeEndpointDeprecated {
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
		if p2.Status == http.StatusGone && p2.Code == CodeEndpointDeprecated {
			p.migration = "the replacement " + to.String() + " answered 410 too"
			return nil, p
		}
		// Not remembered: a replacement that fails (404, 500...) must not
		// become this route for the client's life.
		return nil, p2
	}
	c.remember(cfg, cl.route.Key(), move, *p.deprecation)
	return resp, nil
}

// hintAuth tells the caller how to send the key another way when a key sent
// as "Authorization: Bearer" is refused before this client ever got through:
// the live service reads x-api-key and refuses Bearer with 403. The same 403
// answers a thread outside the key's project, so on a route that names a
// thread the hint says both.
func (c *Client) hintAuth(cfg *config, r route.Route, p *Problem) {
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
	if p.Status == http.StatusForbidden && len(r.Values) > 0 {
		p.hint = "the thread may not exist or may belong to another project; or " + p.hint
	}
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
	// The path may hold ids a server sent (a project id, say): shown in
	// errors and logs only with every spelling of the key removed.
	logPath := redact.URL(u.EscapedPath(), cfg.apiKey.get())

	a := &attempts{cfg: cfg, method: r.Method, path: logPath, rawQuery: u.RawQuery, idempotent: r.Method == http.MethodGet || r.Method == http.MethodHead}
	if !a.idempotent {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { a.wrote.Store(true) }})
	}
	if cfg.requestTimeout > 0 {
		ctx = context.WithValue(ctx, attemptTimeoutKey{}, attemptLimit{d: cfg.requestTimeout, stream: cl.stream})
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
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, logPath, scrubTransportError(err, cfg.apiKey.get()))
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
	err = scrubTransportError(err, a.cfg.apiKey.get())
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
		if q := redact.Query(a.rawQuery, a.cfg.apiKey.get()); q != "" {
			attrs = append(attrs, slog.String("query", q))
		}
		if resp != nil {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", redact.String(err.Error(), a.cfg.apiKey.get())))
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

// scrubTransportError hides credentials in err before anyone sees it: the
// URL of a *url.Error (returned by http.Client.Do, and by this client's
// calls) loses its user information, credential-like query values and
// every spelling of the key. The error is changed in place; it belongs to
// this call alone.
//
// The reason may quote what the server sent (a malformed header line, key
// and all, 64 KiB long): when showing it as one bounded, redacted line
// changes it, the reason is replaced by that line (and no longer unwraps,
// since the original would print the server's text).
func scrubTransportError(err error, key string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redact.URL(ue.URL, key)
		if ue.Err != nil {
			msg := ue.Err.Error()
			if shown := shownText(msg, maxErrorDetail, key); shown != msg {
				ue.Err = errors.New(shown)
			}
		}
	}
	return err
}

type attemptTimeoutKey struct{}

// attemptLimit is WithRequestTimeout for one call.
type attemptLimit struct {
	d      time.Duration
	stream bool // the call reads an event stream
}

// attemptTransport bounds each attempt by WithRequestTimeout: a JSON call's
// whole answer (headers, body, and any drain of a response that is
// discarded between attempts), but only the headers of a stream's 2xx
// answer, whose body lives as long as its context. A stream's error answer
// is bounded like a JSON one: its body is read into a *Problem.
//
// The bound travels with the response body: it ends when the body is
// closed, and a read after it has passed fails with the timeout error.
// Nothing a server sends (a body that trickles, one that never ends) can
// hold an attempt longer, even under context.Background().
//
// It deliberately has no CloseIdleConnections method: go-retryablehttp
// calls that on every failed call, and passing it through would drop the
// idle connections of a Transport the caller may share (such as
// http.DefaultTransport) whenever one call fails.
type attemptTransport struct{ next http.RoundTripper }

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	lim, _ := req.Context().Value(attemptTimeoutKey{}).(attemptLimit)
	if lim.d <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	fired := &timeoutError{d: lim.d}
	timer := time.AfterFunc(lim.d, func() { cancel(fired) })
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel(nil)
		if context.Cause(ctx) == fired {
			return nil, fired
		}
		return nil, err
	}
	if lim.stream && ok2xx(resp.StatusCode) {
		if !timer.Stop() {
			// The headers lost the race against the timer.
			resp.Body.Close()
			cancel(nil)
			return nil, fired
		}
		resp.Body = &boundBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel}
		return resp, nil
	}
	resp.Body = &boundBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, timer: timer}
	return resp, nil
}

// boundBody releases the attempt's context (and stops its timer) with the
// body, and reports a read cut short by the attempt's timeout as that
// timeout.
type boundBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer // nil: the body is not bounded (a stream)
}

func (b *boundBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); cause != nil {
			var te *timeoutError
			if errors.As(cause, &te) {
				err = cause
			}
		}
	}
	return n, err
}

func (b *boundBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// timeoutError is the per-attempt timeout. It matches
// context.DeadlineExceeded and reports Timeout() like net errors do.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return "no complete answer within " + e.d.String() + " (WithRequestTimeout)"
}
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
func (e *timeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded
}

// readBody reads a 2xx body up to limit bytes.
func readBody(resp *http.Response, method, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: reading the response: %w", method, path, err)
	}
	if int64(len(data)) > limit {
		return nil, unexpectedResponse(method, path, resp.StatusCode, "the body exceeds %d bytes (WithMaxResponseSize)", limit)
	}
	return data, nil
}

// decodeJSON reads a 2xx JSON body of at most cfg.maxResponseSize bytes
// (counted after any decompression) into out. Before decoding, it refuses a
// body whose decoded values would need far more memory than its bytes (see
// decodedCost), so memory stays bounded whatever the body's shape.
func decodeJSON(resp *http.Response, method, path string, out any, cfg *config) error {
	// The path may hold ids a server sent (a project id from GET /projects).
	path = redact.URL(path, cfg.apiKey.get())
	limit := int64(cfg.maxResponseSize)
	data, err := readBody(resp, method, path, limit)
	if err != nil {
		return err
	}
	if cfg.readBytes != nil {
		*cfg.readBytes += int64(len(data))
	}
	if cost := decodedCost(data); cost > decodeBudget(limit) {
		return unexpectedResponse(method, path, resp.StatusCode,
			"the body holds too many JSON values to decode within the memory budget (about %d MiB of %d MiB; WithMaxResponseSize raises both)",
			cost>>20, decodeBudget(limit)>>20)
	}
	if err := jsonx.Unmarshal(data, out); err != nil {
		// Describe, not err: the decoder's error names the member path it
		// failed in, and member names are server text (the key, escaped).
		return unexpectedResponse(method, path, resp.StatusCode, "%s body is not the expected JSON (%v): %s",
			shownText(orUnknown(resp.Header.Get("Content-Type")), maxErrorPart, cfg.apiKey.get()), jsonx.Describe(err), serverText(bytes.TrimSpace(data), 120, cfg.apiKey.get()))
	}
	return nil
}

// Costs, in bytes of Go memory, that decodedCost charges per JSON value:
// an object or array may become a struct of the generated model (a
// Message is several hundred bytes) or a map, and grows a slice; any other
// value (or member name) at most a field, an interface or a map entry.
const (
	costContainer = 512
	costValue     = 32
)

// decodeBudget is the memory a JSON body of at most limit bytes may
// decode into: four times the limit (128 MiB by default).
func decodeBudget(limit int64) int64 { return 4 * limit }

// decodedCost estimates, in one pass and without allocating, how much Go
// memory decoding data may take: costContainer per object or array and
// costValue per member or element, plus the bytes themselves. It counts
// structure outside strings only, so it is exact about what makes small
// JSON expensive ("[{},{},...]" is 3 bytes per Go struct) and needs no
// valid JSON: the decoder checks that afterwards. Strings are skipped with
// bytes.IndexByte, so text costs far less than the decoder's own pass (the
// stream runs it on every event).
func decodedCost(data []byte) int64 {
	var containers, values int64
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i+1)
		case '{', '[':
			containers++
		case ',', ':':
			values++
		}
	}
	return int64(len(data)) + containers*costContainer + values*costValue
}

// stringEnd returns the index of the quote that closes the string whose
// content starts at data[i], or len(data) when it does not close: the
// first quote not escaped by an odd run of backslashes before it. Each
// byte is looked at a bounded number of times (a run of backslashes only
// by the quote right after it).
func stringEnd(data []byte, i int) int {
	for {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			return len(data)
		}
		j := i + k
		n := 0
		for b := j - 1; b >= i && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
		i = j + 1
	}
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
	return decodeJSON(resp, cl.route.Method, pathOf(cl.route), out, cfg)
}

// doInto is doJSON into a new T: the body of most operations, which name
// their route and their result type and hand both here.
func doInto[T any](ctx context.Context, c *Client, opts []RequestOption, cl call) (*T, error) {
	var out T
	if err := c.doJSON(ctx, opts, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
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
		return nil, unexpectedResponse(cl.route.Method, redact.URL(pathOf(cl.route), cfg.apiKey.get()), resp.StatusCode, "want text/event-stream, got %s", shownText(orUnknown(ct), maxErrorPart, cfg.apiKey.get()))
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
