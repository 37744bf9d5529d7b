package runs

import (
	"bytes"
	"context"
	"encoding/json"

	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/core"
)

// testKey is the API key of every test client.
const testKey = "test-key"

// linked reports whether package threads has registered its Conn (the
// core's request path). Until it has, core.ConnOf calls a nil function.
func linked() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	core.ConnOf((*threads.Client)(nil))
	return true
}

// newTestClient returns a Client for the server at base with no end
// user: through threads.NewClient and New once the core is linked, else
// through plainConn, a minimal stand-in that speaks the same contract.
func newTestClient(t testing.TB, base string, opts ...threads.ClientOption) *Client {
	t.Helper()
	if linked() {
		tc, err := threads.NewClient(append([]threads.ClientOption{
			threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey),
			threads.WithMaxRetries(0),
		}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return New(tc)
	}
	return &Client{conn: &plainConn{base: base, key: testKey}}
}

// plainConn is core.Conn over net/http without retries, for the tests to
// run before package threads registers its own.
type plainConn struct{ base, key string }

func (c *plainConn) Do(ctx context.Context, _ any, call core.Call) (*core.Answer, error) {
	p, err := call.Route.Path()
	if err != nil {
		return nil, err
	}
	u := c.base + p
	if len(call.Query) > 0 {
		u += "?" + call.Query.Encode()
	}
	var body io.Reader
	ct := ""
	switch b := call.Body.(type) {
	case nil:
	case url.Values:
		body, ct = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body, ct = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, call.Route.Method, u, body)
	if err != nil {
		return nil, err
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range call.Header {
		req.Header[k] = v
	}
	req.Header.Set(call.KeyHeader, c.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return &core.Answer{Resp: resp, Limits: core.Limits{MaxResponseSize: 32 << 20}}, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	pr := &threads.Problem{Status: resp.StatusCode, Type: "about:blank", Body: raw, Header: resp.Header,
		Method: call.Route.Method, Path: p}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		str := func(k string) string {
			var s string
			json.Unmarshal(m[k], &s)
			return s
		}
		if v := str("type"); v != "" {
			pr.Type = v
		}
		pr.Title, pr.Detail, pr.Instance, pr.Code = str("title"), str("detail"), str("instance"), str("code")
		if pr.Title == "" {
			pr.Title = str("error")
		}
		if pr.Detail == "" {
			pr.Detail = str("message")
			var list []string
			if json.Unmarshal(m["message"], &list) == nil {
				pr.Detail = strings.Join(list, "; ")
			}
		}
		pr.Extensions = map[string]json.RawMessage{}
		for k, v := range m {
			switch k {
			case "type", "title", "detail", "instance", "code", "status", "details":
			default:
				pr.Extensions[k] = v
			}
		}
	}
	return nil, pr
}

func (c *plainConn) DecodeJSON(ans *core.Answer, call core.Call, out any) error {
	defer ans.Resp.Body.Close()
	b, err := io.ReadAll(ans.Resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w: %v", threads.ErrUnexpectedResponse, err)
	}
	return nil
}

func (c *plainConn) Redact(s string, extra ...string) string {
	for _, x := range append([]string{c.key}, extra...) {
		if x != "" {
			s = strings.ReplaceAll(s, x, "[REDACTED]")
		}
	}
	return s
}
