package runs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
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
	op := epExchangeToken.op()
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
	r, _ := epExchangeToken.route() // no ids: it cannot fail
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
