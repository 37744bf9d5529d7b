package runs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	threads "github.com/threadsapi/threads-go"
)

// capturedJWT is the service token of captures 64-69, 74 (a throwaway
// local token, expired).
const capturedJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImlzcyI6InBfVWZzS1FRWW4uOWM1NGIxIiwiYXVkIjoidGFtYm8iLCJpYXQiOjE3OTU0OTgyMjQsImV4cCI6MTc5NTUwMTgyNCwib3JpZ2luYWxfaXNzIjoiaHR0cHM6Ly9pZHAuZXhhbXBsZS5jb20ifQ.c2lnbmF0dXJlLXJlcGxhY2Vk"

// subjectJWT is the IdP token capture 64 exchanged.
const subjectJWT = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsInN1YiI6ImFsaWNlIn0."

// Capture 64: the token exchange is a form POST with x-api-key; the answer
// decodes into a redacted token and its expiry.
func TestExchangeTokenCapture(t *testing.T) {
	t.Parallel()
	r := replay(t, "64")
	before := time.Now()
	tok, err := r.client().ExchangeToken(context.Background(), subjectJWT)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Token.Reveal() != capturedJWT || tok.TokenType != "Bearer" || tok.ExpiresIn != time.Hour ||
		tok.IssuedTokenType != TokenTypeAccess || tok.Expiry.Before(before.Add(time.Hour)) || tok.Expiry.After(time.Now().Add(time.Hour)) {
		t.Errorf("64: %+v", tok)
	}
	r.check()

	// Every rendering of the AccessToken hides the token.
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("got", "token", tok)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("got", "token", tok)
	for _, s := range []string{fmt.Sprintf("%v %+v %#v %s %q", tok, tok, tok, tok, tok), fmt.Sprint(*tok), logged.String()} {
		if strings.Contains(s, capturedJWT) || strings.Contains(s, capturedJWT[:20]) {
			t.Errorf("token leaked: %s", s)
		}
	}
	if !strings.Contains(logged.String(), "[REDACTED]") {
		t.Errorf("log: %s", logged.String())
	}
}

// Captures 65, 66: with an end-user token the SDK sends it as
// "Authorization: Bearer" beside x-api-key, and no userKey anywhere; 74:
// a thread of another context is 403.
func TestBearerCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "65", "66", "74")
	c := r.client().ForUser("user-1").ForToken(threads.NewToken(capturedJWT))
	th, err := c.CreateThread(context.Background(), CreateThreadParams{})
	if err != nil {
		t.Fatal(err)
	}
	if th.UserKey != "oauth:user:idp.example.com:alice" {
		t.Errorf("65: %+v", th)
	}
	pg, err := c.ListThreads(context.Background(), nil)
	if err != nil || len(pg.Items) != 1 || pg.Items[0].ID != "thr_iqsRbR.78dff7" {
		t.Errorf("66: %+v %v", pg, err)
	}
	if _, err := c.GetThread(context.Background(), "thr_IIxXswsg.445172"); !errors.Is(err, threads.ErrForbidden) {
		t.Errorf("74: %v", err)
	}
	r.check()
}

// Captures 69-73: the refusals of the guards (a missing or bad key 403, a
// Bearer that is not an end-user token 401) come back as Problems that
// match threads' sentinels. The SDK itself always sends the key in
// x-api-key, so it never provokes 69 or 71.
func TestGuardRefusalCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "70", "72", "73")
	c := r.client().ForUser("user-1")
	if _, err := c.ListThreads(context.Background(), nil); !errors.Is(err, threads.ErrForbidden) {
		t.Errorf("70: %v", err)
	}
	_, err := c.ForToken(threads.NewToken("not-an-end-user-token")).ListThreads(context.Background(), nil)
	var p *threads.Problem
	if !errors.Is(err, threads.ErrUnauthorized) || !errors.As(err, &p) || p.Detail != "Invalid bearer token" {
		t.Errorf("72: %v", err)
	}
	if _, err := c.ListThreads(context.Background(), nil); !errors.Is(err, threads.ErrForbidden) {
		t.Errorf("73: %v", err)
	}
}

// A Problem that echoes the end-user token or the subject token does not
// carry it.
func TestProblemRedactsEndUserSecrets(t *testing.T) {
	t.Parallel()
	const secret = "eyJsecret.end-user.token"
	base := newStatic(t, 401, `{"message":"Invalid bearer token eyJsecret.end-user.token","error":"Unauthorized","statusCode":401,"echo":"eyJsecret.end-user.token"}`)
	c := newTestClient(t, base)
	_, err := c.ForToken(threads.NewToken(secret)).ListThreads(context.Background(), nil)
	_, err2 := c.ExchangeToken(context.Background(), secret)
	for _, e := range []error{err, err2} {
		var p *threads.Problem
		if !errors.As(e, &p) {
			t.Fatalf("%v", e)
		}
		all := e.Error() + p.Detail + string(p.Body) + string(p.Extensions["echo"])
		if strings.Contains(all, secret) {
			t.Errorf("secret in %q", all)
		}
	}
}

func TestExchangeTokenRefusesEmpty(t *testing.T) {
	t.Parallel()
	r := replay(t)
	if _, err := r.client().ExchangeToken(context.Background(), " "); err == nil {
		t.Error("no error")
	}
	if r.requests() != 0 {
		t.Error("sent")
	}
}

// New(nil) gives a Client whose every call fails, saying why.
func TestNewNil(t *testing.T) {
	t.Parallel()
	c := New(nil).ForUser("u")
	if _, err := c.ListThreads(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("ListThreads: %v", err)
	}
	if _, err := c.ExchangeToken(context.Background(), "x"); err == nil {
		t.Error("ExchangeToken: no error")
	}
}

// A service that echoes the end-user token in a header (the request id),
// a member name or a nested detail key: none of it reaches the error, the
// Problem's fields or its Header.
func TestProblemRedactsEndUserSecretsEverywhere(t *testing.T) {
	t.Parallel()
	const secret = "eyJsecret.end-user.token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", r.Header.Get("Authorization")[len("Bearer "):])
		w.Header().Set("X-Echo", "for "+secret)
		w.WriteHeader(401)
		io.WriteString(w, `{"type":"urn:x:`+secret+`","title":"no","status":401,"`+secret+`":1,"details":{"`+secret+`":{"`+secret+`":"x"}}}`)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	_, err := c.ForToken(threads.NewToken(secret)).GetThread(context.Background(), "thr_1")
	var p *threads.Problem
	if !errors.As(err, &p) {
		t.Fatalf("%v", err)
	}
	all := fmt.Sprintf("%s|%s|%s|%v|%v|%v", err.Error(), p.RequestID, p.Type, p.Header, p.Extensions, p.Details)
	if strings.Contains(all, secret) {
		t.Errorf("secret in %q", all)
	}
}

// tokenServer answers GET /v1/threads/{id} with a thread when the bearer
// token is in good, else 401 with the token echoed; it records the
// tokens it was sent.
type tokenServer struct {
	mu   sync.Mutex
	seen []string
	good map[string]bool
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	s.seen = append(s.seen, tok)
	ok := s.good[tok]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"statusCode":401,"message":"token %s expired","error":"Unauthorized"}`, tok)
		return
	}
	if r.URL.Path == "/v1/threads/thr_1/runs" {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thr_1\",\"runId\":\"run_1\"}\n\n"+
			"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"thr_1\",\"runId\":\"run_1\"}\n\n")
		return
	}
	io.WriteString(w, `{"id":"thr_1","runStatus":"idle","messages":[]}`)
}

func (s *tokenServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// tokens is a TokenSource that gives its tokens in turn (the last one
// forever) or err, and counts the asks.
type tokens struct {
	mu   sync.Mutex
	list []string
	err  []error
	asks int
}

func (s *tokens) Token(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := min(s.asks, len(s.list)-1)
	s.asks++
	if i < len(s.err) && s.err[i] != nil {
		return "", s.err[i]
	}
	return s.list[i], nil
}

// ForTokenSource asks the source before every call, and once more, and
// only once, after a 401: a different token is sent once; the same one,
// a second 401 or the source's error ends the call with the 401. No
// token reaches an error.
func TestTokenSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	errSource := errors.New("idp down")
	for _, c := range []struct {
		name  string
		src   *tokens
		good  []string
		sent  []string
		asks  int
		err   error
		inErr string
	}{
		{"each call asks", &tokens{list: []string{"tok-1"}}, []string{"tok-1"}, []string{"tok-1"}, 1, nil, ""},
		{"a 401 asks again once", &tokens{list: []string{"tok-old", "tok-new"}}, []string{"tok-new"}, []string{"tok-old", "tok-new"}, 2, nil, ""},
		{"the same token is not resent", &tokens{list: []string{"tok-same"}}, nil, []string{"tok-same"}, 2, threads.ErrUnauthorized, ""},
		{"a second 401 is final", &tokens{list: []string{"tok-a", "tok-b", "tok-c"}}, nil, []string{"tok-a", "tok-b"}, 2, threads.ErrUnauthorized, ""},
		{"the source fails first", &tokens{list: []string{"x"}, err: []error{errSource}}, nil, nil, 1, errSource, "the token source: idp down"},
		{"the source fails after the 401", &tokens{list: []string{"tok-a", "x"}, err: []error{nil, errSource}}, nil, []string{"tok-a"}, 2, threads.ErrUnauthorized, "idp down"},
		{"an empty token", &tokens{list: []string{" "}}, nil, nil, 1, ErrIdentity, "empty token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := &tokenServer{good: map[string]bool{}}
			for _, g := range c.good {
				srv.good[g] = true
			}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			u := newTestClient(t, hs.URL).ForTokenSource(c.src)
			_, err := u.GetThread(ctx, "thr_1")
			if c.err == nil && err != nil || c.err != nil && !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err != nil && !strings.Contains(err.Error(), c.inErr) {
				t.Errorf("err %q does not say %q", err, c.inErr)
			}
			if err != nil && strings.Contains(err.Error(), "tok-") {
				t.Errorf("err %q shows a token", err)
			}
			if got := srv.sent(); fmt.Sprint(got) != fmt.Sprint(c.sent) {
				t.Errorf("sent %q, want %q", got, c.sent)
			}
			if c.src.asks != c.asks {
				t.Errorf("the source was asked %d times, want %d", c.src.asks, c.asks)
			}
		})
	}
}

// A run refused with 401 is sent again with the new token (the service
// did not start it), and its stream is the second answer's.
func TestTokenSourceRun(t *testing.T) {
	t.Parallel()
	srv := &tokenServer{good: map[string]bool{"tok-new": true}}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	src := &tokens{list: []string{"tok-old", "tok-new"}}
	u := newTestClient(t, hs.URL).ForTokenSource(src)
	st, err := u.Run(context.Background(), "thr_1", RunParams{Content: []Content{Text("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.Collect()
	if err != nil || res.RunID != "run_1" {
		t.Fatalf("%+v %v", res, err)
	}
	if got := srv.sent(); fmt.Sprint(got) != "[tok-old tok-new]" {
		t.Errorf("sent %q", got)
	}
	// ForUser and ForToken replace the source.
	if _, err := u.ForUser("alice").GetThread(context.Background(), "thr_1"); !errors.Is(err, threads.ErrUnauthorized) {
		t.Errorf("ForUser: %v", err)
	}
	if src.asks != 2 {
		t.Errorf("asks %d", src.asks)
	}
	if _, err := newTestClient(t, hs.URL).ForTokenSource(nil).GetThread(context.Background(), "thr_1"); !errors.Is(err, ErrIdentity) {
		t.Errorf("nil source: %v", err)
	}
}

// hangingSource is a token source that ignores its context (as an
// oauth2.TokenSource adapter does) until release is closed, and counts
// the asks running at once.
type hangingSource struct {
	release chan struct{}
	mu      sync.Mutex
	running int
	most    int
	asks    int
}

func (h *hangingSource) Token(context.Context) (string, error) {
	h.mu.Lock()
	h.running++
	h.asks++
	h.most = max(h.most, h.running)
	h.mu.Unlock()
	<-h.release
	h.mu.Lock()
	h.running--
	h.mu.Unlock()
	return "tok-late", nil
}

// A call whose token source does not answer ends when WithRequestTimeout
// passes, or when the call's context ends, though the source ignores its
// context (before, it hung the call); the source's goroutine left behind
// is one at a time: the next call waits for it within its own deadline,
// and asks again once it ended.
func TestTokenSourceBoundedByTheCallsDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		src := &hangingSource{release: make(chan struct{})}
		u := newTestClient(t, "http://127.0.0.1:1", threads.WithRequestTimeout(time.Second)).ForTokenSource(src)
		_, err := u.GetThread(context.Background(), "thr_1")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the token source did not answer") {
			t.Fatalf("err = %v", err)
		}
		// The caller's own deadline, without a request timeout: the next
		// call waits for the first ask, which still runs.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err = u.GetThread(ctx, "thr_1", threads.WithRequestTimeout(0))
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "earlier ask") {
			t.Fatalf("err = %v", err)
		}
		close(src.release)
		synctest.Wait() // the abandoned ask ends by itself
		src.mu.Lock()
		defer src.mu.Unlock()
		if src.most != 1 || src.asks != 1 {
			t.Errorf("%d asks, at most %d at once; want 1, 1", src.asks, src.most)
		}
	})
}

// A source that honours its context gets the call's request timeout in
// it (before, WithRequestTimeout did not bound the ask).
func TestTokenSourceAskedUnderTheRequestTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		src := TokenSourceFunc(func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
		u := newTestClient(t, "http://127.0.0.1:1", threads.WithRequestTimeout(time.Second)).ForTokenSource(src)
		start := time.Now()
		_, err := u.GetThread(context.Background(), "thr_1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d != time.Second { // synctest's clock: exact
			t.Errorf("the ask ended after %v, want the request timeout", d)
		}
	})
}
