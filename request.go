package threads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"runtime"
	"strings"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/route"
)

// This file is the one request path. Every operation of package threads,
// and every call package runs makes through core.Conn (conn.go), goes
// through exchange: the prologue (begin), then do (the body, auth and
// headers, the retry loop of retry.go, the error body as a
// *Problem, 410 migration in migrate.go), then the checks of a 2xx answer. The
// operations only name their route and result type (routes.go) and read
// the answer.

var defaultUserAgent = "threads-go/" + Version + " (" + runtime.Version() + ")"

var errNotMadeByNewClient = errors.New("threads: the Client was not made by NewClient (a zero Client or service cannot send; use threads.NewClient)")

// begin is the prologue of every call: the client was made by NewClient
// and ctx is not nil. It returns the call's settings: opts applied on the
// client's.
func (c *Client) begin(ctx context.Context, opts []RequestOption) (*config, error) {
	cfg, err := c.settings(opts)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errors.New("threads: nil context")
	}
	return cfg, nil
}

// settings returns the configuration for one call.
func (c *Client) settings(opts []RequestOption) (*config, error) {
	if c == nil || c.base == nil {
		return nil, errNotMadeByNewClient
	}
	if len(opts) == 0 {
		return &c.cfg, nil
	}
	cfg := c.cfg
	if err := cfg.applyRequest(opts); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// exchange makes one call and returns its 2xx response, whose body the
// caller closes, with the call's settings. A call that reads a stream
// (cl.Stream) fails unless the answer is text/event-stream. The response
// goes to WithResponseInto's destination.
func (c *Client) exchange(ctx context.Context, opts []RequestOption, cl core.Call) (*http.Response, *config, error) {
	resp, cfg, o, err := c.exchangeObserved(ctx, opts, cl)
	if err != nil {
		return nil, nil, err
	}
	if o != nil {
		resp.Body = obsBody{rc: resp.Body, o: o}
	}
	return resp, cfg, nil
}

// exchangeObserved is exchange for the callers that end the call's
// observation themselves (o.end, nil-safe): when the answer is read, or,
// for a Stream, when it ends. A failed call has ended already.
func (c *Client) exchangeObserved(ctx context.Context, opts []RequestOption, cl core.Call) (*http.Response, *config, *callObs, error) {
	cfg, err := c.begin(ctx, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	if cl.Generic && cfg.routeMethod != "" && cfg.routeMethod != cl.Route.Method {
		return nil, nil, nil, fmt.Errorf("threads: WithRouteTemplate names a %s route; the call is a %s", cfg.routeMethod, cl.Route.Method)
	}
	ctx, o := c.startObs(ctx, cfg, cl)
	resp, err := c.do(ctx, cfg, cl)
	if err != nil {
		hideSecrets(err, cl.Secrets) // before the observer hears it
		o.end(err)
		return nil, nil, nil, err
	}
	// Server text is shown without the key and the call's secrets.
	clean := func(s string, extra ...string) string { return cfg.redact(s, append(extra, cl.Secrets...)...) }
	if cl.Stream && !isEventStream(resp) {
		ct := resp.Header.Get("Content-Type")
		drainClose(resp.Body)
		err := unexpectedResponse(cl.Route.Method, clean(pathOf(cl.Route)), resp.StatusCode, "want text/event-stream, got %s", shownHeader(ct, clean))
		o.end(err)
		return nil, nil, nil, err
	}
	o.answered(resp.Header)
	if cfg.respInto != nil {
		*cfg.respInto = answerCopy(resp, func(s string) string { return clean(s) })
	}
	return resp, cfg, o, nil
}

// callSecrets are what the call sends that a server may echo and that no
// error, log line or observer may show: the API key and cl.Secrets.
func callSecrets(cfg *config, cl core.Call) []string {
	return append([]string{cfg.apiKey.get()}, cl.Secrets...)
}

// hideSecrets removes secrets (an end user's token, a subject token) from
// the *Problem in err, as Problem.scrub removes the key.
func hideSecrets(err error, secrets []string) {
	var p *Problem
	if len(secrets) == 0 || !errors.As(err, &p) || p == nil {
		return
	}
	for _, s := range secrets {
		p.scrub(s)
	}
}

// doInto makes a call whose 2xx answer is JSON and decodes it into a new T:
// the body of most operations, which name their route and result type and
// hand both here.
func doInto[T any](ctx context.Context, c *Client, opts []RequestOption, cl core.Call) (*T, error) {
	resp, cfg, o, err := c.exchangeObserved(ctx, opts, cl)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out T
	err = decodeJSON(resp, cl.Route.Method, pathOf(cl.Route), &out, int64(cfg.maxResponseSize), cfg.redact, cfg.readBytes, cfg.wire.keepRaw)
	o.end(err)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// doStream makes a call whose 2xx answer is an event stream.
func (c *Client) doStream(ctx context.Context, opts []RequestOption, cl core.Call) (*Stream, error) {
	cl.Stream = true
	resp, cfg, o, err := c.exchangeObserved(ctx, opts, cl)
	if err != nil {
		return nil, err
	}
	s := newStream(ctx, resp.Body, cfg, o)
	if cfg.cancelOnLeave {
		c.cancelOnLeave(s, opts, cl)
	}
	return s, nil
}

// doDiscard makes a call whose 2xx answer carries nothing to read (the
// deletes): the body, whatever it is, is drained and dropped.
func (c *Client) doDiscard(ctx context.Context, opts []RequestOption, cl core.Call) error {
	resp, _, err := c.exchange(ctx, opts, cl)
	if err != nil {
		return err
	}
	drainClose(resp.Body)
	return nil
}

// do sends cl and returns the 2xx response, whose body the caller closes.
// Every other answer becomes a *Problem. A key refused as Bearer is sent
// once more in x-api-key (sendAuth). A 410 ENDPOINT_DEPRECATED with usable
// advice is followed once (unless WithoutAutoMigrate or cl.NoMigrate), and
// the move is remembered once the replacement answered 2xx, and forgotten
// when the replacement later answers 404 or 410 (forgetMove).
func (c *Client) do(ctx context.Context, cfg *config, cl core.Call) (*http.Response, error) {
	var body []byte
	if cl.Body != nil {
		var err error
		if body, err = json.Marshal(cl.Body); err != nil {
			return nil, fmt.Errorf("threads: %s: encoding the request body: %w", cl.Route.String(), err)
		}
	}
	cl, body, err := cfg.wire.edit(cl, body) // rawjson.go: WithJSONSet, WithRequestBody...
	if err != nil {
		return nil, fmt.Errorf("threads: %s: %w", cl.Route.String(), err)
	}
	migrate := !cfg.noAutoMigrate && !cl.NoMigrate
	r := cl.Route
	var moved route.Move
	if migrate {
		if m, ok := c.moves.Load(r.Key()); ok {
			moved = m.(route.Move)
			r = moved.Route(r.Values)
		}
	}
	resp, p, cfg, fellBack, err := c.sendAuth(ctx, cfg, r, cl, body)
	if err != nil {
		return nil, err
	}
	if p == nil {
		c.gotThrough(cfg, cl, fellBack)
		return resp, nil
	}
	if moved != (route.Move{}) {
		c.forgetMove(cl.Route.Key(), moved, p)
	}
	// Only the service's removal notice migrates: a 410 with its code. The
	// code on any other status (a 500 that says ENDPOINT_DEPRECATED) is
	// not advice.
	if cl.NoMigrate || p.Status != http.StatusGone || p.Code != codeEndpointDeprecated {
		return nil, p
	}

	return c.migrate(ctx, cfg, cl, r, p, body, migrate, fellBack)
}

// pathOf is r's path as errors show it, without a query.
func pathOf(r route.Route) string {
	p, err := r.Path()
	if err != nil {
		return r.Template
	}
	p, _, _ = strings.Cut(p, "?")
	return p
}

// send makes one call (with its retries) to route r.
func (c *Client) send(ctx context.Context, cfg *config, r route.Route, cl core.Call, body []byte) (*http.Response, error) {
	path, err := r.Path()
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, r.Template, err)
	}
	u, err := route.Join(c.base, path)
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", r.Method, path, err)
	}
	for _, q := range [...]url.Values{cl.Query, cfg.query} {
		if len(q) > 0 {
			if u.RawQuery != "" {
				u.RawQuery += "&"
			}
			u.RawQuery += q.Encode()
		}
	}
	obsFrom(ctx).migrated(cl.Route, r)
	if cl.Raw != nil {
		body = cl.Raw // a body that is not JSON (multipart): Content-Type in cl.Header
	}
	secrets := callSecrets(cfg, cl)
	return sendRetrying(ctx, cfg, attempt{
		hc:      c.attemptClient(cfg, cl.Stream),
		method:  r.Method,
		url:     u.String(),
		body:    body,
		header:  c.header(cfg, cl, body != nil),
		final:   cl.FinalStatus,
		again:   cl.Idempotent,
		secrets: secrets,
		// The path may hold ids a server sent (a project id, say): shown
		// in errors and logs only with every spelling of the secrets
		// removed.
		logPath:  redact.URL(u.EscapedPath(), secrets...),
		rawQuery: u.RawQuery,
		route:    redact.String(routeName(cfg, cl), secrets...),
	})
}

// header returns the headers of cl: the options', the SDK's own, the key
// (in cl.KeyHeader when set, else where the options say), then cl.Header.
func (c *Client) header(cfg *config, cl core.Call, hasBody bool) http.Header {
	h := make(http.Header, len(cfg.headers)+len(cl.Header)+4)
	for k, vs := range cfg.headers {
		h[k] = append([]string(nil), vs...)
	}
	if cl.Stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	if hasBody {
		h.Set("Content-Type", "application/json")
	}
	if cfg.userAgent != "" {
		h.Set("User-Agent", cfg.userAgent+" "+defaultUserAgent)
	} else {
		h.Set("User-Agent", defaultUserAgent)
	}
	switch {
	case cl.KeyHeader != "":
		h.Set(cl.KeyHeader, cfg.apiKey.get())
	case cfg.apiKeyHeader != "":
		h.Set(cfg.apiKeyHeader, cfg.apiKey.get())
	default:
		h.Set("Authorization", "Bearer "+cfg.apiKey.get())
	}
	for k, vs := range cl.Header {
		h[textproto.CanonicalMIMEHeaderKey(k)] = append([]string(nil), vs...)
	}
	return h
}
