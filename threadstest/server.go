// Package threadstest runs an in-process fake of the Conversation Threads
// API for tests, the way net/http/httptest runs an HTTP server.
//
//	srv := threadstest.NewServer(t)          // closed when the test ends
//	client := srv.Client()                   // a *threads.Client for it
//
// The fake keeps threads and messages in memory and serves both API
// generations. On the spec's routes a streamed reply is deterministic:
// "You said: <your text>", or, when the request offers client tools, a
// call of the first tool with each parameter set to a value of its type
// (its first enum value; for a string, your text); a tool result is
// answered with "The tool returned: <result>". A [Script] shapes the next
// reply (several messages, scripted tool calls, the error line, a dropped
// connection, a pause). On /v1 a run's model answers alike ("The /v1
// API"), and a [RunScript] shapes the next run. A [Fault] replaces the
// answer to matching requests (statuses, Retry-After, resets, stalls).
// [Server.Requests] returns what the server received, so a test can
// assert on it.
//
// # Tests under testing/synctest
//
// A server made with [WithoutListener] opens no socket: [Server.Client]
// reaches it in memory through [Server.Transport]. Inside a synctest bubble
// its stream pacing, the client's timeouts and retry waits then run on the
// bubble's fake clock, so a test asserts on time exactly and waits for none:
//
//	synctest.Test(t, func(t *testing.T) {
//		srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithThrottle(time.Second))
//		client := srv.Client()
//		// ... a stream of n snapshots takes exactly (n-1)s of fake time
//	})
//
// # Live habits the fake copies
//
// Always: 201 on every POST; ids like thr_XXXXXXXX.xxxxxx; UTC timestamps
// with milliseconds; the list envelope {total, offset, limit, count, items},
// newest first, where no contextKey lists only the threads without one and
// limit=abc echoes "limit":null and applies no limit; GET
// /threads/project/{projectId} beside the spec's GET /threads (403 for
// another project); 403 {"message":"Forbidden resource",...} for an unknown
// thread id on GET /threads/{id}, /advance, /advancestream and /cancel; a 404
// problem for a contextKey mismatch on GET /threads/{id}; 400 for
// includeInternal=false; the framework error shape
// {"message","error","statusCode"} (message a list for validation errors);
// 410 ENDPOINT_DEPRECATED as application/json on both /advance routes, after
// the thread check; GET /projects with every field the live service sends;
// streams that answer 201 text/event-stream, open each message with a
// one-space placeholder, send the final text twice and then the closing
// snapshot, end with "data: DONE", and report
// any failure in-band as "error: Error in streaming response"; a bad
// messageToAppend, a tool message without tool_call_id, a contextKey
// mismatch or a thread already generating fail in-band; tool calls streamed
// with partial arguments in component.toolCallRequest and an empty
// component.toolCallId, then a final FETCHING_CONTEXT snapshot with
// toolCallRequest, tool_call_id and actionType "tool_call"; a message that
// only calls a tool keeps " " as its text; a tool reply's error copied onto
// the tool-call message; cancel answering the thread with its contextKey and
// marking the last assistant message isCancelled.
//
// The rest of the thread routes that the official client calls, with the
// same 403 for an unknown thread: PUT /threads/{id} (200; fields left out
// keep their values; a contextKey is accepted and not stored, as live;
// projectId required, another project's is 403; the answer is the stored
// row, with contextKey null when unset and the v1 columns runStatus "idle"
// and null); DELETE /threads/{id} (200, empty body); POST
// /threads/{id}/generate-name (201; the name is the first user message's
// text, clipped to 40 characters, or "New conversation"; a thread without
// messages is a 404 not-found problem, "No messages found for thread");
// GET and POST /threads/{id}/messages (200 the messages oldest first; 201
// the stored message, 400 with a message list for a bad role or content,
// 500 for a tool message without tool_call_id); DELETE
// /threads/{id}/messages/{messageId} (200, whether or not the message
// exists); GET .../messages/{messageId}/suggestions (200 the stored ones;
// 404 SUGGESTION_NOT_FOUND before any were generated; 400
// INVALID_SUGGESTION_REQUEST for an unknown message; both problems sent as
// application/json); POST .../messages/{messageId}/suggestions (201 new
// ones, maxSuggestions of them, default 3, 1 to 10 or 400, titled "Tell me
// more", "Give an example", "Summarize this", ... in that order, each
// detailed as "<title> (re: <message text>)"; 500
// SUGGESTION_GENERATION_FAILED for an unknown message); PUT
// .../messages/{messageId}/component-state (200 the message with its new
// state; 400 unless state is an object; 500 Internal server error for an
// unknown message).
//
// With [WithAPIKeyHeader] (any header but Authorization) the key check is
// the live guards': a missing or wrong key is 403 Forbidden resource, and an
// Authorization header beside the key is 401 ("Invalid bearer token", or
// "Invalid Authorization header format" when it is not a Bearer). Without
// it, the fake follows the spec: "Authorization: Bearer <key>", and a
// missing or wrong key is 401.
//
// [WithLiveHabits] turns on the rest of what the live deployment does and
// the spec does not say: the key in x-api-key only, no GET /threads (404
// "Cannot GET /threads"), 500 when cancelling a thread without messages
// (the thread is cancelled all the same), 500 when creating a thread in
// another project, a 50 ms pause between two streamed snapshots (by
// default the fake streams as fast as the client reads); on /v1, the
// service's own tool arguments in every tool call
// ([WithServiceToolArguments]), pages that start at their cursor's item
// ([WithOverlappingPages]: with limit=1 a listing never moves on), and,
// of several tool calls in one turn, only the last kept and read back
// ([WithLastToolCallOnly]); a run cancelled during streaming ends with
// RUN_ERROR CANCELLED, as the service ends it (captures 53, 57, 58;
// captures-turn4 22); a 500 for an unknown registry name, 200
// false for deleting an unknown API key, and 200 the project for deleting
// any provider key.
//
// # The /v1 API
//
// The fake serves the /v1 routes of package runs as the live service
// answers them, with or without [WithLiveHabits]: threads per end user,
// messages, component state, suggestions, the token exchange, and runs
// that stream AG-UI events (201 text/event-stream, X-Thread-Id and
// X-Run-Id, no DONE). The default model answers "You said: <text>", calls
// the first offered tool (the run pauses for its result, which the next run
// must send with previousRunId) and answers a tool result with "The tool
// said: <result>."; [Server.PushRunScript] scripts a run ([RunScript]):
// its text, client tool calls, a component and its final state, the
// model's reasoning under each set of event names the service and AG-UI
// use ([RunReasoning]), a parent message (tambo.message.parent), a
// failure, a pause or a cut. Tool results with text and resource parts
// are stored as sent ([RunContent]), and [WithExtraMembers] adds members
// the SDK does not model to every 2xx JSON answer, so that a client's
// handling of all of these can be tested offline.
// The recorded refusals are copied: 400 invalid_previous_run and
// invalid_tool_result, 409 concurrent_run naming the active run, a
// failure's RUN_ERROR sent twice, a cancel by DELETE (200, then 404) or by
// disconnect ending the run with one RUN_ERROR CANCELLED and no
// TEXT_MESSAGE_END (see [RunScript].CancelEnd for the RUN_FINISHED the
// service also sends), a failed JSON Patch's multi-line detail. The token
// exchange follows the project's OAuth validation mode
// ([WithOAuthValidation]). Runs are paced like streams: not at all by
// default, 50ms per event with the live habits.
//
// # The default /v1 model
//
// A run without a [RunScript] (or with the zero one) answers:
//
//   - a message with text and a request that offers tools: the model
//     calls the first tool, each property of its inputSchema set to a
//     value of its type (its first enum value; for a string, the user's
//     text), and the run pauses for its result (TOOL_CALL_START, ARGS and
//     END, then CUSTOM tambo.run.awaiting_input, then RUN_FINISHED);
//   - a message with tool results: the reply "The tool said: <result>."
//     (several results joined with "; "), a result being its text parts
//     (a resource part is stored, see [RunContent], but not quoted);
//   - otherwise the reply "You said: <the user's text>".
//
// # The rest of a project key's routes
//
// As the service's OpenAPI document describes them, and its captures where
// they exist: POST /storage/presign (201 an upload URL on the fake's own
// storage host, which refuses a request carrying the API key, and an
// attachment:// URI; [Server.Upload] returns what was uploaded; 503 with
// [WithoutStorage]), POST /audio/transcribe (201 plain text "transcript
// of <file name> (<n> bytes)"), GET /projects/{id} (403 for another
// project), GET /projects/{id}/api-keys and /provider-keys, DELETE
// /projects/{id}/api-key/{keyId} (200 true) and /provider-key/{keyId}
// (200 the project), one fake key of each kind, an unknown one 404
// (see the live habits), POST /auth/mcp/access-token (a 15-minute token;
// 400 "Context key is required for sessionless tokens …" without a
// threadId or contextKey, as the service answers for a project with MCP
// servers; {} with [WithoutMCPServers]), and GET /registry/{name}
// (message-thread-full and control-bar; 404 otherwise, see the live
// habits).
//
// # Safe for concurrent use
//
// Any number of clients may use one server at once, and leave a stream,
// cancel a run or read a thread at any moment: every answer built from
// what the server stores is encoded while its lock is held.
//
// # Not copied
//
// Bearer session tokens (JWTs) and token-required projects; system messages
// and custom instructions; the model behind generate-name and suggestions;
// the 402 free-tier limit; model retries and their
// seconds of silence; generation that goes on after the client disconnects;
// tool-call limits (toolCallCounts and maxCalls are recorded, not enforced);
// server-side and MCP tools; Helmet, CORS, ETag and Keep-Alive headers; key
// order in JSON bodies (compare JSON by value).
package threadstest

import (
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
)

// Server is a running fake service. Create one with [NewServer] in a test or
// [Start] elsewhere. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, such as http://127.0.0.1:41234, without a
	// trailing slash. Pass it to [threads.WithBaseURL], or use
	// [Server.Client].
	URL string
	// APIKey is the key the server accepts (set with [WithAPIKey]; default
	// "test-key").
	APIKey string
	// ProjectID is the project of the key: every thread belongs to it, a
	// create must name it, and GET /projects returns it.
	ProjectID string

	srv   *httptest.Server // nil with WithoutListener
	mem   memory           // the requests served by Transport
	conns atomic.Int64     // TCP connections accepted
	cfg   config

	mu          sync.Mutex
	rng         *rand.Rand
	threads     map[string]*thread
	order       []string // thread ids, oldest first
	faults      []*Fault
	scripts     []Script
	log         requestLog // what Requests returns (request.go)
	throttle    time.Duration
	migrateByID string
	migrateNew  string
	suggested   map[string][]suggestion // message id -> its suggestions
	toolCalls   int
	v1          v1Store    // the /v1 routes' state (v1.go)
	extra       extraStore // storage, keys, tokens (extra.go)
}

// config holds what the options set.
type config struct {
	key              string
	keyHeader        string // "" means Authorization: Bearer
	throttle         time.Duration
	noSpecList       bool
	cancelEmpty500   bool
	foreignCreate500 bool
	addr             string // WithAddr; "" means a free loopback port
	noListener       bool   // WithoutListener
	noMCP            bool   // WithoutMCPServers
	noStorage        bool   // WithoutStorage
	oauth            string // WithOAuthValidation
	serviceArgs      bool   // WithServiceToolArguments
	overlapPages     bool   // WithOverlappingPages
	cancelFinishes   bool   // WithCancelledRunsFinished
	lastCallOnly     bool   // WithLastToolCallOnly
	liveSmallRoutes  bool   // the registry's 500, the key deletes' 200s (live habits only)

	extraMembers []byte // WithExtraMembers: a JSON object; nil: none (extra_members.go)
}

// An Option configures a [Server]; pass options to [NewServer] or [Start].
// The With... functions of this package make them; the zero Option does
// nothing.
type Option struct{ apply func(*config) }

// option wraps a function of the config as an [Option].
func option(f func(*config)) Option { return Option{apply: f} }

// WithAPIKey sets the key the server accepts (default "test-key"). The
// server's [Server.Client] sends it; another client sends it with
// [threads.WithAPIKey].
func WithAPIKey(key string) Option { return option(func(c *config) { c.key = key }) }

// WithAPIKeyHeader makes the server read the key from "name: <key>"
// instead of "Authorization: Bearer <key>", as the live service reads
// x-api-key; it mirrors [threads.WithAPIKeyHeader], and [Server.Client]
// sets that option to match. With a header other than Authorization, the
// key check is the live guards' (see the package documentation): a
// missing or wrong key is 403 Forbidden resource, and an Authorization
// header beside it is 401.
func WithAPIKeyHeader(name string) Option {
	return option(func(c *config) {
		if strings.EqualFold(name, "Authorization") {
			name = ""
		}
		c.keyHeader = name
	})
}

// WithThrottle sets the pause between two streamed snapshots. The default
// is none: snapshots are sent as fast as the client reads them, which suits
// tests. [WithLiveHabits] sets the live service's 50ms; [Server.SetThrottle]
// changes it later.
func WithThrottle(d time.Duration) Option { return option(func(c *config) { c.throttle = d }) }

// WithoutSpecListRoute makes GET /threads answer as the live deployment
// does, 404 {"message":"Cannot GET /threads","error":"Not Found",
// "statusCode":404}, so that threads are listed only through GET
// /threads/project/{projectId}.
func WithoutSpecListRoute() Option { return option(func(c *config) { c.noSpecList = true }) }

// WithCancelEmptyThread500 makes POST /threads/{id}/cancel on a thread
// without messages answer as the live service does: 500
// {"statusCode":500,"message":"Internal server error"}, although the
// thread is cancelled all the same.
func WithCancelEmptyThread500() Option {
	return option(func(c *config) { c.cancelEmpty500 = true })
}

// WithoutMCPServers makes POST /auth/mcp/access-token answer as the
// service does for a project with no MCP servers configured: 201 with an
// empty object, no token ([threads.ErrNoMCPServers] for the client).
func WithoutMCPServers() Option { return option(func(c *config) { c.noMCP = true }) }

// WithoutStorage makes the server answer as the service does where its
// file storage (S3) is not configured: POST /storage/presign, once its
// body passes the checks, is 503 {"message":"Storage is not configured.
// S3 credentials are required.","error":"Service Unavailable",
// "statusCode":503}.
func WithoutStorage() Option { return option(func(c *config) { c.noStorage = true }) }

// The OAuth validation modes the fake knows ([WithOAuthValidation]).
const (
	// OAuthValidationNone reads the subject token without verifying it, as
	// in the captures: a JWT's iss and sub make the end user
	// "oauth:user:<issuer host>:<sub>"; any other token is accepted too,
	// as the opaque subject "opaque:<SHA-256 hex of the token>" (capture
	// 35), the end user "oauth:user:opaque:<hex>".
	OAuthValidationNone = "none"
	// OAuthValidationAsymmetricAuto verifies the subject token against its
	// issuer's OpenID configuration, the mode the service started its
	// projects in. The fake reaches no issuer, so every exchange is 401
	// {"message":"Invalid OAuth subject token","statusCode":401}, as live
	// answered where the issuer was out of reach (v1-api.md section 1).
	OAuthValidationAsymmetricAuto = "asymmetric_auto"
)

// WithOAuthValidation sets the project's OAuth validation mode, which
// decides the subject tokens that the token exchange, POST /oauth/token,
// accepts: [OAuthValidationNone] or [OAuthValidationAsymmetricAuto] (the
// service's names). Without it the fake reads a JWT's iss and sub as
// OAuthValidationNone does and refuses any other subject token with the
// 401. A mode the fake does not know ("symmetric", "asymmetric_manual")
// verifies, as OAuthValidationAsymmetricAuto does.
func WithOAuthValidation(mode string) Option {
	return option(func(c *config) { c.oauth = mode })
}

// WithServiceToolArguments makes the /v1 runs' tool calls carry the two
// arguments the service adds to every client tool's schema, which a model
// that fills every required argument (as strict mode makes it) sends back
// and the service forwards untouched (captures 01-03): the call's
// arguments begin with "_tambo_statusMessage" and
// "_tambo_completionStatusMessage", strings, in TOOL_CALL_ARGS, in
// tambo.run.awaiting_input and in the stored tool_use input. The values
// are [RunToolCall]'s StatusMessage and CompletionStatusMessage; the
// default model fills them as any string (with the user's text); see
// [RunToolDefinition.ModelSchema]. A client that checks a call's
// arguments against its own schema must take them out. [WithLiveHabits] turns it on;
// [RunScript].WithoutServiceArguments turns it off for one run.
func WithServiceToolArguments() Option { return option(func(c *config) { c.serviceArgs = true }) }

// WithOverlappingPages makes the /v1 listings of messages in ascending
// order and of suggestions page as the service does (captures 08-21): a
// page starts at the item its cursor names, not after it. Each page then
// repeats the previous page's last item; with limit=1 every page answers
// the same item, the same nextCursor and hasMore true, so a client that
// only follows nextCursor never ends. A larger limit does reach the end
// (captures 12-16). Thread listings and descending messages page as
// without it. [WithLiveHabits] turns it on.
func WithOverlappingPages() Option { return option(func(c *config) { c.overlapPages = true }) }

// WithCancelledRunsFinished makes a /v1 run cancelled by DELETE
// /v1/threads/{id}/runs/{runId} (from any connection) end its stream as
// the service rarely does, when the cancel meets the model's last chunk
// (captures-turn4 26-29): RUN_FINISHED, with the text message left open
// (no TEXT_MESSAGE_END), while the thread says lastRunCancelled and the
// message isCancelled; and the stored text lacks the last delta that was
// streamed. Without it (the default, [WithLiveHabits] too) such a run ends
// with one RUN_ERROR CANCELLED, its streamed text stored (captures-turn4
// 22-25), as the service ends it every time the cancel comes while the
// model streams. [RunScript].CancelEnd overrides it for one run.
func WithCancelledRunsFinished() Option { return option(func(c *config) { c.cancelFinishes = true }) }

// WithLastToolCallOnly makes the /v1 model keep only the last of the
// tool calls it makes in one turn, as the service does (captures-turn5
// 07-09): every call streams, the pause lists them all and the next run
// must answer them all (all results are stored), but the stored
// assistant message keeps only the last call's tool_use block, and the
// model reads only that call's result ("The tool said: <its result>.").
// Without it the message keeps every call and the reply names every
// result. [WithLiveHabits] turns it on; a test of a pause with several
// calls whose results all matter runs without it.
func WithLastToolCallOnly() Option { return option(func(c *config) { c.lastCallOnly = true }) }

// WithLiveHabits configures the server like the live deployment: the key in
// x-api-key only ("Authorization: Bearer <key>" alone is 403 Forbidden
// resource, both headers are 401 Invalid bearer token), no GET /threads
// ([WithoutSpecListRoute]), 500 on cancelling a thread without messages
// ([WithCancelEmptyThread500]), 500 on creating a thread with another
// project's id, the live pacing of streams: 50ms between two snapshots
// ([WithThrottle]); on /v1, the service's own tool arguments
// ([WithServiceToolArguments]), overlapping pages
// ([WithOverlappingPages]) and only the last of a turn's tool calls kept
// ([WithLastToolCallOnly]); and the small routes' answers (captures 30,
// 32, 33): an unknown registry name is 500, deleting an unknown API key is
// 200 false, deleting a provider key answers 200 the project. Options
// after it change the key's header ([WithAPIKeyHeader]) and the pacing
// ([WithThrottle]); the other habits have no option that turns them off
// ([RunScript].WithoutServiceArguments does, for one run).
func WithLiveHabits() Option {
	return option(func(c *config) {
		c.keyHeader = "x-api-key"
		c.noSpecList = true
		c.cancelEmpty500 = true
		c.foreignCreate500 = true
		c.throttle = 50 * time.Millisecond
		c.serviceArgs = true
		c.overlapPages = true
		c.lastCallOnly = true
		c.liveSmallRoutes = true
	})
}

// NewServer starts a server for a test and closes it when the test and its
// subtests end (t.Cleanup).
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server for use outside tests (examples, local runs). The
// caller must call [Server.Close]. In a test, use [NewServer].
func Start(opts ...Option) *Server {
	cfg := config{key: "test-key"}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&cfg)
		}
	}
	s := &Server{
		APIKey:      cfg.key,
		ProjectID:   "p_FakeProj.c0ffee",
		cfg:         cfg,
		rng:         rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano()))),
		threads:     map[string]*thread{},
		throttle:    cfg.throttle,
		migrateByID: "POST /:id/advancestream",
		migrateNew:  "POST /advancestream",
		v1:          v1Store{threads: map[string]*v1Thread{}, tokens: map[string]string{}},
	}
	if cfg.noListener {
		if cfg.addr != "" {
			panic("threadstest: WithoutListener and WithAddr exclude each other")
		}
		s.URL = memoryURL
		return s
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.listen(cfg.addr)
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down: it cuts every connection, so a stream in
// progress ends without "data: DONE", waits for its handlers to return and
// leaves no goroutine behind. Close is idempotent.
func (s *Server) Close() {
	s.mem.close()
	if s.srv != nil {
		s.srv.CloseClientConnections()
		s.srv.Close()
	}
}

// Client returns a [threads.Client] configured for the server: its base
// URL, its key, the header it reads the key from ([WithAPIKeyHeader]), no
// environment defaults, retry waits of a few milliseconds and, with
// [WithoutListener], an *http.Client over [Server.Transport]. opts are
// applied after those and may override them. Client panics if opts are
// invalid, as a test helper should.
func (s *Server) Client(opts ...threads.ClientOption) *threads.Client {
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(),
		threads.WithBaseURL(s.URL),
		threads.WithAPIKey(s.APIKey),
		threads.WithRetryWait(time.Millisecond, 10*time.Millisecond),
	}
	if s.cfg.keyHeader != "" {
		base = append(base, threads.WithAPIKeyHeader(s.cfg.keyHeader))
	}
	if s.srv == nil {
		base = append(base, threads.WithHTTPClient(&http.Client{Transport: s.Transport()}))
	}
	c, err := threads.NewClient(append(base, opts...)...)
	if err != nil {
		panic("threadstest: " + err.Error())
	}
	return c
}

// HTTPClient returns an *http.Client that reaches the server, for tests
// that send raw requests. Its connections close with the server. With
// [WithoutListener] it sends through [Server.Transport].
func (s *Server) HTTPClient() *http.Client {
	if s.srv == nil {
		return &http.Client{Transport: s.Transport()}
	}
	return s.srv.Client()
}

// SetThrottle changes the pause between streamed snapshots for the streams
// that start afterwards (see [WithThrottle]).
func (s *Server) SetThrottle(d time.Duration) {
	s.mu.Lock()
	s.throttle = d
	s.mu.Unlock()
}

// SetMigrateTo sets the details.migrateToEndpoint advice of the two
// /advance 410s: byID for POST /threads/{id}/advance, create for POST
// /threads/advance. The defaults are the live service's,
// "POST /:id/advancestream" and "POST /advancestream"; a test sets other
// forms (an absolute URL, "{id}" placeholders, bad advice) here.
func (s *Server) SetMigrateTo(byID, create string) {
	s.mu.Lock()
	s.migrateByID, s.migrateNew = byID, create
	s.mu.Unlock()
}

// Requests returns a copy of the requests the server received, in order,
// including those a [Fault] answered and those refused for their key
// (these without their body, which the server reads and drops). The log
// keeps the most recent 10,000 requests, and no more than 64 MiB of their
// bodies, headers and paths together: past either bound the oldest
// requests are forgotten, by Requests and [Server.Count] alike.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.log.reqs))
	for i, r := range s.log.reqs {
		r.Header = r.Header.Clone()
		r.Query = cloneValues(r.Query)
		r.Body = append([]byte(nil), r.Body...)
		if s.log.reqs[i].Body == nil {
			r.Body = nil
		}
		out[i] = r
	}
	return out
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// Count returns how many of the requests in the log ([Server.Requests])
// had the method and the escaped path (such as
// "/threads/thr_AbCdEfGh.123456/advancestream"), faults included.
func (s *Server) Count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log.reqs {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// Connections returns how many TCP connections the server has accepted, so
// a test can check that a client reuses its connections. Requests served
// by [Server.Transport] open none.
func (s *Server) Connections() int { return int(s.conns.Load()) }

// ThreadIDs returns every thread id, oldest first; its length is how many
// threads exist, so a test can check that a retried create made only one.
func (s *Server) ThreadIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}
