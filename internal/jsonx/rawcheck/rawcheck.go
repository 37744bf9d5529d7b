// Package rawcheck is a test helper: it visits every value inside a value
// decoded by the SDK that records its JSON (a struct that embeds
// threads.Raw or runs.Raw), and checks what each recorded against the
// answer's bytes, for the round-trip tests of both packages.
package rawcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

// Recorder is a value that records its JSON: the methods threads.Raw and
// runs.Raw promote.
type Recorder interface {
	RawJSON() json.RawMessage
	ExtraFields() map[string]json.RawMessage
}

// Visit calls fn for each struct value reachable from v (through
// pointers, slices, arrays, maps and struct fields, v included) whose type
// is a Recorder, with its path from v ("Messages[2].Content[0]") and its
// type's name. A struct embedded in another one is part of it, not
// visited on its own.
func Visit(v any, fn func(path, typ string, r Recorder)) {
	visit(reflect.ValueOf(v), "", fn, 0)
}

func visit(v reflect.Value, path string, fn func(path, typ string, r Recorder), depth int) {
	if !v.IsValid() || depth > 32 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			visit(v.Elem(), path, fn, depth+1)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			visit(v.Index(i), fmt.Sprintf("%s[%d]", path, i), fn, depth+1)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			visit(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), fn, depth+1)
		}
	case reflect.Struct:
		if v.CanInterface() {
			if r, ok := v.Interface().(Recorder); ok {
				fn(path, v.Type().String(), r)
			}
		}
		fields(v, path, fn, depth)
	}
}

// fields visits the fields of struct v, those of embedded structs as its
// own.
func fields(v reflect.Value, path string, fn func(path, typ string, r Recorder), depth int) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			fields(v.Field(i), path, fn, depth+1)
			continue
		case !f.IsExported():
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		visit(v.Field(i), p, fn, depth+1)
	}
}

// internals matches what fmt shows of a Raw (threads.Raw, runs.Raw) it
// prints as a field: the offset pair and type of a recorded value
// ({0xc000123456 57 threads.Thread}), the zero record (<nil> 0 <nil>), or
// the names of its machinery.
var internals = regexp.MustCompile(`\{0x[0-9a-f]+ -?[0-9]+ [^ {}]*\}|<nil> 0 <nil>|jsonx|slot|Raw:|Raw\{`)

// Internals prints v with %v, %+v and %#v and returns the first of those
// printings that shows the raw-JSON machinery or leaves out one of v's
// fields, or "" when none does: an answer's value prints its fields
// alone, with or without WithRawJSON.
func Internals(v any) string {
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(verb, v); internals.MatchString(s) {
			return verb + ": " + s
		}
	}
	// Every field shows in %+v: a Format promoted from an embedded type
	// (runs.ThreadWithMessages embeds runs.Thread) would print that part
	// alone.
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() == reflect.Struct {
		plus := fmt.Sprintf("%+v", v)
		for i := range rv.NumField() {
			if f := rv.Type().Field(i); f.IsExported() && f.Name != "Raw" && !strings.Contains(plus, f.Name+":") {
				return "%+v without " + f.Name + ": " + plus
			}
		}
	}
	return ""
}

// Body keeps the bytes of the last 2xx JSON answer a client received, as
// received: give its Middleware to threads.WithMiddleware.
type Body struct {
	mu   sync.Mutex
	body []byte
}

// Middleware reads each 2xx JSON answer's body, keeps it and hands it on.
func (l *Body) Middleware(req *http.Request, next threads.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode/100 != 2 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	l.mu.Lock()
	l.body = bytes.TrimSpace(b)
	l.mu.Unlock()
	return resp, err
}

// Last returns the last answer's body, trimmed of white space.
func (l *Body) Last() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.body
}

// Checker holds what every value of the answers it checks must record.
type Checker struct {
	T    testing.TB
	Body *Body
	// Extra are the members the server adds to every object, as each
	// value's ExtraFields must give them.
	Extra map[string]json.RawMessage
	// Unmodeled are the members, by "type answer" ("threads.Thread
	// Threads.Update"), that the server sends and the SDK has no field
	// for: ExtraFields gives them too.
	Unmodeled map[string][]string
	// Seen collects the types of the values checked.
	Seen map[string]bool
}

// Check checks v, the answer of the call name, decoded with
// threads.WithRawJSON: each of its values gives part of the answer's
// bytes as RawJSON (the whole value, all of them; an array answer's
// elements, in order), and exactly Extra (and its Unmodeled) as
// ExtraFields. plain, when not nil, is the same answer decoded without
// WithRawJSON: its fields must be v's.
func (c *Checker) Check(name string, v, plain any) {
	c.T.Helper()
	body := c.Body.Last()
	n := 0
	Visit(v, func(path, typ string, r Recorder) {
		n++
		c.Seen[typ] = true
		raw := r.RawJSON()
		if len(raw) < 2 || !bytes.Contains(body, raw) {
			c.T.Errorf("%s %s (%s): RawJSON %s is not part of the answer", name, path, typ, raw)
		}
		if path == "" && !bytes.Equal(raw, body) {
			c.T.Errorf("%s: RawJSON is not the answer's body:\n%s\n%s", name, raw, body)
		}
		if s := Internals(r); s != "" {
			c.T.Errorf("%s %s (%s): printing it shows the raw-JSON machinery: %.300s", name, path, typ, s)
		}
		extra := r.ExtraFields()
		for _, m := range c.Unmodeled[typ+" "+name] {
			if _, ok := extra[m]; !ok {
				c.T.Errorf("%s %s (%s): no %q in ExtraFields", name, path, typ, m)
			}
			delete(extra, m)
		}
		if fmt.Sprint(extra) != fmt.Sprint(c.Extra) {
			c.T.Errorf("%s %s (%s): ExtraFields %s, want %s", name, path, typ, extra, c.Extra)
		}
	})
	if n == 0 {
		c.T.Errorf("%s: no value recorded its JSON", name)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		var elems [][]byte
		for i := range rv.Len() {
			elems = append(elems, rv.Index(i).Interface().(Recorder).RawJSON())
		}
		if all := append(append([]byte("["), bytes.Join(elems, []byte(","))...), ']'); !bytes.Equal(all, body) {
			c.T.Errorf("%s: the elements' RawJSON are not the answer:\n%s\n%s", name, all, body)
		}
	}
	if plain != nil {
		a, err := json.Marshal(plain)
		b, err2 := json.Marshal(v)
		if err != nil || err2 != nil || !bytes.Equal(a, b) {
			c.T.Errorf("%s: the fields differ from a decode without WithRawJSON (%v, %v):\n%s\n%s", name, err, err2, b, a)
		}
	}
}
