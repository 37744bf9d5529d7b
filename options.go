package threads

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"time"
)

// Environment variables read by NewClient unless WithoutEnvironmentDefaults
// is given. Options always win over the environment.
const (
	EnvAPIKey  = "THREADS_API_KEY"
	EnvBaseURL = "THREADS_BASE_URL"
)

// Defaults used when no option says otherwise.
const (
	DefaultMaxRetries     = 2
	DefaultRetryWaitMin   = 500 * time.Millisecond
	DefaultRetryWaitMax   = 8 * time.Second
	DefaultRequestTimeout = 60 * time.Second
	DefaultMaxEventSize   = 16 << 20
)

// An Option configures a Client (given to NewClient) or a single call (given
// to a method). Options that only make sense for the whole client, such as
// WithBaseURL or WithHTTPClient, make a call fail with a clear error when
// given to a method.
type Option struct {
	name       string
	clientOnly bool
	apply      func(*config) error
}

// config is everything the options set. A Client keeps one; a call with
// options works on a copy.
type config struct {
	apiKey         secret
	apiKeySet      bool
	baseURL        string
	baseURLSet     bool
	httpClient     *http.Client
	maxRetries     int
	retryWaitMin   time.Duration
	retryWaitMax   time.Duration
	requestTimeout time.Duration
	apiKeyHeader   string // canonical header name; "" means Authorization: Bearer
	headers        http.Header
	userAgent      string
	logger         *slog.Logger
	maxEventSize   int
	idleTimeout    time.Duration
	noAutoMigrate  bool
	onDeprecation  func(Deprecation)
	noEnv          bool
}

func defaultConfig() config {
	return config{
		maxRetries:     DefaultMaxRetries,
		retryWaitMin:   DefaultRetryWaitMin,
		retryWaitMax:   DefaultRetryWaitMax,
		requestTimeout: DefaultRequestTimeout,
		maxEventSize:   DefaultMaxEventSize,
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

// String hides the key from fmt.
func (s secret) String() string { return redacted }

// String names the option without its value (which may be a secret).
func (o Option) String() string { return "threads." + o.name }

// GoString is String, for %#v.
func (o Option) GoString() string { return o.String() }

func clientOption(name string, apply func(*config) error) Option {
	return Option{name: name, clientOnly: true, apply: apply}
}

func callOption(name string, apply func(*config) error) Option {
	return Option{name: name, apply: apply}
}

// apply runs opts over c. perCall reports options that only work on NewClient.
func (c *config) apply(opts []Option, perCall bool) error {
	for _, o := range opts {
		if o.apply == nil {
			return errors.New("threads: zero Option value; use the With... functions")
		}
		if perCall && o.clientOnly {
			return fmt.Errorf("threads: %s applies to NewClient only, not to a single call", o.name)
		}
		if err := o.apply(c); err != nil {
			return err
		}
	}
	return nil
}

// WithAPIKey sets the API key. Default: $THREADS_API_KEY. The key is sent
// only to the base URL's host, as "Authorization: Bearer <key>" unless
// WithAPIKeyHeader says otherwise.
func WithAPIKey(key string) Option {
	return callOption("WithAPIKey", func(c *config) error {
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
func WithBaseURL(rawURL string) Option {
	return clientOption("WithBaseURL", func(c *config) error {
		c.baseURL, c.baseURLSet = rawURL, true
		return nil
	})
}

// WithHTTPClient makes the client send every request with hc. The SDK adds
// its per-attempt timeout and redirect policy around hc's Transport and
// CheckRedirect without changing hc. Note that hc.Timeout, when set, bounds
// whole calls including stream bodies; leave it zero and use contexts.
func WithHTTPClient(hc *http.Client) Option {
	return clientOption("WithHTTPClient", func(c *config) error {
		if hc == nil {
			return errors.New("threads: WithHTTPClient: nil *http.Client")
		}
		c.httpClient = hc
		return nil
	})
}

// WithMaxRetries sets how many times a failed attempt is retried (default 2;
// 0 turns retries off). See the package documentation for what is retried.
func WithMaxRetries(n int) Option {
	return callOption("WithMaxRetries", func(c *config) error {
		if n < 0 {
			return fmt.Errorf("threads: WithMaxRetries(%d): must not be negative", n)
		}
		c.maxRetries = n
		return nil
	})
}

// WithRetryWait sets the backoff range between attempts (default 500ms to
// 8s). max also caps the waits that Retry-After and Retry-After-Ms ask for.
func WithRetryWait(min, max time.Duration) Option {
	return callOption("WithRetryWait", func(c *config) error {
		if min < 0 || max < min {
			return fmt.Errorf("threads: WithRetryWait(%v, %v): need 0 <= min <= max", min, max)
		}
		c.retryWaitMin, c.retryWaitMax = min, max
		return nil
	})
}

// WithRequestTimeout bounds each attempt until its response headers arrive
// (default 60s; 0 means no bound). It never cuts a body that has started, so
// a stream lives on; bound whole calls with the context.
func WithRequestTimeout(d time.Duration) Option {
	return callOption("WithRequestTimeout", func(c *config) error {
		if d < 0 {
			return fmt.Errorf("threads: WithRequestTimeout(%v): must not be negative", d)
		}
		c.requestTimeout = d
		return nil
	})
}

// WithAPIKeyHeader sends the key as "name: <key>" instead of
// "Authorization: Bearer <key>". The live service reads x-api-key.
func WithAPIKeyHeader(name string) Option {
	return callOption("WithAPIKeyHeader", func(c *config) error {
		if !validHeaderName(name) {
			return fmt.Errorf("threads: WithAPIKeyHeader(%q): not a valid header name", name)
		}
		c.apiKeyHeader = textproto.CanonicalMIMEHeaderKey(name)
		return nil
	})
}

// reservedHeaders are set by the SDK itself.
var reservedHeaders = map[string]bool{"Authorization": true, "Content-Type": true, "Content-Length": true, "Host": true}

// WithHeader adds a header to every request (on NewClient) or to one call.
// Authorization, Content-Type, Content-Length and Host are the SDK's own and
// are refused; use WithAPIKey for credentials.
func WithHeader(name, value string) Option {
	return callOption("WithHeader", func(c *config) error {
		if !validHeaderName(name) {
			return fmt.Errorf("threads: WithHeader(%q): not a valid header name", name)
		}
		if !validHeaderValue(value) {
			return fmt.Errorf("threads: WithHeader(%q): the value contains characters a header cannot carry", name)
		}
		key := textproto.CanonicalMIMEHeaderKey(name)
		if reservedHeaders[key] {
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

// WithUserAgent puts ua in front of the SDK's own User-Agent.
func WithUserAgent(ua string) Option {
	return callOption("WithUserAgent", func(c *config) error {
		if !validHeaderValue(ua) {
			return errors.New("threads: WithUserAgent: the value contains characters a header cannot carry")
		}
		c.userAgent = ua
		return nil
	})
}

// WithLogger makes the client log through l: one debug line per attempt and
// a warning per endpoint move. Credentials are never logged. Default: no
// logging at all.
func WithLogger(l *slog.Logger) Option {
	return callOption("WithLogger", func(c *config) error {
		c.logger = l
		return nil
	})
}

// WithMaxEventSize caps the size of one stream event (default 16 MiB). A
// larger event ends the stream with ErrEventTooLarge instead of growing
// memory without bound.
func WithMaxEventSize(n int) Option {
	return callOption("WithMaxEventSize", func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("threads: WithMaxEventSize(%d): must be positive", n)
		}
		c.maxEventSize = n
		return nil
	})
}

// WithStreamIdleTimeout ends a stream with ErrStreamIdle when Next (or
// All) has waited d for an event (default 0: off). Time the caller spends
// between events does not count. The live service sends no heartbeats, so
// choose d longer than the slowest tool call.
func WithStreamIdleTimeout(d time.Duration) Option {
	return callOption("WithStreamIdleTimeout", func(c *config) error {
		if d < 0 {
			return fmt.Errorf("threads: WithStreamIdleTimeout(%v): must not be negative", d)
		}
		c.idleTimeout = d
		return nil
	})
}

// WithoutAutoMigrate turns off the following of 410 ENDPOINT_DEPRECATED
// advice: the 410 is returned as a *Problem whose Deprecation method reports
// the resolved replacement.
func WithoutAutoMigrate() Option {
	return callOption("WithoutAutoMigrate", func(c *config) error {
		c.noAutoMigrate = true
		return nil
	})
}

// WithDeprecationHandler calls fn once per endpoint move per client, the
// first time the service's 410 advice is followed. fn runs on the calling
// goroutine and must not block for long.
func WithDeprecationHandler(fn func(Deprecation)) Option {
	return clientOption("WithDeprecationHandler", func(c *config) error {
		c.onDeprecation = fn
		return nil
	})
}

// WithoutEnvironmentDefaults makes NewClient ignore THREADS_API_KEY and
// THREADS_BASE_URL.
func WithoutEnvironmentDefaults() Option {
	return clientOption("WithoutEnvironmentDefaults", func(c *config) error {
		c.noEnv = true
		return nil
	})
}

// fromEnvironment fills what the options left unset.
func (c *config) fromEnvironment() {
	if c.noEnv {
		return
	}
	if !c.apiKeySet {
		c.apiKey = newSecret(os.Getenv(EnvAPIKey))
	}
	if !c.baseURLSet {
		c.baseURL = os.Getenv(EnvBaseURL)
	}
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
