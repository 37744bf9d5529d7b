package runs

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

var (
	errPatchPath = errors.New("path does not resolve")
	errPatchTest = errors.New("test failed")
	errPatchOp   = errors.New("unsupported operation")
	errPatchCost = errors.New("the operation shifts too many array elements")
)

// maxPatchShift bounds how many array elements one "add", "remove" or
// "move" may shift (the elements after its position): a server repeating
// {"op":"add","path":"/a/0"} on an array of millions of elements would
// otherwise make each 35-byte op copy megabytes, and the stream's CPU
// quadratic in what it sent. The service's patches (fast-json-patch's
// compare) only append to an array and trim its end, which shift nothing.
const maxPatchShift = 1024

// applyPatch applies ops in order to doc, changing it in place where it
// can, and returns the new document and the change in its estimated size
// (valueCost). On a failing operation it stops and returns the document
// as the operations before it left it.
//
// "copy" is refused: it is the one operation whose cost is not paid for by
// bytes the server sent (copying a large member again and again would
// take memory and CPU out of proportion to the stream), and the service
// does not send it.
func applyPatch(doc any, ops []PatchOp) (any, int64, error) {
	var delta int64
	for i, op := range ops {
		var d int64
		var err error
		doc, d, err = applyOp(doc, op)
		delta += d
		if err != nil {
			return doc, delta, fmt.Errorf("operation %d: %w", i, err)
		}
	}
	return doc, delta, nil
}

func applyOp(doc any, op PatchOp) (any, int64, error) {
	path, err := pointer(op.Path)
	if err != nil {
		return doc, 0, err
	}
	switch op.Op {
	case "add":
		// A copy: the event holding op stays the caller's, and later
		// operations change the stored value in place.
		v := cloneValue(op.Value)
		return put(doc, path, v, valueCost(v), true)
	case "replace":
		v := cloneValue(op.Value)
		return put(doc, path, v, valueCost(v), false)
	case "remove":
		doc, old, err := remove(doc, path)
		if err != nil {
			return doc, 0, err
		}
		return doc, -valueCost(old), nil
	case "test":
		v, err := get(doc, path)
		if err != nil {
			return doc, 0, err
		}
		if !reflect.DeepEqual(v, op.Value) {
			return doc, 0, errPatchTest
		}
		return doc, 0, nil
	case "move":
		from, err := pointer(op.From)
		if err != nil {
			return doc, 0, err
		}
		if op.From == op.Path {
			_, err := get(doc, path)
			return doc, 0, err
		}
		if strings.HasPrefix(op.Path, op.From+"/") {
			return doc, 0, fmt.Errorf("%w: a move into its own child", errPatchPath)
		}
		// Check where the value goes before taking it out, so that a
		// move refused for its cost leaves the document as it was.
		if err := shiftOK(doc, path, true); err != nil {
			return doc, 0, err
		}
		doc, v, err := remove(doc, from)
		if err != nil {
			return doc, 0, err
		}
		// The moved value's cost moves with it: it is not walked (a move
		// costs what its bytes cost, however large the value).
		doc, d, err := put(doc, path, v, 0, true)
		if err != nil {
			// Put it back where it was: the document stays as the
			// operations before this one left it.
			doc, _, _ = put(doc, from, v, 0, true)
			return doc, 0, err
		}
		return doc, d, nil
	}
	return doc, 0, errPatchOp
}

// pointer splits a JSON Pointer into its unescaped tokens.
func pointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("%w: not a JSON Pointer", errPatchPath)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if strings.IndexByte(t, '~') >= 0 {
			toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
	}
	return toks, nil
}

func index(tok string, n int, end bool) (int, error) {
	if end && tok == "-" {
		return n, nil
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') || tok[0] == '+' || tok[0] == '-' {
		return 0, errPatchPath
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i > n || (!end && i == n) {
		return 0, errPatchPath
	}
	return i, nil
}

func get(doc any, path []string) (any, error) {
	for _, tok := range path {
		switch c := doc.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, errPatchPath
			}
			doc = v
		case []any:
			i, err := index(tok, len(c), false)
			if err != nil {
				return nil, err
			}
			doc = c[i]
		default:
			return nil, errPatchPath
		}
	}
	return doc, nil
}

// update calls f on the container at parent and stores what f returns in
// its place (an array may be replaced by a longer or shorter one).
func update(doc any, parent []string, f func(any) (any, error)) (any, error) {
	if len(parent) == 0 {
		return f(doc)
	}
	tok := parent[0]
	switch c := doc.(type) {
	case map[string]any:
		child, ok := c[tok]
		if !ok {
			return doc, errPatchPath
		}
		nc, err := update(child, parent[1:], f)
		if err == nil {
			c[tok] = nc
		}
		return doc, err
	case []any:
		i, err := index(tok, len(c), false)
		if err != nil {
			return doc, err
		}
		nc, err := update(c[i], parent[1:], f)
		if err == nil {
			c[i] = nc
		}
		return doc, err
	}
	return doc, errPatchPath
}

// shiftOK refuses an insert (or a removal) at path in an array that
// would shift more than maxPatchShift elements; other paths pass (put and
// remove report those that do not resolve).
func shiftOK(doc any, path []string, insert bool) error {
	if len(path) == 0 {
		return nil
	}
	c, err := get(doc, path[:len(path)-1])
	if err != nil {
		return nil
	}
	if a, ok := c.([]any); ok {
		if i, err := index(path[len(path)-1], len(a), insert); err == nil {
			return checkShift(len(a), i, insert)
		}
	}
	return nil
}

// checkShift bounds the elements an insert at i (or a removal of i) in an
// array of n shifts.
func checkShift(n, i int, insert bool) error {
	shifted := n - i
	if !insert {
		shifted--
	}
	if shifted > maxPatchShift {
		return fmt.Errorf("%w: %d (at most %d)", errPatchCost, shifted, maxPatchShift)
	}
	return nil
}

// put adds (insert) or replaces the value at path; vcost is v's
// valueCost (0 for a value already counted, which a move carries).
func put(doc any, path []string, v any, vcost int64, insert bool) (any, int64, error) {
	if len(path) == 0 {
		// An empty document (none yet, or the root removed) was charged
		// nothing: valueCost's 16 for a null inside a container would let
		// each remove-and-replace of the root give back 16 bytes more than
		// it was charged.
		var was int64
		if doc != nil {
			was = valueCost(doc)
		}
		return v, vcost - was, nil
	}
	last := path[len(path)-1]
	var delta int64
	doc, err := update(doc, path[:len(path)-1], func(c any) (any, error) {
		switch c := c.(type) {
		case map[string]any:
			old, ok := c[last]
			if !ok && !insert {
				return c, errPatchPath
			}
			if ok {
				delta -= valueCost(old)
			}
			c[last] = v
			delta += vcost + int64(len(last))
			if ok {
				delta -= int64(len(last))
			}
			return c, nil
		case []any:
			i, err := index(last, len(c), insert)
			if err != nil {
				return c, err
			}
			if !insert {
				delta += vcost - valueCost(c[i])
				c[i] = v
				return c, nil
			}
			if err := checkShift(len(c), i, true); err != nil {
				return c, err
			}
			delta += vcost
			c = append(c, nil)
			copy(c[i+1:], c[i:])
			c[i] = v
			return c, nil
		}
		return c, errPatchPath
	})
	if err != nil {
		return doc, 0, err
	}
	return doc, delta, nil
}

// remove takes the value at path out of doc and returns it.
func remove(doc any, path []string) (any, any, error) {
	if len(path) == 0 {
		return nil, doc, nil
	}
	last := path[len(path)-1]
	var old any
	doc, err := update(doc, path[:len(path)-1], func(c any) (any, error) {
		switch c := c.(type) {
		case map[string]any:
			v, ok := c[last]
			if !ok {
				return c, errPatchPath
			}
			old = v
			delete(c, last)
			return c, nil
		case []any:
			i, err := index(last, len(c), false)
			if err != nil {
				return c, err
			}
			if err := checkShift(len(c), i, false); err != nil {
				return c, err
			}
			old = c[i]
			copy(c[i:], c[i+1:])
			c[len(c)-1] = nil
			return c[:len(c)-1], nil
		}
		return c, errPatchPath
	})
	return doc, old, err
}

// valueCost estimates the memory a decoded JSON value takes, in the
// spirit of the JSON's size: every byte of its strings and names, and a
// fixed cost per value and container. It walks v once.
func valueCost(v any) int64 {
	switch v := v.(type) {
	case string:
		return 16 + int64(len(v))
	case map[string]any:
		n := int64(48)
		for k, x := range v {
			n += int64(len(k)) + 16 + valueCost(x)
		}
		return n
	case []any:
		n := int64(24)
		for _, x := range v {
			n += valueCost(x)
		}
		return n
	}
	return 16
}

// cloneValue copies a decoded JSON value, so that the caller's copy and
// the stream's do not share containers.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = cloneValue(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = cloneValue(x)
		}
		return a
	}
	return v
}
