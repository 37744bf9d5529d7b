package route

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// This file turns the path a caller gives the generic call
// (threads.Client.Do, runs.Client.Do) into a Route, with the checks every
// route of the SDK gets: each segment an id would be (CheckID), no dot
// segment or encoded separator in any spelling, no other host. A path that
// names one of the SDK's own routes becomes that route (its template and
// values), so it is observed, migrated and placed like the typed call.

// Literal checks method and path (a path under the base URL, such as
// "/threads/thr_1/messages?limit=5": escaped as in a URL, with an optional
// query) and returns its route, the query, and whether the route is one of
// templates (path templates of method's routes). An unknown route's
// template is its path, every segment escaped as EscapeSegment escapes an
// id, and it has no values.
//
// Its errors do not repeat the path (the caller names the call). It
// refuses, before anything is sent: a method that is not an HTTP
// method's name in upper case; a path that does not start with "/", starts
// with "//" (another host), or holds a fragment; an empty segment ("//",
// a trailing "/"); a segment that is a dot segment or holds an encoded
// separator ("%2F", "%5C", "\") in any spelling, or a malformed escape; a
// segment holding a control character, escaped or not ("%00", "%0A"),
// which names nothing and could split a header or a log line on its way;
// a segment that CheckID refuses (white space only); and a malformed
// query.
func Literal(method, path string, templates []string) (r Route, known bool, q url.Values, err error) {
	if !methods[method] {
		return Route{}, false, nil, fmt.Errorf("%q is not an HTTP method (GET, POST, PUT, PATCH, DELETE...)", clip(method))
	}
	p, rawQuery, _ := strings.Cut(path, "?")
	switch {
	case !strings.HasPrefix(p, "/"):
		return Route{}, false, nil, errors.New("the path does not start with /: give a path under the base URL, not a URL")
	case strings.HasPrefix(p, "//"):
		return Route{}, false, nil, errors.New("the path names a host")
	case strings.Contains(path, "#"):
		return Route{}, false, nil, errors.New("the path holds a fragment")
	}
	if rawQuery != "" {
		if q, err = url.ParseQuery(rawQuery); err != nil {
			return Route{}, false, nil, fmt.Errorf("the query: %v", err)
		}
	}
	raw := strings.Split(p[1:], "/")
	segs := make([]string, len(raw))
	for i, seg := range raw {
		l := strings.ToLower(seg)
		switch {
		case seg == "":
			return Route{}, false, nil, errors.New("the path has an empty segment")
		case dotSegment(seg):
			return Route{}, false, nil, errors.New("the path has a dot segment")
		case strings.Contains(l, "%2f") || strings.Contains(l, "%5c") || strings.Contains(seg, `\`):
			return Route{}, false, nil, errors.New("the path has an encoded separator")
		}
		un, err := url.PathUnescape(seg)
		if err != nil {
			return Route{}, false, nil, fmt.Errorf("the path: %v", err)
		}
		if err := CheckID("path segment", un); err != nil {
			return Route{}, false, nil, err
		}
		if strings.ContainsFunc(un, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			return Route{}, false, nil, errors.New("the path has a control character")
		}
		segs[i] = un
	}
	if t, ids, ok := match(segs, templates); ok {
		r, err := Fill(method, t, ids...)
		return r, err == nil, q, err
	}
	esc := make([]string, len(segs))
	for i, s := range segs {
		esc[i] = EscapeSegment(s)
		if strings.HasPrefix(esc[i], ":") {
			esc[i] = "%3A" + esc[i][1:] // not a placeholder
		}
	}
	return Route{Method: method, Template: "/" + strings.Join(esc, "/")}, false, q, nil
}

// match returns the template of templates that segs (unescaped) follow
// and the values of its placeholders, in order; of several, the one with
// the most literal segments ("/threads/advancestream" rather than
// "/threads/{id}").
func match(segs, templates []string) (tmpl string, ids []string, ok bool) {
	best := -1
	for _, t := range templates {
		path, _, _ := strings.Cut(t, "?")
		ts := strings.Split(strings.TrimPrefix(path, "/"), "/")
		if len(ts) != len(segs) {
			continue
		}
		literal, fits := 0, true
		var vals []string
		for i, s := range ts {
			if _, ph := placeholder(s); ph {
				vals = append(vals, segs[i])
				continue
			}
			if s != segs[i] {
				fits = false
				break
			}
			literal++
		}
		if fits && literal > best {
			best, tmpl, ids = literal, t, vals
		}
	}
	return tmpl, ids, best >= 0
}

// Named returns tmpl (a route's escaped path) with each segment that looks
// like an id as {id}: the name of a route the SDK does not model, so that
// one route has one name rather than one per thread. A segment looks like
// an id when it starts with thr_, run_ or msg_, or has the service's id
// shape, a lower-case prefix, "_", a name, "." and hex digits
// ("comp_Ab12.0a0b0c").
func Named(tmpl string) string {
	segs := strings.Split(tmpl, "/")
	for i, s := range segs {
		if idLike(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

func idLike(s string) bool {
	for _, p := range [...]string{"thr_", "run_", "msg_"} {
		if strings.HasPrefix(s, p) && len(s) > len(p) {
			return true
		}
	}
	prefix, rest, ok := strings.Cut(s, "_")
	if !ok || prefix == "" || len(prefix) > 12 || strings.Trim(prefix, "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	name, hex, ok := strings.Cut(rest, ".")
	return ok && name != "" && len(hex) >= 4 && strings.Trim(hex, "0123456789abcdef") == "" &&
		strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}
