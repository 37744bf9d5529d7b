package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file keeps, for every value of a JSON answer, the bytes it was
// decoded from: the SDK's answer types embed a Raw (threads.Raw and
// runs.Raw are defined from it), and UnmarshalAnswer records in each one
// where its value lies in the answer's body. Nothing is copied: a value's
// raw JSON is a view of the body, which the values keep alive. Its members
// that the Go type does not model are found only when asked (Extra), from
// those bytes and the type's JSON names, so decoding costs one offset pair
// per value and no allocation.

// Raw is the record of one decoded value: its bytes in the answer's body
// and the Go type it was decoded into. Its zero value records nothing (a
// value built in Go, or decoded from a stream event). Packages threads and
// runs define their exported Raw from it, so that its promoted method
// (rawSlot) makes every type that embeds theirs a holder. The answer
// types print without it (Format): the body may hold text that a value
// prints redacted, and its offsets mean nothing to a reader.
type Raw struct {
	slot `json:"-"`
}

type slot struct {
	p *byte        // the value's first byte in the answer's body; nil: nothing recorded
	n int          // its length in bytes; -1 while it is being decoded
	t reflect.Type // the type decoded into: its JSON names are the modelled members
}

func (s *slot) rawSlot() *slot { return s }

// holder is a value that records its raw JSON: a pointer to a type that
// embeds a Raw.
type holder interface{ rawSlot() *slot }

// answerOptions are options plus the recording of raw JSON; built once.
var answerOptions = jsonv2.JoinOptions(
	options,
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(record)),
)

// UnmarshalAnswer is Unmarshal for the whole body of a JSON answer: every
// value of a type that embeds a Raw records the bytes it was decoded from.
// The values keep data: the caller must not reuse or change it afterwards.
func UnmarshalAnswer(data []byte, v any) error {
	if err := jsonv2.Unmarshal(data, v, answerOptions); err != nil {
		return err
	}
	// The records are views of the decoder's input, which the decoder of
	// a []byte reads in place. Should a release of the JSON library copy
	// it instead, the views would be of a buffer it reuses: refuse them.
	if h, ok := v.(holder); ok {
		if s := h.rawSlot(); s.p != nil && !within(data, s.p) {
			*s = slot{}
			return errNotInPlace
		}
	}
	return nil
}

// Keep records data (trimmed of white space) as the JSON of v, when v is
// a holder: for an answer whose bytes the caller decoded in parts (a
// listing sent as a bare array, decoded into the page's items). v keeps
// data.
func Keep(v any, data []byte) {
	h, ok := v.(holder)
	data = bytes.TrimSpace(data)
	if !ok || len(data) == 0 {
		return
	}
	*h.rawSlot() = slot{p: unsafe.SliceData(data), n: len(data), t: reflect.TypeOf(v).Elem()}
}

var errNotInPlace = &jsonv2.SemanticError{Err: errorString("the JSON decoder did not read the answer in place")}

type errorString string

func (e errorString) Error() string { return string(e) }

// within reports whether p points into data.
func within(data []byte, p *byte) bool {
	if len(data) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	at := uintptr(unsafe.Pointer(p))
	return at >= start && at < start+uintptr(len(data))
}

// record decodes a holder by the default rules and records where its
// value lay. The decoder calls it again, for the same value, from inside
// UnmarshalDecode: the slot then says so (n < 0) and the call steps aside.
func record(dec *jsontext.Decoder, h holder) error {
	s := h.rawSlot()
	if s.n < 0 {
		return jsonv2.SkipFunc
	}
	// The unread input starts after the previous token: separators (the
	// ':' or ',') and white space come before the value itself.
	rest := dec.UnreadBuffer()
	start := dec.InputOffset()
	s.n = -1
	err := jsonv2.UnmarshalDecode(dec, h)
	s = h.rawSlot() // the same slot: h is a pointer
	if err != nil {
		*s = slot{}
		return err
	}
	n := int(dec.InputOffset() - start)
	if n < 0 || n > len(rest) {
		*s = slot{}
		return nil // not the shape this code knows: record nothing
	}
	val := bytes.TrimLeft(rest[:n], " \t\r\n,:")
	if len(val) == 0 {
		*s = slot{}
		return nil
	}
	s.p, s.n, s.t = unsafe.SliceData(val), len(val), reflect.TypeOf(h).Elem()
	return nil
}

// Bytes returns a copy of the JSON r was decoded from, or nil when r
// records none.
func Bytes(r Raw) json.RawMessage {
	if r.p == nil || r.n <= 0 {
		return nil
	}
	return bytes.Clone(unsafe.Slice(r.p, r.n))
}

// Extra returns the members of r's JSON object that its Go type does not
// model (no field takes them, by the decoder's rules: exact or
// case-and-separator-insensitive names), each value a copy of its JSON;
// nil when there are none or r records nothing.
func Extra(r Raw) map[string]json.RawMessage {
	if r.p == nil || r.n <= 0 {
		return nil
	}
	data := unsafe.Slice(r.p, r.n)
	if data[0] != '{' {
		return nil
	}
	known := knownNames(r.t)
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var out map[string]json.RawMessage
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return out
		}
		name := tok.String() // before the next read, which reuses tok's bytes
		val, err := dec.ReadValue()
		if err != nil {
			return out
		}
		if known[fold(name)] {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[name] = bytes.Clone(val)
	}
	return out
}

// knownNames returns the folded JSON names of t's fields, as the decoder
// matches them: the tag's name or the field's, embedded structs
// inlined, "-" and unexported fields left out.
func knownNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > 8 {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag, hasTag := f.Tag.Lookup("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				walk(f.Type, depth+1)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if !hasTag || name == "" {
				name = f.Name
			}
			names[fold(name)] = true
		}
	}
	walk(t, 0)
	return names
}

// fold is the decoder's folding of a name with MatchCaseInsensitiveNames:
// case-insensitive, underscores and dashes ignored.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' {
			continue
		}
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		b.WriteString(strings.ToUpper(string(r)))
	}
	return b.String()
}

// rawType is Raw's type: Format leaves out the embedded fields whose type
// is defined from it (threads.Raw, runs.Raw).
var rawType = reflect.TypeFor[Raw]()

// Format prints v, a struct that embeds a Raw, as fmt prints a struct for
// the directive in f and verb ({a b}, {A:a B:b} for %+v, pkg.T{A:a, B:b}
// for %#v), without the embedded Raw: its offsets and type are machinery,
// not the value. Each field is printed through fmt with the same
// directive, so its own Format or String (a redacted token, a nested
// answer type's Format) applies as it would inside fmt's struct printing.
//
// The answer types call it from a Format method of their own: a type that
// embeds another that has one must declare its own too, or the embedded
// one's, promoted, would print only that part.
func Format(f fmt.State, verb rune, v any) {
	rv := reflect.ValueOf(v)
	t := rv.Type()
	dir := fmt.FormatString(f, verb)
	sharp, plus := verb == 'v' && f.Flag('#'), verb == 'v' && f.Flag('+')
	sep := " "
	if sharp {
		io.WriteString(f, t.String())
		sep = ", "
	}
	io.WriteString(f, "{")
	first := true
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Type.ConvertibleTo(rawType) {
			continue
		}
		if !first {
			io.WriteString(f, sep)
		}
		first = false
		if sharp || plus {
			io.WriteString(f, sf.Name+":")
		}
		if fv := rv.Field(i); fv.CanInterface() {
			fmt.Fprintf(f, dir, fv.Interface())
		} else {
			fmt.Fprintf(f, dir, fv) // fmt prints what the reflect.Value holds, without its methods, as it does for an unexported field
		}
	}
	io.WriteString(f, "}")
}
