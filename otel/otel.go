// Package threadsotel traces threads-go calls with OpenTelemetry: one span per
// call, an event per HTTP attempt, and a stream's figures (events, time to
// the first one, tool rounds, outcome) as span attributes. It implements
// [threads.Observer]; the main module does not depend on OpenTelemetry.
//
//	c, err := threads.NewClient(threads.WithObserver(threadsotel.NewObserver()))
//
// # Spans
//
// Each call of a [threads.Client] (and of a runs.Client made from it) is
// one client span named "METHOD route", the route as a template: "GET
// /threads/{id}", "POST /threads/{id}/advancestream", "POST
// /v1/threads/runs", "POST /v1/threads/{threadId}/runs". A stream's span
// ends when the stream does (its end, an error, or Close), not when its
// headers arrive. The context the call sends with holds the span, so the
// transport's spans (otelhttp, say) are its children.
//
// Attributes set when the span starts:
//
//	http.request.method    GET, POST, ...
//	http.route             the route's template, as in the span's name
//	url.scheme             http or https
//	server.address         the base URL's host
//	server.port            its port (443 or 80 when the URL has none)
//	threads.stream         true when the answer is an event stream
//
// Attributes set when it ends:
//
//	http.response.status_code  the final answer's status, when one came
//	threads.thread.id          the thread the call was about: the route's
//	                           {id} or {threadId}, else a /v1 run's
//	                           X-Thread-Id (see threads.CallEnd.ThreadID);
//	                           absent when unknown
//	threads.run.id             the /v1 run: the route's {runId}, else the
//	                           run stream's X-Run-Id; absent when unknown
//	error.type                 only on failure, one of:
//	                             "STATUS" or "STATUS CODE" (a *threads.Problem:
//	                             "404", "410 ENDPOINT_DEPRECATED"),
//	                             the failed run's code (a *runs.RunFailedError:
//	                             "INTERNAL_ERROR"; "run_failed" when it has none),
//	                             canceled, timeout, stream_truncated, stream_idle,
//	                             event_too_large, stream_failed (the spec
//	                             stream's error: line), unexpected_response,
//	                             or the error's Go type ("*url.Error")
//	threads.run.error.code     a failed /v1 run's code (RUN_ERROR's code)
//	threads.run.error.category its category (server_error, client_error, ...)
//
// and on a stream's span:
//
//	threads.stream.outcome     ok: the stream reached its end (DONE; a /v1
//	                           run's RUN_FINISHED, also one that awaits tool
//	                           results or was cancelled), or was closed after
//	                           it; error: it failed (error.type says how);
//	                           left: the caller closed it, or its context
//	                           ended, before the end
//	threads.stream.events      the events delivered (snapshots; AG-UI events)
//	threads.stream.tool_rounds RunStream's tool rounds (a /v1 tool stream's
//	                           run: the round whose results it carries)
//	threads.stream.time_to_first_event_ms  when the first event came
//
// and on a /v1 run's span whose run reported its token usage (AG-UI 1.0's
// usage on RUN_FINISHED or RUN_ERROR, threads.CallEnd.Usage), the sums
// over its models, in OpenTelemetry's GenAI names where they have one:
//
//	gen_ai.usage.input_tokens           prompt tokens
//	gen_ai.usage.output_tokens          completion tokens
//	threads.run.usage.total_tokens      the totals as reported
//	threads.run.usage.reasoning_tokens  reasoning tokens
//	threads.run.usage.cached_input_tokens  prompt tokens from a cache
//	threads.run.usage.models            "provider/model" of each model ("?"
//	                                    for a name that does not look like one)
//
// A failed call's span has status Error with error.type as its description.
//
// Span events:
//
//	http.attempt          one per HTTP attempt: http.request.method, url.path
//	                      (the path sent, ids and all, no query),
//	                      http.request.resend_count (0, then the retry's
//	                      number), threads.attempt.duration_ms,
//	                      http.response.status_code (when an answer came),
//	                      error.type (a transport failure)
//	threads.migrated      the call followed the service's 410 advice:
//	                      threads.migrated.from, threads.migrated.to ("POST
//	                      /threads/{id}/advance")
//	threads.first_event   the stream's first event:
//	                      threads.stream.time_to_first_event_ms
//	threads.tool_round    RunStream ran a client tool and sends its result
//	                      (a /v1 tool stream: this run carries the round's
//	                      results): threads.stream.tool_round, from 1
//	threads.tool_approval an approver decided a tool call
//	                      (threads.ToolGuards): threads.tool.name (left
//	                      off unless it looks like a name, as a code),
//	                      threads.tool.approved, and
//	                      threads.tool.approval_timed_out (the approver
//	                      did not answer in time); never the reason
//
// Attribute names follow the HTTP semantic conventions where one exists.
// Spans never hold the API key, a token, a /v1 user key, a request or
// answer body, an error's text, or a message's text: ids, codes,
// categories, model and tool names are the only text from the caller or
// the server, and each is left off unless it is short (at most 128 bytes
// for an id, 64 for the others) and made of ASCII letters, digits and
// "_-." (an id also ":").
//
// The package is named threadsotel, not otel, so that it sits beside
// go.opentelemetry.io/otel in one file without an alias; its import path
// is github.com/threadsapi/threads-go/otel, a module of its own, so that
// the SDK's own module gains no OpenTelemetry dependency.
package threadsotel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/threadsapi/threads-go/otel"

// Option configures NewObserver.
type Option func(*Observer)

// WithTracerProvider sets where spans go (default: the global provider,
// otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *Observer) {
		if tp != nil {
			o.tp = tp
		}
	}
}

// Observer makes spans of threads-go calls. Give it to
// threads.WithObserver. It is safe for concurrent use. Make it with
// NewObserver; a zero Observer traces with the global provider.
type Observer struct {
	tp     trace.TracerProvider
	tracer trace.Tracer
}

// NewObserver returns an Observer with opts applied.
func NewObserver(opts ...Option) *Observer {
	o := &Observer{}
	for _, opt := range opts {
		opt(o)
	}
	if o.tp == nil {
		o.tp = otel.GetTracerProvider()
	}
	o.tracer = o.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(threads.Version))
	return o
}

// tr is the Observer's tracer; a zero Observer (not made by NewObserver)
// or a nil one uses the global provider's, as NewObserver() would.
func (o *Observer) tr() trace.Tracer {
	if o == nil || o.tracer == nil {
		return otel.GetTracerProvider().Tracer(ScopeName, trace.WithInstrumentationVersion(threads.Version))
	}
	return o.tracer
}

// StartCall starts the call's span (a client span named "METHOD route")
// and puts it in the returned context, so spans of the transport below
// (otelhttp, say) are its children.
func (o *Observer) StartCall(ctx context.Context, ci threads.CallInfo) (context.Context, threads.CallObserver) {
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", ci.Method),
		attribute.String("http.route", ci.Route),
		attribute.String("url.scheme", ci.Scheme),
		attribute.Bool("threads.stream", ci.Stream),
	}
	host, port, err := net.SplitHostPort(ci.Host)
	if err != nil {
		host = ci.Host
		if ci.Scheme == "https" {
			port = "443"
		} else {
			port = "80"
		}
	}
	attrs = append(attrs, attribute.String("server.address", host))
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int("server.port", p))
	}
	ctx, span := o.tr().Start(ctx, ci.Method+" "+ci.Route, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &call{span: span, stream: ci.Stream}
}

// call is one call's span.
type call struct {
	span   trace.Span
	stream bool
}

// Observe adds an event per attempt, migration, first stream event, tool
// round and tool approval.
func (c *call) Observe(ev threads.CallEvent) {
	switch ev.Kind {
	case threads.EventAttempt:
		attrs := []attribute.KeyValue{
			attribute.String("http.request.method", ev.Method),
			attribute.String("url.path", ev.Path),
			attribute.Int("http.request.resend_count", ev.Attempt),
			attribute.Int64("threads.attempt.duration_ms", ev.Duration.Milliseconds()),
		}
		if ev.Status != 0 {
			attrs = append(attrs, attribute.Int("http.response.status_code", ev.Status))
		}
		if ev.Err != nil {
			attrs = append(attrs, attribute.String("error.type", errorType(ev.Err)))
		}
		c.span.AddEvent("http.attempt", trace.WithAttributes(attrs...))
	case threads.EventMigrated:
		c.span.AddEvent("threads.migrated", trace.WithAttributes(
			attribute.String("threads.migrated.from", ev.From), attribute.String("threads.migrated.to", ev.To)))
	case threads.EventFirstEvent:
		c.span.AddEvent("threads.first_event", trace.WithAttributes(
			attribute.Int64("threads.stream.time_to_first_event_ms", ev.Duration.Milliseconds())))
	case threads.EventToolRound:
		c.span.AddEvent("threads.tool_round", trace.WithAttributes(attribute.Int("threads.stream.tool_round", ev.Round)))
	case threads.EventToolApproval:
		// The decision on a tool call that needed a person's approval; a
		// reason is the person's text, and who decided is a person: both
		// stay out of the span. The
		// tool's name is the caller's (or an MCP server's) text: only one
		// that looks like a name goes on the span.
		attrs := make([]attribute.KeyValue, 0, 3)
		if codeLike(ev.ToolName) {
			attrs = append(attrs, attribute.String("threads.tool.name", ev.ToolName))
		}
		attrs = append(attrs,
			attribute.Bool("threads.tool.approved", ev.Approved),
			attribute.Bool("threads.tool.approval_timed_out", ev.Err != nil))
		c.span.AddEvent("threads.tool_approval", trace.WithAttributes(attrs...))
	}
}

// End sets the call's status and figures and ends the span.
func (c *call) End(e threads.CallEnd) {
	attrs := []attribute.KeyValue{}
	if e.Status != 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", e.Status))
	}
	outcome := "ok"
	switch {
	case e.Err != nil:
		outcome = "error"
	case e.Left:
		outcome = "left"
	}
	if c.stream {
		attrs = append(attrs,
			attribute.Int("threads.stream.events", e.Events),
			attribute.Int("threads.stream.tool_rounds", e.ToolRounds),
			attribute.String("threads.stream.outcome", outcome),
		)
		if e.FirstEvent > 0 {
			attrs = append(attrs, attribute.Int64("threads.stream.time_to_first_event_ms", e.FirstEvent.Milliseconds()))
		}
	}
	if len(e.Usage) > 0 {
		attrs = append(attrs, usageAttrs(e.Usage)...)
	}
	if e.ThreadID != "" {
		attrs = append(attrs, attribute.String("threads.thread.id", e.ThreadID))
	}
	if e.RunID != "" {
		attrs = append(attrs, attribute.String("threads.run.id", e.RunID))
	}
	if e.Err != nil {
		et := errorType(e.Err)
		attrs = append(attrs, attribute.String("error.type", et))
		var rf *runs.RunFailedError
		if errors.As(e.Err, &rf) {
			if codeLike(rf.Code) {
				attrs = append(attrs, attribute.String("threads.run.error.code", rf.Code))
			}
			if codeLike(rf.Category) {
				attrs = append(attrs, attribute.String("threads.run.error.category", rf.Category))
			}
		}
		// The SDK's error text is cleaned of the key and tokens, but may
		// quote the service's words about the request: only its type and
		// status go on the span.
		c.span.SetStatus(codes.Error, et)
	}
	c.span.SetAttributes(attrs...)
	c.span.End()
}

// errorType names an error without its text: a failed run's code, the
// problem's status and code, a sentinel's name, or the Go type.
func errorType(err error) string {
	var rf *runs.RunFailedError
	if errors.As(err, &rf) {
		// Before the sentinels: a failed run also matches
		// threads.ErrStreamFailed, which says less.
		if codeLike(rf.Code) {
			return rf.Code
		}
		return "run_failed"
	}
	var p *threads.Problem
	if errors.As(err, &p) {
		if codeLike(p.Code) {
			return strconv.Itoa(p.Status) + " " + p.Code
		}
		return strconv.Itoa(p.Status)
	}
	for _, s := range []struct {
		err  error
		name string
	}{
		{context.Canceled, "canceled"},
		{context.DeadlineExceeded, "timeout"},
		{threads.ErrStreamTruncated, "stream_truncated"},
		{threads.ErrStreamIdle, "stream_idle"},
		{threads.ErrEventTooLarge, "event_too_large"},
		{threads.ErrStreamFailed, "stream_failed"},
		{threads.ErrUnexpectedResponse, "unexpected_response"},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return fmt.Sprintf("%T", err)
}

// maxCode bounds a problem code that a span names.
const maxCode = 64

// codeLike reports whether a problem's code looks like one (such as
// THREAD_NOT_FOUND): the code is the server's text, and one that is a
// sentence, holds control characters or runs long is left off the span,
// which promises no message text and keeps error.type low-cardinality.
func codeLike(code string) bool {
	if code == "" || len(code) > maxCode {
		return false
	}
	for _, r := range code {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// usageAttrs sums a run's usage over its models.
func usageAttrs(us []threads.TokenUsage) []attribute.KeyValue {
	var in, out, total, reasoning, cached int64
	models := make([]string, 0, len(us))
	for _, u := range us {
		in += u.InputTokens
		out += u.OutputTokens
		total += u.TotalTokens
		reasoning += u.ReasoningTokens
		cached += u.CachedInputTokens
		// Server text: only names that look like names go on the span.
		p, m := u.Provider, u.Model
		if !codeLike(p) {
			p = "?"
		}
		if !codeLike(m) {
			m = "?"
		}
		models = append(models, p+"/"+m)
	}
	return []attribute.KeyValue{
		attribute.Int64("gen_ai.usage.input_tokens", in),
		attribute.Int64("gen_ai.usage.output_tokens", out),
		attribute.Int64("threads.run.usage.total_tokens", total),
		attribute.Int64("threads.run.usage.reasoning_tokens", reasoning),
		attribute.Int64("threads.run.usage.cached_input_tokens", cached),
		attribute.StringSlice("threads.run.usage.models", models),
	}
}
