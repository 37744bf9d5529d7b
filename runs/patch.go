package runs

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

var (
	errPatchPath  = errors.New("path does not resolve")
	errPatchTest  = errors.New("test failed")
	errPatchOp    = errors.New("unsupported operation")
	errPatchCost  = errors.New("the operation shifts too many array elements")
	errPatchDepth = errors.New("the props would nest too deep")
)

// maxPatchShift bounds how many array elements one "add", "remove" or
// "move" may shift (the elements after its position): a server repeating
// {"op":"add","path":"/a/0"} on an array of millions of elements would
// otherwise make each 35-byte op copy megabytes, and the stream's CPU
// quadratic in what it sent. The service's patches (fast-json-patch's
// compare) only append to an array and trim its end, which shift nothing.
const maxPatchShift = 1024

// maxPropsDepth bounds how deeply a component's props nest (objects and
// arrays within each other): an operation that could make them deeper is
// refused, so that every walk of the props (the copies ComponentProps and
// Collect return, Decode, a caller's encoding/json) recurses at most this
// far. Without it, "move" made props millions of levels deep for a few
// bytes a level, and the next copy overflowed the goroutine stack.
const maxPropsDepth = 1000

// opOverhead is what an operation's JSON costs beside its pointers and
// value (`{"op":"replace","path":"","value":}`), in valueCost units.
const opOverhead = 32

// patchDoc is a component's props as its JSON Patches build them.
type patchDoc struct {
	props any
	// depth is at least props' depth (valueDepth): exact after the whole
	// document is set, raised by each operation that can deepen it. A
	// moved value is not walked, so a move raises it by as much as the
	// value could be deep; it never falls below the real depth, which
	// therefore stays within maxPropsDepth.
	depth int
}

// patchResult is what applying operations did besides changing the
// document.
type patchResult struct {
	// delta is the change in the document's cost (docCost).
	delta int64
	// paid is what the operations themselves weigh (their pointers and
	// values, in valueCost units): the work they may cause the stream's
	// readers is measured against it.
	paid int64
	// applied counts the operations that applied (not the failing one).
	applied int
}

// apply applies ops in order, changing the document in place where it
// can. On a failing operation it stops and leaves the document as the
// operations before it left it.
//
// Every operation costs time linear in its own bytes, plus the values it
// replaces or removes (each value is removed at most once after the
// bytes that added it were paid for), plus at most maxPatchShift element
// moves: a "move" is not walked. "copy" is refused: it is the one
// operation whose cost is not paid for by bytes the server sent (copying
// a large member again and again would take memory and CPU out of
// proportion to the stream), and the service does not send it.
func (d *patchDoc) apply(ops []PatchOp) (patchResult, error) {
	var r patchResult
	for i, op := range ops {
		delta, paid, err := d.applyOp(op)
		r.delta += delta
		r.paid += paid
		if err != nil {
			return r, fmt.Errorf("operation %d: %w", i, err)
		}
		r.applied++
	}
	return r, nil
}

func (d *patchDoc) applyOp(op PatchOp) (delta, paid int64, err error) {
	paid = opOverhead + int64(len(op.Path)+len(op.From))
	if err := checkPointer(op.Path); err != nil {
		return 0, paid, err
	}
	n := tokenCount(op.Path)
	switch op.Op {
	case "add", "replace":
		// A copy: the event holding op stays the caller's, and later
		// operations change the stored value in place. It is refused as
		// soon as it would nest deeper than the bound allows at n.
		v, vcost, vdepth, ok := cloneBounded(op.Value, maxPropsDepth-n)
		paid += vcost
		if !ok {
			return 0, paid, errPatchDepth
		}
		if n == 0 {
			vcost = docCost(v)
		}
		pl, err := d.put(op.Path, v, op.Op == "add")
		if err != nil {
			return 0, paid, err
		}
		if n == 0 {
			d.depth = vdepth
		} else {
			d.depth = max(d.depth, n+vdepth)
		}
		return vcost + pl.added - pl.replacedCost(), paid, nil
	case "remove":
		old, entry, err := d.remove(op.Path)
		if err != nil {
			return 0, paid, err
		}
		if n == 0 {
			d.depth = 0
			return -docCost(old), paid, nil
		}
		return -entry - valueCost(old), paid, nil
	case "test":
		v, err := resolve(d.props, op.Path)
		if err != nil {
			return 0, paid, err
		}
		// DeepEqual walks no further than op.Value, which the event
		// paid for.
		if !reflect.DeepEqual(v, op.Value) {
			return 0, paid, errPatchTest
		}
		return 0, paid, nil
	case "move":
		delta, err := d.move(op.From, op.Path, n)
		return delta, paid, err
	}
	return 0, paid, errPatchOp
}

// move moves the value at from to path (n tokens) without walking it:
// its cost moves with it, and only the map entries' own cost changes.
func (d *patchDoc) move(from, path string, n int) (int64, error) {
	if err := checkPointer(from); err != nil {
		return 0, err
	}
	if from == path {
		_, err := resolve(d.props, path)
		return 0, err
	}
	if from == "" || (len(path) > len(from) && path[len(from)] == '/' && strings.HasPrefix(path, from)) {
		return 0, fmt.Errorf("%w: a move into its own child", errPatchPath)
	}
	// The value at from is at most depth-nf deep; at path it adds n
	// levels above it. Refused before anything changes, like a move
	// whose destination would shift too much.
	nf := tokenCount(from)
	moved := d.depth - nf
	if n+moved > maxPropsDepth {
		return 0, errPatchDepth
	}
	if err := d.shiftOK(path); err != nil {
		return 0, err
	}
	v, entry, err := d.remove(from)
	if err != nil {
		return 0, err
	}
	pl, err := d.put(path, v, true)
	if err != nil {
		// Put it back where it was: the document stays as the
		// operations before this one left it.
		_, _ = d.put(from, v, true)
		return 0, err
	}
	delta := pl.added - entry - pl.replacedCost()
	if n == 0 {
		// The value is the whole document now, whose cost is docCost:
		// a null was charged as a value inside its container.
		delta -= valueCost(v) - docCost(v)
		d.depth = moved
	} else {
		d.depth = max(d.depth, n+moved)
	}
	return delta, nil
}

// checkPointer refuses what is not a JSON Pointer.
func checkPointer(p string) error {
	if p != "" && p[0] != '/' {
		return fmt.Errorf("%w: not a JSON Pointer", errPatchPath)
	}
	return nil
}

// tokenCount is the number of reference tokens in pointer p.
func tokenCount(p string) int { return strings.Count(p, "/") }

// A pointer is walked token by token, never split: a slice of its tokens
// would cost 16 bytes per token of a pointer the server sent, 16 times
// its size for one of slashes.

// nextToken returns the first reference token of p (which starts with
// '/'), still escaped, and the rest of p.
func nextToken(p string) (tok, rest string) {
	p = p[1:]
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// lastToken splits p (which starts with '/') into its parent pointer and
// its last reference token, still escaped.
func lastToken(p string) (parent, tok string) {
	i := strings.LastIndexByte(p, '/')
	return p[:i], p[i+1:]
}

// unescape decodes a reference token's ~1 and ~0.
func unescape(tok string) string {
	if strings.IndexByte(tok, '~') < 0 {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
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

// place is where a value is held: in container c (a map or an array),
// under key (unescaped) or at i; c nil is the document's root.
type place struct {
	c   any
	key string
	i   int
}

// step resolves one escaped token in v: the child and its place.
func step(v any, tok string) (any, place, error) {
	switch c := v.(type) {
	case map[string]any:
		k := unescape(tok)
		x, ok := c[k]
		if !ok {
			return nil, place{}, errPatchPath
		}
		return x, place{c: c, key: k}, nil
	case []any:
		i, err := index(tok, len(c), false)
		if err != nil {
			return nil, place{}, err
		}
		return c[i], place{c: c, i: i}, nil
	}
	return nil, place{}, errPatchPath
}

// resolve returns the value at pointer p in doc.
func resolve(doc any, p string) (any, error) {
	for p != "" {
		var tok string
		tok, p = nextToken(p)
		var err error
		if doc, _, err = step(doc, tok); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// container resolves p's parent: the container there (any value; the
// caller checks its kind), where it is held, and p's last token. p is
// not empty.
func (d *patchDoc) container(p string) (any, place, string, error) {
	parent, last := lastToken(p)
	c, at := d.props, place{}
	for parent != "" {
		var tok string
		tok, parent = nextToken(parent)
		var err error
		if c, at, err = step(c, tok); err != nil {
			return nil, place{}, "", err
		}
	}
	return c, at, last, nil
}

// store puts container c (an array that grew or shrank) back at its
// place.
func (d *patchDoc) store(at place, c any) {
	switch h := at.c.(type) {
	case nil:
		d.props = c
	case map[string]any:
		h[at.key] = c
	case []any:
		h[at.i] = c
	}
}

// shiftOK refuses an insert at path in an array that would shift more
// than maxPatchShift elements; other paths pass (put reports those that
// do not resolve).
func (d *patchDoc) shiftOK(path string) error {
	if path == "" {
		return nil
	}
	c, _, last, err := d.container(path)
	if err != nil {
		return nil
	}
	if a, ok := c.([]any); ok {
		if i, err := index(last, len(a), true); err == nil {
			return checkShift(len(a), i, true)
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

// putResult is what a put did to the cost: a new map entry's own cost,
// and the value it replaced.
type putResult struct {
	added    int64 // a new member's name and entry (entryCost)
	replaced any
	had      bool // replaced is a value that was there
	root     bool
}

// replacedCost is the cost the replaced value was charged.
func (p putResult) replacedCost() int64 {
	switch {
	case !p.had:
		return 0
	case p.root:
		return docCost(p.replaced)
	}
	return valueCost(p.replaced)
}

// put adds (insert) or replaces the value at path.
func (d *patchDoc) put(path string, v any, insert bool) (putResult, error) {
	if path == "" {
		old := d.props
		d.props = v
		return putResult{replaced: old, had: true, root: true}, nil
	}
	c, at, last, err := d.container(path)
	if err != nil {
		return putResult{}, err
	}
	switch c := c.(type) {
	case map[string]any:
		k := unescape(last)
		old, ok := c[k]
		if !ok && !insert {
			return putResult{}, errPatchPath
		}
		c[k] = v
		if ok {
			return putResult{replaced: old, had: true}, nil
		}
		return putResult{added: entryCost(k)}, nil
	case []any:
		i, err := index(last, len(c), insert)
		if err != nil {
			return putResult{}, err
		}
		if !insert {
			old := c[i]
			c[i] = v
			return putResult{replaced: old, had: true}, nil
		}
		if err := checkShift(len(c), i, true); err != nil {
			return putResult{}, err
		}
		c = append(c, nil)
		copy(c[i+1:], c[i:])
		c[i] = v
		d.store(at, c)
		return putResult{}, nil
	}
	return putResult{}, errPatchPath
}

// remove takes the value at path out of the document and returns it with
// the cost of its map entry (0 in an array or at the root).
func (d *patchDoc) remove(path string) (any, int64, error) {
	if path == "" {
		if d.props == nil {
			return nil, 0, errPatchPath
		}
		old := d.props
		d.props = nil
		return old, 0, nil
	}
	c, at, last, err := d.container(path)
	if err != nil {
		return nil, 0, err
	}
	switch c := c.(type) {
	case map[string]any:
		k := unescape(last)
		v, ok := c[k]
		if !ok {
			return nil, 0, errPatchPath
		}
		delete(c, k)
		return v, entryCost(k), nil
	case []any:
		i, err := index(last, len(c), false)
		if err != nil {
			return nil, 0, err
		}
		if err := checkShift(len(c), i, false); err != nil {
			return nil, 0, err
		}
		old := c[i]
		copy(c[i:], c[i+1:])
		c[len(c)-1] = nil
		d.store(at, c[:len(c)-1])
		return old, 0, nil
	}
	return nil, 0, errPatchPath
}

// valueCost estimates the memory a decoded JSON value takes, in the
// spirit of the JSON's size: every byte of its strings and names, and a
// fixed cost per value and container. It walks v once; v is at most
// maxPropsDepth deep (or a value an event decoded).
func valueCost(v any) int64 {
	switch v := v.(type) {
	case string:
		return 16 + int64(len(v))
	case map[string]any:
		n := int64(48)
		for k, x := range v {
			n += entryCost(k) + valueCost(x)
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

// entryCost is a map member's own cost, beside its value's.
func entryCost(k string) int64 { return int64(len(k)) + 16 }

// docCost is the cost of a whole document: valueCost, except that an
// empty document (none yet, or the root removed) costs nothing, so that
// removing and replacing the root gives back what it was charged.
func docCost(v any) int64 {
	if v == nil {
		return 0
	}
	return valueCost(v)
}

// cloneBounded copies a decoded JSON value when it is at most limit
// levels deep (valueDepth), returning the copy, its valueCost and depth;
// ok is false, and the walk stops, as soon as it is deeper.
func cloneBounded(v any, limit int) (c any, cost int64, depth int, ok bool) {
	switch x := v.(type) {
	case string:
		return v, 16 + int64(len(x)), 0, true // v as it is: no new interface
	case map[string]any:
		if limit < 1 {
			return nil, 0, 0, false
		}
		m := make(map[string]any, len(x))
		cost, depth = 48, 1
		for k, e := range x {
			xc, xcost, xdepth, ok := cloneBounded(e, limit-1)
			if !ok {
				return nil, 0, 0, false
			}
			m[k] = xc
			cost += entryCost(k) + xcost
			depth = max(depth, 1+xdepth)
		}
		return m, cost, depth, true
	case []any:
		if limit < 1 {
			return nil, 0, 0, false
		}
		a := make([]any, len(x))
		cost, depth = 24, 1
		for i, e := range x {
			xc, xcost, xdepth, ok := cloneBounded(e, limit-1)
			if !ok {
				return nil, 0, 0, false
			}
			a[i] = xc
			cost += xcost
			depth = max(depth, 1+xdepth)
		}
		return a, cost, depth, true
	}
	return v, 16, 0, true
}

// cloneValue copies a decoded JSON value, so that the caller's copy and
// the stream's do not share containers. The props it copies are at most
// maxPropsDepth deep.
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
