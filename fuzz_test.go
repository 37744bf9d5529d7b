package threads_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
)

// Fuzz targets for every decoder of server input. Seeds come from
// testdata/ (the live service's formats) and testdata/fuzz/.

var streamSeeds = []string{
	"live/stream-plain.sse", "live/stream-error-after-placeholder.sse", "live/stream-error-only.sse",
	"stream-tool-call.sse", "stream-two-messages.sse", "stream-synthetic.sse", "stream-truncated.sse",
	"stream-keepalive.sse", "stream-crlf.sse", "stream-cr.sse", "stream-malformed.sse",
}

// splitReader returns data in pieces whose sizes come from seed.
type splitReader struct {
	data []byte
	rng  *rand.Rand
}

func (s *splitReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(s.data), 1+s.rng.IntN(64))
	copy(p, s.data[:n])
	s.data = s.data[n:]
	return n, nil
}

type streamOutcome struct {
	events []threads.StreamEvent
	err    error
}

func runStream(t *testing.T, r io.Reader) streamOutcome {
	var out streamOutcome
	s := streamFrom(r, threads.WithMaxEventSize(64<<10))
	for ev, err := range s.All() {
		if out.err != nil {
			t.Fatalf("yielded %v after the error %v", ev, out.err)
		}
		if err != nil {
			out.err = err
			continue
		}
		out.events = append(out.events, ev)
	}
	if s.Next() {
		t.Fatal("Next is true after the end")
	}
	return out
}

// errKind names the class of a stream error, for comparing two runs.
func errKind(err error) string {
	var se *threads.StreamError
	switch {
	case err == nil:
		return "nil"
	case errors.As(err, &se):
		return "stream-error:" + se.Message
	case errors.Is(err, threads.ErrEventTooLarge):
		return "too-large"
	case errors.Is(err, threads.ErrStreamTruncated):
		return "truncated"
	case errors.Is(err, threads.ErrStreamFailed):
		return "failed"
	}
	return "other:" + err.Error()
}

// FuzzStream decodes arbitrary bytes, whole and split at arbitrary points:
// no panic, no event after an error, and the same events and ending either
// way.
func FuzzStream(f *testing.F) {
	for _, name := range streamSeeds {
		f.Add(fixture(f, name), uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		whole := runStream(t, bytes.NewReader(data))
		split := runStream(t, &splitReader{data: data, rng: rand.New(rand.NewPCG(seed, 0))})
		if errKind(whole.err) != errKind(split.err) {
			t.Fatalf("ending differs: whole %v, split %v", whole.err, split.err)
		}
		if len(whole.events) != len(split.events) {
			t.Fatalf("%d events whole, %d split", len(whole.events), len(split.events))
		}
		for i := range whole.events {
			a, b := whole.events[i], split.events[i]
			if a.Message.ID != b.Message.ID || a.TextDelta != b.TextDelta || a.GenerationStage != b.GenerationStage {
				t.Fatalf("event %d differs", i)
			}
		}
		if whole.err == nil && !bytes.Contains(data, []byte("DONE")) {
			t.Fatal("a clean end without DONE")
		}
	})
}

const fuzzSecret = "sk_fuzz_0123456789"

// FuzzProblem decodes any error body with any status and content type: no
// panic, the status kept, a title always, the body capped, and the key
// never in Error().
func FuzzProblem(f *testing.F) {
	for _, seed := range []struct {
		status int
		ct     string
		file   string
	}{
		{403, "application/json; charset=utf-8", "live/problem-403-forbidden.json"},
		{400, "application/json; charset=utf-8", "live/problem-400-list-message.json"},
		{500, "application/json; charset=utf-8", "live/problem-500-internal.json"},
		{410, "application/json; charset=utf-8", "live/problem-410-advance-by-id.json"},
		{404, "application/problem+json; charset=utf-8", "live/problem-404-not-found.problem.json"},
	} {
		f.Add(seed.status, seed.ct, fixture(f, seed.file))
	}
	f.Add(401, "application/json", []byte(`{"message":"bad key `+fuzzSecret+`","detail":"sk_fuzz_\u00301234567\u0038\u0039"}`))
	f.Add(502, "text/html", []byte("<html>Bad gateway</html>"))
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {contentType}},
			Body: io.NopCloser(bytes.NewReader(body))}
		p := threads.DecodeProblem(resp, "GET", "/threads/x", fuzzSecret)
		if p.Status != status {
			t.Fatalf("status %d, want %d", p.Status, status)
		}
		if len(p.Body) > threads.MaxProblemBody {
			t.Fatalf("body of %d bytes kept", len(p.Body))
		}
		if p.Type == "" {
			t.Fatal("empty type")
		}
		msg := p.Error()
		if strings.Contains(msg, fuzzSecret) || strings.Contains(p.Detail, fuzzSecret) || bytes.Contains(p.Body, []byte(fuzzSecret)) {
			t.Fatalf("the key leaked: %q", msg)
		}
		_ = errors.Is(p, threads.ErrNotFound)
		_, _ = p.Deprecation()
	})
}

// FuzzListDecode decodes any list body: no panic, and a page that decodes
// has items (possibly empty), never nil.
func FuzzListDecode(f *testing.F) {
	for _, name := range []string{"live/list-page.json", "live/list-contextkey.json", "live/list-limit-null.json"} {
		f.Add(fixture(f, name), 0)
	}
	f.Add([]byte(`[{"id":"thr_a.1","projectId":"p","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}]`), 3)
	f.Fuzz(func(t *testing.T, data []byte, offset int) {
		page, err := threads.DecodeList(data, offset, 200)
		if err != nil {
			if !errors.Is(err, threads.ErrUnexpectedResponse) {
				t.Fatalf("error %v is not ErrUnexpectedResponse", err)
			}
			return
		}
		if page.Items == nil {
			t.Fatal("nil items")
		}
	})
}

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

// FuzzStreamDeltas decodes arbitrary bytes, whole and in reads of any
// size: no panic; applying the events in order (TextReset: replace, else
// append) rebuilds each message's final text; both ways give the same
// events and ending; no error string holds the API key in any spelling.
func FuzzStreamDeltas(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.sse")
	live, _ := filepath.Glob("testdata/live/*.sse")
	for _, name := range append(files, live...) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(7))
	}
	f.Add([]byte(snap("m", " ")+snap("m", "Hello world\n")+snap("m", "Hello world")+snap("", "x")+snap("m", "Hello")+"data: [DONE]\n\n"), uint8(3))
	f.Add([]byte("\xEF\xBB\xBFerror: key "+streamKey+"\n\n"), uint8(1))
	f.Add([]byte(`data: {"responseMessageDto":{"id":"`+streamKey+`","createdAt":5}}`+"\nerror: \\u0073k\n\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole, wholeErr := readAll(bytesStream(t, data, 0, threads.WithMaxEventSize(64<<10)))
		split, splitErr := readAll(bytesStream(t, data, int(chunk), threads.WithMaxEventSize(64<<10)))
		if (wholeErr == nil) != (splitErr == nil) || len(whole) != len(split) {
			t.Fatalf("whole: %d events, %v; split by %d: %d events, %v", len(whole), wholeErr, chunk, len(split), splitErr)
		}
		for i := range whole {
			a, b := whole[i], split[i]
			if a.Message.ID != b.Message.ID || a.TextDelta != b.TextDelta || a.TextReset != b.TextReset {
				t.Fatalf("event %d differs", i)
			}
		}
		final := map[string]string{}
		for _, ev := range whole {
			text := ev.Message.Text()
			if strings.TrimSpace(text) == "" {
				text = ""
			}
			final[ev.Message.ID] = text
		}
		got := rebuild(whole)
		for id, want := range final {
			if got[id] != want {
				t.Fatalf("message %q: rebuilt %q, final text %q", id, got[id], want)
			}
		}
		for _, err := range []error{wholeErr, splitErr} {
			if err != nil && redact.Contains(err.Error(), streamKey) {
				t.Fatalf("the key in %q", err)
			}
		}
	})
}
