package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/jsonx"
)

// A 2xx the SDK cannot read is reported with its Content-Type; that header
// is server text like any other: an error shows it without the key, on one
// line of printable text, and bounded, whatever its length.
func TestUnreadable2xxContentTypeIsBoundedRedactedOneLine(t *testing.T) {
	t.Parallel()
	hostile := "text/html; note=" + testKey + " \u202e" + strings.Repeat("a", 64<<10) + " " + testKey
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", hostile)
		_, _ = w.Write([]byte("<html>captive portal</html>"))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	ctx := context.Background()

	_, getErr := c.Threads.Get(ctx, "thr_1.a")
	_, streamErr := c.Threads.AdvanceStream(ctx, "thr_1.a", threads.AdvanceParams{Message: threads.UserMessage("hi")})
	for name, err := range map[string]error{"Get": getErr, "AdvanceStream": streamErr} {
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, name)
		msg := err.Error()
		assert.NotContains(t, msg, testKey, name)
		assert.NotContains(t, msg, "\u202e", name)
		assert.NotContains(t, msg, "\x1b", name)
		assert.NotContains(t, msg, "\n", name)
		assert.Less(t, len(msg), 1024, name)
		assert.Contains(t, msg, "text/html", name)
	}
}

// A response header the transport cannot parse fails the call with an error
// that quotes the header line: the key and control bytes in it must not
// reach Error(), and the quote is bounded.
func TestMalformedResponseHeaderErrorIsRedacted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; note="+testKey+"\x1b[31m\u202e"+strings.Repeat("b", 64<<10))
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	require.Error(t, err)
	msg := err.Error()
	assert.NotContains(t, msg, testKey)
	assert.NotContains(t, msg, "\u202e")
	assert.NotContains(t, msg, "\x1b")
	assert.Less(t, len(msg), 2048)
}

// The JSON decoder's error names the member path it failed in; a member
// name the server chose (here the key, raw or spelled with \u005f escapes)
// must not reach Error() through it.
func TestDecodeErrorDoesNotShowMemberNames(t *testing.T) {
	t.Parallel()
	escaped := strings.ReplaceAll(testKey, "_", `\u005f`)
	for name, body := range map[string]string{
		"raw":     `{"id":"thr_1.a","metadata":{"` + testKey + `":{"b":tru}}}`,
		"escaped": `{"id":"thr_1.a","metadata":{"` + escaped + `":{"b":tru}}}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
			threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
		require.NoError(t, err)
		_, err = c.Threads.Get(context.Background(), "thr_1.a")
		require.ErrorIs(t, err, threads.ErrUnexpectedResponse, name)
		assert.NotContains(t, err.Error(), testKey, name)
		assert.NotContains(t, err.Error(), "9f8e7d6c5b4a", name)
	}
}

// TestJSONXEquivalence decodes every JSON fixture, every data line of every
// transcript and every fuzz-corpus entry with encoding/json and with jsonx
// into the same types, and requires the same values, or an error from both.
// The one allowed difference is jsonx's documented tolerance: a time that
// is not RFC 3339, or a fractional number in an int field, fails
// encoding/json and decodes with jsonx.
func TestJSONXEquivalence(t *testing.T) {
	t.Parallel()
	docs := map[string][]byte{}
	add := func(name string, b []byte) { docs[name] = b }
	files, _ := filepath.Glob("testdata/*.json")
	more, _ := filepath.Glob("testdata/live/*.json")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(f, b)
	}
	sse, _ := filepath.Glob("testdata/*.sse")
	more, _ = filepath.Glob("testdata/live/*.sse")
	for _, f := range append(sse, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		addDataLines(f, b, add)
	}
	corpus, _ := filepath.Glob("testdata/fuzz/*/*")
	for _, f := range corpus {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range corpusBytes(t, b) {
			name := f + "#" + strconv.Itoa(i)
			add(name, v)
			addDataLines(name, v, add)
		}
	}
	// Edge cases beside the files: what encoding/json accepts must stay
	// accepted, with the same values.
	for i, edge := range []string{
		`{"id":"a","ID":"b","Id":"c"}`, // duplicate and case-folded names
		`{"responseMessageDto":{"id":"x","CONTENT":[{"TYPE":"text","Text":"hi"}]}}`,
		"{\"id\":\"\xff\xfe bad utf-8\",\"name\":\"\xc3\"}", // invalid UTF-8 becomes U+FFFD
		`{"id":null,"metadata":null,"messages":null,"createdAt":null}`,
		`{"unknown":{"deep":[1,2,{"x":null}]},"id":"t"}`,
		`{"createdAt":""}`, `{"createdAt":"yesterday"}`, `{"createdAt":12}`,
		`{"responseMessageDto":{"reasoningDurationMS":12.5}}`,
		`{"total":1e2,"count":3.9}`,
		`{"responseMessageDto":{"content":"not an array"}}`,
		`{"metadata":{"a":1,"a":2}}`, `[]`, `null`, `"str"`, `1`, `{`, ``, `{"id":"\ud800"}`,
	} {
		add("edge#"+strconv.Itoa(i), []byte(edge))
	}
	if len(docs) < 50 {
		t.Fatalf("only %d documents found", len(docs))
	}
	targets := []func() any{
		func() any { return new(threads.AdvanceResponse) },
		func() any { return new(threads.ThreadWithMessages) },
		func() any { return new(threads.Thread) },
		func() any { return new([]threads.Thread) },
		func() any { return new(threads.Message) },
		func() any { return new(threads.Project) },
		func() any {
			return new(struct {
				Items                       []threads.Thread
				Total, Offset, Limit, Count int
			})
		},
		func() any { return new(map[string]any) },
		func() any { return new(any) },
	}
	tolerated := 0
	for name, doc := range docs {
		for _, newV := range targets {
			v1, v2 := newV(), newV()
			err1 := json.Unmarshal(doc, v1)
			err2 := jsonx.Unmarshal(doc, v2)
			switch {
			case err1 == nil && err2 == nil:
				if !reflect.DeepEqual(v1, v2) {
					t.Errorf("%s into %T: values differ\nencoding/json: %+v\njsonx:         %+v", name, v1, v1, v2)
				}
			case err1 != nil && err2 == nil && toleratedByJSONX(err1):
				tolerated++
			case (err1 == nil) != (err2 == nil):
				t.Errorf("%s into %T: encoding/json error %v, jsonx error %v", name, v1, err1, err2)
			}
		}
	}
	if tolerated == 0 {
		t.Error("no decode exercised the tolerance")
	}
	t.Logf("%d documents x %d types; %d decodes differ only by the documented tolerance", len(docs), len(targets), tolerated)
}

// toleratedByJSONX reports whether encoding/json failed on what jsonx
// deliberately accepts: a time that is not RFC 3339, a fraction into an int.
func toleratedByJSONX(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "parsing time") || strings.Contains(msg, "Time.UnmarshalJSON") ||
		strings.Contains(msg, "into Go struct field") && strings.Contains(msg, "of type int")
}

// addDataLines adds each data: line of an event stream as a document.
func addDataLines(name string, b []byte, add func(string, []byte)) {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	for i, line := range bytes.Split(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			d = bytes.TrimPrefix(d, []byte(" "))
			if len(d) > 0 && string(d) != "DONE" {
				add(name+":"+strconv.Itoa(i+1), d)
			}
		}
	}
}

// corpusBytes returns the []byte and string values of a "go test fuzz v1"
// file.
func corpusBytes(t *testing.T, file []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, line := range strings.Split(string(file), "\n")[1:] {
		var lit string
		switch {
		case strings.HasPrefix(line, "[]byte(") && strings.HasSuffix(line, ")"):
			lit = line[len("[]byte(") : len(line)-1]
		case strings.HasPrefix(line, "string(") && strings.HasSuffix(line, ")"):
			lit = line[len("string(") : len(line)-1]
		default:
			continue
		}
		s, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("corpus literal %.40q: %v", lit, err)
		}
		out = append(out, []byte(s))
	}
	return out
}
