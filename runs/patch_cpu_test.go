package runs

import (
	"github.com/threadsapi/threads-go/internal/cputime"
	"testing"
	"time"
)

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
