package threads_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
func TestMCPTokenNeverInStreamErrors(t *testing.T) {
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

// TestKeyInServerSentPathRedacted: a project id that spells the key becomes a
// path; the error, the problem and the debug log show it redacted.
func TestKeyInServerSentPathRedacted(t *testing.T) {
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

// TestKeyEchoedAsHeaderNameRedacted: the transport canonicalises header names, so
// a key echoed as a name, or echoed upper-cased, is matched whatever its
// case.
func TestKeyEchoedAsHeaderNameRedacted(t *testing.T) {
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

// TestProblemNeverShowsKey: the key echoed by the server, raw or
// JSON-escaped (\/, \uXXXX), in any member, header or the raw body, never
// reaches any rendering of the *Problem; a short key neither.
func TestProblemNeverShowsKey(t *testing.T) {
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

// TestTransportErrorsRedactURL: a failed connection's error (a
// *url.Error) and the logger's error field show the URL without the
// values of credential-like query parameters or the key.
func TestTransportErrorsRedactURL(t *testing.T) {
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

// addBackendValues adds a value of each type of the storage, audio, key,
// token and registry calls to FuzzFormatSecrets' set: the presigned URL
// and the MCP token are secrets and must print redacted.
func addBackendValues(out map[string]any, key, tok string) {
	out["threads.StorageService"] = &threads.StorageService{}
	out["threads.AudioService"] = &threads.AudioService{}
	out["threads.AuthService"] = &threads.AuthService{}
	out["threads.RegistryService"] = &threads.RegistryService{}
	out["threads.PresignParams"] = threads.PresignParams{ContentType: "text/plain", Size: 1}
	out["threads.PresignedUpload"] = &threads.PresignedUpload{UploadURL: threads.NewToken("https://s3/x?X-Amz-Signature=" + tok), AttachmentURI: "attachment://p/x"}
	out["threads.MCPTokenParams"] = threads.MCPTokenParams{ThreadID: "thr_1"}
	out["threads.MCPAccessToken"] = &threads.MCPAccessToken{Token: threads.NewToken(tok), ExpiresAt: time.Unix(0, 0)}
	out["threads.APIKey"] = threads.APIKey{ID: "ak_1", PartiallyHiddenKey: "tambo_…wxyz"}
	out["threads.ProviderKey"] = threads.ProviderKey{ID: "pk_1"}
	out["threads.RegistryItem"] = threads.RegistryItem{"name": "x"}

	// A value that recorded its JSON (WithRawJSON): an unknown member
	// holds both secrets, which no rendering of the value or its Raw
	// may show (fmt sees only addresses).
	var th threads.ThreadWithMessages
	if err := threads.DecodeAnswer([]byte(`{"id":"thr_1","new":"`+key+` `+tok+`","messages":[{"id":"m","x":"`+tok+`"}]}`), &th); err != nil {
		panic(err)
	}
	out["threads.Raw"] = &th.Raw
	out["threads.ThreadWithMessages(raw)"] = &th
}

// TestTokenAnswerDecodeErrorHidesToken: an answer that holds a token
// (the MCP access token; a thread snapshot's mcpAccessToken) but does not
// decode must not quote the token in the error's excerpt of the body.
func TestTokenAnswerDecodeErrorHidesToken(t *testing.T) {
	t.Parallel()
	const tok = "mcp_tok_SECRETSECRET0123456789"
	c, srv := setup(t)
	srv.Inject(threadstest.Fault{Method: http.MethodPost, Path: "/auth/mcp/access-token", Status: http.StatusCreated,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   `{"accessToken":"` + tok + `","mcpAccessToken":5}`})
	_, err := c.Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{})
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.NotContains(t, err.Error(), "SECRETSECRET")
}

// The rule: every error, log line and fmt verb of every exported type goes
// through the one redaction point. FuzzFormatSecrets renders a value of
// every exported type of package threads (and threadstest, for tokens:
// the fake's key is a test value it shows on purpose) with %v, %+v, %#v and %s, as values and as pointers,
// populated with the key and a token wherever they can be (the secret-aware
// types: a client, a stream that saw the token, a ToolRoundsError and a
// Problem holding the key in every string field; the model: a Token in
// every Token field), and finds neither.

// formatVerbs are the verbs the invariant covers.
var formatVerbs = []string{"%v", "%+v", "%#v", "%s"}

// secretText makes fuzz input a secret that cannot occur by chance in a
// rendering: a marker, then the input mapped onto header-safe letters.
func secretText(marker, s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
	b := []byte(marker)
	for i := 0; i < len(s) && i < 64; i++ {
		b = append(b, alphabet[int(s[i])%len(alphabet)])
	}
	return string(append(b, '~'))
}

// fill sets every exported field of v that it can reach: strings and any
// to text, Token fields to tok, one element per slice and map, pointers
// allocated, to depth 4.
func fill(v reflect.Value, text string, tok threads.Token, depth int) {
	if depth > 4 || !v.CanSet() {
		return
	}
	if v.Type() == reflect.TypeFor[threads.Token]() {
		v.Set(reflect.ValueOf(tok))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(text))
		}
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), text, tok, depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), text, tok, depth+1)
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		k.SetString(text)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, text, tok, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), text, tok, depth+1)
			}
		}
	}
}

// secretValues returns, by type name, a populated value of every exported
// type of package threads and threadstest, as a pointer (the invariant
// renders it and what it points to).
func secretValues(t testing.TB, key, tok string) map[string]any {
	token := threads.NewToken(tok)
	out := map[string]any{}
	model := []any{
		new(threads.ActionType), new(threads.AdvanceParams), new(threads.AdvanceResponse), new(threads.AvailableComponent),
		new(threads.ClientTool), new(threads.ComponentDecision), new(threads.ContentPart), new(threads.ContentPartType),
		new(threads.CreateThreadParams), new(threads.GenerateSuggestionsParams), new(threads.GenerationStage),
		new(threads.ImageURL), new(threads.InputAudio), new(threads.ListParams), new(threads.Message), new(threads.MessageRequest),
		new(threads.Project), new(threads.Resource), new(threads.Role), new(threads.StreamEvent), new(threads.Suggestion),
		new(threads.Thread), new(threads.ThreadPage), new(threads.ThreadWithMessages), new(threads.Token), new(threads.Tool),
		new(threads.ToolCall), new(threads.ToolRunResult), new(threads.TokenUsage), new(threadstest.TokenUsage), new(threadstest.ResumeEntry),
		new(threads.ApprovalRequest), new(threads.Approval), new(threads.ToolGuards), new(threads.ToolCallParameter), new(threads.ToolCallRequest), new(threads.ToolParameter),
		new(threads.ToolParameterItems), new(threads.UpdateComponentStateParams), new(threads.UpdateThreadParams),
		new(threadstest.AdvanceRequest), new(threadstest.OfferedTool), new(threadstest.SentPart), new(threadstest.Fault),
		new(threadstest.SentMessage), new(threadstest.Request), new(threadstest.Script), new(threadstest.ScriptedToolCall),
		new(threadstest.OfferedParameter), new(threadstest.RunScript), new(threadstest.RunToolCall),
		new(threadstest.RunComponent), new(threadstest.RunFailure), new(threadstest.RunRequest), new(threadstest.RunMessage),
		new(threadstest.RunContent), new(threadstest.RunToolDefinition), new(threadstest.OfferedComponent),
		new(threadstest.RunReasoning), new(threadstest.ReasoningNames), new(threads.TokenUsage), new(threadstest.TokenUsage),
		new(threadstest.ResumeEntry), new(threadstest.RunInterrupt),
	}
	for _, v := range model {
		fill(reflect.ValueOf(v).Elem(), "text", token, 0)
		name := reflect.TypeOf(v).Elem().String()
		out[name] = v
	}

	// The secret-aware types, holding the key (and the token) for real.
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("http://127.0.0.1:1"),
		threads.WithAPIKey(key), threads.WithHeader("X-Extra", key), threads.WithQuery("api_key", key))
	require.NoError(t, err)
	out["threads.Client"] = c
	out["threads.ThreadsService"] = c.Threads
	out["threads.MessagesService"] = c.Messages
	out["threads.ProjectsService"] = c.Projects
	out["threads.ClientOption"] = []threads.ClientOption{threads.WithBaseURL("http://127.0.0.1:1"), threads.WithAPIKey(key)}
	out["threads.RequestOption"] = []threads.RequestOption{threads.WithAPIKey(key), threads.WithHeader("X-Extra", key),
		threads.WithQuery("api_key", key), threads.WithAPIKeyHeader("x-api-key")}

	out["threads.Approver"] = threads.Approver(nil)
	out["threads.ToolCallRecord"] = threads.NewMemoryToolCallRecord()
	out["threads.ToolRoundsError"] = threads.NewToolRoundsError(3,
		threads.ToolCall{ID: key, Name: key, Arguments: map[string]any{key: key}}, key)

	body := `{"type":"` + key + `","title":"` + key + `","detail":"` + key + `","code":"` + key +
		`","details":{"` + key + `":"` + key + `"},"` + key + `":"` + key + `"}`
	resp := &http.Response{StatusCode: 410, Header: http.Header{"X-Request-Id": {key}, key: {key}},
		Body: http.NoBody}
	resp.Body = readCloser(body)
	p := threads.DecodeProblem(resp, http.MethodGet, "/threads/"+key, key)
	out["threads.Problem"] = p
	out["threads.Deprecation"] = &threads.Deprecation{From: "GET /threads/x", To: "GET /threads/y"}

	sse := "data: {\"responseMessageDto\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}," +
		"\"generationStage\":\"STREAMING_RESPONSE\",\"mcpAccessToken\":\"" + tok + "\"}\n\nerror: " + key + " " + tok + "\n\n"
	s := threads.NewStreamFrom(strings.NewReader(sse), threads.WithAPIKey(key))
	for s.Next() {
		out["threads.StreamEvent(stream)"] = ptr(s.Current())
	}
	var se *threads.StreamError
	require.ErrorAs(t, s.Err(), &se)
	out["threads.StreamError"] = se
	out["threads.Stream"] = s
	t.Cleanup(func() { s.Close() })

	// Issue 25's types: none holds a secret of its own; an error in them
	// is the SDK's, already cleaned.
	out["threads.Middleware"] = threads.Middleware(nil)
	out["threads.MiddlewareNext"] = threads.MiddlewareNext(nil)
	out["threads.Observer"] = threads.Observer(nil)
	out["threads.CallObserver"] = threads.CallObserver(nil)
	out["threads.CallInfo"] = threads.CallInfo{Method: "GET", Route: "/projects"}
	out["threads.CallEventKind"] = threads.EventAttempt
	out["threads.CallEvent"] = threads.CallEvent{Kind: threads.EventAttempt, Err: p}
	out["threads.CallEnd"] = threads.CallEnd{Err: p}
	addBackendValues(out, key, tok)

	srv := threadstest.NewServer(t, threadstest.WithAPIKey(key))
	out["threadstest.Server"] = srv
	out["threadstest.Option"] = threadstest.WithAPIKey(key)
	return out
}

func ptr[T any](v T) *T { return &v }

// formatRenderings is every rendering the invariant looks at: each verb over the
// value, over what it points to, and over the elements of a slice.
func formatRenderings(v any) []string {
	var vals []any
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Slice:
		for i := range rv.Len() {
			vals = append(vals, rv.Index(i).Interface())
		}
	case rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Type() == reflect.TypeFor[*threads.Client]():
		// A Client is never copied: it holds locks and atomics, and vet
		// (copylocks) refuses fmt.Sprint(*c). Its pointer is the rendering.
		vals = append(vals, v)
	case rv.Kind() == reflect.Pointer && !rv.IsNil():
		// What the pointer points to, copied by reflection.
		vals = append(vals, v, rv.Elem().Interface())
	default:
		vals = append(vals, v)
	}
	var out []string
	for _, x := range vals {
		for _, verb := range formatVerbs {
			out = append(out, fmt.Sprintf(verb, x))
		}
	}
	return out
}

// fakeKey names the values whose key is threadstest's: the fake's test key,
// which its Server shows on purpose (Server.APIKey), is no secret.
var fakeKey = map[string]bool{"threadstest.Server": true, "threadstest.Option": true}

func FuzzFormatSecrets(f *testing.F) {
	f.Add("sk_live_0123456789", "mcp_tok_abcdef")
	f.Add("a", "b")
	f.Add("\x00\xff key", "\u202e")
	f.Fuzz(func(t *testing.T, rawKey, rawTok string) {
		key, tok := secretText("KEY~", rawKey), secretText("TOK~", rawTok)
		for name, v := range secretValues(t, key, tok) {
			for _, s := range formatRenderings(v) {
				if (strings.Contains(s, key) && !fakeKey[name]) || strings.Contains(s, tok) {
					t.Fatalf("%s renders a secret: %.300s", name, s)
				}
			}
		}
	})
}

// TestFormatSecretsCoversEveryExportedType keeps FuzzFormatSecrets honest:
// every exported type declared in package threads and threadstest has a
// value in secretValues.
func TestFormatSecretsCoversEveryExportedType(t *testing.T) {
	t.Parallel()
	values := secretValues(t, "KEY~x~", "TOK~y~")
	for _, dir := range []string{".", "threadstest"} {
		//lint:ignore SA1019 the test reads one directory of plain files (no build tags), which ParseDir does exactly
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		require.NoError(t, err)
		for pkgName, pkg := range pkgs {
			for _, file := range pkg.Files {
				for _, decl := range file.Decls {
					g, ok := decl.(*ast.GenDecl)
					if !ok || g.Tok != token.TYPE {
						continue
					}
					for _, spec := range g.Specs {
						name := spec.(*ast.TypeSpec).Name.Name
						if ast.IsExported(name) {
							_, ok := values[pkgName+"."+name]
							assert.True(t, ok, "%s.%s has no value in secretValues", pkgName, name)
						}
					}
				}
			}
		}
	}
	assert.True(t, slices.Contains(formatVerbs, "%#v"))
}

type stringReadCloser struct{ *strings.Reader }

func (stringReadCloser) Close() error { return nil }

func readCloser(s string) stringReadCloser { return stringReadCloser{strings.NewReader(s)} }
