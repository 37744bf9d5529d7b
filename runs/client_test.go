package runs_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// allSeen is a threads.Observer that keeps the text of everything it is
// told: each attempt's error and each call's end.
type allSeen struct {
	mu   sync.Mutex
	text strings.Builder
}

func (a *allSeen) StartCall(ctx context.Context, _ threads.CallInfo) (context.Context, threads.CallObserver) {
	return ctx, a
}

func (a *allSeen) Observe(ev threads.CallEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(&a.text, "event %v %s %v\n", ev.Kind, ev.Path, ev.Err)
}

func (a *allSeen) End(e threads.CallEnd) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(&a.text, "end %v\n", e.Err)
}

func (a *allSeen) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.text.String()
}

// echoSecretServer answers every request with bytes that repeat the
// call's secret: the end user's bearer token, or the subject token of a
// token exchange. "header" answers a malformed response header line (the
// transport's error quotes it); "content-type" a 200 whose Content-Type
// carries it.
func echoSecretServer(t *testing.T, how string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if r.URL.Path == "/oauth/token" {
			body, _ := io.ReadAll(r.Body)
			q, _ := url.ParseQuery(string(body))
			secret = q.Get("subject_token")
		}
		if how == "content-type" {
			w.Header().Set("Content-Type", "text/html; note="+secret)
			io.WriteString(w, "<html></html>")
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%s\r\n\r\n{}", secret)
		buf.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Issue 31, the secrets finding: a malformed response header line that
// repeats the end user's bearer token or ExchangeToken's subject token
// reached the error, the observer and the debug log (only the API key was
// redacted there); so did a run answered with a Content-Type that carries
// the token. Every call secret (core.Call.Secrets) is now redacted
// wherever the API key is.
func TestCallSecretsRedactedWhereTheKeyIs(t *testing.T) {
	t.Parallel()
	const (
		userToken = "eyJhbGciOi.end-user-token.sig-7f3a9c"
		subject   = "idp-subject-token-91b2e4d07c"
	)
	for _, tc := range []struct {
		name, how, secret string
		call              func(context.Context, *runs.Client) error
	}{
		{"GetThread header", "header", userToken, func(ctx context.Context, c *runs.Client) error {
			_, err := c.ForToken(threads.NewToken(userToken)).GetThread(ctx, "thr_1")
			return err
		}},
		{"ExchangeToken header", "header", subject, func(ctx context.Context, c *runs.Client) error {
			_, err := c.ExchangeToken(ctx, subject)
			return err
		}},
		{"Run header", "header", userToken, func(ctx context.Context, c *runs.Client) error {
			_, err := c.ForToken(threads.NewToken(userToken)).Run(ctx, "thr_1", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
			return err
		}},
		{"Run content-type", "content-type", userToken, func(ctx context.Context, c *runs.Client) error {
			_, err := c.ForToken(threads.NewToken(userToken)).Run(ctx, "thr_1", runs.RunParams{Content: []runs.Content{runs.Text("hi")}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			var logMu sync.Mutex
			obs := &allSeen{}
			tc2, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(echoSecretServer(t, tc.how)),
				threads.WithAPIKey(testKey), threads.WithObserver(obs), threads.WithMaxRetries(1),
				threads.WithRetryWait(time.Millisecond, time.Millisecond),
				threads.WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{&logMu, &log}, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(t.Context(), runs.New(tc2))
			if err == nil {
				t.Fatal("no error")
			}
			logMu.Lock()
			logged := log.String()
			logMu.Unlock()
			for where, text := range map[string]string{"error": err.Error(), "observer": obs.String(), "log": logged} {
				if strings.Contains(text, tc.secret) {
					t.Errorf("the %s shows the secret: %s", where, text)
				}
			}
			if !strings.Contains(obs.String(), "end ") {
				t.Errorf("the observer heard no end: %s", obs.String())
			}
		})
	}
}

// Client.Do sends the end user where the route reads it: a route of the
// package where its method sends it, any other POST or PUT in the body's
// userKey, any other method in the query; a token in Authorization. The
// path is checked as every id is.
func TestDo(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	ctx := context.Background()
	last := func() threadstest.Request {
		reqs := srv.Requests()
		return reqs[len(reqs)-1]
	}

	var th runs.Thread
	if err := u.Do(ctx, "POST", "/v1/threads", map[string]any{"metadata": map[string]any{"n": 1}}, &th); err != nil {
		t.Fatal(err)
	}
	if th.UserKey != "user-1" || th.Metadata["n"] != float64(1) {
		t.Fatalf("created %+v", th)
	}
	if r := last(); string(r.Body) != `{"metadata":{"n":1},"userKey":"user-1"}` || r.Header.Get("X-Api-Key") != srv.APIKey {
		t.Errorf("POST sent %s, %v", r.Body, r.Header)
	}
	var raw json.RawMessage
	if err := u.Do(ctx, "GET", "/v1/threads/"+th.ID+"?x=1", nil, &raw); err != nil || !strings.Contains(string(raw), th.ID) {
		t.Fatalf("GET: %s %v", raw, err)
	}
	if q := last().Query; q.Get("userKey") != "user-1" || q.Get("x") != "1" {
		t.Errorf("GET query %v", q)
	}
	// Create-and-run reads the user key in thread.userKey only.
	if err := u.Do(ctx, "POST", "/v1/threads/runs", []byte(`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`), nil); err != nil {
		t.Fatal(err)
	}
	if b := string(last().Body); !strings.Contains(b, `"thread":{"userKey":"user-1"}`) || strings.Contains(b, `,"userKey"`) {
		t.Errorf("create-and-run sent %s", b)
	}
	// A route the package does not model: the service's answer, a *Problem.
	err := u.Do(ctx, "POST", "/v1/threads/"+th.ID+"/unknown", nil, nil)
	if !errors.Is(err, threads.ErrNotFound) {
		t.Errorf("unknown route: %v", err)
	}
	if b := string(last().Body); b != `{"userKey":"user-1"}` {
		t.Errorf("unknown POST sent %s", b)
	}

	n := len(srv.Requests())
	for path, want := range map[string]string{
		"/threads":                  "not a /v1 route",
		"/v1/threads/..":            "dot segment",
		"/v1/threads/a%2fb":         "encoded separator",
		"/v1/threads?userKey=bob":   "names the end user",
		"//evil.example/v1/threads": "names a host",
	} {
		if err := u.Do(ctx, "GET", path, nil, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if err := runs.New(srv.Client()).Do(ctx, "GET", "/v1/threads", nil, nil); !errors.Is(err, runs.ErrIdentity) {
		t.Errorf("no end user: %v", err)
	}
	if err := u.Do(ctx, "POST", "/v1/threads", []byte(`[1]`), nil); err == nil || !strings.Contains(err.Error(), "user key in the body") {
		t.Errorf("array body: %v", err)
	}
	if got := len(srv.Requests()); got != n {
		t.Errorf("%d requests sent by refused calls", got-n)
	}
}

// Do with a *Response gives the answer as the service sent it, members
// this package does not model included, with the call's secrets redacted
// in every spelling (the client's key, a per-call key, the end user's
// token) and nothing else changed; the body stays within the response
// size limit.
func TestDoResponse(t *testing.T) {
	t.Parallel()
	const clientKey, callKey, token = "client-key-0123456789", "call-key-0123456789", "user-token-0123456789"
	body := `{"id":"thr_1","unmodelled":{"a":[1,2]},"k":"` + clientKey + `","c":"call\u002dkey-0123456789","t":"` + token + `"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", callKey)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	tc, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(clientKey), threads.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	u := runs.New(tc).ForToken(threads.NewToken(token))
	var resp runs.Response
	if err := u.Do(context.Background(), "POST", "/v1/threads", nil, &resp, threads.WithAPIKey(callKey)); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"thr_1","unmodelled":{"a":[1,2]},"k":"[REDACTED]","c":"[REDACTED]","t":"[REDACTED]"}`
	if resp.Status != http.StatusCreated || string(resp.Body) != want || resp.Header.Get("X-Echo") != "[REDACTED]" ||
		resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %v %s\nwant body %s", resp.Status, resp.Header, resp.Body, want)
	}

	var small runs.Response
	err = u.Do(context.Background(), "GET", "/v1/threads", nil, &small, threads.WithMaxResponseSize(10))
	if !errors.Is(err, threads.ErrUnexpectedResponse) || small.Body != nil {
		t.Errorf("an answer over the size limit: %v, %q", err, small.Body)
	}
}

// Every JSON route against the fake, as it answers with and without the
// live habits.
func TestAgainstFake(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]threadstest.Option{"spec": nil, "live": {threadstest.WithLiveHabits()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := threadstest.NewServer(t, opts...)
			base := runs.New(srv.Client())
			u := base.ForUser("user-1")

			th, err := u.CreateThread(ctx, runs.CreateThreadParams{Metadata: map[string]any{"n": 1}, InitialMessages: []runs.InitialMessage{
				{Role: runs.RoleUser, Content: []runs.Content{runs.Text("one")}},
				{Role: runs.RoleAssistant, Content: []runs.Content{runs.Text("two")}},
				{Role: runs.RoleUser, Content: []runs.Content{runs.Text("three")}},
			}})
			if err != nil || th.UserKey != "user-1" || th.RunStatus != runs.RunStatusIdle {
				t.Fatalf("create: %+v %v", th, err)
			}
			got, err := u.GetThread(ctx, th.ID)
			if err != nil || len(got.Messages) != 3 || got.Messages[2].Text() != "three" {
				t.Fatalf("get: %+v %v", got, err)
			}
			up, err := u.UpdateThread(ctx, th.ID, runs.UpdateThreadParams{Name: "renamed", Metadata: map[string]any{"topic": "x"}})
			if err != nil || up.Name != "renamed" || up.Metadata["n"] != nil || up.Metadata["topic"] != "x" {
				t.Fatalf("update: %+v %v", up, err)
			}
			var texts []string
			for m, err := range u.AllMessages(ctx, th.ID, &runs.ListMessagesParams{Limit: 2, Order: runs.OrderDesc}) {
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, m.Text())
			}
			if len(texts) != 3 || texts[0] != "three" || texts[2] != "one" {
				t.Fatalf("messages: %v", texts)
			}
			msg := got.Messages[1]
			if m, err := u.GetMessage(ctx, th.ID, msg.ID); err != nil || m.Text() != "two" {
				t.Fatalf("get message: %+v %v", m, err)
			}
			if _, err := u.GetMessage(ctx, th.ID, "msg_nope.000000"); !errors.Is(err, threads.ErrNotFound) {
				t.Fatalf("unknown message: %v", err)
			}
			sg, err := u.GenerateSuggestions(ctx, th.ID, msg.ID, runs.GenerateSuggestionsParams{MaxSuggestions: 3})
			if err != nil || len(sg.Items) != 3 {
				t.Fatalf("generate: %+v %v", sg, err)
			}
			n := 0
			for _, err := range u.AllSuggestions(ctx, th.ID, msg.ID, &runs.ListSuggestionsParams{Limit: 1}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 3 {
				t.Fatalf("suggestions: %d", n)
			}
			if _, err := u.ListSuggestions(ctx, th.ID, msg.ID, &runs.ListSuggestionsParams{Cursor: "garbage"}); !errors.Is(err, runs.ErrInvalidCursor) {
				t.Fatalf("bad cursor: %v", err)
			}
			if _, err := u.SetComponentState(ctx, th.ID, "message-none", map[string]any{}); !errors.Is(err, threads.ErrNotFound) {
				t.Fatalf("component: %v", err)
			}
			// Another user, then a token user, cannot see the thread.
			if _, err := base.ForUser("user-2").GetThread(ctx, th.ID); !errors.Is(err, threads.ErrForbidden) {
				t.Fatalf("user-2: %v", err)
			}
			subject := "e30." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://idp.example.com","sub":"alice"}`)) + "."
			tok, err := base.ExchangeToken(ctx, subject)
			if err != nil || tok.ExpiresIn == 0 {
				t.Fatalf("exchange: %+v %v", tok, err)
			}
			alice := base.ForToken(tok.Token)
			if _, err := alice.GetThread(ctx, th.ID); !errors.Is(err, threads.ErrForbidden) {
				t.Fatalf("token user: %v", err)
			}
			at, err := alice.CreateThread(ctx, runs.CreateThreadParams{})
			if err != nil || at.UserKey != "oauth:user:idp.example.com:alice" {
				t.Fatalf("token create: %+v %v", at, err)
			}
			if _, err := base.ExchangeToken(ctx, "not-a-jwt"); !errors.Is(err, threads.ErrUnauthorized) {
				t.Fatalf("bad subject: %v", err)
			}
			if err := u.DeleteThread(ctx, th.ID); err != nil {
				t.Fatal(err)
			}
			if err := u.DeleteThread(ctx, th.ID); !errors.Is(err, threads.ErrForbidden) {
				t.Fatalf("delete again: %v", err)
			}
			// The key always travelled in x-api-key.
			for _, r := range srv.Requests() {
				if r.Header.Get("X-Api-Key") != srv.APIKey {
					t.Fatalf("%s %s without x-api-key", r.Method, r.Path)
				}
			}
		})
	}
}

// Do refuses, before sending, a query that names the end user or its
// context in any spelling a server may read as such (a qs-style parser
// reads userKey[0] and userKey.x as userKey; before, only userKey= was
// refused), and a body with a contextKey; a userKey in the body is
// replaced by the Client's.
func TestDoRefusesEveryEndUserSpelling(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	ctx := context.Background()
	n := len(srv.Requests())
	for _, q := range []string{
		"userKey=bob", "userKey[]=bob", "userKey[0]=bob", "userKey[x]=bob", "userKey.x=bob", "UserKey=bob",
		"contextKey=bob", "contextKey[]=bob", "contextKey.a=bob",
		"user%4Bey=bob", "userKey%5B0%5D=bob", "userKey%255B0%255D=bob", "context%4Bey=bob", "a=1&userKey[]=bob",
	} {
		err := u.Do(ctx, "GET", "/v1/threads?"+q, nil, nil)
		if err == nil || !strings.Contains(err.Error(), "names the end user or its context") {
			t.Errorf("%s: %v", q, err)
		}
	}
	for _, body := range []string{`{"contextKey":"bob"}`, `{"thread":{"contextKey":"bob"}}`, `{"ContextKey":"bob"}`} {
		err := u.Do(ctx, "POST", "/v1/threads", []byte(body), nil)
		if err == nil || !strings.Contains(err.Error(), "names a contextKey") {
			t.Errorf("%s: %v", body, err)
		}
	}
	if got := len(srv.Requests()); got != n {
		t.Errorf("%d requests sent by refused calls", got-n)
	}
	// Names that only look alike pass.
	for _, q := range []string{"userKeys=1", "myuserKey=1", "limit=1"} {
		if err := u.Do(ctx, "GET", "/v1/threads?"+q, nil, nil); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	// A userKey in the body is replaced, as before.
	var th map[string]any
	if err := u.Do(ctx, "POST", "/v1/threads", []byte(`{"userKey":"bob"}`), &th); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if b := string(reqs[len(reqs)-1].Body); b != `{"userKey":"user-1"}` {
		t.Errorf("sent %s", b)
	}
}

// Client.Redact takes out what the client's calls send that a server may
// echo (its API key, its end user's token), raw or JSON-escaped, and
// nothing else; a client that could not link has nothing to take out.
func TestClientRedactRemovesItsSecrets(t *testing.T) {
	t.Parallel()
	fake := threadstest.NewServer(t)
	tok := `tok/"secret"-123`
	c := runs.New(fake.Client()).ForToken(threads.NewToken(tok))
	escaped, err := json.Marshal(tok)
	if err != nil {
		t.Fatal(err)
	}
	out := c.Redact("key " + fake.APIKey + ", token " + tok + ", in JSON " + string(escaped) + ", the rest")
	if strings.Contains(out, fake.APIKey) || strings.Contains(out, "secret") || !strings.Contains(out, "[REDACTED]") || !strings.HasSuffix(out, ", the rest") {
		t.Errorf("Redact: %q", out)
	}
	if got := runs.New(nil).Redact("key " + fake.APIKey); got != "key "+fake.APIKey {
		t.Errorf("Redact of an unlinked client: %q", got)
	}
}
