package threadstest

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// The live service's own messages, word for word (a client may compare them).
var (
	//lint:ignore ST1005 the service's text
	errUnresolvable = errors.New("Cannot perform the operation at a path that does not exist")
	//lint:ignore ST1005 the service's text
	errTestFailed = errors.New("Test operation failed")
)

// applyOp applies one RFC 6902 operation to doc (decoded JSON) and
// returns the new document; doc may be changed in place.
func applyOp(doc any, op map[string]any) (any, error) {
	path, _ := op["path"].(string)
	switch op["op"] {
	case "add":
		return setAt(doc, path, op["value"], true)
	case "replace":
		if _, err := getAt(doc, path); err != nil {
			return nil, err
		}
		return setAt(doc, path, op["value"], false)
	case "remove":
		return removeAt(doc, path)
	case "test":
		v, err := getAt(doc, path)
		if err != nil {
			return nil, err
		}
		if !reflect.DeepEqual(v, op["value"]) {
			return nil, errTestFailed
		}
		return doc, nil
	case "move", "copy":
		from, _ := op["from"].(string)
		v, err := getAt(doc, from)
		if err != nil {
			return nil, err
		}
		if op["op"] == "move" {
			if doc, err = removeAt(doc, from); err != nil {
				return nil, err
			}
		}
		return setAt(doc, path, v, true)
	}
	return nil, errUnresolvable
}

func tokens(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, errUnresolvable
	}
	ts := strings.Split(path[1:], "/")
	for i, t := range ts {
		ts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return ts, nil
}

func child(v any, tok string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		c, ok := v[tok]
		if !ok {
			return nil, errUnresolvable
		}
		return c, nil
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(v) {
			return nil, errUnresolvable
		}
		return v[i], nil
	}
	return nil, errUnresolvable
}

func getAt(doc any, path string) (any, error) {
	ts, err := tokens(path)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if doc, err = child(doc, t); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// setAt sets (add: inserts into an array) the value at path.
func setAt(doc any, path string, val any, add bool) (any, error) {
	ts, err := tokens(path)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return val, nil
	}
	parent, err := getAt(doc, "/"+strings.Join(escape(ts[:len(ts)-1]), "/"))
	if len(ts) == 1 {
		parent, err = doc, nil
	}
	if err != nil {
		return nil, err
	}
	last := ts[len(ts)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = val
		return doc, nil
	case []any:
		i := len(p)
		if last != "-" {
			if i, err = strconv.Atoi(last); err != nil || i < 0 || i > len(p) || (!add && i == len(p)) {
				return nil, errUnresolvable
			}
		}
		if !add {
			p[i] = val
			return doc, nil
		}
		grown := append(p[:i:i], append([]any{val}, p[i:]...)...)
		if len(ts) == 1 {
			return grown, nil
		}
		return setAt(doc, "/"+strings.Join(escape(ts[:len(ts)-1]), "/"), grown, false)
	}
	return nil, errUnresolvable
}

func removeAt(doc any, path string) (any, error) {
	ts, err := tokens(path)
	if err != nil || len(ts) == 0 {
		return nil, errUnresolvable
	}
	if _, err := getAt(doc, path); err != nil {
		return nil, err
	}
	parentPath := "/" + strings.Join(escape(ts[:len(ts)-1]), "/")
	parent := doc
	if len(ts) > 1 {
		parent, _ = getAt(doc, parentPath)
	}
	last := ts[len(ts)-1]
	switch p := parent.(type) {
	case map[string]any:
		delete(p, last)
		return doc, nil
	case []any:
		i, _ := strconv.Atoi(last)
		shrunk := append(p[:i:i], p[i+1:]...)
		if len(ts) == 1 {
			return shrunk, nil
		}
		return setAt(doc, parentPath, shrunk, false)
	}
	return nil, errUnresolvable
}

func escape(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return out
}
