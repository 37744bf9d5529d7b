package threads_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

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
		new(threads.ToolCall), new(threads.ToolCallParameter), new(threads.ToolCallRequest), new(threads.ToolParameter),
		new(threads.ToolParameterItems), new(threads.UpdateComponentStateParams), new(threads.UpdateThreadParams),
		new(threadstest.AdvanceRequest), new(threadstest.OfferedTool), new(threadstest.SentPart), new(threadstest.Fault),
		new(threadstest.SentMessage), new(threadstest.Request), new(threadstest.Script), new(threadstest.ScriptedToolCall),
		new(threadstest.OfferedParameter), new(threadstest.RunScript), new(threadstest.RunToolCall),
		new(threadstest.RunComponent), new(threadstest.RunError), new(threadstest.RunRequest), new(threadstest.RunMessage),
		new(threadstest.RunContent), new(threadstest.RunTool), new(threadstest.OfferedComponent),
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

	out["threads.ToolRoundsError"] = threads.NewToolRoundsError(3,
		threads.ToolCall{ID: key, Name: key, Arguments: map[string]any{key: key}}, key)

	body := `{"type":"` + key + `","title":"` + key + `","detail":"` + key + `","code":"` + key +
		`","details":{"` + key + `":"` + key + `"},"` + key + `":"` + key + `"}`
	resp := &http.Response{StatusCode: 410, Header: http.Header{"X-Request-Id": {key}, key: {key}},
		Body: http.NoBody}
	resp.Body = readCloser(body)
	p := threads.DecodeProblem(resp, http.MethodGet, "/threads/"+key, key)
	out["threads.Problem"] = p
	out["threads.Deprecation"] = &threads.Deprecation{From: "GET /threads/x", To: "GET /threads/y", MigrateTo: "GET /threads/y"}

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
