package threadstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
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

// patchOps decodes a JSON Patch's operations, or answers the validation
// refusals the service sends for them.
func patchOps(w http.ResponseWriter, raw []json.RawMessage) ([]map[string]any, bool) {
	ops := make([]map[string]any, len(raw))
	for i, r := range raw {
		if json.Unmarshal(r, &ops[i]) != nil || ops[i] == nil {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{"patch must be an array"})
			return nil, false
		}
	}
	for i, op := range ops {
		if !slices.Contains([]string{"add", "remove", "replace", "move", "copy", "test"}, fmt.Sprint(op["op"])) {
			v1ErrorList(w, http.StatusBadRequest, "Bad Request", []string{fmt.Sprintf("patch.%d.op must be one of the following values: ", i)})
			return nil, false
		}
	}
	return ops, true
}

// patchError is a failed JSON Patch as the service reports it: the
// problem's errors member, and its multi-line detail.
type patchError struct {
	Name      string          `json:"name"`
	Index     int             `json:"index"`
	Operation json.RawMessage `json:"operation"`
	Tree      json.RawMessage `json:"tree"`
	err       error
}

// detail is the problem's detail as live sends it (91, 92): the message,
// then each member on its own line, the operation and the tree as
// JSON.stringify(v, null, 2) writes them.
func (e *patchError) detail() string {
	return fmt.Sprintf("Invalid JSON Patch: %s\nname: %s\nindex: %d\noperation: %s\ntree: %s",
		e.err, e.Name, e.Index, indentJSON(e.Operation), indentJSON(e.Tree))
}

// patchState applies ops (raw: the operations as sent) to the state tree
// and returns the new state, or the failure of the first operation that
// fails; tree is not changed.
func patchState(tree json.RawMessage, raw []json.RawMessage, ops []map[string]any) (json.RawMessage, *patchError) {
	var doc any
	json.Unmarshal(tree, &doc) // a deep copy: a failed patch changes nothing
	cur := tree
	for i, op := range ops {
		if i > 0 {
			cur, _ = json.Marshal(doc) // the tree the failing operation saw
		}
		var err error
		if doc, err = applyOp(doc, op); err != nil {
			name := "OPERATION_PATH_UNRESOLVABLE"
			if op["op"] == "test" {
				name = "TEST_OPERATION_FAILED"
			}
			return nil, &patchError{Name: name, Index: i, Operation: compactJSON(raw[i]), Tree: cur, err: err}
		}
	}
	next, _ := json.Marshal(doc)
	return next, nil
}

// stateJSON is a component's stored state as JSON: kept as sent, or
// encoded (a state the fake made, or one of an initial message).
func stateJSON(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	if v == nil {
		return json.RawMessage("{}")
	}
	b, _ := json.Marshal(v)
	return b
}

func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return json.RawMessage(raw)
	}
	return b.Bytes()
}

func indentJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}
