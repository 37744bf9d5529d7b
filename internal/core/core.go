// Package core is the contract between package threads, which owns the one
// request path (auth, retries, redirects, timeouts, 410 migration, problem
// decoding, redaction), and the sibling package runs, which serves the /v1
// routes on that same path.
//
// Package runs cannot reach package threads' unexported request code, and
// package threads cannot import runs (runs imports threads for its public
// types). So threads implements [Conn] and registers it once, in its init,
// through [Register]; runs looks it up with [ConnOf]. The link is typed:
// [Conn] takes the client's own request options ([]threads.RequestOption),
// so passing anything else fails to compile, and [ConnOf] takes the
// *threads.Client itself. The registered function is the only
// package-level variable of the module, written once before main runs and
// never changed.
//
// Only package runs imports core (with threads, which implements it, and
// the stream reader of both); proxy and cmd/threads reach the request path
// through the public API.
package core

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/threadsapi/threads-go/internal/route"
)

// Call is one operation as the wire sees it.
type Call struct {
	Route route.Route // method, path template and its values
	// Name, when set, is the route as the observer and the log name it
	// (a Do call's: threads.WithRouteTemplate, else its path with the
	// segments that look like ids as {id}); else Route.Template.
	Name string
	// Generic marks a Do call: only its route may be named by
	// threads.WithRouteTemplate (a typed method keeps its template).
	Generic bool
	Query   url.Values // sent after the route's own query, if any
	Body    any        // JSON-encoded when not nil
	// Raw, when not nil, is the body as sent (Body must be nil): for a
	// body that is not JSON, whose Content-Type is in Header.
	Raw    []byte
	Stream bool // the 2xx answer must be text/event-stream

	// Header holds headers this call adds on top of the options' (v1: an
	// end user's "Authorization: Bearer <token>").
	Header http.Header

	// KeyHeader, when not empty, is the header the API key travels in for
	// this call, whatever the client's setting, with no fallback and no
	// hint (v1: "X-Api-Key").
	KeyHeader string

	// NoMigrate returns a 410 as the *threads.Problem it is, never
	// following its advice (the /v1 routes have none).
	NoMigrate bool

	// FinalStatus, when not 0, is a failure status that is the route's
	// answer rather than a passing fault (the registry's 500 for an
	// unknown name): an attempt answered with it is not retried.
	FinalStatus int

	// Idempotent marks a write that acting twice cannot harm (a run's
	// cancel): after a 500 it is re-sent once (within the retry budget),
	// and a re-send answered 404 is its success, an empty 200 (the first
	// attempt acted, or the thing was already gone).
	Idempotent bool

	// Secrets are removed, besides the API key, from the call's error
	// before anyone sees it (the observer's End comes before Do returns)
	// and from a decode error's excerpt: what the call sends that a
	// server may echo (an end user's token, a subject token).
	Secrets []string
}

// Answer is a 2xx response and the settings of the call that got it.
type Answer struct {
	// Resp is the response; the receiver of the Answer closes Resp.Body
	// (a stream keeps it until it ends).
	Resp   *http.Response
	Limits Limits

	// Redact returns s with every spelling of the call's API key, and of
	// the extra secrets given, replaced: for server text that an error or
	// a log line shows. Set in every Answer that Conn.Do returns.
	Redact func(s string, extra ...string) string
	// Observe reports how the answer is read to the call's observer
	// (threads.WithObserver). Set in every Answer that Conn.Do returns;
	// it does nothing when nobody observes the call.
	Observe Observation
}

// Observation is the part of a call's observation that only the reader of
// its answer knows. Closing a JSON answer's body ends the call (End(nil))
// if End was not called before; a stream's reader must call End itself.
// What End reports first is what the observer hears. No method may be
// called with a lock the observer could need: an observer may call back
// into the SDK.
type Observation interface {
	// Event counts one decoded stream event; the first is reported with
	// the time it took.
	Event()
	// ToolRound reports that the call carries the results of round n of
	// client-side tool calls.
	ToolRound(n int)
	// ToolApproval reports an approver's decision on a call of tool
	// (timedOut: it did not answer in time).
	ToolApproval(tool string, approved, timedOut bool, decidedBy string)
	// Leave marks that the caller left the stream before its end.
	Leave()
	// End ends the call with err (nil: success), once.
	End(err error)
	// Usage adds the tokens a /v1 run reported (AG-UI's usage on its
	// RUN_FINISHED or RUN_ERROR) to what End reports.
	Usage(u TokenUsage)
}

// TokenUsage is one provider's model's tokens, as a run reported them.
type TokenUsage struct {
	Provider, Model                                                                        string
	InputTokens, OutputTokens, TotalTokens, ReasoningTokens, CachedInputTokens, CacheWrite int64
}

// Limits are the settings a reader of the answer must honour: the call's
// options applied on the client's.
type Limits struct {
	MaxResponseSize int64         // a JSON body's bytes, after decompression
	MaxEventSize    int           // one stream event's bytes
	IdleTimeout     time.Duration // a stream's longest silence; 0: none
	Logger          *slog.Logger  // nil: no logging
	KeepRaw         bool          // a JSON answer's values record their bytes (threads.WithRawJSON)
}

// Conn is a *threads.Client seen from package runs; O is the client's
// request option type (threads.RequestOption).
type Conn[O any] interface {
	// Do sends call with opts (possibly nil) applied on the client's
	// settings, with the client's retry policy (a write is re-sent only
	// when it provably did not act). Every non-2xx answer is returned as a
	// *threads.Problem; a transport failure as an error that names the
	// method and path without secrets.
	Do(ctx context.Context, opts []O, call Call) (*Answer, error)

	// DecodeJSON reads ans's body (closing it) into out within
	// ans.Limits, refusing bodies that would decode into too much
	// memory; its errors wrap threads.ErrUnexpectedResponse and never
	// quote a secret.
	DecodeJSON(ans *Answer, call Call, out any) error

	// Redact returns s with every spelling of the client's API key (and
	// any extra secrets given) replaced.
	Redact(s string, extra ...string) string

	// FollowUpOptions returns opts without the options meant for the
	// caller's one call (WithResponseInto), for a request the SDK makes
	// on the caller's behalf after it (a run's cancel): that request must
	// not overwrite what the call wrote there.
	FollowUpOptions(opts []O) []O

	// Logger returns the logger of a call with opts (possibly nil):
	// WithLogger's, nil when none. For what the SDK logs outside a
	// request (a tool's panic).
	Logger(opts []O) *slog.Logger

	// RequestTimeout returns the per-attempt timeout of a call with opts
	// (threads.WithRequestTimeout; 0: none): what bounds the wait for an
	// end-user token before the call is sent.
	RequestTimeout(opts []O) time.Duration
}

var (
	registerOnce sync.Once
	registered   any // a func(*C) (Conn[O], error), set by Register
)

// Register sets the function that turns a client *C into its Conn.
// Package threads calls it once, from its init, as
// Register(connOf) with connOf a func(*threads.Client)
// (Conn[threads.RequestOption], error); later calls do nothing.
func Register[C, O any](connOf func(*C) (Conn[O], error)) {
	registerOnce.Do(func() { registered = connOf })
}

// ConnOf returns the Conn of client, through the function Register was
// given for *C and O. It fails for a nil client, one not made by
// threads.NewClient, and when no function was registered for those types
// (a program that does not link package threads cannot have a client).
func ConnOf[O, C any](client *C) (Conn[O], error) {
	connOf, ok := registered.(func(*C) (Conn[O], error))
	if !ok {
		var c *C
		var o []O
		return nil, fmt.Errorf("core: no Conn registered for %T with options %T", c, o)
	}
	return connOf(client)
}

// Empty reports whether resp, a 2xx answer, carries no body to decode: a
// 204, or a Content-Length of 0 (the generic calls leave their result as
// it is then).
func Empty(resp *http.Response) bool {
	return resp.StatusCode == http.StatusNoContent || resp.ContentLength == 0
}

// DrainClose reads a little of a body that is dropped, so that a short
// tail does not cost the connection, and closes it.
func DrainClose(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}
