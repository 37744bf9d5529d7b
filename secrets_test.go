package threads_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestSecretsNeverLeak drives retries, a migration, errors and a stream
// with a debug logger, then looks for the key in every log line, error
// string and formatted value.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, srv := setup(t, threads.WithLogger(logger))
	ctx := context.Background()
	var texts []string
	note := func(vs ...any) {
		for _, v := range vs {
			texts = append(texts, fmt.Sprint(v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v))
		}
	}

	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Status: 502, Body: "echo " + testKey})
	_, err := c.Threads.List(ctx, &threads.ListParams{ContextKey: "k"})
	require.NoError(t, err)
	srv.Inject(threadstest.Fault{Method: "GET", Path: "/threads", Times: -1, Status: 401,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"message":"key ` + testKey + ` rejected"}`})
	_, err = c.Threads.List(ctx, nil)
	require.Error(t, err)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	note(err, p, *p)

	_, err = c.Threads.CreateAndAdvance(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")})
	require.NoError(t, err)
	_, err = c.Threads.Get(ctx, "thr_none.000000")
	note(err)
	note(c, threads.WithAPIKey(testKey), threads.ClientConfig(c))

	mu.Lock()
	logs := buf.String()
	mu.Unlock()
	assert.NotEmpty(t, logs)
	assert.NotContains(t, logs, testKey)
	for _, s := range texts {
		assert.NotContains(t, s, testKey)
	}
	// The key went only where it belongs.
	for _, r := range srv.Requests() {
		assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	}
}

// The MCP token the service returned in an earlier snapshot must not reach
// the stream's error: not through a later snapshot that fails to decode,
// nor through an error line that echoes it.
func TestAttackMCPTokenInStreamErrors(t *testing.T) {
	const tok = "mcp_tok_SECRETSECRET123456"
	first := `data: {"responseMessageDto":{"id":"m","threadId":"t","role":"assistant","content":[]},"generationStage":"STREAMING_RESPONSE","mcpAccessToken":"` + tok + "\"}\n\n"
	for name, tail := range map[string]string{
		// a later snapshot the SDK cannot decode (schema drift) that carries the token
		"bad snapshot": `data: {"mcpAccessToken":"` + tok + `","generationStage":123}` + "\n\n",
		// the same, with the token escaped
		"bad snapshot escaped": `data: {"mcpAccessToken":"mcp\u005ftok_SECRETSECRET123456","generationStage":123}` + "\n\n",
		// a value the decoder cannot take (an earlier token as an id)
		"token as bad value": `data: {"responseMessageDto":{"id":"` + tok + `","threadId":"t","role":"assistant","isCancelled":"UNSEEN_value_42","content":[]}}` + "\n\n",
		// a value on the decoder's path, under a name that is not the schema's
		"value on path": `data: {"responseMessageDto":{"id":"m","threadId":"t","role":"assistant","metadata":{"UNSEEN_value_42":1},"content":["UNSEEN_value_42"]}}` + "\n\n",
		// not JSON at all, around the token
		"syntax":           `data: {"x":"` + tok + `"UNSEEN_value_42}` + "\n\n",
		"syntax in string": `data: {"UNSEEN_value_42":"a` + "\x01" + `"}` + "\n\n",
		// the error line echoing the token
		"error line":         "error: token " + tok + " expired\n\n",
		"error line escaped": "error: token mcp\\u005ftok_SECRETSECRET123456 expired\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, first+tail)
			}))
			defer srv.Close()
			c := atkClient(t, srv.URL)
			st, err := c.Threads.AdvanceStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")})
			if err != nil {
				t.Fatal(err)
			}
			_, err = st.Collect()
			if err == nil {
				t.Fatal("stream ended without an error")
			}
			t.Logf("err: %v", err)
			if !errors.Is(err, threads.ErrStreamFailed) {
				t.Errorf("err = %v, want ErrStreamFailed", err)
			}
			for _, s := range []string{tok, "SECRETSECRET", "UNSEEN"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows the token: %v", err)
				}
			}
		})
	}
}

// keyInPathServer has no GET /threads (so the client lists through GET
// /projects and /threads/project/{id}), sends a project id that spells
// the key and fails every other call with 500.
func keyInPathServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/threads":
			w.WriteHeader(404)
			io.WriteString(w, `{"statusCode":404,"message":"Cannot GET /threads","error":"Not Found"}`)
		case "/projects":
			fmt.Fprintf(w, `{"id":%q,"name":"p"}`, atkKey+"/x")
		default:
			w.WriteHeader(500)
			io.WriteString(w, `{"statusCode":500,"message":"boom"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAttackKeyInServerSentPath: a project id that spells the key becomes a
// path; the error, the problem and the debug log show it redacted.
func TestAttackKeyInServerSentPath(t *testing.T) {
	t.Parallel()
	srv := keyInPathServer(t)
	var logs bytes.Buffer
	c := atkClient(t, srv.URL, threads.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))), threads.WithMaxRetries(0))
	_, err := c.Threads.List(context.Background(), nil)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, 500, p.Status)
	for what, s := range map[string]string{"error": err.Error(), "%#v": fmt.Sprintf("%#v", p), "%+v": fmt.Sprintf("%+v", p), "log": logs.String()} {
		assert.False(t, redact.Contains(s, atkKey) || strings.Contains(s, "sk_test_ATTACK"), "%s holds the key: %s", what, s)
	}
}

// TestAttackKeyAsHeaderName: the transport canonicalises header names, so
// a key echoed as a name, or echoed upper-cased, is matched whatever its
// case.
func TestAttackKeyAsHeaderName(t *testing.T) {
	t.Parallel()
	key := "sk-live-abcdefghijklmnop"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] = []string{"1"}
		w.Header().Set("X-Echo", strings.ToUpper(r.Header.Get("Authorization")))
		w.WriteHeader(500)
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(key), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "x")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	s := strings.ToLower(fmt.Sprintf("%#v %v", p, p.Header))
	assert.NotContains(t, s, key)
}

// rtFunc is an http.RoundTripper made of a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// cannedClient returns a client whose every request is answered by a
// response built from status, header and body, without a network.
func cannedResponseClient(t testing.TB, key string, status int, header http.Header, body []byte, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	rt := rtFunc(func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			r.Body.Close()
		}
		return &http.Response{StatusCode: status, Header: header.Clone(), Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example.com"), threads.WithAPIKey(key),
		threads.WithHTTPClient(&http.Client{Transport: rt}), threads.WithMaxRetries(0),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// jsonEscapeAll spells every character of s as \uXXXX.
func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// renderings is every way a caller may show a *Problem: its error string,
// the fmt verbs, and each field.
func renderings(p *threads.Problem) map[string]string {
	out := map[string]string{
		"Error": p.Error(), "%v": fmt.Sprintf("%v", p), "%+v": fmt.Sprintf("%+v", p), "%#v": fmt.Sprintf("%#v", p),
		"%s": fmt.Sprintf("%s", p), "*p %+v": fmt.Sprintf("%+v", *p),
		"Type": p.Type, "Title": p.Title, "Detail": p.Detail, "Instance": p.Instance, "Code": p.Code,
		"RequestID": p.RequestID, "Body": string(p.Body), "Details": fmt.Sprintf("%#v", p.Details),
	}
	for k, v := range p.Extensions {
		out["Extensions key "+k] = k
		out["Extensions["+k+"]"] = string(v)
	}
	for k, vs := range p.Header {
		out["Header key "+k] = k
		out["Header["+k+"]"] = strings.Join(vs, "\n")
	}
	if d, ok := p.Deprecation(); ok {
		out["Deprecation"] = fmt.Sprintf("%+v %s %s %s", d, d.From, d.To, d.MigrateTo)
	}
	return out
}

// requireNoKey fails when any rendering holds key in any spelling (raw,
// JSON-escaped, or as %#v shows a []byte).
func requireNoKey(t testing.TB, key string, shown map[string]string) {
	t.Helper()
	hexed := fmt.Sprintf("%#v", []byte(key))
	hexed = hexed[len("[]byte{") : len(hexed)-1]
	for where, s := range shown {
		if redact.Contains(s, key) || strings.Contains(s, hexed) {
			t.Fatalf("the key is in %s: %q", where, s)
		}
	}
}

// TestHardenProblemNeverShowsKey: the key echoed by the server, raw or
// JSON-escaped (\/, \uXXXX), in any member, header or the raw body, never
// reaches any rendering of the *Problem; a short key neither.
func TestHardenProblemNeverShowsKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{hardKey, "ab1x"} {
		esc := strings.ReplaceAll(key, "/", `\/`)
		uesc := jsonEscapeAll(key)
		body := fmt.Sprintf(`{"title":"bad key %[1]s","detail":"%[2]s","code":"X%[3]s","instance":"/t?key=%[2]s",`+
			`"details":{"k":"%[2]s","%[3]s":["%[1]s",{"deep":"%[3]s"}],"migrateToEndpoint":"POST /%[2]s"},`+
			`"ext":"%[3]s","more":{"%[2]s":1}}`, key, esc, uesc)
		h := http.Header{"Content-Type": {"application/problem+json"}, "X-Request-Id": {key}, "X-Echo": {"Bearer " + key}}
		for _, status := range []int{400, 401, 410, 500} {
			c := cannedResponseClient(t, key, status, h, []byte(body))
			_, err := c.Threads.Get(context.Background(), "thr_1")
			var p *threads.Problem
			require.ErrorAs(t, err, &p)
			requireNoKey(t, key, renderings(p))
			require.Equal(t, "[REDACTED]", p.RequestID)
		}
		// A 2xx body that is not JSON, echoing the key.
		c := cannedResponseClient(t, key, 200, http.Header{"Content-Type": {"text/plain"}}, []byte("oops "+key+" "+uesc))
		_, err := c.Threads.Get(context.Background(), "thr_1")
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
		requireNoKey(t, key, map[string]string{"error": err.Error(), "%+v": fmt.Sprintf("%+v", err)})
	}
}

// TestHardenTransportErrorsRedactURL: a failed connection's error (a
// *url.Error) and the logger's error field show the URL without the
// values of credential-like query parameters or the key.
func TestHardenTransportErrorsRedactURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more: every attempt fails to connect
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := hardClient(t, url, threads.WithMaxRetries(1), threads.WithLogger(logger))
	_, err := c.Threads.Get(context.Background(), "thr_1",
		threads.WithQuery("api_key", "v-apikey"), threads.WithQuery("access_token", "v-token"),
		threads.WithQuery("client_secret", "v-secret"), threads.WithQuery("password", "v-password"),
		threads.WithQuery("Authorization", "v-auth"), threads.WithQuery("echo", hardKey), threads.WithQuery("page", "2"))
	require.Error(t, err)
	var ue *neturl.Error
	require.ErrorAs(t, err, &ue)
	for where, s := range map[string]string{"error": err.Error(), "url.Error.URL": ue.URL, "log": logs.String()} {
		for _, v := range []string{"v-apikey", "v-token", "v-secret", "v-password", "v-auth", hardKey, neturl.QueryEscape(hardKey)} {
			require.NotContains(t, s, v, where)
		}
		require.Contains(t, s, "page=2", where)
	}
	require.Contains(t, logs.String(), "error=")
}

// spell writes key in one of several spellings a server may echo: raw,
// with "\/", every character as \uXXXX (lower or upper hex), or a mix
// chosen by the bits of mode.
func spell(key string, mode uint8) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case mode%4 == 0:
			b.WriteRune(r)
		case mode%4 == 1 && r == '/':
			b.WriteString(`\/`)
		case mode%4 == 1:
			b.WriteRune(r)
		case mode%4 == 2:
			fmt.Fprintf(&b, `\u%04x`, r)
		case (mode>>2)&(1<<(i%6)) != 0:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FuzzProblemSecrets: whatever the error body around it, the key embedded
// in any spelling (and echoed in headers) never reaches any rendering of
// the *Problem: Error, %v, %+v, %#v, or any field.
func FuzzProblemSecrets(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"title":"`, `"}`},
		{`{"detail":"bad key: `, `","code":"UNAUTHORIZED"}`},
		{`{"details":{"migrateToEndpoint":"POST /`, `"},"code":"ENDPOINT_DEPRECATED"}`},
		{`{"details":{"`, `":[1,{"a":null}]}}`},
		{`{"statusCode":401,"message":["a","`, `"],"error":"Unauthorized"}`},
		{`{"extra":{"k":"`, `"},"title":"t"}`},
		{`<html>`, `</html>`},
		{``, ``},
	} {
		for mode := uint8(0); mode < 4; mode++ {
			f.Add(401, []byte(seed[0]), []byte(seed[1]), mode, false)
		}
	}
	f.Add(410, []byte(`{"code":"ENDPOINT_DEPRECATED","details":{"migrateToEndpoint":"POST /:id/`), []byte(`"}}`), uint8(0), true)
	f.Fuzz(func(t *testing.T, status int, prefix, suffix []byte, mode uint8, short bool) {
		key := hardKey
		if short {
			key = "ab1x"
		}
		if status < 0 {
			status = -status
		}
		status = 400 + status%200
		body := append(append(append([]byte(nil), prefix...), spell(key, mode)...), suffix...)
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {spell(key, mode)}, "X-" + key[:2]: {key}}
		c := cannedResponseClient(t, key, status, h, body)
		_, err := c.Threads.Get(context.Background(), "thr_1")
		var p *threads.Problem
		if !errors.As(err, &p) {
			t.Fatalf("not a *Problem: %v", err)
		}
		requireNoKey(t, key, renderings(p))
	})
}
