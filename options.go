package threads

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/threadsapi/threads-go/internal/redact"
)

// Environment variables read by [NewClient] unless
// [WithoutEnvironmentDefaults] is given. Options always win over the
// environment.
const (
	// EnvAPIKey names the variable that holds the API key ([WithAPIKey]).
	EnvAPIKey = "THREADS_API_KEY"
	// EnvBaseURL names the variable that holds the base URL ([WithBaseURL]).
	EnvBaseURL = "THREADS_BASE_URL"
	// EnvAPIKeyHeader names the variable that holds the header the key is
	// sent in ([WithAPIKeyHeader]), such as "x-api-key" for the live
	// service. Unset or empty: "Authorization: Bearer <key>".
	EnvAPIKeyHeader = "THREADS_API_KEY_HEADER"
)

// Defaults used when no option says otherwise. They are unexported on
// purpose: each option's documentation states its default, and a tuning
// value may change in a minor release without that being an API change.
const (
	defaultMaxRetries      = 2
	defaultRetryWaitMin    = 500 * time.Millisecond
	defaultRetryWaitMax    = 8 * time.Second
	defaultRequestTimeout  = 60 * time.Second
	defaultMaxEventSize    = 16 << 20
	defaultMaxResponseSize = 32 << 20 // see WithMaxResponseSize
)

// ClientOption configures a [Client]; give it to [NewClient]. Options that
// only make sense for the whole client ([WithBaseURL], [WithHTTPClient],
// [WithDeprecationHandler], [WithoutEnvironmentDefaults]) are ClientOptions
// only, so passing one to a single call does not compile.
//
// Every [RequestOption] is also a [ClientOption]: given to [NewClient] it sets
// the client's default for every call. The exception is [WithResponseInto],
// which only makes sense for one call: NewClient refuses it with an error.
type ClientOption interface {
	applyClient(*config) error
}

// RequestOption configures a single call (given to a method) or, given to
// [NewClient], every call of the client. Options given to a call are applied
// after the client's, so they win. An invalid option makes NewClient, or the
// call, return an error before anything is sent.
type RequestOption interface {
	ClientOption
	applyRequest(*config) error
}

// clientOption is a [ClientOption] that is not a [RequestOption].
type clientOption struct {
	name string
	fn   func(*config) error
}

func (o clientOption) applyClient(c *config) error { return o.fn(c) }

// String names the option without its value (which may be a secret).
func (o clientOption) String() string { return "threads." + o.name }

// GoString is String, for %#v.
func (o clientOption) GoString() string { return o.String() }

// requestOption works on [NewClient] and on a single call, unless callOnly.
type requestOption struct {
	name string
	fn   func(*config) error
	// callOnly: the option is meant for one call and NewClient refuses it
	// (WithResponseInto: a client's calls would all write one
	// destination, concurrently). Every RequestOption is a ClientOption by design,
	// so the refusal cannot happen at compile time.
	callOnly bool
}

func (o requestOption) applyClient(c *config) error {
	if o.callOnly {
		return fmt.Errorf("threads: NewClient: %s is for a single call, not a client's default: pass it to the call", o.name)
	}
	return o.fn(c)
}
func (o requestOption) applyRequest(c *config) error { return o.fn(c) }

// String names the option without its value (which may be a secret).
func (o requestOption) String() string { return "threads." + o.name }

// GoString is String, for %#v.
func (o requestOption) GoString() string { return o.String() }

// config is everything the options set. A Client keeps one; a call with
// options works on a copy.
type config struct {
	apiKey          secret
	apiKeySet       bool
	baseURL         string
	baseURLSet      bool
	httpClient      *http.Client
	maxRetries      int
	retryWaitMin    time.Duration
	retryWaitMax    time.Duration
	requestTimeout  time.Duration
	apiKeyHeader    string // canonical header name; "" means Authorization: Bearer
	apiKeyHeaderSet bool
	query           url.Values
	respInto        **http.Response
	middleware      []Middleware
	observer        Observer
	cancelOnLeave   bool
	headers         http.Header
	userAgent       string
	routeTemplate   string // WithRouteTemplate's path, for Do calls
	routeMethod     string // and its method, "" when it named none
	logger          *slog.Logger
	maxEventSize    int
	maxResponseSize int
	idleTimeout     time.Duration
	noAutoMigrate   bool
	onDeprecation   func(Deprecation)
	noEnv           bool
	maxToolRounds   int        // RunStream's bound; 0: defaultMaxToolRounds
	toolRunResults  bool       // RunStream delivers a result event per call (WithToolRunResults)
	toolGuards      ToolGuards // RunStream's (WithToolGuards)
	maxPages        int        // All's bound in pages; 0: defaultMaxPages
	maxPagingBytes  int64      // All's bound in body bytes; 0: defaultMaxPagingBytes
	readBytes       *int64     // when set (by All), decodeJSON adds each body's length

	// rawjson.go: WithRawJSON, WithJSONSet, WithJSONDelete, WithRequestBody.
	wire wireOptions
}

func defaultConfig() config {
	return config{
		maxRetries:      defaultMaxRetries,
		retryWaitMin:    defaultRetryWaitMin,
		retryWaitMax:    defaultRetryWaitMax,
		requestTimeout:  defaultRequestTimeout,
		maxEventSize:    defaultMaxEventSize,
		maxResponseSize: defaultMaxResponseSize,
	}
}

// String describes the configuration without the API key, so that printing
// a client or its options with %v never shows the secret.
func (c config) String() string {
	key := "unset"
	if c.apiKey.get() != "" {
		key = redacted
	}
	return fmt.Sprintf("{baseURL:%q apiKey:%s maxRetries:%d}", c.baseURL, key, c.maxRetries)
}

// GoString is String, for %#v.
func (c config) GoString() string { return c.String() }

// secret holds the API key behind a pointer: fmt, even when it reaches a
// config by reflection inside another value, prints an address, never the
// key.
type secret struct{ p *string }

func newSecret(s string) secret { return secret{&s} }

func (s secret) get() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// redact returns s with every spelling of the API key, and of extra,
// replaced: for server text that an error or a log line shows.
func (c *config) redact(s string, extra ...string) string {
	return redact.String(redact.String(s, c.apiKey.get()), extra...)
}

// String hides the key from fmt.
func (s secret) String() string { return redacted }

func newClientOption(name string, fn func(*config) error) ClientOption {
	return clientOption{name: name, fn: fn}
}

func newRequestOption(name string, fn func(*config) error) RequestOption {
	return requestOption{name: name, fn: fn}
}

// applyClient runs [NewClient]'s options over c.
func (c *config) applyClient(opts []ClientOption) error {
	for i, o := range opts {
		if o == nil {
			return fmt.Errorf("threads: NewClient: option %d is nil", i)
		}
		if err := o.applyClient(c); err != nil {
			return err
		}
	}
	return nil
}

// applyRequest runs a call's options over c.
func (c *config) applyRequest(opts []RequestOption) error {
	for i, o := range opts {
		if o == nil {
			return fmt.Errorf("threads: option %d is nil", i)
		}
		if err := o.applyRequest(c); err != nil {
			return err
		}
	}
	return nil
}

// WithAPIKey sets the API key. Default: $THREADS_API_KEY. The key is sent
// only to the base URL's origin, as "Authorization: Bearer <key>" unless
// [WithAPIKeyHeader] says otherwise. An empty key or one with characters a
// header cannot carry is refused.
func WithAPIKey(key string) RequestOption {
	return newRequestOption("WithAPIKey", func(c *config) error {
		if strings.TrimSpace(key) == "" {
			return errors.New("threads: WithAPIKey: empty key")
		}
		if !validHeaderValue(key) {
			return errors.New("threads: WithAPIKey: the key contains characters a header cannot carry")
		}
		c.apiKey, c.apiKeySet = newSecret(key), true
		return nil
	})
}

// WithBaseURL sets the service's base URL, such as "https://api.tambo.co".
// Default: $THREADS_BASE_URL. A path prefix ("https://host/api") is kept in
// front of every route. Only http and https are accepted.
func WithBaseURL(rawURL string) ClientOption {
	return newClientOption("WithBaseURL", func(c *config) error {
		c.baseURL, c.baseURLSet = rawURL, true
		return nil
	})
}

// WithHTTPClient makes the client send every request with hc. The SDK adds
// its per-attempt timeout and redirect policy around hc's Transport and
// CheckRedirect without changing hc. Note that hc.Timeout, when set, bounds
// whole calls including stream bodies; leave it zero and use contexts.
func WithHTTPClient(hc *http.Client) ClientOption {
	return newClientOption("WithHTTPClient", func(c *config) error {
		if hc == nil {
			return errors.New("threads: WithHTTPClient: nil *http.Client")
		}
		c.httpClient = hc
		return nil
	})
}

// WithMaxRetries sets how many times a failed attempt is retried (default 2;
// 0 turns retries off). See the package documentation for what is retried.
func WithMaxRetries(n int) RequestOption {
	return newRequestOption("WithMaxRetries", func(c *config) error {
		if n < 0 {
			return fmt.Errorf("threads: WithMaxRetries(%d): must not be negative", n)
		}
		c.maxRetries = n
		return nil
	})
}

// WithRetryWait sets the backoff range between attempts (default 500ms to
// 8s). maxWait also caps the waits that Retry-After and Retry-After-Ms ask
// for.
func WithRetryWait(minWait, maxWait time.Duration) RequestOption {
	return newRequestOption("WithRetryWait", func(c *config) error {
		if minWait < 0 || maxWait < minWait {
			return fmt.Errorf("threads: WithRetryWait(%v, %v): need 0 <= minWait <= maxWait", minWait, maxWait)
		}
		c.retryWaitMin, c.retryWaitMax = minWait, maxWait
		return nil
	})
}

// WithRequestTimeout bounds each attempt (default 60s; 0 means no bound).
// For a JSON call it covers the whole answer: headers, body, and the drain
// of an answer discarded before a retry, so a server that trickles its
// body cannot hold a call, even under context.Background(); a call with
// retries takes at most about (retries+1) times d plus the waits. For a
// stream it covers the headers (and an error answer's body) only: a stream
// that has started lives on; bound it with the context or
// WithStreamIdleTimeout.
func WithRequestTimeout(d time.Duration) RequestOption {
	return newRequestOption("WithRequestTimeout", func(c *config) error {
		if d < 0 {
			return fmt.Errorf("threads: WithRequestTimeout(%v): must not be negative", d)
		}
		c.requestTimeout = d
		return nil
	})
}

// WithAPIKeyHeader sends the key as "name: <key>" instead of
// "Authorization: Bearer <key>". Default: $THREADS_API_KEY_HEADER, else
// Bearer, as the spec says. The live service reads "x-api-key" and refuses
// a Bearer key with 403: with neither this option nor the variable set, a
// call refused as Bearer (401 or 403 in the framework's shape) before any
// call of the client got through is sent once more, to the same URL with
// the same body, with the key in x-api-key; once that answered 2xx the
// client sends x-api-key from then on (logged once at info) and never goes
// back to Bearer. Setting this option saves that refused call, and with it
// set the key is never sent another way. Passing "Authorization" sends the
// bare key in it. Headers the SDK sets itself (Content-Type, Content-Length, Host,
// Accept, Accept-Encoding, User-Agent, X-Retry-Count) are refused, from the
// option and from $THREADS_API_KEY_HEADER alike (NewClient fails).
func WithAPIKeyHeader(name string) RequestOption {
	return newRequestOption("WithAPIKeyHeader", func(c *config) error {
		return c.setKeyHeader("WithAPIKeyHeader", name)
	})
}

func (c *config) setKeyHeader(from, name string) error {
	if !validHeaderName(name) {
		return fmt.Errorf("threads: %s(%q): not a valid header name", from, name)
	}
	key := textproto.CanonicalMIMEHeaderKey(name)
	if key != "Authorization" && reservedHeader(key) {
		return fmt.Errorf("threads: %s(%q): the SDK sets this header itself", from, name)
	}
	c.apiKeyHeader, c.apiKeyHeaderSet = key, true
	return nil
}

// WithHeader adds a header to every request (on [NewClient]) or to one call.
// The headers the SDK sets itself (Authorization, Content-Type,
// Content-Length, Host, Transfer-Encoding, Accept, Accept-Encoding,
// User-Agent, X-Retry-Count) are refused;
// use [WithAPIKey] for credentials and [WithUserAgent] to name your program.
func WithHeader(name, value string) RequestOption {
	return newRequestOption("WithHeader", func(c *config) error {
		if !validHeaderName(name) {
			return fmt.Errorf("threads: WithHeader(%q): not a valid header name", name)
		}
		if !validHeaderValue(value) {
			return fmt.Errorf("threads: WithHeader(%q): the value contains characters a header cannot carry", name)
		}
		key := textproto.CanonicalMIMEHeaderKey(name)
		if reservedHeader(key) {
			return fmt.Errorf("threads: WithHeader(%q): the SDK sets this header itself", name)
		}
		c.headers = c.headers.Clone()
		if c.headers == nil {
			c.headers = make(http.Header)
		}
		c.headers.Add(key, value)
		return nil
	})
}

// WithRouteTemplate names the route of a [Client.Do] call (or
// runs.Client.Do) for the observer (the span's name: [CallInfo].Route)
// and the log, as a typed method's route is named: "GET
// /v1/threads/{id}/usage" or "/v1/threads/{id}/usage". Without it, Do
// names a route the SDK does not model by its path with each segment that
// looks like an id (thr_…, run_…, msg_…, or the service's
// "prefix_name.hex" shape) as {id}, so that one route is one name, not one
// per thread. A method in t other than the call's is an error; the
// template must start with "/" and hold no query. It changes no typed
// method's name: they keep their templates.
func WithRouteTemplate(t string) RequestOption {
	return newRequestOption("WithRouteTemplate", func(c *config) error {
		p := t
		if m, rest, ok := strings.Cut(t, " "); ok {
			if !httpMethodName(m) {
				return fmt.Errorf("threads: WithRouteTemplate(%.80q): want \"METHOD /path\" or \"/path\"", t)
			}
			c.routeMethod, p = m, rest
		} else {
			c.routeMethod = ""
		}
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?# \t\r\n") || len(p) > 512 {
			return fmt.Errorf("threads: WithRouteTemplate(%.80q): want a path template that starts with / and holds no query", t)
		}
		c.routeTemplate = p
		return nil
	})
}

func httpMethodName(m string) bool {
	if m == "" || len(m) > 16 {
		return false
	}
	for _, r := range m {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// WithUserAgent puts ua in front of the SDK's own User-Agent.
func WithUserAgent(ua string) RequestOption {
	return newRequestOption("WithUserAgent", func(c *config) error {
		if !validHeaderValue(ua) {
			return errors.New("threads: WithUserAgent: the value contains characters a header cannot carry")
		}
		c.userAgent = ua
		return nil
	})
}

// WithQuery adds a query parameter to the request, for parameters the SDK
// does not model (for a thread's context key use [WithContextKey]). Given
// to [NewClient] it is added to every request. The value is logged redacted when the name contains "key",
// "token" or "secret".
func WithQuery(name, value string) RequestOption {
	return newRequestOption("WithQuery", func(c *config) error {
		if name == "" {
			return errors.New("threads: WithQuery: empty parameter name")
		}
		q := make(url.Values, len(c.query)+1)
		for k, vs := range c.query {
			q[k] = append([]string(nil), vs...)
		}
		q.Add(name, value)
		c.query = q
		return nil
	})
}

// WithContextKey sends key as the call's contextKey query parameter, for
// the calls on one thread that take it (Get, GenerateName): the live
// service then answers 404 ([ErrNotFound]) when key is not the thread's;
// without it, Get returns any thread of the project. An empty key is
// refused. It replaces a contextKey given earlier (also through
// [WithQuery]). Calls that take a context key in their params (List,
// Create, the advances) send that one in their own place.
func WithContextKey(key string) RequestOption {
	return newRequestOption("WithContextKey", func(c *config) error {
		if key == "" {
			return errors.New("threads: WithContextKey: empty key")
		}
		q := make(url.Values, len(c.query)+1)
		for k, vs := range c.query {
			q[k] = append([]string(nil), vs...)
		}
		q.Set("contextKey", key)
		c.query = q
		return nil
	})
}

// WithLogger makes the client log through l: one debug line per attempt, a
// warning per endpoint move, an info line when the client settles on the
// x-api-key header or on listing per project (once each), and an error,
// with its stack, for a tool that panicked (the model reads an error
// result). Credentials are never logged. Default: no logging at all.
func WithLogger(l *slog.Logger) RequestOption {
	return newRequestOption("WithLogger", func(c *config) error {
		c.logger = l
		return nil
	})
}

// WithMaxEventSize caps the size of one stream event (default 16 MiB). A
// larger event ends the stream with [ErrEventTooLarge] instead of growing
// memory without bound. It also bounds what one event may decode into:
// four times n (64 MiB by default), estimated from the event's JSON before
// decoding, so an event of many tiny values (a 15 MB "[{},{},...]" would
// take about 900 MiB) ends the stream with [ErrEventTooLarge] too.
func WithMaxEventSize(n int) RequestOption {
	return newRequestOption("WithMaxEventSize", func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("threads: WithMaxEventSize(%d): must be positive", n)
		}
		c.maxEventSize = n
		return nil
	})
}

// WithMaxResponseSize bounds the memory a JSON answer may take (default
// 32 MiB, far above any thread the service stores: its request limit is
// 10 MB). n caps the body in bytes, counted after decompression, so a small
// gzip body cannot inflate past it; and the values decoded from it are
// bounded to about 4n bytes (128 MiB by default): before decoding, a body
// is refused when its structure would need more, counting each JSON object
// or array as 512 bytes and each other member or element as 32 bytes (a list
// of empty objects, "[{},{},...]", is 3 bytes per Go struct). Either way
// the call fails with ErrUnexpectedResponse and nothing is decoded. Raise n
// for a thread whose answer is larger or unusually dense.
func WithMaxResponseSize(n int) RequestOption {
	return newRequestOption("WithMaxResponseSize", func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("threads: WithMaxResponseSize(%d): must be positive", n)
		}
		c.maxResponseSize = n
		return nil
	})
}

// WithStreamIdleTimeout ends a stream with [ErrStreamIdle] when Next (or
// All) has waited d for an event (default 0: off). Time the caller spends
// between events does not count. The live service sends no heartbeats, so
// choose d longer than the slowest tool call.
func WithStreamIdleTimeout(d time.Duration) RequestOption {
	return newRequestOption("WithStreamIdleTimeout", func(c *config) error {
		if d < 0 {
			return fmt.Errorf("threads: WithStreamIdleTimeout(%v): must not be negative", d)
		}
		c.idleTimeout = d
		return nil
	})
}

// WithoutAutoMigrate turns off the following of 410 ENDPOINT_DEPRECATED
// advice: the 410 is returned as a [*Problem] whose Deprecation method reports
// the resolved replacement.
func WithoutAutoMigrate() RequestOption {
	return newRequestOption("WithoutAutoMigrate", func(c *config) error {
		c.noAutoMigrate = true
		return nil
	})
}

// WithDeprecationHandler calls fn once per endpoint move per client, the
// first time the service's 410 advice is followed. fn runs on the calling
// goroutine and must not block for long; it may be called from several
// goroutines at once, for different moves.
func WithDeprecationHandler(fn func(Deprecation)) ClientOption {
	return newClientOption("WithDeprecationHandler", func(c *config) error {
		c.onDeprecation = fn
		return nil
	})
}

// WithoutEnvironmentDefaults makes [NewClient] ignore $THREADS_API_KEY,
// $THREADS_BASE_URL and $THREADS_API_KEY_HEADER.
func WithoutEnvironmentDefaults() ClientOption {
	return newClientOption("WithoutEnvironmentDefaults", func(c *config) error {
		c.noEnv = true
		return nil
	})
}

// fromEnvironment fills what the options left unset.
func (c *config) fromEnvironment() error {
	if c.noEnv {
		return nil
	}
	if !c.apiKeySet {
		c.apiKey = newSecret(strings.TrimSpace(os.Getenv(EnvAPIKey)))
	}
	if !c.baseURLSet {
		c.baseURL = strings.TrimSpace(os.Getenv(EnvBaseURL))
	}
	if h := strings.TrimSpace(os.Getenv(EnvAPIKeyHeader)); h != "" && !c.apiKeyHeaderSet {
		if err := c.setKeyHeader("$"+EnvAPIKeyHeader, h); err != nil {
			return err
		}
	}
	return nil
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 || c == 0x7f {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be sent as a header value: no
// control characters but tab.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// reservedHeader reports whether the SDK (or its transport) sets the
// canonical header key itself, so that [WithHeader] and [WithAPIKeyHeader]
// must not: X-Retry-Count numbers the retries (a key sent in it was
// overwritten by each retry), and an Accept-Encoding the caller set would
// stop the transport from decompressing the answers it asked for.
func reservedHeader(key string) bool {
	switch key {
	case "Authorization", "Content-Type", "Content-Length", "Host", "Transfer-Encoding", "Accept", "User-Agent",
		"X-Retry-Count", "Accept-Encoding":
		return true
	}
	return false
}
