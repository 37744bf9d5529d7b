package toolcore

import (
	"context"
	"testing"
)

// With approvals deferred (package proxy's runs), a pause with a call
// that needs approval is left to the caller, as a call of its own tool
// is; its other calls' rule, and a call whose arguments are not an
// object, do not stop it. Without the mark, the runner asks as usual.
func TestDeferredApprovalsLeaveThePause(t *testing.T) {
	t.Parallel()
	echoTool := func(_ context.Context, c Call) (string, error) { return c.Name, nil }
	p := testPolicy(map[string]testTool{"refund": echoTool})
	p.Guard.NeedsApproval = func(_ testTool, c Call) bool { v, _ := c.Args["amount"].(float64); return v >= 20 }
	small := ReadCall("a", "refund", `{"amount": 5, "_tambo_statusMessage": "Refunding"}`)
	large := ReadCall("b", "refund", `{"amount": 80}`)
	bad := ReadCall("c", "refund", `[1]`)
	if small.Status.Message != "Refunding" || small.Args["_tambo_statusMessage"] != nil || bad.ArgsErr == nil {
		t.Fatalf("ReadCall: %+v %+v", small, bad)
	}
	if v := p.Admit([]Call{small, large}); v.Stop != Go {
		t.Errorf("not deferred: %+v", v)
	}
	p.Deferred = true
	if v := p.Admit([]Call{small, large}); v.Stop != External || v.Call != 1 {
		t.Errorf("deferred, a call that needs approval: %+v", v)
	}
	if v := p.Admit([]Call{small, bad}); v.Stop != Go {
		t.Errorf("deferred, no call that needs approval: %+v", v)
	}
	ctx := WithDeferredApprovals(context.Background(), true)
	if !DeferredApprovals(ctx) || DeferredApprovals(WithDeferredApprovals(ctx, false)) || DeferredApprovals(context.Background()) {
		t.Error("the context's mark")
	}
}
