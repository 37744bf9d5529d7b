package threads

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/jsonscan"
	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// This file reads 2xx answers: a JSON body within its size and memory
// bounds (decodeJSON, and decodedCost, which the stream uses per event as
// well), the list envelope's two shapes (listBody), and the helpers that
// report a body the SDK cannot read (ErrUnexpectedResponse,
// unexpectedResponse, excerpt, shownHeader). Error bodies (4xx/5xx) are
// read in problem.go, which builds on this file; this file uses none of
// it.

// ErrUnexpectedResponse reports a 2xx answer the SDK cannot read: not the
// JSON the call expects, not an event stream where one is due, or larger
// than [WithMaxResponseSize] allows. It is not a [*Problem]: it comes
// wrapped (%w) with the call and the status, and the request may have
// acted.
var ErrUnexpectedResponse = errors.New("threads: unexpected response")

// maxErrorPart is the length, in runes, of one piece of server text that
// an error shows (a Content-Type, a problem's title or code).
const maxErrorPart = 200

// readBody reads a 2xx body up to limit bytes.
func readBody(resp *http.Response, method, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("threads: %s %s: reading the response: %w", method, path, err)
	}
	if int64(len(data)) > limit {
		return nil, unexpectedResponse(method, path, resp.StatusCode, "the body exceeds %d bytes (WithMaxResponseSize)", limit)
	}
	return data, nil
}

// decodeJSON reads a 2xx JSON body of at most limit bytes (counted after
// any decompression) into out. Before decoding, it refuses a body whose
// decoded values would need far more memory than its bytes (see
// decodedCost), so memory stays bounded whatever the body's shape. clean
// removes the call's secrets from the excerpt of a body that does not
// decode. The caller closes the body.
//
// The path is shown redacted: it may hold ids a server sent (a project id
// from GET /projects). read, when not nil, is added the body's length
// (All's byte bound). keep makes every value that embeds a Raw record its
// bytes (WithRawJSON): the values then keep the body.
func decodeJSON(resp *http.Response, method, path string, out any, limit int64, clean func(string, ...string) string, read *int64, keep bool) error {
	path = clean(path)
	data, err := readBody(resp, method, path, limit)
	if err != nil {
		return err
	}
	if read != nil {
		*read += int64(len(data))
	}
	if cost := decodedCost(data); cost > decodeBudget(limit) {
		return unexpectedResponse(method, path, resp.StatusCode,
			"the body holds too many JSON values to decode within the memory budget (about %d MiB of %d MiB; WithMaxResponseSize raises both)",
			cost>>20, decodeBudget(limit)>>20)
	}
	if err := unmarshalAnswer(data, out, keep); err != nil {
		// Describe, not err: the decoder's error names the member path it
		// failed in, and member names are server text (the key, escaped).
		ct := shownHeader(resp.Header.Get("Content-Type"), clean)
		if holdsToken(reflect.TypeOf(out), map[reflect.Type]bool{}) {
			// The answer carries a credential (an MCP token, a presigned
			// upload URL): clean knows only the key, so no excerpt.
			return unexpectedResponse(method, path, resp.StatusCode, "%s body is not the expected JSON (%s)", ct, jsonx.Describe(err))
		}
		return unexpectedResponse(method, path, resp.StatusCode, "%s body is not the expected JSON (%s): %s",
			ct, jsonx.Describe(err), excerpt([]byte(clean(string(bytes.TrimSpace(data)))), 120))
	}
	return nil
}

// unmarshalAnswer decodes data, a JSON answer's whole body, into out;
// with keep, every value of out that embeds a Raw records its bytes
// (WithRawJSON), and so keeps data.
func unmarshalAnswer(data []byte, out any, keep bool) error {
	if a, ok := out.(interface{ decodeAnswer([]byte, bool) error }); ok {
		return a.decodeAnswer(data, keep)
	}
	if keep {
		return jsonx.UnmarshalAnswer(data, out)
	}
	return jsonx.Unmarshal(data, out)
}

// Costs, in bytes of Go memory, that decodedCost charges per JSON value:
// an object or array may become a struct of the generated model (a
// Message is several hundred bytes) or a map, and grows a slice; any other
// value (or member name) at most a field, an interface or a map entry.
const (
	costContainer = 512
	costValue     = 32
)

// decodeBudget is the memory a JSON body of at most limit bytes may
// decode into: four times the limit (128 MiB by default).
func decodeBudget(limit int64) int64 { return 4 * limit }

// decodedCost estimates, in one pass and without allocating, how much Go
// memory decoding data may take: costContainer per object or array and
// costValue per member or element, plus the bytes themselves. It counts
// structure outside strings only, so it is exact about what makes small
// JSON expensive ("[{},{},...]" is 3 bytes per Go struct) and needs no
// valid JSON: the decoder checks that afterwards. Strings are skipped with
// bytes.IndexByte, so text costs far less than the decoder's own pass (the
// stream runs it on every event).
func decodedCost(data []byte) int64 {
	var containers, values int64
	text := unsafe.String(unsafe.SliceData(data), len(data)) // read only here

	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = jsonscan.StringEnd(text, i+1)
		case '{', '[':
			containers++
		case ',', ':':
			values++
		}
	}
	return int64(len(data)) + containers*costContainer + values*costValue
}

func orUnknown(ct string) string {
	if ct == "" {
		return "untyped"
	}
	return ct
}

func isEventStream(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	const es = "text/event-stream"
	return len(ct) >= len(es) && strings.EqualFold(ct[:len(es)], es)
}

// drainClose reads a little of a body that is dropped, so that a short
// tail does not cost the connection, and closes it.
func drainClose(body io.ReadCloser) { core.DrainClose(body) }

// shownHeader is a header value the server sent (a Content-Type) as an
// error may show it: redacted, one printable line, bounded.
func shownHeader(v string, clean func(string, ...string) string) string {
	return termtext.OneLine(clean(orUnknown(v)), maxErrorPart)
}

// listBody reads the list envelope, or a bare array of threads.
type listBody struct {
	page ThreadPage
	bare bool // the body was a bare array: Total, Offset and Count are unknown
}

// toPage returns the page; offset is the one asked for, which a bare array
// does not repeat.
func (b *listBody) toPage(offset int) *ThreadPage {
	page := b.page
	if b.bare {
		page.Offset, page.Count, page.Total = offset, len(page.Items), 0
	}
	if page.Items == nil {
		page.Items = []Thread{}
	}
	return &page
}

// UnmarshalJSON reads the list envelope, or a bare array of threads (see
// toPage for what a bare array leaves unknown).
func (b *listBody) UnmarshalJSON(data []byte) error { return b.decodeAnswer(data, false) }

// decodeAnswer is UnmarshalJSON for a whole answer: with keep, the page
// and its threads record their bytes (a bare array is the page's).
func (b *listBody) decodeAnswer(data []byte, keep bool) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		b.bare = true
		if err := unmarshalAnswer(trimmed, &b.page.Items, keep); err != nil {
			return err
		}
		if keep {
			jsonx.Keep(&b.page, trimmed)
		}
		return nil
	}
	return unmarshalAnswer(trimmed, &b.page, keep)
}

// holdsToken reports whether a value of type t can hold a [Token],
// whose text must not reach an error. seen stops at recursive types.
func holdsToken(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if t == reflect.TypeFor[Token]() {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsToken(t.Elem(), seen)
	case reflect.Map:
		return holdsToken(t.Key(), seen) || holdsToken(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsToken(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// excerpt returns at most n bytes of b as valid, single-line UTF-8.
func excerpt(b []byte, n int) string {
	cut := len(b) > n
	if cut {
		b = b[:n]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	// One line of printable text: control characters (NUL, escape
	// sequences, newlines) would garble a log line or a terminal.
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), "?"))
	s = strings.Join(strings.Fields(s), " ")
	if cut {
		s += "…"
	}
	return s
}

// unexpectedResponse reports a 2xx answer that the operation cannot read.
func unexpectedResponse(method, path string, status int, format string, args ...any) error {
	return fmt.Errorf("%w: %s %s: %d: %s", ErrUnexpectedResponse, method, path, status, fmt.Sprintf(format, args...))
}
