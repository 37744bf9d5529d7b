package jsonx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// This file edits a JSON document without decoding it: the members and
// elements an edit does not touch keep their bytes and their order (only
// the white space between the parts of an edited object or array goes).
// It serves the request options that set or delete a member of a call's
// body (threads.WithJSONSet, threads.WithJSONDelete).

// Pointer splits an RFC 6901 JSON Pointer ("/message/metadata/source")
// into its reference tokens, unescaped ("~1" is "/", "~0" is "~"). The
// empty pointer is the whole document (no tokens).
func Pointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", p)
			}
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// errNoValue marks a delete of a member or element that is not there.
var errNoValue = errors.New("no such member")

// Set returns doc with the value at toks replaced by val (valid JSON), or
// added: a missing member is appended to its object, with the objects on
// its way created; "-" appends to an array. An index past an array's end,
// or a token that goes into a string, number, boolean or null, is an
// error. No tokens replace the whole document.
func Set(doc []byte, toks []string, val []byte) ([]byte, error) {
	if !jsontext.Value(val).IsValid() {
		return nil, errors.New("the value is not valid JSON")
	}
	return edit(doc, toks, val, false)
}

// Delete returns doc without the member or element at toks; one that is
// not there leaves doc as it is. No tokens is an error: the document
// itself cannot be deleted.
func Delete(doc []byte, toks []string) ([]byte, error) {
	if len(toks) == 0 {
		return nil, errors.New("cannot delete the whole document")
	}
	out, err := edit(doc, toks, nil, true)
	if errors.Is(err, errNoValue) {
		return doc, nil
	}
	return out, err
}

// part is one member (name set) or element of a container, as sent.
type part struct {
	name  string
	isObj bool
	val   []byte
}

// edit walks down toks without recursion (a pointer's depth is the
// caller's to bound): each container on the way is split once, the edit
// made at the end, and the containers joined again on the way up.
func edit(doc []byte, toks []string, val []byte, del bool) ([]byte, error) {
	type level struct {
		parts []part
		kind  jsontext.Kind
		at    int
	}
	var path []level
	cur, out := doc, val
	for i, tok := range toks {
		parts, kind, err := split(cur)
		if err != nil {
			return nil, err
		}
		last := i == len(toks)-1
		at := -1
		switch kind {
		case '{':
			for j, p := range parts {
				if p.name == tok {
					at = j // the last of duplicate names: the one a decoder keeps
				}
			}
		case '[':
			if tok == "-" && !del {
				at = len(parts)
				break
			}
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || strconv.Itoa(n) != tok {
				return nil, fmt.Errorf("%q is not an index of an array", tok)
			}
			if n >= len(parts) {
				if del {
					return nil, errNoValue
				}
				return nil, fmt.Errorf("index %d is past the array's end (%d elements)", n, len(parts))
			}
			at = n
		default:
			return nil, fmt.Errorf("%q goes into a JSON %s, not an object or array", tok, kindName(kind))
		}
		if at >= 0 && at < len(parts) && !last {
			path = append(path, level{parts, kind, at})
			cur = parts[at].val
			continue
		}
		switch {
		case del && (at < 0 || at == len(parts)):
			return nil, errNoValue
		case del:
			parts = append(parts[:at], parts[at+1:]...)
		case at < 0 || at == len(parts):
			// A new member (or element): the objects on its way are new too.
			inner := val
			for k := len(toks) - 1; k > i; k-- {
				inner = join('{', []part{{name: toks[k], isObj: true, val: inner}})
			}
			parts = append(parts, part{name: tok, isObj: kind == '{', val: inner})
		default:
			parts[at].val = val
		}
		out = join(kind, parts)
		break
	}
	for i := len(path) - 1; i >= 0; i-- {
		l := path[i]
		l.parts[l.at].val = out
		out = join(l.kind, l.parts)
	}
	return out, nil
}

// split reads the members or elements of the object or array doc.
func split(doc []byte) ([]part, jsontext.Kind, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	kind := dec.PeekKind()
	if kind != '{' && kind != '[' {
		if _, err := dec.ReadValue(); err != nil {
			return nil, 0, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
		}
		return nil, kind, nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, 0, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
	}
	var parts []part
	for {
		switch dec.PeekKind() {
		case '}', ']':
			if _, err := dec.ReadToken(); err != nil {
				return nil, 0, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
			}
			return parts, kind, nil
		case 0:
			_, err := dec.ReadToken()
			return nil, 0, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
		}
		var p part
		if kind == '{' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, 0, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
			}
			p.name, p.isObj = tok.String(), true
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil, 0, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
		}
		p.val = bytes.Clone(v)
		parts = append(parts, p)
	}
}

// join writes the container of kind with parts.
func join(kind jsontext.Kind, parts []part) []byte {
	open, end := byte('{'), byte('}')
	if kind == '[' {
		open, end = '[', ']'
	}
	out := []byte{open}
	for i, p := range parts {
		if i > 0 {
			out = append(out, ',')
		}
		if p.isObj {
			out, _ = jsontext.AppendQuote(out, p.name)
			out = append(out, ':')
		}
		out = append(out, p.val...)
	}
	return append(out, end)
}

// AddMembers returns doc with the members of extra (a JSON object) added
// at the end of every object of doc that does not have them already,
// except inside the members whose name free reports true (free-form maps,
// whose members are data, not fields), which are copied as they are.
func AddMembers(doc, extra []byte, free func(name string) bool) ([]byte, error) {
	add, kind, err := split(extra)
	if err != nil || kind != '{' {
		return nil, errors.New("the members to add are not a JSON object")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type level struct {
		object bool
		names  map[string]bool
	}
	var stack []level
	for {
		kind := dec.PeekKind()
		if kind == 0 {
			if _, err := dec.ReadToken(); err != io.EOF {
				return nil, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
			}
			return bytes.TrimRight(out.Bytes(), "\n"), nil
		}
		top := len(stack) - 1
		inObject := top >= 0 && stack[top].object
		_, n := dec.StackIndex(dec.StackDepth())
		if inObject && kind == '"' && n%2 == 0 {
			// A member's name: a free-form member is copied whole.
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
			}
			name := tok.String()
			stack[top].names[name] = true
			if err := enc.WriteToken(jsontext.String(name)); err != nil {
				return nil, err
			}
			if free(name) {
				v, err := dec.ReadValue()
				if err != nil {
					return nil, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
				}
				if err := enc.WriteValue(v); err != nil {
					return nil, err
				}
			}
			continue
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, fmt.Errorf("the body is not valid JSON: %s", Describe(err))
		}
		switch kind {
		case '{':
			stack = append(stack, level{object: true, names: map[string]bool{}})
		case '[':
			stack = append(stack, level{})
		case '}':
			for _, p := range add {
				if !stack[top].names[p.name] {
					if err := enc.WriteToken(jsontext.String(p.name)); err != nil {
						return nil, err
					}
					if err := enc.WriteValue(p.val); err != nil {
						return nil, err
					}
				}
			}
			stack = stack[:top]
		case ']':
			stack = stack[:top]
		}
		if err := enc.WriteToken(tok); err != nil {
			return nil, err
		}
	}
}
