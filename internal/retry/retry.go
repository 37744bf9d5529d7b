// Package retry holds the SDK's retry policy: which attempts may be repeated
// and how long to wait before the next one. It decides; go-retryablehttp
// (wired up in the client) loops.
//
// The policy never repeats what may have acted: a non-idempotent request is
// retried only when it provably never reached the server (nothing was
// written) or when the server says it did not act (429, 503, or
// x-should-retry: true on a non-2xx answer).
//
// A 2xx answer is final: the call acted, whatever its headers say. A 410
// (Gone: the endpoint was removed or moved) is never retried either; the
// client handles it once, as migration advice.
package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ShouldRetry reports whether an attempt that ended with resp or err may be
// repeated. idempotent is true for GET-like calls; wrote reports whether any
// byte of the request was written to a connection.
func ShouldRetry(idempotent bool, resp *http.Response, err error, wrote bool) bool {
	if err != nil {
		if !retryableTransportError(err) {
			return false
		}
		return idempotent || !wrote
	}
	if resp == nil {
		return false
	}
	// x-should-retry only overrides the status-based rule for failures
	// (4xx and 5xx): a 2xx has acted, and so may a 3xx ("see other" after
	// a write), so retrying either could duplicate a write; a 410 will not
	// change by asking again.
	if resp.StatusCode < 400 || resp.StatusCode == http.StatusGone {
		return false
	}
	switch strings.ToLower(resp.Header.Get("X-Should-Retry")) {
	case "true":
		return true
	case "false":
		return false
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusRequestTimeout, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// retryableTransportError is false for errors that another attempt cannot
// cure: cancellation, certificate problems, bad URLs, redirect loops.
func retryableTransportError(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var (
		unknownCA x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		hostname  x509.HostnameError
		verify    *tls.CertificateVerificationError
	)
	if errors.As(err, &unknownCA) || errors.As(err, &invalid) || errors.As(err, &hostname) || errors.As(err, &verify) {
		return false
	}
	msg := err.Error()
	if strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "stopped after") {
		return false
	}
	return true
}

// Wait returns how long to wait before retry number attempt+1 (attempt
// counts from 0). The server's Retry-After-Ms, then Retry-After (seconds or
// an HTTP date) win, capped at hi; otherwise the wait grows exponentially
// from lo with jitter, capped at hi.
func Wait(lo, hi time.Duration, attempt int, resp *http.Response, now time.Time) time.Duration {
	if resp != nil {
		if d, ok := RetryAfter(resp.Header, now); ok {
			return clamp(d, 0, hi)
		}
	}
	if lo <= 0 {
		return 0
	}
	d := durationOf(float64(lo) * math.Pow(2, float64(min(max(attempt, 0), 62))))
	if d > hi {
		d = hi
	}
	// Jitter in [d/2, d]: spreads clients that failed together.
	half := int64(d / 2)
	if half > 0 {
		d = time.Duration(half + rand.Int64N(half+1))
	}
	return clamp(d, 0, hi)
}

// RetryAfter reads the server's requested wait: Retry-After-Ms
// (milliseconds), else Retry-After (delay-seconds or an HTTP date).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return durationOf(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) {
			return 0, false
		}
		return durationOf(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func durationOf(ns float64) time.Duration {
	if ns >= math.MaxInt64 || math.IsNaN(ns) {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

func clamp(d, lo, hi time.Duration) time.Duration {
	return min(max(d, lo), hi)
}
