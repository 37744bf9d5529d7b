package runs_test

import (
	"bytes"
	"context"
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
