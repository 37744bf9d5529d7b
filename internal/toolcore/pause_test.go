package toolcore

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

type testTool func(ctx context.Context, c Call) (string, error)

func testPolicy(tools map[string]testTool) *Policy[testTool, string] {
	return &Policy[testTool, string]{
		Tools: tools, External: map[string]bool{"theirs": true}, Concurrency: 2, MaxRounds: 2, MaxRepeats: 3,
		Invoke:    func(ctx context.Context, t testTool, c Call) (string, error) { return t(ctx, c) },
		ErrorText: func(err error) string { return "E: " + err.Error() },
	}
}

// Admit decides in one order for both runners: the caller's own tool, a
// call id too long to echo, the rounds bound, the repeat check, no calls.
func TestPolicyAdmitOrder(t *testing.T) {
	t.Parallel()
	echoTool := func(_ context.Context, c Call) (string, error) { return c.Name, nil }
	p := testPolicy(map[string]testTool{"echo": echoTool})
	long := strings.Repeat("x", 2000)
	if v := p.Admit([]Call{{ID: long, Name: "echo"}, {ID: "b", Name: "theirs"}}); v.Stop != External || v.Call != 1 {
		t.Errorf("a pause with the caller's tool: %+v", v)
	}
	if v := p.Admit([]Call{{ID: "a", Name: "echo"}, {ID: long, Name: "echo"}}); v.Stop != LongID || v.Call != 1 {
		t.Errorf("a long id: %+v", v)
	}
	if v := p.Admit(nil); v.Stop != Empty || p.Rounds() != 0 {
		t.Errorf("no calls: %+v, rounds %d", v, p.Rounds())
	}
	same := []Call{{ID: "a", Name: "echo", Raw: `{"x": 1, "_tambo_statusMessage": "one"}`}}
	again := []Call{{ID: "b", Name: "echo", Raw: `{"_tambo_statusMessage": "two","x":1}`}}
	if v := p.Admit(same); v.Stop != Go || p.Rounds() != 1 {
		t.Errorf("a first call: %+v", v)
	}
	if v := p.Admit(again); v.Stop != Go || p.Rounds() != 2 {
		t.Errorf("the same call again: %+v", v)
	}
	if v := p.Admit(same); v.Stop != Rounds {
		t.Errorf("past MaxRounds: %+v", v)
	}
	p.MaxRounds = 10
	if v := p.Admit(same); v.Stop != Repeated || v.Times != 3 {
		t.Errorf("the same call (status aside) in three pauses: %+v", v)
	}
}

// Run answers every call in the pause's order, at most Concurrency at
// once: an unknown tool, an arguments error, a tool's error and a panic
// are worded by ErrorText; a refused start runs nothing.
func TestPolicyRun(t *testing.T) {
	t.Parallel()
	var running, most atomic.Int32
	gate := make(chan struct{})
	slow := func(_ context.Context, c Call) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-gate
		return "ok " + c.ID, nil
	}
	p := testPolicy(map[string]testTool{
		"slow":  slow,
		"fail":  func(context.Context, Call) (string, error) { return "", errors.New("down") },
		"panic": func(context.Context, Call) (string, error) { panic("boom") },
	})
	close(gate)
	calls := []Call{{ID: "1", Name: "slow"}, {ID: "2", Name: "slow"}, {ID: "3", Name: "slow"}, {ID: "4", Name: "fail"},
		{ID: "5", Name: "panic"}, {ID: "6", Name: "nope"}, {ID: "7", Name: "slow", ArgsErr: NotAnObject("slow")}}
	got := p.Run(context.Background(), calls)
	if most.Load() > 2 {
		t.Errorf("%d calls ran at once, want at most 2", most.Load())
	}
	want := []string{"ok 1", "ok 2", "ok 3", "E: down", `E: tool "panic" failed: panic: boom`, `E: there is no tool named "nope"`, "E: the arguments"}
	for i, a := range got {
		text := a.Out
		if a.Err != nil {
			text = a.Text
		}
		if a.Call.ID != calls[i].ID || !strings.HasPrefix(text, want[i]) {
			t.Errorf("answer %d: %q (%v), want %q", i, text, a.Err, want[i])
		}
	}
	if n, _, only := p.ArgumentsOnly(); n != 7 || only {
		t.Errorf("ArgumentsOnly: %d calls, only %v", n, only)
	}
	p.MayStart = func() error { return context.Canceled }
	if a := p.Run(context.Background(), calls[:1])[0]; !errors.Is(a.Err, context.Canceled) || a.Out != "" {
		t.Errorf("a refused start: %+v", a)
	}
}
