package runs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threadsapi/threads-go/internal/cputime"
)

// applyPatch applies ops to doc as a stream does and returns the
// document and the change in its cost.
func applyPatch(doc any, ops []PatchOp) (any, int64, error) {
	d := patchDoc{props: doc, depth: jsonDepth(doc)}
	r, err := d.apply(ops)
	return d.props, r.delta, err
}

// bigArrayDoc is {"a": [n numbers], "b": {}}.
func bigArrayDoc(n int) map[string]any {
	arr := make([]any, n)
	for i := range arr {
		arr[i] = float64(i)
	}
	return map[string]any{"a": arr, "b": map[string]any{}}
}

// TestPatchShiftBounded: an "add" or "remove" in the middle of an array
// shifts every element after it, so a hostile server that repeats
// {"op":"add","path":"/a/0"} (35 bytes) on an array of millions of
// elements would spend megabytes of copying per op. Past maxPatchShift
// elements after the position the op is refused (the service's own
// patches, fast-json-patch's compare, only append and trim the end).
func TestPatchShiftBounded(t *testing.T) {
	t.Parallel()
	n := 4 * maxPatchShift
	for _, op := range []PatchOp{
		{Op: "add", Path: "/a/0", Value: 1.0},
		{Op: "remove", Path: "/a/0"},
		{Op: "move", From: "/a/0", Path: "/b/x"},
		{Op: "move", From: "/b", Path: "/a/1"},
	} {
		doc := bigArrayDoc(n)
		got, delta, err := applyPatch(doc, []PatchOp{op})
		if !errors.Is(err, errPatchCost) {
			t.Errorf("%+v on a %d-element array: err %v, want errPatchCost", op, n, err)
		}
		if delta != 0 || len(got.(map[string]any)["a"].([]any)) != n {
			t.Errorf("%+v: the refused op changed the document (delta %d)", op, delta)
		}
	}
	// What the service sends still applies: appending, trimming the end,
	// inserting near the end, and anything on a short array.
	doc := any(bigArrayDoc(n))
	ok := []PatchOp{
		{Op: "add", Path: "/a/-", Value: 1.0},
		{Op: "add", Path: "/a/" + strconv.Itoa(n+1), Value: 2.0},
		{Op: "remove", Path: "/a/" + strconv.Itoa(n+1)},
		{Op: "add", Path: "/a/" + strconv.Itoa(n+1-maxPatchShift), Value: 3.0},
		{Op: "remove", Path: "/a/" + strconv.Itoa(n+1-maxPatchShift)},
		{Op: "replace", Path: "/a/0", Value: 4.0},
	}
	doc, _, err := applyPatch(doc, ok)
	if err != nil {
		t.Fatalf("the service's kind of patch: %v", err)
	}
	if a := doc.(map[string]any)["a"].([]any); len(a) != n+1 || a[0] != 4.0 || a[n] != 1.0 {
		t.Fatalf("wrong result: len %d, a[0] %v, a[n] %v", len(a), a[0], a[n])
	}
	small := any(bigArrayDoc(10))
	small, _, err = applyPatch(small, []PatchOp{{Op: "add", Path: "/a/0", Value: "x"}, {Op: "remove", Path: "/a/1"}})
	if err != nil || small.(map[string]any)["a"].([]any)[0] != "x" {
		t.Fatalf("a short array: %v %v", small, err)
	}
}

// TestPatchFailedMoveKeepsValue: a move whose destination does not
// resolve leaves the document as it was; before, the moved value had been
// taken out already and was lost, although applyPatch promises the
// document as the operations before the failing one left it.
func TestPatchFailedMoveKeepsValue(t *testing.T) {
	t.Parallel()
	doc := any(map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{"x": "y"}})
	doc, _, err := applyPatch(doc, []PatchOp{{Op: "move", From: "/b", Path: "/nope/x"}, {Op: "move", From: "/a/0", Path: "/a/9"}})
	if !errors.Is(err, errPatchPath) {
		t.Fatalf("err %v, want errPatchPath", err)
	}
	m := doc.(map[string]any)
	if b, ok := m["b"].(map[string]any); !ok || b["x"] != "y" {
		t.Fatalf("the failed move lost /b: %v", m)
	}
	if a := m["a"].([]any); len(a) != 2 || a[0] != 1.0 {
		t.Fatalf("/a changed: %v", a)
	}
	doc, _, err = applyPatch(doc, []PatchOp{{Op: "move", From: "/a/0", Path: "/a/9"}})
	if !errors.Is(err, errPatchPath) {
		t.Fatalf("err %v, want errPatchPath", err)
	}
	if a := doc.(map[string]any)["a"].([]any); len(a) != 2 || a[0] != 1.0 || a[1] != 2.0 {
		t.Fatalf("the failed move within an array changed it: %v", a)
	}
}

// TestPatchRootChargesBalance: what applyPatch charges adds up to the
// document's cost, so repeating a root remove and replace cannot lower
// the charge below what the stream holds (each pair gave back 16 bytes
// more than it took, slowly raising a hostile stream's memory budget).
func TestPatchRootChargesBalance(t *testing.T) {
	t.Parallel()
	cost := func(d any) int64 {
		if d == nil {
			return 0
		}
		return valueCost(d)
	}
	var doc any = map[string]any{"a": "x"}
	charged := cost(doc)
	for range 100 {
		var d int64
		var err error
		doc, d, err = applyPatch(doc, []PatchOp{{Op: "remove", Path: ""}, {Op: "add", Path: "", Value: map[string]any{"a": "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		charged += d
	}
	if charged != cost(doc) {
		t.Fatalf("charged %d for a document that costs %d", charged, cost(doc))
	}
}

// propsEvents is a run stream of component "c1" (named Card): its start,
// one props_delta per element of ops (each a JSON array of operations),
// and RUN_FINISHED.
func propsEvents(ops ...string) []byte {
	var b strings.Builder
	b.WriteString(`data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n\n")
	b.WriteString(`data: {"type":"CUSTOM","name":"tambo.component.start","value":{"messageId":"msg_1","componentId":"c1","componentName":"Card"}}` + "\n\n")
	for _, o := range ops {
		b.WriteString(`data: {"type":"CUSTOM","name":"tambo.component.props_delta","value":{"componentId":"c1","operations":`)
		b.WriteString(o)
		b.WriteString("}}\n\n")
	}
	b.WriteString(`data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n\n")
	return []byte(b.String())
}

// propsStream reads body as a run stream with a 16 MiB event limit.
func propsStream(body []byte) *Stream {
	return newStream(context.Background(), io.NopCloser(bytes.NewReader(body)), limits{maxEventSize: 16 << 20},
		func(s string, _ ...string) string { return s }, "", "")
}

// jsonDepth is the nesting depth of a decoded JSON value (0 for a
// scalar), walked without recursion so that the test itself survives
// what it measures.
func jsonDepth(v any) int {
	type item struct {
		v any
		d int
	}
	max := 0
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch c := it.v.(type) {
		case map[string]any:
			max = maxInt(max, it.d+1)
			for _, x := range c {
				stack = append(stack, item{x, it.d + 1})
			}
		case []any:
			max = maxInt(max, it.d+1)
			for _, x := range c {
				stack = append(stack, item{x, it.d + 1})
			}
		}
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// deepChainRounds is the attack of issue 31: each round adds a chain of
// k nested arrays (2 bytes a level), moves what was built so far into its
// innermost array (the move's path, 2 bytes a level, is all it was
// charged for), and moves the result back: props k levels deeper for ~4
// bytes a level, whatever bound an add had.
func deepChainRounds(rounds, k int) []string {
	ops := []string{`[{"op":"add","path":"/acc","value":[]}]`}
	chain := strings.Repeat("[", k) + strings.Repeat("]", k)
	inner := "/c" + strings.Repeat("/0", k)
	for range rounds {
		ops = append(ops, `[{"op":"add","path":"/c","value":`+chain+`},{"op":"move","from":"/acc","path":"`+inner+`"},{"op":"move","from":"/c","path":"/acc"}]`)
	}
	return ops
}

// TestPropsDepthBoundedWhateverTheOps: props can never be made deeper
// than the bound, whatever the operations (issue 31's severe finding:
// moves made them millions of levels deep for ~4 bytes a level, and
// Collect then died of a stack overflow in the props copy at 2.75 M
// levels, Component.Decode at 1 M). Here 300 rounds of 900 levels (1 MB
// of events, each add within the bound): the props stay within it,
// Collect, ComponentProps and Decode work, the result says the stream
// kept less than it was sent, and the deep value can be removed.
func TestPropsDepthBoundedWhateverTheOps(t *testing.T) {
	t.Parallel()
	const bound = 1000
	ops := deepChainRounds(300, 900)
	ops = append(ops, `[{"op":"remove","path":"/acc"}]`)
	body := propsEvents(ops...)
	s := propsStream(body)
	card := NewComponent[struct {
		Acc []any `json:"acc"`
	}]("Card", "")
	n := 0
	for s.Next() {
		d, ok := s.Current().(ComponentPropsDelta)
		if !ok {
			continue
		}
		if n++; n%50 != 0 && n < len(ops)-1 {
			continue
		}
		p, ok := s.ComponentProps(d.ComponentID)
		if !ok {
			t.Fatal("props not kept")
		}
		if depth := jsonDepth(p); depth > bound {
			t.Fatalf("props %d levels deep after %d deltas (%d bytes of events; at most %d)", depth, n, len(body), bound)
		}
		if ev, ok := card.Decode(s, d); !ok {
			t.Fatalf("Decode: %+v", ev)
		}
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	r, err := s.Collect()
	if err != nil || len(r.Messages) != 1 || len(r.Messages[0].Content) != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	if p := r.Messages[0].Content[0].Props; p["acc"] != nil || jsonDepth(p) > bound {
		t.Fatalf("props after removing /acc: %d members, %d levels deep", len(p), jsonDepth(p))
	}
	if !r.Incomplete {
		t.Fatal("moves refused for depth, yet the result is not Incomplete")
	}
}

// TestPatchLongPointerNotSplit: a JSON Pointer is walked token by token,
// not split into a slice of its tokens first (issue 31: a 15 MiB pointer
// took 317 MiB of heap when split). A 4 MiB pointer of empty tokens must
// not allocate more than a few kilobytes.
func TestPatchLongPointerNotSplit(t *testing.T) {
	p := strings.Repeat("/", 4<<20)
	doc := any(map[string]any{"": map[string]any{}})
	ops := []PatchOp{{Op: "add", Path: p, Value: 1.0}, {Op: "remove", Path: p}, {Op: "test", Path: p, Value: 1.0}, {Op: "move", From: p, Path: "/x"}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, op := range ops {
		if _, _, err := applyPatch(doc, []PatchOp{op}); !errors.Is(err, errPatchPath) {
			t.Fatalf("%s: %v", op.Op, err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("four operations on a 4 MiB pointer allocated %d bytes", n)
	}
}

// TestPatchChargesExact: what the operations charge adds up to the cost
// of the props they leave (docCost), and the depth the props are known
// to be within never falls below their depth, whatever the operations
// (moves, removes, the root, arrays). Before, a move charged a new
// member's name but not its entry and gave back neither on the way out,
// and a remove of the empty root gave back 16 bytes it was never
// charged.
func TestPatchChargesExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		var a assembly
		a.component("c1", "Card", "m1")
		c := a.comps[0]
		base := a.retained - c.cost // the ids and names
		for i, ops := range randomOps(r) {
			a.patch("c1", ops)
			if c.cost != docCost(c.props) || a.retained != base+c.cost {
				t.Fatalf("after event %d %+v: charged %d for props that cost %d", i, ops, c.cost, docCost(c.props))
			}
			if d := jsonDepth(c.props); d > c.depth || d > maxPropsDepth {
				t.Fatalf("after event %d %+v: props %d deep, known to be within %d", i, ops, d, c.depth)
			}
		}
	}
}

// TestPatchMoveCostIndependentOfValue: a "move" of a large value costs
// what the op's bytes cost, not a walk of the value. Before, move computed
// the moved value's size twice (remove, then add), so a server that moves
// a 256k-element array back and forth with 40-byte ops made the client's
// CPU quadratic in what it sent. The same moves on a 1k- and a
// 256k-element value must cost about the same.
func TestPatchMoveCostIndependentOfValue(t *testing.T) {
	ops := make([]PatchOp, 4000)
	for i := range ops {
		if i%2 == 0 {
			ops[i] = PatchOp{Op: "move", From: "/a", Path: "/c"}
		} else {
			ops[i] = PatchOp{Op: "move", From: "/c", Path: "/a"}
		}
	}
	run := func(n int) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			doc := patchDoc{props: bigArrayDoc(n), depth: 2}
			d := cputime.Thread(t, func() {
				if _, err := doc.apply(ops); err != nil {
					t.Fatal(err)
				}
			})
			best = min(best, d)
		}
		return best
	}
	small, large := run(1<<10), run(1<<18)
	t.Logf("4000 moves: 1k-element value %v, 256k-element value %v", small, large)
	if large > 8*small+20*time.Millisecond {
		t.Fatalf("moving a 256x larger value costs %v against %v: the move walks the value", large, small)
	}
}
