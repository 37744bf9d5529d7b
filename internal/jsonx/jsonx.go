// Package jsonx is the SDK's one place that decodes JSON from the service.
//
// It uses JSON v2 (github.com/go-json-experiment/json, the prototype of the
// standard library's encoding/json/v2), which decodes the service's
// snapshots about 3.5x faster than encoding/json, with options that keep
// encoding/json's acceptance: invalid UTF-8, duplicate names and
// case-insensitive names are accepted as encoding/json accepts them.
//
// Two deliberate differences from encoding/json, both tolerant, never
// stricter (the equivalence test in this package checks every fixture,
// transcript and fuzz-corpus entry against encoding/json):
//
//   - a time.Time whose JSON is not a valid RFC 3339 string ("", a number,
//     an odd format) decodes as the zero time instead of failing the whole
//     value; null leaves it unchanged, as encoding/json does;
//   - a number with a fraction or an exponent decoding into an int field
//     takes its integer part (toward zero) when it fits, instead of failing
//     the whole value (the service has sent 1234.5 where its schema says
//     integer).
//
// Moving to encoding/json/v2 when the module's minimum Go has it is a change
// of the two import paths below and nothing else.
package jsonx

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// options is built once: JSON v2 caches per option set.
var options = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	json.MatchCaseInsensitiveNames(true),
	json.WithUnmarshalers(json.JoinUnmarshalers(
		json.UnmarshalFromFunc(tolerantTime),
		json.UnmarshalFromFunc(tolerantInt),
	)),
)

// Unmarshal decodes data into v, which must be a non-nil pointer. It only
// reads data and copies what it keeps, so data may alias memory the caller
// reuses afterwards.
func Unmarshal(data []byte, v any) error {
	return json.Unmarshal(data, v, options)
}

// tolerantTime decodes an RFC 3339 string as encoding/json does, and
// anything else that is not null as the zero time.
func tolerantTime(dec *jsontext.Decoder, t *time.Time) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken() // null: leave t as it is
		return err
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if val.Kind() != '"' || t.UnmarshalJSON(val) != nil {
		*t = time.Time{}
	}
	return nil
}

// tolerantInt decodes an integer as encoding/json does, and a number with
// a fraction or an exponent by its integer part when that fits.
func tolerantInt(dec *jsontext.Decoder, n *int) error {
	if dec.PeekKind() != '0' {
		return json.SkipFunc // null, strings and the rest: the default rules
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if i, err := strconv.ParseInt(string(val), 10, strconv.IntSize); err == nil {
		*n = int(i)
		return nil
	}
	f, err := strconv.ParseFloat(string(val), 64)
	if err != nil || math.IsInf(f, 0) || f != f || f >= math.MaxInt || f < math.MinInt {
		return fmt.Errorf("number %s does not fit an int", val)
	}
	*n = int(f)
	return nil
}

// Describe returns what went wrong in an error of Unmarshal without any
// text of the input: the JSON kind and Go type of a value that did not fit
// and where, by byte offset. Unlike err.Error(), which may quote a value,
// a member name (in a JSON pointer) or a character of the input, the
// result holds nothing that came from the data, so it is safe to show
// whatever the data held (a token, a user's text).
func Describe(err error) string {
	var serr *json.SemanticError
	if errors.As(err, &serr) {
		msg := "cannot decode"
		if k := kindName(serr.JSONKind); k != "" {
			msg += " JSON " + k
		}
		if serr.GoType != nil {
			msg += " into Go " + serr.GoType.String()
		}
		var syn *jsontext.SyntacticError
		switch {
		case errors.As(serr.Err, &syn):
			msg += ": " + describeSyntax(syn)
		case serr.ByteOffset > 0:
			msg += " after offset " + strconv.FormatInt(serr.ByteOffset, 10)
		}
		return msg
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return describeSyntax(syn)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of JSON input"
	}
	return "invalid JSON"
}

func describeSyntax(e *jsontext.SyntacticError) string {
	msg := "invalid JSON syntax"
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of JSON input"
	}
	if e.ByteOffset > 0 {
		msg += " after offset " + strconv.FormatInt(e.ByteOffset, 10)
	}
	return msg
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{', '}':
		return "object"
	case '[', ']':
		return "array"
	}
	return ""
}
