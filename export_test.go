package threads

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// NewStreamFrom decodes body as an advancestream response, without any
// network, with the options a call would apply.
func NewStreamFrom(body io.Reader, opts ...RequestOption) *Stream {
	cfg := defaultConfig()
	if err := cfg.applyRequest(opts); err != nil {
		panic(err)
	}
	return newStream(context.Background(), io.NopCloser(body), &cfg, nil)
}

// DecodeProblem is the decoder every non-2xx answer goes through (for the
// fuzz test and the body cap).
func DecodeProblem(resp *http.Response, method, path, secret string) *Problem {
	return decodeProblem(resp, method, path, secret)
}

// MaxProblemBody is how much of an error body a Problem keeps.
const MaxProblemBody = maxProblemBody

// DecodeList decodes a list body as List does.
func DecodeList(data []byte, offset, status int) (*ThreadPage, error) {
	var b listBody
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, unexpectedResponse(epListThreads.method, epListThreads.template, status, "list is not the expected JSON (%v): %s", err, excerpt(data, 120))
	}
	return b.toPage(offset), nil
}

// ReadBody reads a success body with a size limit.
var ReadBody = readBody

// ClientConfig returns the client's settings, for tests that check no
// rendering of them shows the key.
func ClientConfig(c *Client) any { return c.cfg }

// MaxMessages is how many messages a Stream keeps for Messages.
const MaxMessages = maxMessages

// The defaults the tests and benchmarks compare against (unexported in the
// API: each option's documentation states its default).
const (
	DefaultMaxToolRounds  = defaultMaxToolRounds
	DefaultMaxEventSize   = defaultMaxEventSize
	DefaultMaxPagingBytes = defaultMaxPagingBytes
)

// Hook for format_secrets_test.go: a ToolRoundsError as RunStream makes it,
// holding the call's key.
func NewToolRoundsError(max int, call ToolCall, secret string) *ToolRoundsError {
	return &ToolRoundsError{Max: max, Call: call, secret: secret}
}

// DecodeAnswer decodes data as a JSON answer's body into v, every value
// recording its bytes as WithRawJSON makes them (data is kept).
func DecodeAnswer(data []byte, v any) error { return unmarshalAnswer(data, v, true) }
