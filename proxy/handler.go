package proxy

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/v1wire"
	"github.com/threadsapi/threads-go/runs"
)

// User is the end user a request acts for, as the backend decides it:
// exactly one of Key (a user key, as [runs.Client.ForUser] takes) and
// Token (an end-user token, as [runs.Client.ForToken] takes: one the
// backend got with [runs.Client.ExchangeToken]). The service sees only
// that credential.
//
// ID, optional, is the backend's own stable name for the person. It is
// never sent to the service; the Handler keeps the user's state under it
// (run slots, pending results, detached runs' logs, cancels, parked
// calls, tool-call records) instead of under the key or token. Two
// requests with the same ID share that state and slots, so it must name
// one person. For a token user it keeps their runs, results and slots
// across token renewals; without it, a renewed token is another user to
// the Handler. Empty: the key or token is the scope.
type User struct {
	Key   string
	Token threads.Token
	ID    string
}

// userKey is the context key of a run's [User] (UserFrom).
type userKey struct{}

// UserFrom returns the end user of the run that ctx serves, and true, in
// a server-side tool ([WithTools]) that the [Handler] runs: the user the
// backend's user function returned for the request that started the
// run, whose thread the tool's call came from. It belongs to the run,
// not to an HTTP request: it is the same wherever and whenever the run's
// tools are called. False for a context of no Handler's run.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// withRunUser returns ctx carrying the run's user for UserFrom. Every
// context a run's server-side tools get (the request's, a detached
// run's, an approval's) is made with it, or derived from one that was.
func withRunUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// id is the user as the handler counts runs and keys its store (only
// through userScope): the backend's ID, else the key, else a hash of
// the token (never the token itself). The prefixes keep an ID from
// meeting a key of the same text.
func (u User) id() string {
	switch {
	case u.ID != "":
		return "id:" + u.ID
	case u.Key != "":
		return "key:" + u.Key
	}
	sum := sha256.Sum256([]byte(u.Token.Reveal()))
	return "token:" + hex.EncodeToString(sum[:])
}

// Handler serves the /v1 routes that the service's official web clients
// call (@tambo-ai/typescript-sdk, @tambo-ai/client and the React library
// on it), in front of the service: point their base URL at it and they
// work unchanged, while the project key stays on the server and the end
// user is the backend's decision. Make one with [New]; it is safe for
// concurrent use.
//
// Each request goes on through the backend's *threads.Client as the end
// user the backend's user function returns: the browser's userKey and
// credentials are never used, only allow-listed routes are served, bodies
// are bounded JSON (the package doc's "The Handler's routes"). Answers
// are the service's, secrets redacted ("Answers"); the backend adds its
// session check and CSRF protection ("Safe in front of browsers").
//
// It expects the /v1 paths at its root: mount it with [http.StripPrefix]
// under a prefix, and give the web client that prefix as its base URL.
type Handler struct {
	base      *runs.Client
	user      func(*http.Request) (User, error)
	cfg       config
	server    map[string]bool // the server-side tools' names (WithTools)
	approvals *approvals      // nil without WithApprovals
	log       *slog.Logger
	// instance names this Handler's leases in the store (random, so
	// that instances sharing a store never take each other's).
	instance string
	leases   atomic.Uint64
	life     lifecycle
	// flushWarn: a writer that cannot flush is logged once.
	flushWarn sync.Once
	// readers: each user's streams served from run logs (resumes bounded).
	readers readerCounts
}

// DefaultMaxBodySize is the bound on a browser's request body when
// [WithMaxBodySize] is not given: 1 MiB; a larger body is answered 413.
const DefaultMaxBodySize = 1 << 20

// New returns a Handler that sends the browser's calls through client as
// the end user that user returns for each request. user decides who the
// request's end user is from what the backend knows (its session cookie,
// a header its auth middleware checked); an error refuses the request
// with 401 and nothing is sent. It must return exactly one of a key and a
// token (else 500, logged). New fails for a nil client or user, a client
// not made by [threads.NewClient], and an invalid option or tool.
func New(client *threads.Client, user func(r *http.Request) (User, error), opts ...Option) (*Handler, error) {
	if client == nil {
		return nil, errors.New("proxy: New: the *threads.Client is nil")
	}
	if user == nil {
		return nil, errors.New("proxy: New: the user function is nil")
	}
	h := &Handler{base: runs.New(client), user: user, server: map[string]bool{}}
	// A client not made by threads.NewClient cannot send: Do says so
	// before anything else, and a usable client without an end user is
	// refused before sending (runs.ErrIdentity). Nothing is sent either way.
	if err := h.base.Do(context.Background(), http.MethodGet, v1wire.ListThreads.Template, nil, nil); !errors.Is(err, runs.ErrIdentity) {
		return nil, fmt.Errorf("proxy: New: %w", err)
	}
	h.cfg = config{
		keepAlive: DefaultKeepAlive, writeTimeout: DefaultWriteTimeout,
		maxBody: DefaultMaxBodySize, pendingTTL: DefaultPendingTTL,
		keyPrefix: DefaultStoreKeyPrefix, leaseTTL: DefaultLeaseTTL,
	}
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("proxy: New: a nil Option")
		}
		o.apply(&h.cfg)
	}
	if h.cfg.err != nil {
		return nil, h.cfg.err
	}
	if h.cfg.detached != nil {
		return nil, errors.New("proxy: New: Handler.Detach's option is for Relay, not New")
	}
	// The tool runner checks the tools as RunTools does (an answer to no
	// call runs nothing).
	if len(h.cfg.tools) > 0 {
		if _, err := h.base.AnswerTools(context.Background(), "", "", runs.ToolRunner{Tools: h.cfg.tools}, nil); err != nil {
			return nil, fmt.Errorf("proxy: New: %w", err)
		}
		for _, t := range h.cfg.tools {
			h.server[t.Name] = true
		}
	}
	a, tools, err := newApprovals(h.cfg.approvals, h.cfg.tools)
	if err != nil {
		return nil, err
	}
	h.cfg.tools = tools
	if a != nil && h.cfg.detach == 0 {
		return nil, errors.New("proxy: New: WithApprovals needs WithDetachedRuns (a decision continues the run into its log)")
	}
	h.approvals = a
	if h.cfg.store == nil {
		h.cfg.store = NewMemoryStore(0, 0)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	h.instance = hex.EncodeToString(id[:])
	h.life.init()
	h.log = h.cfg.logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h, nil
}

// WithTools offers tools, which run in the backend, to the model on every
// run, beside the tools the browser offers (a browser tool of the same
// name is dropped: the server's wins). They are [threads.Tool] values, as
// [runs.ToolRunner] runs them ([threads.NewTool], [threads.NewJSONTool],
// [threads.NewPartsTool], an MCP server's tools). A pause only for them is
// answered in the same response; a pause that mixes both hands the browser
// its own calls, and the server's results wait in the [Store] for the
// browser's continuation. [UserFrom] tells a tool whose run it serves; a
// failing tool is an error result the model reads. Each call the runner
// makes is recorded in the Store (threads.ToolGuards.Calls): once per call
// across instances; a store that cannot record it refuses the call. How
// pauses, lost results and bounds are handled: the package doc's
// "Server-side tools".
func WithTools(tools ...threads.Tool) Option {
	return option(func(c *config) { c.tools = append(c.tools, tools...) })
}

// WithMaxBodySize bounds the browser's request bodies
// ([DefaultMaxBodySize]); a larger one is answered 413 and nothing is
// sent.
func WithMaxBodySize(n int64) Option {
	return option(func(c *config) {
		if n <= 0 {
			c.fail(fmt.Errorf("proxy: WithMaxBodySize(%d): want a positive size", n))
			return
		}
		c.maxBody = n
	})
}

// WithMaxRunsPerUser bounds how many runs one end user may have streaming
// through the Handler at once (0, the default: no bound). A run over the
// bound is answered 429 and nothing is sent. Each run holds one of its
// user's slots, a lease in the [Store] ([WithStore]) renewed while the
// run goes on: instances that share a store share the bound, and the
// slots of an instance that died come back once their leases lapse
// ([WithLeaseTTL]). A store that cannot answer refuses the run (503),
// unless [WithRunSlotsOpenOnStoreError]. Under [WithDetachedRuns] a
// user's pages reading run logs on an instance are bounded to 2n.
func WithMaxRunsPerUser(n int) Option {
	return option(func(c *config) {
		if n < 0 {
			c.fail(fmt.Errorf("proxy: WithMaxRunsPerUser(%d): want 0 (no bound) or more", n))
			return
		}
		c.maxRuns = n
	})
}

// WithPendingTTL sets how long server-side results wait for the browser
// ([DefaultPendingTTL]).
func WithPendingTTL(d time.Duration) Option {
	return option(func(c *config) {
		if d <= 0 {
			c.fail(fmt.Errorf("proxy: WithPendingTTL(%v): want a positive duration", d))
			return
		}
		c.pendingTTL = d
	})
}

// WithLogger sets where the Handler logs: failures of the service or of
// the backend (warn and error), and at debug level each request that the
// browser ended (a closed tab is not a failure). Default: no logging. The
// client's own lines are [threads.WithLogger]'s.
func WithLogger(l *slog.Logger) Option {
	return option(func(c *config) { c.logger = l })
}

// WithRequestOptions adds per-call options to every call the Handler
// sends ([threads.WithRequestTimeout], [threads.WithStreamIdleTimeout],
// [threads.WithHeader]...), after the client's own.
func WithRequestOptions(opts ...threads.RequestOption) Option {
	return option(func(c *config) { c.callOpts = append(c.callOpts, opts...) })
}

// ServeHTTP serves one /v1 call of the browser.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, rr, status, allow := match(r)
	switch status {
	case 0:
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", allow)
		writeError(w, status, "Method Not Allowed")
		return
	case http.StatusNotFound:
		writeError(w, status, "Cannot "+cut(r.Method, 16)+" "+cut(r.URL.EscapedPath(), 200))
		return
	default:
		writeError(w, status, "The path is not a /v1 route")
		return
	}
	if (r.Method == http.MethodPost || r.Method == http.MethodPatch) && !isJSON(r.Header.Get("Content-Type")) {
		// A browser sends text/plain, form or multipart bodies to another
		// site without asking it first (a "simple" request, cookies
		// included); a JSON body it sends only after a CORS preflight.
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	u, err := h.user(r)
	if err != nil {
		h.log.DebugContext(r.Context(), "proxy: the user function refused a request", "error", err)
		writeError(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	var c *runs.Client
	switch {
	case u.Key != "" && u.Token.IsZero():
		c = h.base.ForUser(u.Key)
	case u.Key == "" && !u.Token.IsZero():
		c = h.base.ForToken(u.Token)
	default:
		h.log.ErrorContext(r.Context(), "proxy: the user function returned no end user, or both a key and a token; want exactly one")
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	call := &request{h: h, w: w, r: r, c: c, user: u, route: rr}
	switch {
	case rt == v1wire.RunEvents:
		call.resume()
	case rt == v1wire.Cancel && h.cfg.detach > 0:
		call.cancel()
	case rt.Stream:
		call.run(rt == v1wire.CreateAndRun)
	default:
		call.forward(rt)
	}
}

// isJSON reports whether a Content-Type names JSON: application/json or
// application/*+json, whatever its parameters (charset).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && (sub == "json" || strings.HasSuffix(sub, "+json"))
}

// jsonAnswer reports whether the Content-Type of a service's answer
// names JSON (application/json or application/*+json). Only the media
// type counts: its parameters may hold a redacted secret, which no longer
// parses.
func jsonAnswer(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	sub, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(mt)), "application/")
	return ok && (sub == "json" || strings.HasSuffix(sub, "+json"))
}

// request is one browser call being served.
type request struct {
	h     *Handler
	w     http.ResponseWriter
	r     *http.Request
	c     *runs.Client
	user  User
	route route.Route // the route, with the path's values
}

// forward serves a JSON route: it sends the browser's call, with only
// what the route takes, as the backend's user, and passes the service's
// answer on.
func (q *request) forward(rt v1wire.Route) {
	query := url.Values{}
	for _, name := range rt.Params() {
		v := q.r.URL.Query().Get(name)
		if v == "" {
			continue
		}
		if name == "limit" {
			var n int
			if !q.query(name, &n) {
				return
			}
		}
		query.Set(name, v)
	}
	var body []byte
	if in := bodyOf(rt); in != nil {
		if !q.body(in) {
			return
		}
		in.WithoutUser()
		var err error
		if body, err = json.Marshal(in); err != nil {
			q.h.log.ErrorContext(q.r.Context(), "proxy: cannot encode a request body", "error", err)
			writeError(q.w, http.StatusInternalServerError, "Internal server error")
			return
		}
	}
	path, err := q.route.Path()
	if err != nil { // not reached: match filled every value
		writeError(q.w, http.StatusBadRequest, "The path is not a /v1 route")
		return
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	var resp runs.Response
	if err := q.c.Do(q.r.Context(), rt.Method, path, body, &resp, q.h.cfg.callOpts...); err != nil {
		q.h.fail(q.w, q.r, err)
		return
	}
	q.pass(resp)
}

// bodyOf returns what the body of rt is read into (nil: the route takes
// none): internal/v1wire's type, the one that runs sends from, so that a
// member the route takes is taken here with no edit of the proxy's.
func bodyOf(rt v1wire.Route) v1wire.Body {
	switch rt {
	case v1wire.CreateThread:
		return new(v1wire.CreateThreadBody[runs.InitialMessage])
	case v1wire.UpdateThread:
		return new(v1wire.UpdateThreadBody)
	case v1wire.GenerateSuggestions:
		return new(v1wire.SuggestionsBody[runs.AvailableComponent])
	case v1wire.ComponentState:
		return new(v1wire.ComponentStateBody[runs.PatchOp])
	}
	return nil
}

// pass writes a 2xx answer of the service to the browser: its status and
// its bytes (secrets redacted by the request core), with the Handler's
// own Content-Type and nosniff. An answer that is not JSON is not passed
// on (502).
func (q *request) pass(resp runs.Response) {
	if resp.Status == http.StatusNoContent || (len(resp.Body) == 0 && resp.Status != http.StatusOK) {
		setHeaders(q.w.Header(), "")
		q.w.WriteHeader(resp.Status)
		return
	}
	if !jsonAnswer(resp.Header.Get("Content-Type")) || !jsontext.Value(resp.Body).IsValid() {
		// Not JSON, or JSON no longer once a secret that spells JSON
		// punctuation was redacted: not the browser's to read.
		q.h.log.ErrorContext(q.r.Context(), "proxy: the service's answer is not JSON", "path", q.r.URL.Path, "status", resp.Status)
		writeError(q.w, http.StatusBadGateway, "The service's answer is not JSON")
		return
	}
	writeJSON(q.w, resp.Status, resp.Body)
}

// query reads an integer query parameter into dst; false (answered 400)
// when it is not one.
func (q *request) query(name string, dst *int) bool {
	v := q.r.URL.Query().Get(name)
	if v == "" {
		return true
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		writeError(q.w, http.StatusBadRequest, name+" must be an integer number")
		return false
	}
	*dst = n
	return true
}

// body decodes the browser's JSON body into dst, bounded; false when it
// was answered (413, 400).
func (q *request) body(dst any) bool {
	r := http.MaxBytesReader(q.w, q.r.Body, q.h.cfg.maxBody)
	err := json.UnmarshalRead(r, dst)
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(q.w, http.StatusRequestEntityTooLarge, "request entity too large")
		return false
	}
	if q.r.Context().Err() != nil {
		return false // the browser left while sending
	}
	writeError(q.w, http.StatusBadRequest, "The body is not the JSON this route takes: "+cut(jsonErr(err), 200))
	return false
}

// jsonErr words a decoding error without the value that failed (which
// the browser sent and could hold anything).
func jsonErr(err error) string {
	var se *json.SemanticError
	if errors.As(err, &se) {
		if p := se.JSONPointer; p != "" {
			return "a value of the wrong type at " + string(p)
		}
		return "a value of the wrong type"
	}
	return "malformed JSON"
}

// fail answers a call that failed before any answer was written: the
// service's refusal (its status and its JSON body, with the secrets
// redacted by the request core; Retry-After passed), the browser's own
// mistake that the SDK refused before sending (400), or the service
// unreachable, or answering what the Handler does not pass on (502: a
// redirect, a body that is not JSON, an error it cannot classify). A
// browser that left gets nothing and nothing is logged above debug level.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	ctx := r.Context()
	if leftErr(ctx, err) {
		h.log.DebugContext(ctx, "proxy: the browser left before the answer", "path", r.URL.Path)
		return
	}
	var p *threads.Problem
	switch {
	case errors.As(err, &p) && p.Status >= 400 && p.Status <= 599:
		if p.Status >= 500 {
			h.log.WarnContext(ctx, "proxy: the service failed", "path", r.URL.Path, "error", err)
		}
		if ra := p.Header.Get("Retry-After"); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		switch {
		case len(p.Body) == 0:
			writeError(w, p.Status, http.StatusText(p.Status))
		case !jsonAnswer(p.Header.Get("Content-Type")) || !jsontext.Value(p.Body).IsValid():
			// An HTML error page of a gateway before the service, say.
			w.Header().Del("Retry-After")
			h.log.ErrorContext(ctx, "proxy: the service's error answer is not JSON", "path", r.URL.Path, "status", p.Status)
			writeError(w, http.StatusBadGateway, "The service's answer is not JSON")
		default:
			writeJSON(w, p.Status, p.Body)
		}
	case errors.As(err, &p):
		// A redirect the client did not follow (another origin), or any
		// other status that is no answer of the service's.
		h.log.ErrorContext(ctx, "proxy: the service answered with a status the Handler does not pass on", "path", r.URL.Path, "status", p.Status)
		writeError(w, http.StatusBadGateway, "The service's answer cannot be passed on")
	case errors.Is(err, route.ErrInvalidID):
		// An id the browser sent that no request may carry.
		h.log.DebugContext(ctx, "proxy: a call refused before sending", "path", r.URL.Path, "error", err)
		writeError(w, http.StatusBadRequest, cut(err.Error(), 300))
	case errors.Is(err, runs.ErrIdentity):
		h.log.ErrorContext(ctx, "proxy: the user function returned an end user that no call may carry", "error", err)
		writeError(w, http.StatusInternalServerError, "Internal server error")
	case unreachable(err):
		h.log.ErrorContext(ctx, "proxy: the service could not be reached", "path", r.URL.Path, "error", err)
		writeError(w, http.StatusBadGateway, "Bad Gateway")
	default:
		h.log.ErrorContext(ctx, "proxy: a call failed", "path", r.URL.Path, "error", err)
		writeError(w, http.StatusBadGateway, "Bad Gateway")
	}
}

// unreachable reports an error of the way to the service, or of its
// answer, rather than of the browser's request.
func unreachable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, threads.ErrUnexpectedResponse) ||
		errors.Is(err, threads.ErrStreamFailed) || errors.Is(err, threads.ErrStreamTruncated) ||
		errors.Is(err, threads.ErrStreamIdle) || errors.Is(err, threads.ErrEventTooLarge) ||
		errors.Is(err, context.DeadlineExceeded)
}

// setHeaders sets what the Handler sets on every answer, whatever the
// service sent: the Content-Type (none for an answer without a body) and
// nosniff, so that no browser reads an answer as anything but what it
// says it is.
func setHeaders(h http.Header, contentType string) {
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("X-Content-Type-Options", "nosniff")
}

// writeJSON writes a JSON answer.
func writeJSON(w http.ResponseWriter, status int, b []byte) {
	setHeaders(w.Header(), "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError writes an error in the service's own default shape
// ({"message","error","statusCode"}), which the official clients read.
func writeError(w http.ResponseWriter, status int, message string) {
	b, _ := json.Marshal(struct {
		Message    string `json:"message"`
		Error      string `json:"error"`
		StatusCode int    `json:"statusCode"`
	}{message, http.StatusText(status), status})
	writeJSON(w, status, b)
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
