package threads

import (
	"errors"
	"net/http"

	"github.com/threadsapi/threads-go/internal/redact"
)

// Middleware wraps each HTTP attempt the client makes: it gets the request
// about to be sent and next, which sends it, and returns the answer (or
// its own). It may read or add headers, time the attempt, or answer
// without calling next.
//
// A middleware sees every attempt: each retry, the re-send of a call that
// follows the service's 410 migration advice, a redirect the client
// follows, and stream requests (for a stream, the answer's Body is the
// live event stream: read it only through the [Stream], never in the
// middleware). It runs inside the attempt's timeout ([WithRequestTimeout]).
//
// The request carries the API key in its headers (Authorization or the
// header of [WithAPIKeyHeader]), so a middleware that logs requests must
// not print their headers as they are: leave the key's header out, as the
// SDK's own logging does. A middleware must not keep the request or its
// body past its return. It does not see the storage upload of
// [StorageService.Upload], which goes to another host without the key.
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

// WithResponseInto stores the final 2xx *http.Response of the call in *dst:
// its status, headers, request and protocol. Its Body is [http.NoBody]:
// the SDK reads the body itself (a JSON call decodes it; a stream owns it
// and releases it with the [Stream]). Its Request is a copy whose headers
// hold the API key as "[REDACTED]" and whose Body is empty. Its Trailer
// holds the trailers the answer declared, without their values, which
// come after the body. A failed call leaves *dst alone: its
// [*Problem] carries the status and headers. It is for a single call only:
// [NewClient] refuses it, as it does [WithResponseHeader].
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
	resp, err := t.mws[i](req, func(r *http.Request) (*http.Response, error) {
		if r == nil {
			return nil, errors.New("threads: a middleware called next with a nil request")
		}
		return t.call(i+1, r)
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
// which the SDK owns, and with a copy of its request whose headers hold
// key redacted (a caller that logs the request's headers must not print
// the key, whichever header carried it) and whose body is gone.
func answerCopy(resp *http.Response, key string) *http.Response {
	cp := *resp
	cp.Header = resp.Header.Clone()
	// The transport fills the trailers when the body ends, on whichever
	// goroutine reads it (a stream's, while the caller holds the copy).
	cp.Trailer = resp.Trailer.Clone()
	cp.Body = http.NoBody
	if resp.Request != nil {
		rq := *resp.Request
		rq.Header = make(http.Header, len(resp.Request.Header))
		for k, vs := range resp.Request.Header {
			out := make([]string, len(vs))
			for i, v := range vs {
				out[i] = redact.String(v, key)
			}
			rq.Header[k] = out
		}
		rq.Body, rq.GetBody = http.NoBody, nil
		cp.Request = &rq
	}
	return &cp
}
