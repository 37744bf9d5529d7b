package runs

import (
	"errors"
	"strconv"
	"testing"
)

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
