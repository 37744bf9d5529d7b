package runs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
)

// Client calls the /v1 routes for one end user. Make one with [New] and
// choose its end user with [Client.ForUser] or [Client.ForToken]; each
// returns a copy, so one base Client serves many users:
//
//	base := runs.New(client)
//	alice := base.ForUser("alice")
//	page, err := alice.ListThreads(ctx, nil)
//
// Everything else comes from the *threads.Client: base URL, API key,
// HTTP client, retries, timeouts, logger, size limits. Per-call options are
// [threads.RequestOption]s ([threads.WithHeader],
// [threads.WithRequestTimeout], [threads.WithMaxRetries]...). The API key
// always travels in x-api-key on /v1, whatever [threads.WithAPIKeyHeader]
// says. A Client is safe for concurrent use. Its counterpart on the spec's
// routes is the [threads.Client] it is made from.
type Client struct {
	conn    core.Conn
	err     error // why New could not link to the *threads.Client
	userKey string
	token   threads.Token
}

// New returns a Client that sends its calls through c's request path.
// It does no network I/O. When c is nil or was not made by
// [threads.NewClient], every call of the returned Client fails with an
// error that says so.
//
// The returned Client has no end user yet: call [Client.ForUser] or
// [Client.ForToken] before any call but [Client.ExchangeToken].
func New(c *threads.Client) *Client {
	if c == nil {
		return &Client{err: errors.New("runs: New: the *threads.Client is nil")}
	}
	conn, err := core.ConnOf(c)
	if err != nil {
		return &Client{err: fmt.Errorf("runs: New: %w", err)}
	}
	return &Client{conn: conn}
}

// ForUser returns a copy of the Client that acts for the end user key: the
// SDK sends it where each route reads it (the query, the body, or
// thread.userKey). It replaces any end-user token, since the service takes
// exactly one of the two. A key that is empty or only spaces makes every
// call fail with [ErrIdentity] before anything is sent.
func (c *Client) ForUser(key string) *Client {
	cp := *c
	cp.userKey, cp.token = key, threads.Token{}
	if key == "" {
		cp.userKey = " " // set but blank: refused with its own message
	}
	return &cp
}

// ForToken returns a copy of the Client that acts for the end user of tok,
// an end-user token: [AccessToken.Token] from [Client.ExchangeToken], or
// one your backend obtained, wrapped with [threads.NewToken]: it travels in "Authorization: Bearer"
// beside the API key's x-api-key. It replaces any user key. An empty token
// makes every call fail with [ErrIdentity] before anything is sent.
//
// The service answers 401 once the token has expired; exchange a new one
// (see [AccessToken.Expiry]).
func (c *Client) ForToken(tok threads.Token) *Client {
	cp := *c
	cp.userKey, cp.token = "", tok
	if tok.IsZero() {
		cp.token = threads.NewToken(" ")
	}
	return &cp
}

// ErrIdentity reports a call refused before sending because the Client has
// no end user: every /v1 call needs exactly one of a user key
// ([Client.ForUser]) and an end-user token ([Client.ForToken]).
var ErrIdentity = errors.New("runs: every /v1 call needs exactly one end user: a user key (Client.ForUser) or an end-user token (Client.ForToken)")

// identity checks the Client's end user and returns the query or body
// userKey to send ("" when the token is used) and the headers.
func (c *Client) identity(op string) (key string, h http.Header, err error) {
	if c.err != nil {
		return "", nil, c.err
	}
	tok := c.token.Reveal()
	switch {
	case c.userKey == "" && tok == "":
		return "", nil, fmt.Errorf("%s: %w; this Client has neither", op, ErrIdentity)
	case c.userKey != "" && tok != "":
		// Not reachable through ForUser/ForToken, which replace each
		// other; kept so that a future setter cannot send both.
		return "", nil, fmt.Errorf("%s: %w; this Client has both", op, ErrIdentity)
	case c.userKey != "":
		if strings.TrimSpace(c.userKey) == "" {
			return "", nil, fmt.Errorf("%s: %w; the user key is empty", op, ErrIdentity)
		}
		return c.userKey, nil, nil
	default:
		if strings.TrimSpace(tok) == "" {
			return "", nil, fmt.Errorf("%s: %w; the end-user token is empty", op, ErrIdentity)
		}
		return "", http.Header{"Authorization": {"Bearer " + tok}}, nil
	}
}

// secrets are what a call of c sends that a server may echo, for
// core.Call.Secrets: the end-user token, if any (a blank one is never
// sent), and extra.
func (c *Client) secrets(extra ...string) []string {
	if tok := c.token.Reveal(); strings.TrimSpace(tok) != "" {
		extra = append(extra, tok)
	}
	return extra
}

// call is one /v1 operation: its route (routes.go), its ids in the
// template's order, and what it sends.
type call struct {
	ep     endpoint
	ids    []string
	query  url.Values
	body   any          // JSON-encoded when not nil
	setKey func(string) // a keyInBody route's: puts the user key in body
}

// op names the call in errors: "runs: GET /v1/threads/{threadId}".
func (k call) op() string { return k.ep.op() }

// prepare checks the Client's end user and the call's ids, puts the user
// key where the route reads it and returns the call for the request path.
// When it fails nothing is sent.
func (c *Client) prepare(k call) (core.Call, error) {
	key, hdr, err := c.identity(k.op())
	if err != nil {
		return core.Call{}, err
	}
	r, err := k.ep.route(k.ids...)
	if err != nil {
		return core.Call{}, err
	}
	q := k.query
	if key != "" {
		switch k.ep.key {
		case keyInQuery:
			if q == nil {
				q = url.Values{}
			}
			q.Set("userKey", key)
		case keyInBody:
			if k.setKey == nil {
				return core.Call{}, fmt.Errorf("%s: the call has no place for the user key", k.op())
			}
			k.setKey(key)
		}
	}
	return core.Call{
		Route:     r,
		Query:     q,
		Body:      k.body,
		Header:    hdr,
		KeyHeader: "X-Api-Key",
		NoMigrate: true,
		Secrets:   c.secrets(),
	}, nil
}

// do sends the call and decodes a 2xx JSON answer into out (nil: the
// body is closed unread, as for a 204).
func (c *Client) do(ctx context.Context, opts []threads.RequestOption, k call, out any) error {
	cc, err := c.prepare(k)
	if err != nil {
		return err
	}
	return c.send(ctx, opts, cc, out)
}

// send runs one core call and decodes its answer.
func (c *Client) send(ctx context.Context, opts []threads.RequestOption, cc core.Call, out any) error {
	if c.err != nil {
		return c.err
	}
	ans, err := c.conn.Do(ctx, opts, cc)
	if err != nil {
		return c.wrap(err)
	}
	if out == nil {
		ans.Resp.Body.Close()
		return nil
	}
	return c.conn.DecodeJSON(ans, cc, out)
}
