package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func resp(status int, kv ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return &http.Response{StatusCode: status, Header: h}
}

func TestShouldRetryStatuses(t *testing.T) {
	t.Parallel()
	for status, want := range map[int][2]bool{ // {GET, POST}
		200: {false, false}, 400: {false, false}, 401: {false, false}, 404: {false, false},
		408: {true, false}, 409: {false, false}, 410: {false, false}, 429: {true, true},
		500: {true, false}, 501: {false, false}, 502: {true, false}, 503: {true, true}, 504: {true, false},
	} {
		assert.Equal(t, want[0], ShouldRetry(true, resp(status), nil, true), "GET %d", status)
		assert.Equal(t, want[1], ShouldRetry(false, resp(status), nil, true), "POST %d", status)
	}
}

func TestShouldRetryOverride(t *testing.T) {
	t.Parallel()
	assert.True(t, ShouldRetry(false, resp(500, "X-Should-Retry", "true"), nil, true))
	assert.False(t, ShouldRetry(true, resp(503, "X-Should-Retry", "false"), nil, true))
	assert.True(t, ShouldRetry(true, resp(503, "X-Should-Retry", "maybe"), nil, true))
}

func TestShouldRetryTransport(t *testing.T) {
	t.Parallel()
	dial := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	reset := &url.Error{Op: "Post", URL: "http://x", Err: errors.New("connection reset by peer")}
	assert.True(t, ShouldRetry(false, nil, dial, false), "POST that never wrote")
	assert.False(t, ShouldRetry(false, nil, reset, true), "POST that wrote its request")
	assert.True(t, ShouldRetry(true, nil, reset, true), "GET")
	assert.False(t, ShouldRetry(true, nil, fmt.Errorf("x: %w", context.Canceled), false))
	assert.False(t, ShouldRetry(true, nil, &url.Error{Err: x509.UnknownAuthorityError{}}, false))
	assert.False(t, ShouldRetry(true, nil, errors.New(`unsupported protocol scheme "ftp"`), false))
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		kv   []string
		want time.Duration
		ok   bool
	}{
		{[]string{"Retry-After-Ms", "250"}, 250 * time.Millisecond, true},
		{[]string{"Retry-After-Ms", "12.5", "Retry-After", "9"}, 12500 * time.Microsecond, true},
		{[]string{"Retry-After", "3"}, 3 * time.Second, true},
		{[]string{"Retry-After", "0.5"}, 500 * time.Millisecond, true},
		{[]string{"Retry-After", now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second, true},
		{[]string{"Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{[]string{"Retry-After", "soon"}, 0, false},
		{[]string{"Retry-After", "-4"}, 0, false},
		{[]string{"Retry-After-Ms", "nope"}, 0, false},
		{nil, 0, false},
	} {
		got, ok := RetryAfter(resp(503, tt.kv...).Header, now)
		assert.Equal(t, tt.ok, ok, tt.kv)
		assert.Equal(t, tt.want, got, tt.kv)
	}
}

func TestWait(t *testing.T) {
	t.Parallel()
	now := time.Now()
	lo, hi := 100*time.Millisecond, time.Second
	for attempt := range 8 {
		want := min(lo<<attempt, hi)
		for range 50 {
			d := Wait(lo, hi, attempt, nil, now)
			assert.GreaterOrEqual(t, d, want/2, attempt)
			assert.LessOrEqual(t, d, want, attempt)
		}
	}
	// The server's wait wins, capped at hi.
	assert.Equal(t, 300*time.Millisecond, Wait(lo, hi, 0, resp(429, "Retry-After-Ms", "300"), now))
	assert.Equal(t, hi, Wait(lo, hi, 0, resp(429, "Retry-After", "3600"), now))
	assert.Equal(t, time.Duration(0), Wait(0, 0, 5, nil, now))
	huge := Wait(lo, hi, 1000, nil, now) // no overflow
	assert.GreaterOrEqual(t, huge, hi/2)
	assert.LessOrEqual(t, huge, hi)
}
