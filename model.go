package threads

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
)

// This file holds the model's hand-written parts: methods on the generated
// types (types.gen.go) and the Token type that the OpenAPI document refers
// to.

// Text returns the message's text: its text parts joined in order. Other
// parts (images, audio, resources) are left out.
func (m Message) Text() string {
	return joinText(m.Content)
}

// Text returns the message's text parts joined in order.
func (m MessageRequest) Text() string {
	return joinText(m.Content)
}

func joinText(parts []ContentPart) string {
	// One text part is the common case; return it without copying.
	first, n := -1, 0
	for i, p := range parts {
		if p.Type == ContentPartTypeText {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return parts[first].Text
	}
	var b strings.Builder
	for _, p := range parts[first:] {
		if p.Type == ContentPartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Token is a secret that the service hands out, such as
// [AdvanceResponse.MCPAccessToken]. Every fmt verb (%v, %+v, %#v, %s, %q,
// %x, %d, even %p) prints a non-empty Token as [REDACTED] and an empty one
// as nothing, and so does log/slog; a struct that holds a Token prints the
// same way. JSON keeps the real value both ways, so a Token survives being
// decoded, stored and encoded again (which also means that encoding a value
// that holds a Token with encoding/json writes the real value).
//
// Call [Token.Reveal] only where the value itself is needed: to put it in
// the Authorization header of a request to the server it is meant for.
// Compare tokens by their revealed values; the zero Token is empty.
type Token struct {
	// value is behind a pointer so that no fmt path can print it: even the
	// ones that bypass Format (%p on a non-pointer) show only an address.
	value *string
}

// NewToken returns a Token that holds s, e.g. for a test's fake answer.
func NewToken(s string) Token {
	if s == "" {
		return Token{}
	}
	return Token{value: &s}
}

// Reveal returns the token's real value. Use it only to hand the token to
// the server it is meant for; never log, print or wrap the result in an
// error.
func (t Token) Reveal() string {
	if t.value == nil {
		return ""
	}
	return *t.value
}

// IsZero reports whether the token is empty; a JSON field marked omitzero
// leaves an empty token out.
func (t Token) IsZero() bool { return t.Reveal() == "" }

// String returns "[REDACTED]", or "" for an empty token.
func (t Token) String() string {
	if t.IsZero() {
		return ""
	}
	return redacted
}

// GoString returns the %#v form: [Token.String] as a quoted string.
func (t Token) GoString() string { return strconv.Quote(t.String()) }

// Format prints the token as [Token.String] does, whatever the verb: %q and
// %#v quote it; no verb prints the real value.
func (t Token) Format(f fmt.State, verb rune) {
	s := t.String()
	if verb == 'q' || (verb == 'v' && f.Flag('#')) {
		s = strconv.Quote(s)
	}
	_, _ = io.WriteString(f, s)
}

// LogValue makes log/slog record "[REDACTED]" (or "" for an empty token).
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// MarshalJSON encodes the real value as a JSON string.
func (t Token) MarshalJSON() ([]byte, error) { return json.Marshal(t.Reveal()) }

// UnmarshalJSON decodes a JSON string (null leaves the token empty).
func (t *Token) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("threads: token: %w", err)
	}
	if s == nil {
		*t = Token{}
		return nil
	}
	*t = NewToken(*s)
	return nil
}

// LogValue makes log/slog record the snapshot with its token redacted: the
// JSON handler would otherwise encode the whole struct with encoding/json,
// which keeps a [Token]'s real value.
func (r AdvanceResponse) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("message", r.Message),
		slog.String("generationStage", string(r.GenerationStage)),
		slog.String("statusMessage", r.StatusMessage),
		slog.Any("mcpAccessToken", r.MCPAccessToken),
	)
}
