package threads

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// This file chooses the header the API key travels in on the spec's routes.
// The spec says "Authorization: Bearer <key>"; the live service reads
// x-api-key and refuses a Bearer key with 403 in its framework shape
// (captures 02 and 03). With neither WithAPIKeyHeader nor
// $THREADS_API_KEY_HEADER set, a client starts with Bearer and, when a call
// is refused that way before any call got through, sends it once more with
// the key in x-api-key, to the same URL with the same body. A write is safe
// to re-send: the guard that refused it runs before the handler, so the
// refused call did nothing. Once x-api-key answered 2xx the client keeps it
// for its life; it is never forgotten, because a later 401 or 403 is about
// the key (revoked) or the resource (a thread outside the key's project),
// and going back to a header the service already refused would only add a
// refused round trip to every call.

// xAPIKeyHeader is the header the live service reads the key from.
const xAPIKeyHeader = "X-Api-Key"

// sendAuth sends cl to r and returns either its 2xx response or its
// *Problem, with the settings the call went out with (the client's, or the
// same with the key in x-api-key) and whether the key fell back to
// x-api-key in this call.
func (c *Client) sendAuth(ctx context.Context, cfg *config, r route.Route, cl core.Call, body []byte) (*http.Response, *Problem, *config, bool, error) {
	fallback := cl.KeyHeader == "" && cfg.apiKeyHeader == "" && !sendsXAPIKey(cfg, cl)
	if fallback && c.xAPIKey.Load() {
		cfg, fallback = c.xAPIKeyConfig(cfg), false
	}
	resp, err := c.send(ctx, cfg, r, cl, body)
	if err != nil {
		return nil, nil, nil, false, err
	}
	if ok2xx(resp.StatusCode) {
		return resp, nil, cfg, false, nil
	}
	p := decodeRouteProblem(resp, r, cfg.apiKey.get())
	if cl.KeyHeader != "" || !authRefusal(p) {
		return nil, p, cfg, false, nil
	}
	if !fallback {
		// The caller sends x-api-key itself (WithHeader): no second try,
		// but the hint still applies to the Bearer key.
		if cfg.apiKeyHeader == "" && !c.authOK.Load() {
			c.hintAuth(r, p, false)
		}
		return nil, p, cfg, false, nil
	}
	if c.authOK.Load() && !c.xAPIKey.Load() {
		// The key got through as Bearer before: this refusal is about
		// the resource, not the header.
		return nil, p, cfg, false, nil
	}
	xcfg := c.xAPIKeyConfig(cfg)
	resp, err = c.send(ctx, xcfg, r, cl, body)
	if err != nil {
		return nil, nil, nil, false, err
	}
	if ok2xx(resp.StatusCode) {
		return resp, nil, xcfg, true, nil
	}
	// The second answer is the caller's: it is what the service says
	// about the call sent the way it reads keys (a 404 for a route it
	// lacks, a 410 to migrate with x-api-key...).
	p2 := decodeRouteProblem(resp, r, xcfg.apiKey.get())
	if p.Status == http.StatusForbidden && p2.Status == http.StatusUnauthorized && authRefusal(p2) {
		// A service that reads Bearer keys: without Authorization the
		// call has no credentials (401), so the 403 came after it read
		// the key, about the resource (a thread outside the key's
		// project). The first answer is the truth; the key stays Bearer.
		return nil, p, cfg, false, nil
	}
	if authRefusal(p2) && !c.authOK.Load() {
		c.hintAuth(r, p2, true)
	}
	return nil, p2, xcfg, true, nil
}

// gotThrough records that cl was answered 2xx: the key reaches the service
// and, when it fell back to x-api-key in this call, that header is kept for
// the client's later calls (logged once at info).
func (c *Client) gotThrough(cfg *config, cl core.Call, fellBack bool) {
	if cl.KeyHeader != "" {
		return
	}
	// xAPIKey before authOK: a concurrent call refused as Bearer that sees
	// authOK must also see that x-api-key works, or it would take its
	// refusal as being about the resource.
	if fellBack && c.xAPIKey.CompareAndSwap(false, true) && cfg.logger != nil {
		cfg.logger.Info("threads: the service refused the API key as Authorization: Bearer and accepted it in x-api-key; this client sends it in x-api-key from now on",
			slog.String("header", "x-api-key"), slog.String("setting", EnvAPIKeyHeader+"=x-api-key skips the refused call"))
	}
	c.authOK.Store(true)
}

// xAPIKeyConfig returns cfg with the key in x-api-key: the client's own
// copy for a call without options, else a new one.
func (c *Client) xAPIKeyConfig(cfg *config) *config {
	if cfg == &c.cfg {
		return &c.xAPIKeyCfg
	}
	x := *cfg
	x.apiKeyHeader = xAPIKeyHeader
	return &x
}

// sendsXAPIKey reports whether the call already carries an x-api-key
// header of the caller's (WithHeader): the SDK does not replace it.
func sendsXAPIKey(cfg *config, cl core.Call) bool {
	return len(cfg.headers.Values(xAPIKeyHeader)) > 0 || len(cl.Header.Values(xAPIKeyHeader)) > 0
}

// authRefusal reports whether p is the framework's refusal by an auth guard
// (401 or 403 with no code and no type), not an RFC 9457 problem about
// something else.
func authRefusal(p *Problem) bool {
	return (p.Status == http.StatusUnauthorized || p.Status == http.StatusForbidden) &&
		p.Code == "" && p.Type == "about:blank"
}

// hintAuth tells the caller how to send the key another way: after the key
// was refused as Bearer only (tried false: the caller sends an x-api-key of
// its own), or as Bearer and then in x-api-key. The same 403 answers a
// thread outside the key's project, so on a route that names a thread the
// hint says both. The setting is named once, the variable first: the
// threads command reads it too, and prints this hint as it is.
func (c *Client) hintAuth(r route.Route, p *Problem, tried bool) {
	const setting = EnvAPIKeyHeader + " or WithAPIKeyHeader"
	if tried {
		p.hint = "the key was refused both as Authorization: Bearer and in x-api-key: check the key, or name the header the service reads with " + setting
	} else {
		p.hint = "the key was sent as Authorization: Bearer; if the service reads it from another header (e.g. x-api-key), name it with " + setting
	}
	if p.Status == http.StatusForbidden && len(r.Values) > 0 {
		p.hint = "the thread may not exist or may belong to another project; or " + p.hint
	}
}
