package threads_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

// answerTransport answers every request with one status and body, in
// process: the fuzz target below runs the real request and decode path
// thousands of times a second.
type answerTransport struct {
	status int
	ctype  string
	body   []byte
}

func (a answerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: a.status, Status: http.StatusText(a.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {a.ctype}}, Body: io.NopCloser(bytes.NewReader(a.body)),
		ContentLength: int64(len(a.body)), Request: req,
	}, nil
}

// FuzzBackendAnswers feeds any body to the decoders of the backend routes
// (the transcript, the presign answer, the MCP token, the key lists, the
// registry): none panics, every failure is ErrUnexpectedResponse or a
// Problem, and no error shows the API key or the token the answer holds.
func FuzzBackendAnswers(f *testing.F) {
	const key = "sk_fuzz_backend_key_0123456789"
	for _, s := range []string{
		`"hello"`, `{"text":"hello"}`, `plain text`, `null`,
		`{"uploadUrl":"https://s3.example/b?X-Amz-Signature=sig_secret_value","attachmentUri":"attachment://p/a","expiresIn":3600}`,
		`{"uploadUrl":"https://s3.example/b?X-Amz-Signature=sig_secret_value","attachmentUri":5}`,
		`{"mcpAccessToken":"tok_secret_value","expiresAt":1767225600000,"hasSession":true}`,
		`{"mcpAccessToken":"tok_secret_value","expiresAt":"2026-01-01T00:00:00Z"}`,
		`[{"id":"ak_1","created":"2025-01-02T03:04:05.000Z","lastUsed":null}]`,
		`{"name":"message-thread-full","files":[]}`,
		`{"uploadUrl":"` + key + `"}`,
		`{"mcpAccessToken":"tok_secret_value","expiresAt":true}`,
	} {
		f.Add([]byte(s), uint8(201), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, status uint8, textPlain bool) {
		st := 200 + int(status)%4 // 2xx: the decoders, not the problem path
		ctype := "application/json; charset=utf-8"
		if textPlain {
			ctype = "text/plain"
		}
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example"),
			threads.WithAPIKey(key), threads.WithMaxRetries(0),
			threads.WithHTTPClient(&http.Client{Transport: answerTransport{st, ctype, body}}))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		check := func(what string, err error, secrets ...string) {
			if err == nil {
				return
			}
			msg := err.Error()
			for _, s := range append(secrets, key) {
				if s != "" && len(s) >= 8 && strings.Contains(msg, s) {
					t.Fatalf("%s: error shows a secret: %q", what, msg)
				}
			}
		}
		_, err = c.Audio.Transcribe(ctx, strings.NewReader("RIFF"), "a.wav")
		check("Transcribe", err)
		up, err := c.Storage.Presign(ctx, threads.PresignParams{ContentType: "text/plain", Size: 1})
		check("Presign", err, "sig_secret_value")
		if err == nil && strings.Contains(up.UploadURL.String(), "X-Amz") {
			t.Fatalf("the upload URL prints: %v", up.UploadURL)
		}
		tok, err := c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{})
		check("MCPAccessToken", err, "tok_secret_value")
		if err == nil && tok.Token.IsZero() {
			t.Fatal("a nil error with no token")
		}
		_, err = c.Projects.APIKeys(ctx, "p_1")
		check("APIKeys", err)
		_, err = c.Registry.Get(ctx, "x")
		check("Registry.Get", err)
	})
}
