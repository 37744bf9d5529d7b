package threads

import (
	"errors"
	"net/http"
)

// Middleware wraps each HTTP attempt the client makes: it gets the request
// about to be sent and next, which sends it, and returns the answer (or
// its own). It may read or add headers, time the attempt, or answer
// without calling next. It sees every attempt, retries, migrations and
// streams included, inside the attempt's timeout; the request carries the
// API key, so a middleware that logs must leave the key's header out, and
// must not keep the request past its return (the package doc's
// "Middleware, responses and observers").
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// MiddlewareNext sends the request through the rest of the chain and the
// client's transport.
type MiddlewareNext func(*http.Request) (*http.Response, error)

// WithMiddleware adds middlewares around every attempt, in order: the first
// is the outermost (it runs first and sees the answer last). Given to
// [NewClient] they wrap every call; given to a call, they are added inside
// the client's for that call only. A nil middleware is refused.
func WithMiddleware(mws ...Middleware) RequestOption {
	return newRequestOption("WithMiddleware", func(c *config) error {
		for _, m := range mws {
			if m == nil {
				return errors.New("threads: WithMiddleware: nil middleware")
			}
		}
		all := make([]Middleware, 0, len(c.middleware)+len(mws))
		c.middleware = append(append(all, c.middleware...), mws...)
		return nil
	})
}

// WithResponseInto stores the final 2xx *http.Response of the call in *dst
// (for a stream, as soon as the stream is returned): its status, headers
// (rate limits, a request id), request and protocol, with the body already
// taken by the SDK and the request's secrets redacted (the package doc's
// "Middleware, responses and observers"). A failed call's [*Problem]
// carries the status and headers instead. It is for a single call only:
// [NewClient] refuses it with an error naming it, since the client's
// calls, concurrent ones included, would all write the one *dst.
func WithResponseInto(dst **http.Response) RequestOption {
	return requestOption{name: "WithResponseInto", callOnly: true, fn: func(c *config) error {
		if dst == nil {
			return errors.New("threads: WithResponseInto: nil destination")
		}
		c.respInto = dst
		return nil
	}}
}

// middlewareTransport runs the call's middlewares around next.
type middlewareTransport struct {
	mws  []Middleware
	next http.RoundTripper
}

func (t *middlewareTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.call(0, req)
}

func (t *middlewareTransport) call(i int, req *http.Request) (*http.Response, error) {
	if i == len(t.mws) {
		return t.next.RoundTrip(req)
	}
	var inner *http.Response // what next returned to the middleware
	defer func() {
		if r := recover(); r != nil {
			// The middleware panicked (its bug, the caller's to see): the
			// answer it got and nobody will read is closed first, so that
			// a caller that recovers leaks no connection.
			if inner != nil && inner.Body != nil {
				inner.Body.Close()
			}
			panic(r)
		}
	}()
	resp, err := t.mws[i](req, func(r *http.Request) (*http.Response, error) {
		if r == nil {
			return nil, errors.New("threads: a middleware called next with a nil request")
		}
		resp, err := t.call(i+1, r)
		inner = resp
		return resp, err
	})
	if err == nil && resp == nil {
		return nil, errors.New("threads: a middleware returned neither a response nor an error")
	}
	if err != nil && resp != nil {
		// RoundTrip's contract: an error comes without a response.
		if resp.Body != nil {
			drainClose(resp.Body)
		}
		return nil, err
	}
	if resp != nil && resp.Body == nil {
		// An answer a middleware made itself (an http.Response literal):
		// empty, as net/http reads it, rather than a nil Body that the
		// reading would panic on.
		resp.Body = http.NoBody
	}
	return resp, err
}

// answerCopy is resp as WithResponseInto hands it out: without its body,
// which the SDK owns, and with a copy of its request that holds no
// secret: the request's credentials (the API key's header, an end user's
// Authorization) read "[REDACTED]", every other header value has the key
// redacted, and the request's body (which may hold a subject token) is
// gone.
func answerCopy(resp *http.Response, redact func(string) string) *http.Response {
	cp := *resp
	cp.Header = resp.Header.Clone()
	// The transport fills the trailers when the body ends, on whichever
	// goroutine reads it (a stream's, while the caller holds the copy).
	cp.Trailer = resp.Trailer.Clone()
	cp.Body = http.NoBody
	if req := resp.Request; req != nil {
		rc := req.Clone(req.Context())
		rc.Body, rc.GetBody, rc.Response = http.NoBody, nil, nil
		if redact != nil && rc.URL != nil { // a server-sent id in the path may spell the key
			rc.URL.Path, rc.URL.RawPath, rc.URL.RawQuery = redact(rc.URL.Path), redact(rc.URL.RawPath), redact(rc.URL.RawQuery)
		}
		for name, vs := range rc.Header {
			for i, v := range vs {
				if http.CanonicalHeaderKey(name) == "Authorization" || http.CanonicalHeaderKey(name) == "Proxy-Authorization" {
					vs[i] = "[REDACTED]"
				} else if redact != nil {
					vs[i] = redact(v)
				}
			}
		}
		cp.Request = rc
	}
	return &cp
}
