package threads

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/threadsapi/threads-go/internal/core"
)

// This file links package threads' request path to the sibling package
// runs (the /v1 API) through internal/core: runs holds a *Client, asks
// core.ConnOf for its Conn, and sends every call through exchange, so
// both API generations share one path (options, retries, timeouts,
// redaction, problems).

func init() {
	// The only write of core's registration: once, before main runs.
	core.Register(connOf) // a func(*Client) (core.Conn[RequestOption], error): the link is typed
}

// connOf returns the core.Conn of c, a *Client made by NewClient.
func connOf(c *Client) (core.Conn[RequestOption], error) {
	if c == nil || c.base == nil {
		return nil, errNotMadeByNewClient
	}
	return conn{c}, nil
}

// conn is a Client seen from package runs.
type conn struct{ c *Client }

// Do sends call through the client's request path with the options ro.
func (k conn) Do(ctx context.Context, ro []RequestOption, call core.Call) (*core.Answer, error) {
	resp, cfg, o, err := k.c.exchangeObserved(ctx, ro, call)
	if err != nil {
		return nil, err
	}
	if o != nil && !call.Stream {
		// A JSON answer's call ends when its body is closed, if the
		// reader did not end it first. A stream's reader ends it itself:
		// the idle timer closes the body from its own goroutine, and the
		// call must end with the stream's idle error, not there.
		resp.Body = obsBody{rc: resp.Body, o: o}
	}
	return &core.Answer{
		Observe: observation{o},
		Resp:    resp,
		Limits: core.Limits{
			MaxResponseSize: int64(cfg.maxResponseSize),
			MaxEventSize:    cfg.maxEventSize,
			IdleTimeout:     cfg.idleTimeout,
			Logger:          cfg.logger,
			KeepRaw:         cfg.wire.keepRaw,
		},
		Redact: cfg.redact,
	}, nil
}

// DecodeJSON reads ans's JSON body into out, as every JSON call of package
// threads does, and closes it.
func (k conn) DecodeJSON(ans *core.Answer, call core.Call, out any) error {
	if ans == nil || ans.Resp == nil {
		return errors.New("threads: core.Conn.DecodeJSON: no answer")
	}
	defer ans.Resp.Body.Close()
	redact := ans.Redact
	if redact == nil {
		redact = k.Redact
	}
	clean := redact
	if len(call.Secrets) > 0 {
		clean = func(s string, extra ...string) string { return redact(s, append(extra, call.Secrets...)...) }
	}
	err := decodeJSON(ans.Resp, call.Route.Method, pathOf(call.Route), out, ans.Limits.MaxResponseSize, clean, nil, ans.Limits.KeepRaw)
	if ans.Observe != nil {
		ans.Observe.End(err) // before Close's End(nil): a decode failure is the call's outcome
	}
	return err
}

// Redact removes every spelling of the client's API key and of extra from s.
func (k conn) Redact(s string, extra ...string) string {
	return k.c.cfg.redact(s, extra...)
}

func (k conn) FollowUpOptions(ro []RequestOption) []RequestOption {
	return withoutCallOnly(ro)
}

func (k conn) Logger(ro []RequestOption) *slog.Logger {
	cfg, err := k.c.settings(ro)
	if err != nil {
		return k.c.cfg.logger // options that do not apply: the call reports them
	}
	return cfg.logger
}

func (k conn) RequestTimeout(ro []RequestOption) time.Duration {
	cfg, err := k.c.settings(ro)
	if err != nil {
		return k.c.cfg.requestTimeout // options that do not apply: the call reports them
	}
	return cfg.requestTimeout
}
