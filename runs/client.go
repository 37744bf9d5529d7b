package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/v1wire"
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
	conn    core.Conn[threads.RequestOption]
	err     error // why New could not link to the *threads.Client
	userKey string
	token   threads.Token
	src     *tokenSource // ForTokenSource's; nil: none
	helpers *helperList  // WithContextHelper's (run.go); never changed once set
}

// New returns a Client that sends its calls through c's request path.
// It does no network I/O. When c is nil or was not made by
// [threads.NewClient], every call of the returned Client fails with an
// error that says so.
//
// The returned Client has no end user yet: call [Client.ForUser],
// [Client.ForToken] or [Client.ForTokenSource] before any call but
// [Client.ExchangeToken].
func New(c *threads.Client) *Client {
	if c == nil {
		return &Client{err: errors.New("runs: New: the *threads.Client is nil")}
	}
	conn, err := core.ConnOf[threads.RequestOption](c)
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
	cp.userKey, cp.token, cp.src = key, threads.Token{}, nil
	if key == "" {
		cp.userKey = " " // set but blank: refused with its own message
	}
	return &cp
}

// ForToken returns a copy of the Client that acts for the end user of tok,
// an end-user token: [AccessToken.Token] from [Client.ExchangeToken], or
// one your backend obtained, wrapped with [threads.NewToken]: it travels in "Authorization: Bearer"
// beside the API key's x-api-key. It replaces any user key or token
// source. An empty token makes every call fail with [ErrIdentity] before
// anything is sent.
//
// The service answers 401 once the token has expired; exchange a new one
// (see [AccessToken.Expiry]), or give the Client a [TokenSource] that
// renews it ([Client.ForTokenSource]).
func (c *Client) ForToken(tok threads.Token) *Client {
	cp := *c
	cp.userKey, cp.token, cp.src = "", tok, nil
	if tok.IsZero() {
		cp.token = threads.NewToken(" ")
	}
	return &cp
}

// ErrIdentity reports a call refused before sending because the Client has
// no end user: every /v1 call needs exactly one of a user key
// ([Client.ForUser]) and an end-user token ([Client.ForToken],
// [Client.ForTokenSource]).
var ErrIdentity = errors.New("runs: every /v1 call needs exactly one end user: a user key (Client.ForUser) or an end-user token (Client.ForToken, Client.ForTokenSource)")

// identity checks the Client's end user and returns the user key to send
// ("" when a token is used) or the end-user token (asked of the token
// source, if the Client has one).
func (c *Client) identity(ctx context.Context, opts []threads.RequestOption, op string) (key, tok string, err error) {
	if c.err != nil {
		return "", "", c.err
	}
	if c.src != nil {
		tok, err = c.src.token(ctx, c.conn.RequestTimeout(opts))
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", op, err)
		}
		return "", tok, nil
	}
	tok = c.token.Reveal()
	switch {
	case c.userKey == "" && tok == "":
		return "", "", fmt.Errorf("%s: %w; this Client has neither", op, ErrIdentity)
	case c.userKey != "" && tok != "":
		// Not reachable through ForUser/ForToken, which replace each
		// other; kept so that a future setter cannot send both.
		return "", "", fmt.Errorf("%s: %w; this Client has both", op, ErrIdentity)
	case c.userKey != "":
		if strings.TrimSpace(c.userKey) == "" {
			return "", "", fmt.Errorf("%s: %w; the user key is empty", op, ErrIdentity)
		}
		return c.userKey, "", nil
	default:
		if strings.TrimSpace(tok) == "" {
			return "", "", fmt.Errorf("%s: %w; the end-user token is empty", op, ErrIdentity)
		}
		return "", tok, nil
	}
}

// Redact returns s with every spelling of the secrets c's calls send
// (its API key, its end user's token and the last tokens its token source
// gave), raw or JSON-escaped, replaced by "[REDACTED]", and nothing else
// changed, as every answer of c is redacted. It is for text that a
// program passes on to someone else from where the SDK does not redact
// it: a server-side tool's result shown to a browser, say. A per-call key
// ([threads.WithAPIKey]) is not c's: it is not redacted.
func (c *Client) Redact(s string) string {
	if c.conn == nil {
		return s
	}
	return c.conn.Redact(s, c.secrets()...)
}

// secrets are what a call of c sends that a server may echo, for
// core.Call.Secrets: the end-user token, if any (a blank one is never
// sent), the last tokens its token source gave, and extra.
func (c *Client) secrets(extra ...string) []string {
	if tok := c.token.Reveal(); strings.TrimSpace(tok) != "" {
		extra = append(extra, tok)
	}
	if c.src != nil {
		extra = c.src.given(extra)
	}
	return extra
}

// call is one /v1 operation: its route (routes.go), its ids in the
// template's order, and what it sends.
type call struct {
	ep     v1wire.Route
	ids    []string
	route  *route.Route // the route itself, when not ep filled with ids (Client.Do)
	query  url.Values
	body   any          // JSON-encoded when not nil
	raw    []byte       // the JSON body as sent (Client.Do), instead of body
	setKey func(string) // a KeyInBody or KeyInThread route's: puts the user key in body
	// name is a Do call's route name (core.Call.Name): "" for a route
	// this package has.
	name string
	// idempotent: a write acting twice cannot harm (core.Call.Idempotent).
	idempotent bool
}

// op names the call in errors: "runs: GET /v1/threads/{threadId}".
func (k call) op() string { return opOf(k.ep) }

// prepare checks the Client's end user and the call's ids, puts the user
// key where the route reads it (an end-user token in Authorization) and
// returns the call for the request path. When it fails nothing is sent.
func (c *Client) prepare(ctx context.Context, opts []threads.RequestOption, k call) (core.Call, error) {
	var r route.Route
	if k.route != nil {
		r = *k.route
	} else {
		var err error
		if r, err = fill(k.ep, k.ids...); err != nil {
			return core.Call{}, err
		}
	}
	key, tok, err := c.identity(ctx, opts, k.op())
	if err != nil {
		return core.Call{}, err
	}
	q := k.query
	if key != "" {
		switch k.ep.Key {
		case v1wire.KeyInQuery:
			if q == nil {
				q = url.Values{}
			}
			q.Set("userKey", key)
		case v1wire.KeyInBody, v1wire.KeyInThread:
			if k.setKey == nil {
				return core.Call{}, fmt.Errorf("%s: the call has no place for the user key", k.op())
			}
			k.setKey(key)
		}
	}
	cc := core.Call{
		Route:      r,
		Query:      q,
		Body:       k.body,
		KeyHeader:  "X-Api-Key",
		NoMigrate:  true,
		Idempotent: k.idempotent,
		Secrets:    c.secrets(),
		Name:       k.name,
		Generic:    k.route != nil,
	}
	if k.raw != nil {
		cc.Body, cc.Raw = nil, k.raw
		cc.Header = http.Header{"Content-Type": {"application/json"}}
	}
	if tok != "" {
		if cc.Header == nil {
			cc.Header = http.Header{}
		}
		cc.Header.Set("Authorization", "Bearer "+tok)
		cc.Secrets = append(cc.Secrets, tok)
	}
	return cc, nil
}

// do sends the call and decodes a 2xx JSON answer into out (nil: the
// body is closed unread, as for a 204).
func (c *Client) do(ctx context.Context, opts []threads.RequestOption, k call, out any) error {
	cc, err := c.prepare(ctx, opts, k)
	if err != nil {
		return err
	}
	ans, cc, err := c.roundTrip(ctx, opts, cc)
	if err != nil {
		return err
	}
	if out == nil {
		ans.Resp.Body.Close()
		return nil
	}
	return c.conn.DecodeJSON(ans, cc, out)
}

// roundTrip sends cc through the core and returns its 2xx answer, and the
// call as last sent. A call refused with 401 by a Client with a token
// source is sent once more, and only once, if the source then gives
// another token (the refusal proves the service did not act on it); the
// second answer is final. Errors are wrapped (c.wrap) without the call's
// secrets.
func (c *Client) roundTrip(ctx context.Context, opts []threads.RequestOption, cc core.Call) (*core.Answer, core.Call, error) {
	if c.err != nil {
		return nil, cc, c.err
	}
	ans, err := c.conn.Do(ctx, opts, cc)
	if err == nil {
		return ans, cc, nil
	}
	if c.src == nil || !errors.Is(err, threads.ErrUnauthorized) {
		return nil, cc, c.wrap(err, cc.Secrets...)
	}
	old := strings.TrimPrefix(cc.Header.Get("Authorization"), "Bearer ")
	tok, terr := c.src.token(ctx, c.conn.RequestTimeout(opts))
	switch {
	case terr != nil:
		return nil, cc, fmt.Errorf("%w (asking the token source again after it: %v)", c.wrap(err, cc.Secrets...), c.conn.Redact(terr.Error(), cc.Secrets...))
	case tok == old:
		return nil, cc, c.wrap(err, cc.Secrets...) // the same token would be refused the same way
	}
	cc.Header = cc.Header.Clone()
	cc.Header.Set("Authorization", "Bearer "+tok)
	cc.Secrets = append(cc.Secrets[:len(cc.Secrets):len(cc.Secrets)], tok)
	if ans, err = c.conn.Do(ctx, opts, cc); err != nil {
		return nil, cc, c.wrap(err, cc.Secrets...)
	}
	return ans, cc, nil
}

// Do calls a /v1 route the package does not model (or one it does, in a
// way its method does not) for the Client's end user, through the same
// request path as every method: the *threads.Client's base URL, API key
// (in x-api-key), headers, retries, timeouts, redaction, observer and
// middlewares; a non-2xx answer is a *[threads.Problem] that matches this
// package's sentinels. method is an HTTP method; path is the route, under
// /v1/, escaped as in a URL, with an optional query. body and out are as
// for [threads.Client.Do], and out may also be a *[Response] (the answer's
// status, headers and bytes, the call's secrets redacted):
//
//	var msg json.RawMessage
//	err := alice.Do(ctx, "GET", "/v1/threads/"+url.PathEscape(id)+"/messages/"+url.PathEscape(mid), nil, &msg)
//
// Where the end user goes, and which paths, queries and bodies are
// refused because they would name a second one: the package doc's
// "Calling a route the package does not model".
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...threads.RequestOption) error {
	if c.err != nil {
		return c.err
	}
	k, err := c.genericCall(method, path, body)
	if err != nil {
		return err
	}
	var keyErr error
	if k.ep.Key == v1wire.KeyInBody || k.ep.Key == v1wire.KeyInThread {
		toks := []string{"userKey"}
		if k.ep.Key == v1wire.KeyInThread {
			toks = []string{"thread", "userKey"}
		}
		k.setKey = func(key string) {
			v, _ := json.Marshal(key)
			k.raw, keyErr = jsonx.Set(k.raw, toks, v)
		}
	}
	cc, err := c.prepare(ctx, opts, k)
	if err != nil {
		return err
	}
	if keyErr != nil {
		return fmt.Errorf("%s: putting the user key in the body: %w", k.op(), keyErr)
	}
	cc.Raw = k.raw // with the user key, if it went there
	ans, cc, err := c.roundTrip(ctx, opts, cc)
	if err != nil {
		return err
	}
	if r, ok := out.(*Response); ok {
		return c.response(ans, cc, r)
	}
	if out == nil || core.Empty(ans.Resp) {
		core.DrainClose(ans.Resp.Body)
		return nil
	}
	return c.conn.DecodeJSON(ans, cc, out)
}

// Response is a 2xx /v1 answer as the service sent it, for a backend that
// passes it on to its own front end (package proxy does): give a
// *Response as [Client.Do]'s out. Its Header and Body have every spelling
// of the call's secrets (the client's API key, a key set for the call with
// [threads.WithAPIKey], the end user's token), raw or JSON-escaped,
// replaced by "[REDACTED]", and nothing else changed: members this
// package does not model pass as sent. Do reads the body within the
// client's response size limit ([threads.WithMaxResponseSize]) and does
// not check that it is JSON: Header's Content-Type says what it is. A
// non-2xx answer is Do's *threads.Problem, whose Body is redacted alike.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// response reads ans into r, redacted with the call's secrets.
func (c *Client) response(ans *core.Answer, cc core.Call, r *Response) error {
	resp := ans.Resp
	defer resp.Body.Close()
	// The call's key and secrets, and the client's own key, which a call
	// with a per-call key did not send but the service may hold.
	redact := func(s string) string { return c.conn.Redact(ans.Redact(s, cc.Secrets...)) }
	limit := ans.Limits.MaxResponseSize
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		err = fmt.Errorf("runs: %s %s: reading the answer: %w (%w)", cc.Route.Method, cc.Route.Template, threads.ErrUnexpectedResponse, errors.New(redact(err.Error())))
	case int64(len(body)) > limit:
		err = fmt.Errorf("runs: %s %s: the answer is larger than %d bytes (threads.WithMaxResponseSize): %w", cc.Route.Method, cc.Route.Template, limit, threads.ErrUnexpectedResponse)
	}
	if err != nil {
		ans.Observe.End(err)
		return err
	}
	h := make(http.Header, len(resp.Header))
	for k, vs := range resp.Header {
		for _, v := range vs {
			h[redact(k)] = append(h[redact(k)], redact(v))
		}
	}
	*r = Response{Status: resp.StatusCode, Header: h, Body: []byte(redact(string(body)))}
	return nil
}

// endUserName reports whether a query parameter's name (as decoded once)
// may be read as the end user or its context by a server: userKey or
// contextKey in any case, their nested forms (userKey[0], userKey[],
// userKey.x, as qs-style parsers read them), and the same once more
// percent-decoded (a server that decodes twice).
func endUserName(name string) bool {
	for range 2 {
		n := strings.ToLower(strings.TrimSpace(name))
		for _, id := range [...]string{"userkey", "contextkey"} {
			if rest, ok := strings.CutPrefix(n, id); ok && (rest == "" || rest[0] == '[' || rest[0] == '.') {
				return true
			}
		}
		d, err := url.QueryUnescape(name)
		if err != nil || d == name {
			return false
		}
		name = d
	}
	return false
}

// bodyNamesContext reports whether a JSON object body has a contextKey
// member, at its top or in its thread member: another end user's
// identifier, which Do does not replace.
func bodyNamesContext(raw []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	var thread map[string]json.RawMessage
	_ = json.Unmarshal(top["thread"], &thread)
	for _, m := range []map[string]json.RawMessage{top, thread} {
		for name := range m {
			if strings.EqualFold(name, "contextKey") {
				return true
			}
		}
	}
	return false
}

// genericCall checks Do's method, path and body and returns the call.
func (c *Client) genericCall(method, path string, body any) (call, error) {
	shown := c.conn.Redact(path)
	r, known, q, err := route.Literal(method, path, templates(method))
	if err != nil {
		return call{}, fmt.Errorf("runs: Do(%s %.80q): %w", method, shown, err)
	}
	if !strings.HasPrefix(r.Template, "/v1/") {
		return call{}, fmt.Errorf("runs: Do(%s %.80q): not a /v1 route: use threads.Client.Do", method, shown)
	}
	for name := range q {
		if endUserName(name) {
			return call{}, fmt.Errorf("runs: Do(%s %.80q): the path's query names the end user or its context (%.40q): the Client's end user is the call's", method, shown, name)
		}
	}
	k := call{ep: endpointOf(r, known), route: &r, query: q}
	if !known {
		k.name = route.Named(r.Template) // one name per route, not per thread
	}
	switch b := body.(type) {
	case nil:
	case json.RawMessage:
		k.raw = append([]byte{}, b...)
	case []byte:
		k.raw = append([]byte{}, b...)
	case io.Reader:
		return call{}, fmt.Errorf("runs: Do(%s %.80q): the body is an io.Reader: pass its bytes (a []byte is sent as it is)", method, shown)
	default:
		if k.raw, err = json.Marshal(body); err != nil {
			return call{}, fmt.Errorf("%s: encoding the body: %w", k.op(), err)
		}
	}
	if bodyNamesContext(k.raw) {
		return call{}, fmt.Errorf("runs: Do(%s %.80q): the body names a contextKey: the Client's end user is the call's", method, shown)
	}
	if len(k.raw) == 0 {
		k.raw = nil
		if k.ep.Key == v1wire.KeyInBody || k.ep.Key == v1wire.KeyInThread {
			k.raw = []byte("{}") // the user key needs an object to go in
		}
	}
	return k, nil
}
