package threads

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/threadsapi/threads-go/internal/jsonx"
	"github.com/threadsapi/threads-go/internal/redact"
	"github.com/threadsapi/threads-go/internal/route"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// Sentinel errors matched by errors.Is against a *Problem. A Problem matches
// the sentinel of its HTTP status (ErrServer: any 5xx), except
// ErrEndpointDeprecated, which matches by code: a problem whose code is
// ENDPOINT_DEPRECATED (the service sends it with 410).
var (
	ErrBadRequest         = errors.New("threads: bad request")         // 400
	ErrUnauthorized       = errors.New("threads: unauthorized")        // 401
	ErrPaymentRequired    = errors.New("threads: payment required")    // 402
	ErrForbidden          = errors.New("threads: forbidden")           // 403
	ErrNotFound           = errors.New("threads: not found")           // 404
	ErrConflict           = errors.New("threads: conflict")            // 409
	ErrEndpointDeprecated = errors.New("threads: endpoint deprecated") // 410 ENDPOINT_DEPRECATED
	ErrRateLimited        = errors.New("threads: rate limited")        // 429
	ErrServer             = errors.New("threads: server error")        // 5xx
)

// codeEndpointDeprecated is the problem code of a removed endpoint; a
// caller matches it with errors.Is(err, ErrEndpointDeprecated).
const codeEndpointDeprecated = "ENDPOINT_DEPRECATED"

// maxProblemBody caps how much of an error body is read and kept.
const maxProblemBody = 64 << 10

// Problem is the error returned for every answer whose status is not 2xx.
//
// The service sends three shapes and Problem reads all of them, whatever the
// Content-Type says: RFC 9457 problem documents (with the service's code and
// details members), the framework shape {statusCode, message, error} (Title
// from error, Detail from message, a list joined with "; "), and non-JSON
// text (Title from the status text, Detail a short excerpt). A missing type
// reads as "about:blank".
//
// Use errors.Is with the sentinels (ErrNotFound, ErrEndpointDeprecated, ...)
// to branch, and errors.As to read the fields.
type Problem struct {
	Type     string // a URI (or URN) naming the problem type; "about:blank" when absent
	Title    string // short summary
	Detail   string // human-readable explanation of this occurrence
	Instance string // the request path as the service saw it, with any query
	Code     string // the service's stable code, such as ENDPOINT_DEPRECATED

	Status     int                        // the HTTP status code of the response
	Details    map[string]any             // the "details" member
	Extensions map[string]json.RawMessage // every other member that is not one of the above
	RequestID  string                     // X-Request-Id, Request-Id, X-Correlation-Id or X-Amzn-Requestid, the first sent
	Header     http.Header                // the response's headers (Retry-After, rate limits, ...)
	Body       []byte                     // the raw error body, capped at 64 KiB

	// Method and Path name the call that failed (the path has no query).
	Method string
	Path   string
	// Route is the template of the call's route, as the SDK names it
	// ("/v1/threads/{threadId}/messages"): which route failed, whatever
	// its ids and the base URL's path. For a path that Client.Do does
	// not know, it is the path itself.
	Route string

	migration   string       // why a 410 was not followed, when it was not
	hint        string       // what the caller can change, when the SDK can tell
	deprecation *Deprecation // the resolved move, when the problem is a 410 with usable advice
}

// Error returns a one-line description: the call, the status, the title or
// code, the detail, what the caller can change when the SDK can tell (a
// refused key's header, say), and "(request id …)" when the service sent
// one. It is safe on a nil *Problem and never contains the API key (the
// client scrubs every field of a decoded Problem).
//
// Every part is shown as one line of printable text, whatever the server
// sent: control characters (CR, LF, NUL...), ANSI escape sequences, Unicode
// format and line-separator characters each become a space, and each part
// is cut to a bounded length (200 runes; the detail 1,000). The fields themselves keep the values as decoded.
func (p *Problem) Error() string {
	if p == nil {
		return "threads: <nil problem>"
	}
	var b strings.Builder
	b.WriteString("threads: ")
	if p.Method != "" || p.Path != "" {
		b.WriteString(termtext.OneLine(p.Method, maxErrorPart))
		b.WriteByte(' ')
		b.WriteString(termtext.OneLine(p.Path, maxErrorPart))
		b.WriteString(": ")
	}
	b.WriteString(strconv.Itoa(p.Status))
	title := termtext.OneLine(p.Title, maxErrorPart)
	if title != "" {
		b.WriteByte(' ')
		b.WriteString(title)
	}
	if code := termtext.OneLine(p.Code, maxErrorPart); code != "" {
		b.WriteString(" [")
		b.WriteString(code)
		b.WriteByte(']')
	}
	if detail := termtext.OneLine(p.Detail, maxErrorDetail); detail != "" && detail != title {
		b.WriteString(": ")
		b.WriteString(detail)
	}
	if p.hint != "" {
		b.WriteString(" (")
		b.WriteString(p.hint)
		b.WriteByte(')')
	}
	if m := termtext.OneLine(p.migration, maxErrorDetail); m != "" {
		b.WriteString(" (migration not followed: ")
		b.WriteString(m)
		b.WriteByte(')')
	}
	if id := termtext.OneLine(p.RequestID, maxErrorPart); id != "" {
		// What the service's operators need to find the call in their logs.
		b.WriteString(" (request id ")
		b.WriteString(id)
		b.WriteByte(')')
	}
	return b.String()
}

// maxErrorDetail is the length, in runes, of Problem.Error's detail (its
// other parts take maxErrorPart).
const maxErrorDetail = 1000

// Is reports whether the problem matches one of the package's sentinels.
func (p *Problem) Is(target error) bool {
	if p == nil {
		return false
	}
	switch target {
	case ErrBadRequest:
		return p.Status == http.StatusBadRequest
	case ErrUnauthorized:
		return p.Status == http.StatusUnauthorized
	case ErrPaymentRequired:
		return p.Status == http.StatusPaymentRequired
	case ErrForbidden:
		return p.Status == http.StatusForbidden
	case ErrNotFound:
		return p.Status == http.StatusNotFound
	case ErrConflict:
		return p.Status == http.StatusConflict
	case ErrEndpointDeprecated:
		return p.Code == codeEndpointDeprecated
	case ErrRateLimited:
		return p.Status == http.StatusTooManyRequests
	case ErrServer:
		return p.Status >= 500 && p.Status <= 599
	}
	return false
}

// migrateTo returns details.migrateToEndpoint exactly as sent, or "".
func migrateTo(p *Problem) string {
	s, _ := p.Details["migrateToEndpoint"].(string)
	return s
}

// Deprecation reports the move that a 410 ENDPOINT_DEPRECATED problem
// advises. ok is false for any other problem. To is empty when the advice
// could not be resolved into a route on the client's base URL.
func (p *Problem) Deprecation() (d Deprecation, ok bool) {
	if p == nil || p.Code != codeEndpointDeprecated {
		return Deprecation{}, false
	}
	if p.deprecation != nil {
		return *p.deprecation, true
	}
	from := ""
	if p.Method != "" {
		from = p.Method + " " + p.Path
	}
	return Deprecation{From: from, MigrateTo: migrateTo(p)}, true
}

// Deprecation describes one endpoint move advised by the service. The 410
// itself is the [*Problem] whose [Problem.Deprecation] it is; a
// [WithDeprecationHandler] handler that needs the 410's headers or body
// gets that Problem from the call's error with [WithoutAutoMigrate].
type Deprecation struct {
	From      string // "POST /threads/thr_1.a/advance": the call answered 410
	To        string // "POST /threads/thr_1.a/advancestream": the resolved replacement
	MigrateTo string // details.migrateToEndpoint exactly as sent
}

// decodeProblem builds the Problem for a non-2xx response, reading at most
// maxProblemBody bytes of it. It closes the body. It is the one point where
// server text enters a Problem: secret (the API key), when not empty, is
// removed from every field in every spelling (see scrub).
func decodeProblem(resp *http.Response, method, path, secret string) *Problem {
	return decodeProblemAt(resp, method, path, "", secret)
}

// decodeRouteProblem is decodeProblem for a call of route r: the Problem
// names r's template too.
func decodeRouteProblem(resp *http.Response, r route.Route, secret string) *Problem {
	return decodeProblemAt(resp, r.Method, pathOf(r), r.Template, secret)
}

func decodeProblemAt(resp *http.Response, method, path, template, secret string) *Problem {
	body := readCapped(resp)
	resp.Body.Close()
	p := parseProblem(resp.StatusCode, body, "")
	p.Method, p.Path, p.Route = method, path, template
	p.Header = resp.Header.Clone()
	p.RequestID = requestID(resp.Header)
	p.scrub(secret)
	return p
}

// scrub removes every spelling of secret (raw or JSON-escaped, see
// internal/redact) from every field that holds server text: the strings,
// Details (keys and values, at any depth), Extensions, Body, RequestID and
// Header (names and values). It runs after decoding, so text that only
// spells the key once decoded or joined is caught too.
func (p *Problem) scrub(secret string) {
	if secret == "" {
		return
	}
	for _, f := range []*string{&p.Type, &p.Title, &p.Detail, &p.Instance, &p.Code, &p.RequestID} {
		*f = redact.String(*f, secret)
	}
	// The path may hold ids a server sent, percent-encoded.
	p.Path = redact.URL(p.Path, secret)
	p.Route = redact.URL(p.Route, secret)
	p.Body = redact.Bytes(p.Body, secret)
	if p.Details != nil {
		p.Details = scrubValue(p.Details, secret).(map[string]any)
	}
	if p.Extensions != nil {
		ext := make(map[string]json.RawMessage, len(p.Extensions))
		for k, v := range p.Extensions {
			ext[redact.String(k, secret)] = redact.Bytes(v, secret)
		}
		p.Extensions = ext
	}
	if p.Header != nil {
		h := make(http.Header, len(p.Header))
		for k, vs := range p.Header {
			out := make([]string, len(vs))
			for i, v := range vs {
				out[i] = redact.Fold(redact.String(v, secret), secret)
			}
			// Header names arrive canonicalised ("Sk-Live-..."): match
			// them whatever their case.
			h[redact.Fold(k, secret)] = out
		}
		p.Header = h
	}
}

// scrubValue redacts secret from a value decoded by encoding/json into any.
func scrubValue(v any, secret string) any {
	switch v := v.(type) {
	case string:
		return redact.String(v, secret)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[redact.String(k, secret)] = scrubValue(e, secret)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = scrubValue(e, secret)
		}
		return out
	}
	return v
}

func readCapped(resp *http.Response) []byte {
	var r io.Reader = io.LimitReader(resp.Body, maxProblemBody)
	// The transport decodes gzip only when it asked for it; a server that
	// compresses unasked still gets read.
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		if zr, err := gzip.NewReader(resp.Body); err == nil {
			r = io.LimitReader(zr, maxProblemBody)
		}
	}
	body, _ := io.ReadAll(r)
	// Drain a little more so that a short tail does not cost the connection;
	// a huge body is cut off instead of read.
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	return body
}

func requestID(h http.Header) string {
	for _, k := range [...]string{"X-Request-Id", "Request-Id", "X-Correlation-Id", "X-Amzn-Requestid"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

const redacted = redact.Mark

// parseProblem decodes an error body of any shape. It never fails: what is
// not JSON becomes an excerpt. secret, when not empty, is scrubbed from the
// result.
func parseProblem(status int, body []byte, secret string) *Problem {
	p := &Problem{Status: status, Body: body}
	var members map[string]json.RawMessage
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' && jsonx.Unmarshal(trimmed, &members) == nil {
		p.fromMembers(members)
	} else if len(trimmed) > 0 {
		p.Detail = excerpt(trimmed, 200)
	}
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if p.Title == "" {
		p.Title = http.StatusText(status)
	}
	p.scrub(secret)
	return p
}

func (p *Problem) fromMembers(m map[string]json.RawMessage) {
	str := func(key string) string {
		var s string
		if raw, ok := m[key]; ok && jsonx.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	p.Type = str("type")
	p.Title = str("title")
	p.Detail = str("detail")
	p.Instance = str("instance")
	p.Code = str("code")
	if raw, ok := m["details"]; ok {
		_ = jsonx.Unmarshal(raw, &p.Details)
	}
	// The framework shape: {statusCode, message: string | string[], error}.
	if p.Title == "" {
		p.Title = str("error")
	}
	if p.Detail == "" {
		if raw, ok := m["message"]; ok {
			var list []string
			if s := str("message"); s != "" {
				p.Detail = s
			} else if jsonx.Unmarshal(raw, &list) == nil {
				p.Detail = strings.Join(list, "; ")
			}
		}
	}
	for k, v := range m {
		switch k {
		case "type", "title", "status", "detail", "instance", "code", "details":
			continue
		}
		if p.Extensions == nil {
			p.Extensions = make(map[string]json.RawMessage, len(m))
		}
		p.Extensions[k] = v
	}
}

// shownText is text from the server (a body, a header such as
// Content-Type, a transport error quoting one) as an error may show it:
// every spelling of each secret removed first, then one line of printable
// text (internal/termtext: no escape sequence, control or bidi character)
// of at most n runes. Redaction comes before the cut, so no piece of a
// secret is left at the edge.
func shownText(s string, n int, secrets ...string) string {
	return termtext.OneLine(redact.String(s, secrets...), n)
}
