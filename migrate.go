package threads

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// This file is the 410 half of the request path (Client.do in request.go):
// a call answered 410 ENDPOINT_DEPRECATED follows the service's
// migrateToEndpoint advice once, the move is remembered once the
// replacement answered 2xx, and forgotten when the replacement later
// answers 404 or 410.

// migrate handles p, the 410 ENDPOINT_DEPRECATED answer of cl sent to r:
// it resolves the advice against the base URL and, when follow (the call
// has no WithoutAutoMigrate), sends cl once to the replacement and
// remembers the move if it answered 2xx. Otherwise it returns p, which
// says why the advice was not followed. fellBack is sendAuth's: the key
// went in x-api-key after a Bearer refusal.
func (c *Client) migrate(ctx context.Context, cfg *config, cl core.Call, r route.Route, p *Problem, body []byte, follow, fellBack bool) (*http.Response, error) {
	advice := migrateTo(p)
	move, err := route.Resolve(advice, c.base, r)
	if err != nil {
		p.migration = err.Error()
		return nil, p
	}
	to := move.Route(r.Values)
	p.deprecation = &Deprecation{From: r.String(), To: to.String(), MigrateTo: advice}
	if !follow {
		p.migration = "WithoutAutoMigrate"
		return nil, p
	}
	resp, err := c.send(ctx, cfg, to, cl, body)
	if err != nil {
		return nil, err
	}
	if !ok2xx(resp.StatusCode) {
		p2 := decodeRouteProblem(resp, to, cfg.apiKey.get())
		if p2.Status == http.StatusGone && p2.Code == codeEndpointDeprecated {
			p.migration = "the replacement " + to.String() + " answered 410 too"
			return nil, p
		}
		// Not remembered: a replacement that fails (404, 500...) must not
		// become this route for the client's life.
		return nil, p2
	}
	c.gotThrough(cfg, cl, fellBack)
	c.remember(cfg, cl.Route.Key(), move, *p.deprecation)
	return resp, nil
}

// forgetMove drops the remembered move of the route key when the route it
// leads to refused the call as gone: a 404 or a 410 (the service retired
// the replacement too, or never had it). The next call then sends the
// original route and learns again from its answer. A 401 or 403 is kept:
// it is about the key or the thread (the live service answers 403 for a
// thread outside the key's project), not about the route; a 5xx or a 429
// is kept too: it says nothing about where the operation lives. Only the
// move this call used is dropped, so a newer one stored meanwhile stays.
// A 410 with usable advice is followed by do as usual and, once its
// replacement answered 2xx, remembered in place of the dropped one.
func (c *Client) forgetMove(key string, m route.Move, p *Problem) {
	if p.Status == http.StatusNotFound || p.Status == http.StatusGone {
		c.moves.CompareAndDelete(key, m)
	}
}

// remember stores a move and reports it once per client.
func (c *Client) remember(cfg *config, key string, m route.Move, d Deprecation) {
	c.moves.Store(key, m)
	if _, loaded := c.reported.LoadOrStore(key, struct{}{}); loaded {
		return
	}
	if cfg.logger != nil {
		cfg.logger.Warn("threads: endpoint deprecated; following the service's migration advice",
			slog.String("from", d.From), slog.String("to", d.To), slog.String("migrateToEndpoint", d.MigrateTo))
	}
	if c.cfg.onDeprecation != nil {
		c.cfg.onDeprecation(d)
	}
}
