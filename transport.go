package threads

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/threadsapi/threads-go/internal/route"
)

// This file holds what the SDK wraps around the caller's http.Client: the
// redirect policy (the key never leaves the base URL's origin) and the
// per-attempt timeout (WithRequestTimeout), which each call hands to its
// own attemptTransport.

// httpClient wraps the caller's client (never changing it) with a redirect
// policy that never carries the key to another origin. Each call sends
// through a copy of it whose Transport is the call's attemptTransport (see
// attemptClient).
func (c *Client) httpClient(user *http.Client) *http.Client {
	var hc http.Client
	if user != nil {
		hc = *user
	}
	if hc.Transport == nil {
		hc.Transport = http.DefaultTransport
	}
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

// attemptClient returns the http.Client of one call: the client's, with
// each attempt bounded by cfg's request timeout (0: no bound), run through
// cfg's middlewares and reported to its observer. stream says the call
// reads an event stream, whose 2xx body the timeout does not bound.
func (c *Client) attemptClient(cfg *config, stream bool) *http.Client {
	hc := *c.hc
	next := c.hc.Transport
	if len(cfg.middleware) > 0 {
		next = &middlewareTransport{mws: cfg.middleware, next: next}
	}
	if cfg.observer != nil {
		next = observeTransport{next: next}
	}
	hc.Transport = &attemptTransport{next: next, d: cfg.requestTimeout, stream: stream}
	return &hc
}

// attemptTransport bounds each attempt by d: a JSON call's whole answer
// (headers, body, and any drain of a response that is discarded between
// attempts), but only the headers of a stream's 2xx answer, whose body
// lives as long as its context. A stream's error answer is bounded like a
// JSON one: its body is read into a *Problem.
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
type attemptTransport struct {
	next   http.RoundTripper
	d      time.Duration // 0: no bound
	stream bool          // the call reads an event stream
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.d <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	fired := &timeoutError{d: t.d}
	timer := time.AfterFunc(t.d, func() { cancel(fired) })
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel(nil)
		if context.Cause(ctx) == fired {
			return nil, fired
		}
		return nil, err
	}
	if resp == nil {
		timer.Stop()
		cancel(nil)
		return nil, errors.New("threads: the transport returned neither a response nor an error")
	}
	if resp.Body == nil {
		// A Body-less answer (a test double's literal) is empty, as
		// net/http reads it; wrapped as nil, the read would panic.
		resp.Body = http.NoBody
	}
	if t.stream && ok2xx(resp.StatusCode) {
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

// ok2xx reports whether status is a success: what the attempt timeout,
// the auth fallback and the request path treat as the service's answer.
func ok2xx(status int) bool { return status >= 200 && status <= 299 }
