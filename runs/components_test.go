package runs

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

const (
	compThread = "thr_nZmVC5Tz.14fe20"
	compID     = "message-GqTWYXDmwToHLHOA7Tn4J"
)

// Captures 89, 90: a full replace and a JSON Patch, the user key in the
// body (capture 98 shows the query is not read), 201 with the new state.
func TestComponentStateCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "89", "90")
	c := r.client().ForUser("user-1")
	st, err := c.SetComponentState(context.Background(), compThread, compID, map[string]any{"expanded": true, "items": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, map[string]any{"expanded": true, "items": []any{float64(1), float64(2)}}) {
		t.Errorf("89: %v", st)
	}
	st, err = c.PatchComponentState(context.Background(), compThread, compID, []PatchOp{
		{Op: "replace", Path: "/expanded", Value: false}, {Op: "add", Path: "/items/-", Value: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, map[string]any{"expanded": false, "items": []any{float64(1), float64(2), float64(3)}}) {
		t.Errorf("90: %v", st)
	}
	r.check()
}

// Captures 91, 92: a patch that does not apply is ErrInvalidJSONPatch with
// the failing operation in Extensions["errors"]; 56: 409 while a run is
// active is ErrRunActive (and threads.ErrConflict); 97: unknown component
// is 404; 96: an op the service does not know is its 400.
func TestComponentStateErrors(t *testing.T) {
	t.Parallel()
	r := replay(t, "91", "92", "96", "97", "56")
	c := r.client().ForUser("user-1")
	ctx := context.Background()
	_, err := c.PatchComponentState(ctx, compThread, compID, []PatchOp{{Op: "replace", Path: "/nope/deep", Value: 1}})
	var p *threads.Problem
	if !errors.Is(err, ErrInvalidJSONPatch) || !errors.As(err, &p) || p.Type != TypeInvalidJSONPatch {
		t.Fatalf("91: %v", err)
	}
	var detail struct{ Name string }
	if json.Unmarshal(p.Extensions["errors"], &detail); detail.Name != "OPERATION_PATH_UNRESOLVABLE" {
		t.Errorf("91: errors = %s", p.Extensions["errors"])
	}
	_, err = c.PatchComponentState(ctx, compThread, compID, []PatchOp{{Op: "test", Path: "/expanded", Value: true}, {Op: "replace", Path: "/expanded", Value: true}})
	if !errors.Is(err, ErrInvalidJSONPatch) || errors.Is(err, ErrRunActive) {
		t.Errorf("92: %v", err)
	}
	_, err = c.PatchComponentState(ctx, compThread, compID, []PatchOp{{Op: "frobnicate", Path: "/a"}})
	if !errors.Is(err, threads.ErrBadRequest) || errors.Is(err, ErrInvalidJSONPatch) {
		t.Errorf("96: %v", err)
	}
	_, err = c.SetComponentState(ctx, compThread, "comp_doesnotexist", map[string]any{"a": 1})
	if !errors.Is(err, threads.ErrNotFound) {
		t.Errorf("97: %v", err)
	}
	_, err = c.SetComponentState(ctx, "thr_2qzYSSu1.200943", "comp_any", map[string]any{"x": 1})
	if !errors.Is(err, ErrRunActive) || !errors.Is(err, threads.ErrConflict) || !errors.As(err, &p) || p.Type != TypeRunActive {
		t.Errorf("56: %v", err)
	}
	r.check()
}

// Captures 93-95 show the service's 400s for both, neither and an empty
// patch; the SDK's two methods cannot send both, and refuse the other two
// before sending.
func TestComponentStateRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	r := replay(t)
	c := r.client().ForUser("user-1")
	if _, err := c.SetComponentState(context.Background(), compThread, compID, nil); err == nil {
		t.Error("nil state: no error")
	}
	if _, err := c.PatchComponentState(context.Background(), compThread, compID, nil); err == nil {
		t.Error("empty patch: no error")
	}
	if r.requests() != 0 {
		t.Fatal("sent")
	}
}
