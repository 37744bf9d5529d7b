package runs

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/route"
)

// RFC 8693 names used by [Client.ExchangeToken].
const (
	grantTokenExchange  = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeAccess     = "urn:ietf:params:oauth:token-type:access_token"
	maxSubjectTokenSize = 64 << 10
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
	const op = "runs: POST /oauth/token"
	if c.err != nil {
		return nil, c.err
	}
	if strings.TrimSpace(subjectToken) == "" {
		return nil, fmt.Errorf("%s: the subject token is empty", op)
	}
	if len(subjectToken) > maxSubjectTokenSize {
		return nil, fmt.Errorf("%s: the subject token is %d bytes, more than %d", op, len(subjectToken), maxSubjectTokenSize)
	}
	cc := core.Call{
		Route: route.Route{Method: http.MethodPost, Template: "/oauth/token"},
		// RFC 8693 says a form body; the core sends JSON, which the
		// service's framework parses into the same fields.
		Body: map[string]string{
			"grant_type":         grantTokenExchange,
			"subject_token":      subjectToken,
			"subject_token_type": TokenTypeAccess,
		},
		KeyHeader: "X-Api-Key",
		NoMigrate: true,
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
