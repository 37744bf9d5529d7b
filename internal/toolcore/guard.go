package toolcore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// What a call must pass besides its tool's checks (guard.go): a person's
// approval, a deadline, and at most one run per call. Each is off unless
// the runner sets it up in its Policy.

// Decision is an approver's answer to one call, as the runner took it.
type Decision struct {
	Approved bool
	// Reason is the person's reason (a refusal's, usually), or why there
	// was no answer.
	Reason string
	// DecidedBy names who decided, as the approver said; "" when it did
	// not say.
	DecidedBy string
	// Err is the approver's failure (nil when it answered); TimedOut
	// says it ran out of time (Err is then the context's).
	Err      error
	TimedOut bool
}

// ErrRefused matches the error of a call that was not approved (refused,
// or the approver failed or ran out of time): the tool did not run.
var ErrRefused = errors.New("threads: the tool call was not approved")

// ErrTimedOut matches the error of a call past its deadline.
var ErrTimedOut = errors.New("threads: the tool call timed out")

// ErrNotRun matches the error of a call the runner would not run: too many
// calls past their deadline have not returned, the call record failed, or
// the call is still running elsewhere.
var ErrNotRun = errors.New("threads: the tool call was not run")

// refusal is a call's refusal, worded for the model.
type refusal struct{ text string }

func (e *refusal) Error() string        { return e.text }
func (e *refusal) Is(target error) bool { return target == ErrRefused }

// notRun is a call the runner did not run, worded for the model.
type notRun struct {
	text string
	is   error
}

func (e *notRun) Error() string        { return e.text }
func (e *notRun) Is(target error) bool { return target == e.is }

// Guard is the part of a Policy that guards a call. The zero Guard guards
// nothing.
type Guard[T any] struct {
	// NeedsApproval reports whether call c of tool must be approved
	// before it runs; nil: no call needs it.
	NeedsApproval func(tool T, c Call) bool
	// Approve asks the caller's approver about c, under a context that
	// ends after ApprovalTimeout. Nil: every call that needs approval is
	// refused (there is no one to ask).
	Approve         func(ctx context.Context, c Call) (approved bool, reason, decidedBy string, err error)
	ApprovalTimeout time.Duration

	// Timeout is the deadline of a call of tool; 0: none.
	Timeout func(tool T) time.Duration
	// MaxAbandoned bounds the calls past their deadline whose tool has
	// not yet returned; past it, new calls are refused.
	MaxAbandoned int

	// Record, when set, makes each call run once: Key names the call;
	// a call already recorded is answered with its recorded answer, one
	// still running elsewhere is waited for up to Wait.
	Record Record
	Key    func(c Call) string
	TTL    time.Duration // how long a record is kept
	Wait   time.Duration // the longest wait for a call running elsewhere

	abandoned *atomic.Int64 // calls past their deadline still running; set by NewGuard
}

// GuardConfig is a runner's guard settings, as package threads'
// ToolGuards holds them; zero values take the defaults.
type GuardConfig struct {
	ApprovalTimeout time.Duration // 0: 5 minutes
	Timeout         time.Duration // a call's deadline when its tool sets none; 0: none
	MaxAbandoned    int           // 0: 8
	Record          Record        // nil: in memory
	// Approve asks the caller's approver; nil: there is none.
	Approve func(ctx context.Context, c Call) (approved bool, reason, decidedBy string, err error)
}

// The guard defaults (package threads' ToolGuards documents them).
const (
	DefaultApprovalTimeout = 5 * time.Minute
	DefaultMaxAbandoned    = 8
	RecordTTL              = 24 * time.Hour
	RecordWait             = 30 * time.Second
)

// NewGuard makes a runner's Guard of cfg, for tools of type T: needs says
// whether a call of a tool needs approval, timeout is a tool's own
// deadline (0: cfg's), and key names a call in the record.
func NewGuard[T any](cfg GuardConfig, needs func(T, Call) bool, timeout func(T) time.Duration, key func(Call) string) Guard[T] {
	g := Guard[T]{
		NeedsApproval:   needs,
		Approve:         cfg.Approve,
		ApprovalTimeout: cfg.ApprovalTimeout,
		Timeout: func(t T) time.Duration {
			if d := timeout(t); d > 0 {
				return d
			}
			return cfg.Timeout
		},
		MaxAbandoned: cfg.MaxAbandoned,
		Record:       cfg.Record,
		Key:          key,
		TTL:          RecordTTL,
		Wait:         RecordWait,
	}
	if g.ApprovalTimeout <= 0 {
		g.ApprovalTimeout = DefaultApprovalTimeout
	}
	if g.MaxAbandoned <= 0 {
		g.MaxAbandoned = DefaultMaxAbandoned
	}
	if g.Record == nil {
		g.Record = NewMemoryRecord()
	}
	g.abandoned = new(atomic.Int64)
	return g
}

// Record is the store a Guard records calls in: the three primitives of
// package proxy's Store it needs, with the same names (set if absent with
// a TTL, a value with a TTL, a read).
type Record interface {
	SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	Get(ctx context.Context, key string) ([]byte, bool, error)
}

// RecordKey is a call's key in a Record: a fixed prefix and a hash of the
// parts (the server's ids, of any length), so that a key is bounded.
func RecordKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return "threads:toolcall:v1:" + hex.EncodeToString(h.Sum(nil))
}

// recorded is what a Record holds for a call: running (claimed, no answer
// yet) or its answer.
type recorded[R any] struct {
	Running bool   `json:"running,omitempty"`
	Out     R      `json:"out,omitzero"`
	Failed  bool   `json:"failed,omitempty"`
	Text    string `json:"text,omitempty"`
	Kind    string `json:"kind,omitempty"` // the failure's sentinel, if any (kinds)
}

// kinds are the sentinels a recorded failure keeps, by name.
var kinds = map[string]error{"refused": ErrRefused, "timeout": ErrTimedOut, "notrun": ErrNotRun, "arguments": ErrArguments}

// kindOf names err's sentinel among kinds; "" for none.
func kindOf(err error) string {
	for k, s := range kinds {
		if errors.Is(err, s) {
			return k
		}
	}
	return ""
}

// replayed is the error of a recorded failure: its text as the model read
// it the first time, matching the sentinel the first failure matched.
type replayed struct {
	text string
	is   error
}

func (e *replayed) Error() string        { return e.text }
func (e *replayed) Is(target error) bool { return e.is != nil && target == e.is }

// approve asks about c, if it needs it: nil to go on, else the refusal;
// and the decision, nil when none was needed.
func (g *Guard[T]) approve(ctx context.Context, tool T, c Call) (*Decision, error) {
	if g.NeedsApproval == nil || !g.NeedsApproval(tool, c) {
		return nil, nil
	}
	var d Decision
	if g.Approve == nil {
		d = Decision{Reason: "no approver was given"}
	} else {
		actx, cancel := context.WithTimeout(ctx, g.ApprovalTimeout)
		ok, reason, by, err := g.Approve(actx, c)
		expired := actx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		d = Decision{Approved: ok && err == nil, Reason: reason, DecidedBy: by, Err: err, TimedOut: expired && (err != nil || !ok)}
	}
	switch {
	case d.Approved:
		return &d, nil
	case d.TimedOut:
		return &d, &refusal{fmt.Sprintf("the call was not run: no one approved it within %v", g.ApprovalTimeout)}
	case d.Err != nil:
		return &d, &refusal{"the call was not run: asking for its approval failed: " + d.Err.Error()}
	case d.Reason == "":
		return &d, &refusal{"the call was not approved"}
	}
	return &d, &refusal{"the call was not approved: " + d.Reason}
}

// runWithin runs invoke within tool's deadline, if any. A tool past it
// has its context cancelled and is left to end by itself (counted until
// it does); the call's error says it timed out. A runner that stops (ctx)
// waits for its tools as without a deadline.
func runWithin[T, R any](ctx context.Context, g *Guard[T], tool T, invoke func(context.Context) (R, error)) (R, error) {
	var d time.Duration
	if g.Timeout != nil {
		d = g.Timeout(tool)
	}
	if d <= 0 || g.abandoned == nil {
		return invoke(ctx)
	}
	var zero R
	if n := g.abandoned.Load(); g.MaxAbandoned > 0 && n >= int64(g.MaxAbandoned) {
		return zero, &notRun{fmt.Sprintf("the call was not run: %d earlier calls are past their deadline and have not returned", n), ErrNotRun}
	}
	// cctx is cancelled here, not by the tool's goroutine once it
	// returns: cctx then ends only at the deadline or with ctx, and a tool
	// that returned in time is never taken for one that timed out.
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		out R
		err error
	}
	done := make(chan result, 1)
	var state atomic.Int32 // 0 running, 1 returned, 2 abandoned
	go func() {
		out, err := invoke(cctx)
		done <- result{out, err}
		if !state.CompareAndSwap(0, 1) {
			g.abandoned.Add(-1) // it was abandoned, and has now returned
		}
	}()
	timedOut := &notRun{fmt.Sprintf("the call timed out: it did not return within %v", d), ErrTimedOut}
	var r result
	select {
	case r = <-done:
	case <-cctx.Done():
		select {
		case r = <-done: // it returned as its deadline passed: its answer stands
		default:
			if ctx.Err() != nil {
				r := <-done // the runner stops: the tool is waited for, as always
				return r.out, r.err
			}
			g.abandoned.Add(1)
			if !state.CompareAndSwap(0, 2) {
				g.abandoned.Add(-1) // it returned just now
			}
			return zero, timedOut
		}
	}
	if r.err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return zero, timedOut // it failed because its deadline passed
	}
	return r.out, r.err
}

// Abandoned returns how many calls are past their deadline and have not
// returned.
func (g *Guard[T]) Abandoned() int {
	if g.abandoned == nil {
		return 0
	}
	return int(g.abandoned.Load())
}

// once runs the call through the Record: a call recorded is answered
// from it; one claimed elsewhere is waited for; a call this runner claims
// is run (answer) and its answer recorded. A Record that fails refuses the
// call rather than risk running it twice.
func once[T, R any](ctx context.Context, g *Guard[T], c Call, answer func() Answer[R], text func(error) string) Answer[R] {
	key := g.Key(c)
	claim, _ := json.Marshal(recorded[R]{Running: true})
	ok, err := g.Record.SetNX(ctx, key, claim, g.TTL)
	if err != nil {
		return failed[R](c, &notRun{"the call was not run: its record is unavailable (" + err.Error() + "), and it may have run already", ErrNotRun}, text)
	}
	if !ok {
		return waitRecorded[T, R](ctx, g, c, key, text)
	}
	a := answer()
	rec := recorded[R]{Out: a.Out, Failed: a.Err != nil, Text: a.Text, Kind: kindOf(a.Err)}
	if b, err := json.Marshal(rec); err == nil {
		// A failure to record is not the call's: it ran, and its answer
		// is sent; a replay then waits, and refuses.
		_ = g.Record.Set(context.WithoutCancel(ctx), key, b, g.TTL)
	}
	return a
}

// waitRecorded waits for the answer of a call claimed elsewhere, up to
// g.Wait, polling the record.
func waitRecorded[T, R any](ctx context.Context, g *Guard[T], c Call, key string, text func(error) string) Answer[R] {
	deadline := time.NewTimer(g.Wait)
	defer deadline.Stop()
	step := 10 * time.Millisecond
	for {
		b, ok, err := g.Record.Get(ctx, key)
		if err != nil {
			return failed[R](c, &notRun{"the call was not run: its record is unavailable (" + err.Error() + "), and it may have run already", ErrNotRun}, text)
		}
		var rec recorded[R]
		if ok && json.Unmarshal(b, &rec) == nil && !rec.Running {
			a := Answer[R]{Call: c, Out: rec.Out, Text: rec.Text, started: true}
			if rec.Failed {
				a.Err = &replayed{rec.Text, kinds[rec.Kind]}
			}
			return a
		}
		t := time.NewTimer(step)
		select {
		case <-t.C:
		case <-deadline.C:
			t.Stop()
			return failed[R](c, &notRun{fmt.Sprintf("the call was not run again: it is running elsewhere, and its result did not come within %v", g.Wait), ErrNotRun}, text)
		case <-ctx.Done():
			t.Stop()
			return failed[R](c, ctx.Err(), text)
		}
		step = min(2*step, time.Second)
	}
}

func failed[R any](c Call, err error, text func(error) string) Answer[R] {
	return Answer[R]{Call: c, Err: err, Text: text(err), started: true}
}

// memRecord is the in-memory Record: one runner's (or several in one
// process sharing it).
type memRecord struct {
	mu sync.Mutex
	m  map[string]memValue
}

type memValue struct {
	v   []byte
	exp time.Time
}

// NewMemoryRecord returns a Record in memory. Expired values are dropped
// as they are met, and at most max are kept (the oldest go first; <= 0:
// 4096).
func NewMemoryRecord() Record { return &memRecord{m: map[string]memValue{}} }

const maxMemRecords = 4096

func (r *memRecord) get(key string, now time.Time) ([]byte, bool) {
	v, ok := r.m[key]
	if ok && now.After(v.exp) {
		delete(r.m, key)
		return nil, false
	}
	return v.v, ok
}

func (r *memRecord) put(key string, v []byte, ttl time.Duration, now time.Time) {
	if len(r.m) >= maxMemRecords {
		for k, x := range r.m {
			if now.After(x.exp) || len(r.m) >= maxMemRecords {
				delete(r.m, k)
			}
		}
	}
	r.m[key] = memValue{v: append([]byte(nil), v...), exp: now.Add(ttl)}
}

func (r *memRecord) SetNX(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if _, ok := r.get(key, now); ok {
		return false, nil
	}
	r.put(key, value, ttl, now)
	return true, nil
}

func (r *memRecord) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.put(key, value, ttl, time.Now())
	return nil
}

func (r *memRecord) Get(_ context.Context, key string) ([]byte, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.get(key, time.Now())
	return append([]byte(nil), v...), ok, nil
}
