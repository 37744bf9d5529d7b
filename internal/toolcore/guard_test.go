package toolcore

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

func guardedPolicy(g Guard[testTool]) *Policy[testTool, string] {
	p := testPolicy(nil)
	p.Guard = g
	return p
}

// Once MaxAbandoned calls are past their deadline and still running, the
// runner refuses new calls until one returns; then it runs them again.
func TestGuardBoundsAbandonedCalls(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		stuck := func(context.Context, Call) (string, error) {
			<-release
			return "late", nil
		}
		ok := func(context.Context, Call) (string, error) { return "ok", nil }
		g := NewGuard(GuardConfig{Timeout: time.Millisecond, MaxAbandoned: 1}, nil,
			func(testTool) time.Duration { return 0 }, func(c Call) string { return c.ID })
		p := guardedPolicy(g)
		p.Tools = map[string]testTool{"stuck": stuck, "ok": ok}
		a := p.Run(context.Background(), []Call{{ID: "1", Name: "stuck"}})[0]
		if !errors.Is(a.Err, ErrTimedOut) || p.Guard.Abandoned() != 1 {
			t.Fatalf("past its deadline: %v, abandoned %d", a.Err, p.Guard.Abandoned())
		}
		a = p.Run(context.Background(), []Call{{ID: "2", Name: "ok"}})[0]
		if !errors.Is(a.Err, ErrNotRun) {
			t.Fatalf("a call past the bound: %v", a.Err)
		}
		close(release)
		synctest.Wait() // the abandoned call returns, and its goroutine ends
		if n := p.Guard.Abandoned(); n != 0 {
			t.Fatalf("abandoned %d after it returned", n)
		}
		if a := p.Run(context.Background(), []Call{{ID: "3", Name: "ok"}})[0]; a.Err != nil || a.Out != "ok" {
			t.Fatalf("once the call returned: %+v", a)
		}
	})
}

// A call claimed elsewhere is waited for: its recorded answer is sent
// when it comes, without running the tool; one that does not come within
// the bound is refused.
func TestGuardWaitsForCallRunningElsewhere(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ran := 0
		tool := func(context.Context, Call) (string, error) { ran++; return "ran here", nil }
		rec := NewMemoryRecord()
		g := NewGuard(GuardConfig{Record: rec}, nil, func(testTool) time.Duration { return 0 }, func(c Call) string { return c.ID })
		p := guardedPolicy(g)
		p.Tools = map[string]testTool{"t": tool}
		running, _ := json.Marshal(recorded[string]{Running: true})
		done, _ := json.Marshal(recorded[string]{Out: "ran elsewhere"})
		rec.SetNX(context.Background(), "1", running, time.Hour)
		go func() {
			time.Sleep(5 * time.Second) // the other process finishes (synctest's clock)
			rec.Set(context.Background(), "1", done, time.Hour)
		}()
		if a := p.Run(context.Background(), []Call{{ID: "1", Name: "t"}})[0]; a.Err != nil || a.Out != "ran elsewhere" {
			t.Fatalf("waited for: %+v", a)
		}
		rec.SetNX(context.Background(), "2", running, time.Hour)
		if a := p.Run(context.Background(), []Call{{ID: "2", Name: "t"}})[0]; !errors.Is(a.Err, ErrNotRun) {
			t.Fatalf("never answered elsewhere: %+v", a)
		}
		if ran != 0 {
			t.Errorf("the tool ran %d times", ran)
		}
	})
}

// A recorded failure, answered again from the record, matches the
// sentinel the first one matched (a refusal stays a refusal).
func TestGuardReplayKeepsTheFailureKind(t *testing.T) {
	t.Parallel()
	g := NewGuard(GuardConfig{}, func(testTool, Call) bool { return true }, func(testTool) time.Duration { return 0 },
		func(c Call) string { return c.ID })
	p := guardedPolicy(g)
	p.Tools = map[string]testTool{"t": func(context.Context, Call) (string, error) { return "ran", nil }}
	for i := range 2 {
		a := p.Run(context.Background(), []Call{{ID: "1", Name: "t"}})[0]
		if !errors.Is(a.Err, ErrRefused) || a.Text != "E: the call was not approved: no approver was given" {
			t.Fatalf("answer %d: %v (%q)", i+1, a.Err, a.Text)
		}
	}
}

// A tool that returns well within its deadline is answered with what it
// returned, never with a timeout. (The tool's goroutine used to cancel
// the call's context as it returned; a runner that came to its select
// after that saw two ready cases and could pick the timeout: about 1 call
// in 150 under -race, when the refund had been made.)
func TestGuardDeadlineKeepsAnAnswerGivenInTime(t *testing.T) {
	t.Parallel()
	g := NewGuard(GuardConfig{Timeout: time.Hour}, nil, func(testTool) time.Duration { return 0 },
		func(c Call) string { return c.ID })
	p := guardedPolicy(g)
	p.Tools = map[string]testTool{"quick": func(context.Context, Call) (string, error) { return "done", nil }}
	for i := range 2000 {
		a := p.Run(context.Background(), []Call{{ID: strconv.Itoa(i), Name: "quick"}})[0]
		if a.Err != nil || a.Out != "done" {
			t.Fatalf("call %d, back at once under a deadline of an hour: %v (%q)", i, a.Err, a.Text)
		}
	}
	if n := p.Guard.Abandoned(); n != 0 {
		t.Errorf("abandoned %d", n)
	}
}
