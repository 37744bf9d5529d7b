package threads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/retry"
)

// This file adapts go-retryablehttp, and is the only one that imports it.
//
// Why go-retryablehttp: it runs the attempt loop (re-sending the body on
// each attempt, draining a discarded answer, waiting with the context in
// view). What it would decide itself is replaced by the SDK's own policy:
// internal/retry says whether an attempt may be repeated and how long to
// wait; the caller gets the last attempt's real answer or error instead of
// "giving up after N attempts"; each retry carries X-Retry-Count; the debug
// log line per attempt never shows a credential.

// attempt is one call as the retry loop sends it.
type attempt struct {
	hc     *http.Client // the call's, with its attemptTransport
	method string
	url    string
	body   []byte      // nil: no body
	header http.Header // sent with every attempt
	final  int         // core.Call.FinalStatus: a status never retried
	again  bool        // core.Call.Idempotent: a 500 re-sent once, a re-send's 404 done
	// secrets are the API key and the call's own (core.Call.Secrets):
	// never in an error or a log line.
	secrets []string
	// logPath and rawQuery are the URL as errors and logs show it
	// (logPath with every spelling of the key removed).
	logPath  string
	rawQuery string
	route    string // the route's name (routeName), for the log
}

// sendRetrying sends a with cfg's retry policy and returns the last
// attempt's answer: a response (any status) or a transport error that
// names the method and path without credentials.
func sendRetrying(ctx context.Context, cfg *config, a attempt) (*http.Response, error) {
	st := &attempts{cfg: cfg, method: a.method, path: a.logPath, route: a.route, rawQuery: a.rawQuery, final: a.final, again: a.again, secrets: a.secrets, idempotent: a.method == http.MethodGet || a.method == http.MethodHead}
	if !st.idempotent {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { st.wrote.Store(true) }})
	}
	var raw any // retryablehttp wants an untyped nil for "no body"
	if a.body != nil {
		raw = a.body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, a.method, a.url, raw)
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", a.method, a.logPath, err)
	}
	req.Header = a.header
	rc := &retryablehttp.Client{
		HTTPClient:     a.hc,
		RetryMax:       cfg.maxRetries,
		RetryWaitMin:   cfg.retryWaitMin,
		RetryWaitMax:   cfg.retryWaitMax,
		CheckRetry:     st.check,
		Backoff:        st.backoff,
		ErrorHandler:   lastResult,
		RequestLogHook: st.before,
	}
	resp, err := rc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: %w", a.method, a.logPath, scrubTransportError(err, a.secrets...))
	}
	if a.again && st.n > 0 && resp.StatusCode == http.StatusNotFound {
		// An idempotent write re-sent after a 500: the first attempt
		// acted (or the thing was gone already). Done.
		drainClose(resp.Body)
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		resp.Body, resp.ContentLength = http.NoBody, 0
		resp.Header = resp.Header.Clone()
		resp.Header.Del("Content-Type")
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

// lastResult hands the last attempt's outcome to the caller as it is,
// instead of go-retryablehttp's "giving up after N attempts".
func lastResult(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			drainClose(resp.Body)
		}
		return nil, err
	}
	return resp, nil
}

// attempts carries one call's retry state through go-retryablehttp's hooks,
// which it calls one after another on the calling goroutine.
type attempts struct {
	cfg        *config
	method     string
	path       string
	route      string // the route's name, for the log
	rawQuery   string
	idempotent bool
	final      int         // a status that is the route's answer: never retried
	again      bool        // an idempotent write: one re-send after a 500
	secrets    []string    // attempt.secrets
	n          int         // the attempt in flight, from 0
	wrote      atomic.Bool // set by the transport (another goroutine)
	wait       time.Duration
	start      time.Time
}

func (a *attempts) before(_ retryablehttp.Logger, req *http.Request, i int) {
	a.n = i
	a.wrote.Store(false)
	a.start = time.Now()
	if i > 0 {
		// The previous attempt may still hold the old header map.
		req.Header = req.Header.Clone()
		req.Header.Set("X-Retry-Count", strconv.Itoa(i))
	}
}

func (a *attempts) check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	err = scrubTransportError(err, a.secrets...)
	again := ctx.Err() == nil && retry.ShouldRetry(a.idempotent, resp, err, a.wrote.Load()) &&
		(resp == nil || a.final == 0 || resp.StatusCode != a.final)
	if a.again && ctx.Err() == nil && resp != nil && resp.StatusCode == http.StatusInternalServerError && a.n == 0 &&
		resp.Header.Get("X-Should-Retry") == "" {
		again = true // once: a cancel that met the run's end may deadlock the service's database
	}
	a.wait = 0
	if again && a.n < a.cfg.maxRetries {
		a.wait = retry.Wait(a.cfg.retryWaitMin, a.cfg.retryWaitMax, a.n, resp, time.Now())
	}
	if l := a.cfg.logger; l != nil && l.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{
			slog.String("method", a.method),
			slog.String("route", a.route),
			slog.String("path", a.path),
			slog.Int("attempt", a.n+1),
			slog.Duration("elapsed", time.Since(a.start)),
		}
		if q := redact.Query(a.rawQuery, a.secrets...); q != "" {
			attrs = append(attrs, slog.String("query", q))
		}
		if resp != nil {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", redact.String(err.Error(), a.secrets...)))
		}
		if again && a.n < a.cfg.maxRetries {
			attrs = append(attrs, slog.Duration("wait", a.wait))
		}
		l.LogAttrs(ctx, slog.LevelDebug, "threads: attempt", attrs...)
	}
	return again, nil
}

func (a *attempts) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return a.wait
}

// scrubTransportError hides credentials in err before anyone sees it: the
// URL of a *url.Error (returned by http.Client.Do, and by this client's
// calls) loses its user information, credential-like query values and
// every spelling of each secret (the key and the call's own). The error is changed in place; it belongs to
// this call alone.
//
// The reason may quote what the server sent (a malformed header line, key
// and all, 64 KiB long): when showing it as one bounded, redacted line
// changes it, the reason is replaced by that line (and no longer unwraps,
// since the original would print the server's text).
func scrubTransportError(err error, secrets ...string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redact.URL(ue.URL, secrets...)
		if ue.Err != nil {
			msg := ue.Err.Error()
			if shown := shownText(msg, maxErrorDetail, secrets...); shown != msg {
				ue.Err = errors.New(shown)
			}
		}
	}
	return err
}
