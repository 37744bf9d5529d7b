// Package threadsotel traces threads-go calls with OpenTelemetry: one span per
// call, an event per HTTP attempt, and a stream's figures (events, time to
// the first one, tool rounds, outcome) as span attributes. It implements
// [threads.Observer]; the main module does not depend on OpenTelemetry.
//
//	c, err := threads.NewClient(threads.WithObserver(threadsotel.NewObserver()))
//
// Attribute names follow the HTTP semantic conventions
// (http.request.method, http.route, url.path, server.address,
// server.port, url.scheme, http.response.status_code,
// http.request.resend_count, error.type). Spans never hold the API key,
// a token, a request or answer body, or a message's text.
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

// Observe adds an event per attempt, migration, first stream event and
// tool round.
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
	if e.Err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(e.Err)))
		// The SDK's error text is cleaned of the key and tokens, but may
		// quote the service's words about the request: only its type and
		// status go on the span.
		c.span.SetStatus(codes.Error, errorType(e.Err))
	}
	c.span.SetAttributes(attrs...)
	c.span.End()
}

// errorType names an error without its text: the problem's status and
// code, a sentinel's name, or the Go type.
func errorType(err error) string {
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
