// Package route expands the SDK's route templates into request URLs and
// resolves the service's migrateToEndpoint advice into a new route.
//
// A template is a slash-separated path whose segments may be placeholders:
// "{name}" or ":name". Values are escaped as single path segments, so an id
// that holds "/" or ".." cannot change the route.
package route

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Route is one call's method, template and placeholder values.
type Route struct {
	Method   string
	Template string            // "/threads/{id}/advance"
	Values   map[string]string // {"id": "thr_1.a"}
}

// Key identifies the route independently of its values: "POST /threads/{id}/advance".
func (r Route) Key() string { return r.Method + " " + r.Template }

// Path expands the template with the route's values. Each value is escaped
// as one path segment; "." and ".." are escaped too so that no value can
// climb out of its segment.
func (r Route) Path() (string, error) {
	return expand(r.Template, r.Values)
}

// String is "METHOD /expanded/path", or the template when it cannot expand.
func (r Route) String() string {
	p, err := r.Path()
	if err != nil {
		p = r.Template
	}
	return r.Method + " " + p
}

func placeholder(seg string) (name string, ok bool) {
	if len(seg) > 1 && seg[0] == ':' {
		return seg[1:], true
	}
	if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
		return seg[1 : len(seg)-1], true
	}
	return "", false
}

func expand(tmpl string, values map[string]string) (string, error) {
	if !strings.ContainsAny(tmpl, ":{") {
		return tmpl, nil
	}
	path, query, hasQuery := strings.Cut(tmpl, "?")
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		v, ok, err := fill(seg, values)
		if err != nil {
			return "", err
		}
		if ok {
			segs[i] = EscapeSegment(v)
		}
	}
	out := strings.Join(segs, "/")
	if !hasQuery {
		return out, nil
	}
	// A query value that is a placeholder ("?thread=:id") is filled the
	// same way, escaped as a query value.
	pairs := strings.Split(query, "&")
	for i, pair := range pairs {
		k, val, hasVal := strings.Cut(pair, "=")
		if !hasVal {
			continue
		}
		v, ok, err := fill(val, values)
		if err != nil {
			return "", err
		}
		if ok {
			pairs[i] = k + "=" + url.QueryEscape(v)
		}
	}
	return out + "?" + strings.Join(pairs, "&"), nil
}

// fill returns the value of s when s is a placeholder.
func fill(s string, values map[string]string) (v string, ok bool, err error) {
	name, ok := placeholder(s)
	if !ok {
		return "", false, nil
	}
	v, ok = values[name]
	if !ok {
		return "", false, fmt.Errorf("unknown placeholder %q", s)
	}
	if v == "" {
		return "", false, fmt.Errorf("empty value for %q", s)
	}
	return v, true, nil
}

// placeholders returns the placeholder names of a template, path and query.
func placeholders(tmpl string) map[string]bool {
	names := map[string]bool{}
	path, query, _ := strings.Cut(tmpl, "?")
	for _, seg := range strings.Split(path, "/") {
		if name, ok := placeholder(seg); ok {
			names[name] = true
		}
	}
	for _, pair := range strings.Split(query, "&") {
		if _, val, ok := strings.Cut(pair, "="); ok {
			if name, ok := placeholder(val); ok {
				names[name] = true
			}
		}
	}
	return names
}

// dotSegment reports whether a path segment is "." or ".." in any
// spelling a server may decode: raw, "%2e" in either case, or mixed.
func dotSegment(seg string) bool {
	d := strings.ReplaceAll(strings.ToLower(seg), "%2e", ".")
	return d == "." || d == ".."
}

// EscapeSegment escapes v as one path segment. Unlike url.PathEscape it
// also escapes "." and ".." whole, which a server or proxy would otherwise
// resolve as relative path steps.
func EscapeSegment(v string) string {
	switch v {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(v)
}

// Join builds the request URL for path (escaped, possibly with a query)
// under base, keeping base's own path prefix.
func Join(base *url.URL, path string) (*url.URL, error) {
	return url.Parse(base.Scheme + "://" + base.Host + strings.TrimSuffix(base.EscapedPath(), "/") + path)
}

// Errors returned by Resolve; each names why the advice is not followed.
var (
	ErrMalformed   = errors.New("malformed migrateToEndpoint")
	ErrOffOrigin   = errors.New("target is not on the base URL's origin")
	ErrPlaceholder = errors.New("target uses a placeholder the call does not have")
	ErrSameRoute   = errors.New("target is the route that was deprecated")
	ErrMethod      = errors.New("target changes the call's method")
	ErrDropped     = errors.New("target drops a placeholder of the deprecated route")
)

var methods = map[string]bool{
	"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true,
	"DELETE": true, "OPTIONS": true,
}

// Move is a resolved migration: a route template that replaces another.
type Move struct {
	Method   string
	Template string // relative to the base URL, may hold placeholders and a query
}

// Route returns the move applied to a call's values.
func (m Move) Route(values map[string]string) Route {
	return Route{Method: m.Method, Template: m.Template, Values: values}
}

// Resolve turns advice ("POST /:id/advancestream") into a Move for the
// route that was answered 410, relative to base.
//
// The target may be a path with ":name" or "{name}" placeholders, with or
// without the route's first segment ("/advancestream" under "/threads/..."
// becomes "/threads/advancestream"), with a query, or an absolute URL on
// base's scheme, host and port under base's path. Anything else is refused
// with an error naming the reason, in particular:
//
//   - a method other than from's (a POST must not become a DELETE or GET);
//   - a dot segment in any spelling ("..", "%2e%2E", "%2E.", ".%2e") or an
//     encoded separator ("%2f", "%5c", "\\") in the path;
//   - a placeholder, in the path or as a query value ("?thread=:id"), that
//     from does not have;
//   - a target that drops one of from's placeholders: "POST /advancestream"
//     for "POST /threads/{id}/advance" would turn every later call into
//     one without the thread (creating a new thread each time).
func Resolve(advice string, base *url.URL, from Route) (Move, error) {
	fields := strings.Fields(advice)
	if len(fields) != 2 {
		return Move{}, fmt.Errorf("%w: want \"<METHOD> <path>\", got %q", ErrMalformed, clip(advice))
	}
	method, target := fields[0], fields[1]
	if !methods[method] {
		return Move{}, fmt.Errorf("%w: %q is not an HTTP method", ErrMalformed, clip(method))
	}
	if method != from.Method {
		return Move{}, fmt.Errorf("%w: %s to %s", ErrMethod, from.Method, method)
	}
	if strings.Contains(target, "#") {
		return Move{}, fmt.Errorf("%w: fragment in %q", ErrMalformed, clip(target))
	}

	if !strings.HasPrefix(target, "/") {
		rel, err := fromAbsolute(target, base)
		if err != nil {
			return Move{}, err
		}
		target = rel
	} else if strings.HasPrefix(target, "//") {
		return Move{}, fmt.Errorf("%w: %q names a host", ErrOffOrigin, clip(target))
	}

	target = literalsAsPlaceholders(target, from)
	path, query, hasQuery := strings.Cut(target, "?")
	segs := strings.Split(path, "/")[1:]
	for _, seg := range segs {
		if dotSegment(seg) {
			return Move{}, fmt.Errorf("%w: dot segment in %q", ErrMalformed, clip(target))
		}
		if l := strings.ToLower(seg); strings.Contains(l, "%2f") || strings.Contains(l, "%5c") || strings.Contains(l, `\`) {
			return Move{}, fmt.Errorf("%w: encoded separator in %q", ErrMalformed, clip(target))
		}
	}
	have := placeholders(target)
	for name := range have {
		if _, known := from.Values[name]; !known {
			return Move{}, fmt.Errorf("%w: %q", ErrPlaceholder, name)
		}
	}
	for name := range placeholders(from.Template) {
		if !have[name] {
			return Move{}, fmt.Errorf("%w: %q (advice %q)", ErrDropped, name, clip(advice))
		}
	}
	if _, err := url.Parse(path); err != nil {
		return Move{}, fmt.Errorf("%w: %q: %v", ErrMalformed, clip(target), err)
	}
	if hasQuery {
		if _, err := url.ParseQuery(query); err != nil {
			return Move{}, fmt.Errorf("%w: query of %q: %v", ErrMalformed, clip(target), err)
		}
	}

	// Relative to the controller: "/:id/advancestream" under "/threads/...".
	first := firstSegment(from.Template)
	if first != "" && (len(segs) == 0 || segs[0] != first) {
		path = "/" + first + path
	}
	tmpl := path
	if hasQuery {
		tmpl += "?" + query
	}
	m := Move{Method: method, Template: tmpl}

	same, err := sameRoute(m.Route(from.Values), from)
	if err != nil {
		return Move{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if same {
		return Move{}, ErrSameRoute
	}
	return m, nil
}

// literalsAsPlaceholders rewrites, in target's path, a literal segment
// equal to the call's own value for a placeholder that target does not
// name into that placeholder: advice that spells out the thread the call
// was about ("POST https://host/threads/thr_X/advancestream" for a call on
// thr_X) names the route for every thread, and is remembered as
// "/threads/{id}/advancestream". A segment matches when it equals the
// value as the call escaped it or, unescaped, the value itself. Each
// placeholder stands for at most one segment, the first that matches.
func literalsAsPlaceholders(target string, from Route) string {
	have := placeholders(target)
	path, query, hasQuery := strings.Cut(target, "?")
	segs := strings.Split(path, "/")
	changed := false
	for name := range placeholders(from.Template) {
		v := from.Values[name]
		if have[name] || v == "" {
			continue
		}
		esc := EscapeSegment(v)
		for i, seg := range segs {
			if _, ok := placeholder(seg); ok || seg == "" {
				continue
			}
			un, err := url.PathUnescape(seg)
			if seg == esc || (err == nil && un == v) {
				segs[i] = "{" + name + "}"
				changed = true
				break
			}
		}
	}
	if !changed {
		return target
	}
	out := strings.Join(segs, "/")
	if hasQuery {
		out += "?" + query
	}
	return out
}

func sameRoute(a, b Route) (bool, error) {
	pa, err := a.Path()
	if err != nil {
		return false, err
	}
	pb, err := b.Path()
	if err != nil {
		return false, err
	}
	pa, _, _ = strings.Cut(pa, "?")
	pb, _, _ = strings.Cut(pb, "?")
	return a.Method == b.Method && strings.TrimSuffix(pa, "/") == strings.TrimSuffix(pb, "/"), nil
}

// fromAbsolute checks an absolute target against base and returns its path
// relative to base's path prefix.
func fromAbsolute(target string, base *url.URL) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrMalformed, clip(target), err)
	}
	if !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("%w: %q is neither a path nor an absolute URL", ErrMalformed, clip(target))
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: %q carries credentials", ErrOffOrigin, clip(target))
	}
	if !SameOrigin(u, base) {
		return "", fmt.Errorf("%w: %s://%s", ErrOffOrigin, u.Scheme, u.Host)
	}
	// Keep the target's own spelling of the path: escaping it would turn
	// "{id}" into "%7Bid%7D".
	rest := target[strings.Index(target, "://")+3:]
	p := "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		p = rest[i:]
		if p[0] == '?' {
			p = "/" + p
		}
	}
	path, query, hasQuery := strings.Cut(p, "?")
	prefix := strings.TrimSuffix(base.EscapedPath(), "/")
	if prefix != "" {
		if path != prefix && !strings.HasPrefix(path, prefix+"/") {
			return "", fmt.Errorf("%w: path %q is outside the base URL's %q", ErrOffOrigin, clip(path), prefix)
		}
		path = strings.TrimPrefix(path, prefix)
	}
	if path == "" {
		path = "/"
	}
	if hasQuery {
		path += "?" + query
	}
	return path, nil
}

// SameOrigin reports whether u has base's scheme, host and port, with
// default ports made explicit ("https://h" and "https://h:443" are one
// origin). It is the one origin check of the SDK: redirects and migration
// advice both go through it.
func SameOrigin(u, base *url.URL) bool {
	return strings.EqualFold(u.Scheme, base.Scheme) && hostPort(u) == hostPort(base)
}

func hostPort(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return strings.ToLower(host) + ":" + port
}

func firstSegment(tmpl string) string {
	s := strings.TrimPrefix(tmpl, "/")
	s, _, _ = strings.Cut(s, "/")
	if _, ok := placeholder(s); ok {
		return ""
	}
	return s
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
