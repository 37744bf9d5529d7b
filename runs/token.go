package runs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/v1wire"
)

// TokenTypeAccess is the RFC 8693 token type of the subject token
// [Client.ExchangeToken] sends and of the token the service issues
// ([AccessToken.IssuedTokenType]).
const TokenTypeAccess = "urn:ietf:params:oauth:token-type:access_token"

const (
	grantTokenExchange  = "urn:ietf:params:oauth:grant-type:token-exchange"
	maxSubjectTokenSize = 64 << 10 // no identity provider's token is near this
)

type tokenAnswer struct {
	AccessToken     threads.Token `json:"access_token"`
	TokenType       string        `json:"token_type"`
	ExpiresIn       float64       `json:"expires_in"`
	IssuedTokenType string        `json:"issued_token_type"`
}

// ExchangeToken trades an end user's token from your identity provider
// (an OpenID Connect access or ID token, a JWT) for a token of the service
// that identifies that end user on every /v1 call (POST /oauth/token, the
// RFC 8693 token exchange, 201). Pass the result's Token to
// [Client.ForToken]. The Client needs no end user for this call; the API
// key authorizes it.
//
// subjectToken is a secret: it is sent only in the request body and
// removed from any error. The service checks it as the project's OAuth
// settings say (a refused token is a 401 problem, threads.ErrUnauthorized).
// Retried as a POST is: only when it provably did not act.
func (c *Client) ExchangeToken(ctx context.Context, subjectToken string, opts ...threads.RequestOption) (*AccessToken, error) {
	op := opOf(v1wire.ExchangeToken)
	if c.err != nil {
		return nil, c.err
	}
	if strings.TrimSpace(subjectToken) == "" {
		return nil, fmt.Errorf("%s: the subject token is empty", op)
	}
	if len(subjectToken) > maxSubjectTokenSize {
		return nil, fmt.Errorf("%s: the subject token is %d bytes, more than %d", op, len(subjectToken), maxSubjectTokenSize)
	}
	// The form body RFC 8693 prescribes, as the official clients send it
	// (capture 64); the service's JSON parser would also take JSON.
	form := url.Values{
		"grant_type":         {grantTokenExchange},
		"subject_token":      {subjectToken},
		"subject_token_type": {TokenTypeAccess},
	}
	r, _ := fill(v1wire.ExchangeToken) // no ids: it cannot fail
	cc := core.Call{
		Route:     r,
		Raw:       []byte(form.Encode()),
		Header:    http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		KeyHeader: "X-Api-Key",
		NoMigrate: true,
		Secrets:   c.secrets(subjectToken),
	}
	ans, err := c.conn.Do(ctx, opts, cc)
	if err != nil {
		return nil, c.wrap(err, subjectToken)
	}
	got := time.Now()
	var out tokenAnswer
	if err := c.conn.DecodeJSON(ans, cc, &out); err != nil {
		return nil, err
	}
	if out.AccessToken.IsZero() {
		return nil, fmt.Errorf("%s: %w: the answer has no access_token", op, threads.ErrUnexpectedResponse)
	}
	tok := &AccessToken{Token: out.AccessToken, TokenType: out.TokenType, IssuedTokenType: out.IssuedTokenType}
	if out.ExpiresIn > 0 && out.ExpiresIn < 1<<31 {
		tok.ExpiresIn = time.Duration(out.ExpiresIn * float64(time.Second))
		tok.Expiry = got.Add(tok.ExpiresIn)
	}
	return tok, nil
}

// TokenSource gives the end-user token of a /v1 call: a Client made with
// [Client.ForTokenSource] asks it before each call (and once more after a
// 401), under the call's context, with the call's deadline and
// WithRequestTimeout's. Token returns the token as it goes in
// "Authorization: Bearer"; an error fails the call before anything is
// sent. It must be safe for concurrent use, though the Client asks it one
// call at a time. Cache the token in it and renew it before it expires
// (the service answers 401 once it has).
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// TokenSourceFunc is a function that is a [TokenSource].
type TokenSourceFunc func(ctx context.Context) (string, error)

// Token calls f.
func (f TokenSourceFunc) Token(ctx context.Context) (string, error) { return f(ctx) }

// ForTokenSource returns a copy of the Client that acts for the end user
// whose tokens src gives: each call asks src for a token first, and sends
// it as [Client.ForToken] does. A call refused with 401 asks src once more
// and, if the token changed, is sent once more with it (the 401 proves the
// service did not act); never a loop. A nil src, or an empty token, is
// [ErrIdentity]; src's errors are returned wrapped; its tokens are never
// in an error or log line; one that ignores its context cannot hold a
// call past its deadline ("End users" in the package doc). For oauth2:
//
//	ts := conf.TokenSource(ctx, tok) // an oauth2.TokenSource
//	alice := base.ForTokenSource(runs.TokenSourceFunc(func(context.Context) (string, error) {
//		t, err := ts.Token()
//		if err != nil {
//			return "", err
//		}
//		return t.AccessToken, nil
//	}))
//
// For the service's own tokens, call [Client.ExchangeToken] in the source.
func (c *Client) ForTokenSource(src TokenSource) *Client {
	cp := *c
	cp.userKey, cp.token, cp.src = "", threads.Token{}, &tokenSource{src: src, slot: make(chan struct{}, 1)}
	return &cp
}

// tokenSource is a Client's TokenSource and the last tokens it gave,
// which the Client's errors and log lines must not show (a run's stream
// reports text after its call was sent).
type tokenSource struct {
	src  TokenSource
	slot chan struct{} // one ask at a time (its goroutine may outlive a call)
	mu   sync.Mutex
	last [4]string // the last tokens given, in a ring
	next int
}

// token asks the source for a token, under ctx and the call's timeout
// (WithRequestTimeout; 0: none), on a goroutine of its own, so that a
// source that ignores its context cannot hold the call past either: the
// call then fails, and the goroutine is left to end by itself. One ask at
// a time: while one runs (or a call's abandoned ask has not ended), the
// next waits for it within its own deadline.
func (s *tokenSource) token(ctx context.Context, timeout time.Duration) (string, error) {
	if s.src == nil {
		return "", fmt.Errorf("%w; the token source is nil", ErrIdentity)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	select {
	case s.slot <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("the token source: waiting for its earlier ask to end: %w", ctx.Err())
	}
	type answer struct {
		tok      string
		err      error
		panicked any
	}
	got := make(chan answer, 1)
	go func() {
		defer func() { <-s.slot }()
		defer func() {
			if p := recover(); p != nil {
				got <- answer{panicked: p} // the caller's to see, if it still waits
			}
		}()
		tok, err := s.src.Token(ctx)
		got <- answer{tok: tok, err: err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		return "", fmt.Errorf("the token source did not answer: %w", ctx.Err())
	}
	if a.panicked != nil {
		panic(a.panicked)
	}
	tok, err := a.tok, a.err
	if err != nil {
		return "", fmt.Errorf("the token source: %w", err)
	}
	if strings.TrimSpace(tok) == "" {
		return "", fmt.Errorf("%w; the token source gave an empty token", ErrIdentity)
	}
	s.mu.Lock()
	if s.last[(s.next+len(s.last)-1)%len(s.last)] != tok {
		s.last[s.next] = tok
		s.next = (s.next + 1) % len(s.last)
	}
	s.mu.Unlock()
	return tok, nil
}

// given appends to extra the tokens the source gave lately.
func (s *tokenSource) given(extra []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.last {
		if t != "" {
			extra = append(extra, t)
		}
	}
	return extra
}
