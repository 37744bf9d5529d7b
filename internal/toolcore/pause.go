package toolcore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/threadsapi/threads-go/internal/echo"
)

// Call is one call of a pause as the policy sees it: each runner reads its
// wire's call (a spec snapshot's toolCallRequest, a /v1 pending call) into
// one.
type Call struct {
	ID, Name string
	// Args are the tool's arguments, the service's status arguments taken
	// out (Status); nil when ArgsErr is set.
	Args map[string]any
	// ArgsErr is set for arguments that are not a JSON object: the call is
	// answered with it, and its tool does not run.
	ArgsErr error
	Status  Status
	// Raw is the arguments' JSON text as the service sent it, for the
	// repeat check (Policy.MaxRepeats); "" where that check is off.
	Raw string
}

// RoundsError makes package threads' *ToolRoundsError for package runs:
// the bound, the /v1 thread and run, the unanswered calls and the error's
// text (cleaned by runs). Package threads sets it in its init, once,
// before runs can run (runs imports threads).
var RoundsError func(max int, threadID, runID string, calls []Call, text string) error

// Stop says whether a pause is answered, and if not, why ([Policy.Admit]).
type Stop uint8

const (
	// Go: run the calls and send their results.
	Go Stop = iota
	// External: a call is of a tool the caller answers itself; the run
	// ends cleanly at the pause.
	External
	// Empty: a pause without calls; the run ends cleanly there.
	Empty
	// LongID: a call's id is longer than echo.MaxCallID (it must be echoed
	// whole); the run ends with the runner's stream failure.
	LongID
	// Rounds: MaxRounds pauses were answered already; the runner's rounds
	// error.
	Rounds
	// Repeated: the same call in MaxRepeats pauses in a row; the runner's
	// repeat error.
	Repeated
)

// Verdict is what [Policy.Admit] decided of a pause.
type Verdict struct {
	Stop Stop
	// Call is the index of the call the verdict is about (External,
	// LongID, Repeated).
	Call int
	// Times is how many pauses in a row made that call (Repeated).
	Times int
}

// Answer is one call's answer, in the order of the pause.
type Answer[R any] struct {
	Call Call
	// Out is the tool's result; the zero R when Err is set.
	Out R
	// Err is why the call failed: the tool's error or panic, an unknown
	// tool, arguments the tool refused (errors.Is ErrArguments), or the
	// runner stopping before it ran. Nil on success.
	Err error
	// Text is Err as the model reads it ([Policy.ErrorText]); "" on
	// success.
	Text string
	// Decision is the approver's decision on the call; nil when it needed
	// none (or its answer was recorded before).
	Decision *Decision

	started bool
}

// Policy is the per-pause policy both tool runners share (package
// threads' RunStream, package runs' RunTools and AnswerTools, and through
// AnswerTools the proxy's server tools): which pauses are answered (the
// bounds, the repeat check, the caller's own tools), how many calls run
// at once, how a call runs (an unknown tool, arguments that are not an
// object, a panic), and how a failure is worded for the model. Each
// runner keeps only its wire: how it reads a pause into Calls and how it
// sends the Answers.
//
// T is the runner's tool type, R what a tool returns. A Policy is used by
// one runner, from one goroutine; Run's calls run concurrently.
type Policy[T, R any] struct {
	// Tools are the runner's tools, by name.
	Tools map[string]T
	// External are the names of the tools the caller answers itself.
	External map[string]bool
	// Concurrency bounds the calls of one pause that run at once (>= 1).
	Concurrency int
	// MaxRounds bounds the pauses answered (>= 1).
	MaxRounds int
	// MaxRepeats stops the same call (tool and arguments) made in that
	// many pauses in a row; negative: off.
	MaxRepeats int
	// Logger logs a tool's panic with its stack; nil: not logged.
	Logger *slog.Logger
	// Invoke runs tool for c with ctx: the runner's way of calling its
	// tool type. Run recovers its panic.
	Invoke func(ctx context.Context, tool T, c Call) (R, error)
	// ErrorText words a failure for the model: its text without the
	// runner's secrets, bounded (echo.ErrorText).
	ErrorText func(error) string
	// MayStart, when set, is asked before each call starts; an error
	// answers the call with it, unrun (the runner is closing).
	MayStart func() error
	// Guard guards each call: approval, a deadline, once per call.
	Guard Guard[T]
	// Deferred leaves the calls that need approval to the caller (see
	// WithDeferredApprovals): a pause with one is External.
	Deferred bool

	rounds  int
	repeats map[[32]byte]int // the last pause's calls: pauses in a row

	answered, badArgs int    // calls answered; of them, refused on their arguments
	lastBad           string // the last such call's text
}

// Add adds tool t under name; it fails for a name already among the tools
// or the caller's own.
func (p *Policy[T, R]) Add(name string, t T) error {
	if p.Tools == nil {
		p.Tools = make(map[string]T)
	}
	if _, dup := p.Tools[name]; dup || p.External[name] {
		return errors.New("is declared twice")
	}
	p.Tools[name] = t
	return nil
}

// Rounds returns how many pauses were admitted for an answer.
func (p *Policy[T, R]) Rounds() int { return p.rounds }

// Admit decides whether a pause is answered, in this order: a call of the
// caller's own tool, or one that needs approval when approvals are
// Deferred (External), a call id too long to echo (LongID), the
// bound on rounds (Rounds), the repeat check (Repeated), no calls at all
// (Empty). An admitted pause counts as a round.
func (p *Policy[T, R]) Admit(calls []Call) Verdict {
	for i, c := range calls {
		if _, ours := p.Tools[c.Name]; !ours && p.External[c.Name] {
			return Verdict{Stop: External, Call: i}
		}
	}
	if p.Deferred && p.Guard.NeedsApproval != nil {
		for i, c := range calls {
			if t, ours := p.Tools[c.Name]; ours && c.ArgsErr == nil && p.Guard.NeedsApproval(t, c) {
				return Verdict{Stop: External, Call: i}
			}
		}
	}
	for i, c := range calls {
		if len(c.ID) > echo.MaxCallID {
			return Verdict{Stop: LongID, Call: i}
		}
	}
	if p.rounds >= p.MaxRounds {
		return Verdict{Stop: Rounds}
	}
	if v := p.repeated(calls); v.Stop != Go {
		return v
	}
	if len(calls) == 0 {
		return Verdict{Stop: Empty}
	}
	p.rounds++
	return Verdict{Stop: Go}
}

// repeated counts, per call (tool and arguments), the pauses in a row
// that made it, and stops at MaxRepeats.
func (p *Policy[T, R]) repeated(calls []Call) Verdict {
	if p.MaxRepeats < 0 {
		return Verdict{}
	}
	now := make(map[[32]byte]int, len(calls))
	for i, c := range calls {
		k := callKey(c.Name, c.Raw)
		if _, seen := now[k]; seen {
			continue // twice in one pause counts once
		}
		n := p.repeats[k] + 1
		now[k] = n
		if n >= p.MaxRepeats {
			return Verdict{Stop: Repeated, Call: i, Times: n}
		}
	}
	p.repeats = now
	return Verdict{}
}

// callKey identifies a call by its tool and its arguments as a JSON value
// (spacing and member order aside, the service's status arguments left
// out: a model that words its status otherwise makes the same call),
// hashed so that the runner keeps a constant per call.
func callKey(name, args string) [32]byte {
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(len(name))))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write(canonicalArgs(args))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// canonicalArgs is a call's arguments as one spelling of their JSON
// value, without the service's status arguments; text that is not a JSON
// object is kept compacted, or as it is.
func canonicalArgs(args string) []byte {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber() // numbers as written: no rounding makes two calls one
	var m map[string]any
	if dec.Decode(&m) == nil && m != nil && !dec.More() {
		TakeStatus(m)
		if b, err := json.Marshal(m); err == nil {
			return b
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(args)) == nil {
		return b.Bytes()
	}
	return []byte(args)
}

// Run runs an admitted pause's calls, at most Concurrency at once, and
// returns their answers in the pause's order. When ctx ends, the calls not
// yet started are not started (their answers are zero: the runner, which
// checks ctx after Run, sends none of them).
func (p *Policy[T, R]) Run(ctx context.Context, calls []Call) []Answer[R] {
	out := make([]Answer[R], len(calls))
	sem := make(chan struct{}, max(p.Concurrency, 1))
	var wg sync.WaitGroup
spawn:
	for i, c := range calls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break spawn
		}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = p.answer(ctx, c)
		})
	}
	wg.Wait()
	for _, a := range out {
		if !a.started {
			continue
		}
		p.answered++
		if errors.Is(a.Err, ErrArguments) {
			p.badArgs++
			p.lastBad = a.Text
		}
	}
	return out
}

// answer runs one call: its tool looked up (an unknown tool is an error
// for the model), its arguments' error, the runner's go-ahead, then,
// through the call record when there is one (Guard.Record), its approval
// and the tool through Invoke within its deadline (a panic recovered and
// logged).
func (p *Policy[T, R]) answer(ctx context.Context, c Call) Answer[R] {
	tool, ok := p.Tools[c.Name]
	var err error
	switch {
	case !ok:
		err = UnknownTool(c.Name, p.Tools, p.External)
	case c.ArgsErr != nil:
		err = c.ArgsErr
	case p.MayStart != nil:
		err = p.MayStart()
	}
	if err != nil {
		return failed[R](c, err, p.ErrorText)
	}
	if g := &p.Guard; g.Record != nil && g.Key != nil {
		return once(ctx, g, c, func() Answer[R] { return p.guarded(ctx, tool, c) }, p.ErrorText)
	}
	return p.guarded(ctx, tool, c)
}

// guarded runs a call once it may: approved when it needs to be, within
// its deadline.
func (p *Policy[T, R]) guarded(ctx context.Context, tool T, c Call) Answer[R] {
	d, err := p.Guard.approve(ctx, tool, c)
	if err != nil {
		a := failed[R](c, err, p.ErrorText)
		a.Decision = d
		return a
	}
	out, err := runWithin(ctx, &p.Guard, tool, func(ctx context.Context) (R, error) {
		return Invoke(ctx, p.Logger, c.Name, func(ctx context.Context) (R, error) { return p.Invoke(ctx, tool, c) })
	})
	if err != nil {
		a := failed[R](c, err, p.ErrorText)
		a.Decision = d
		return a
	}
	return Answer[R]{Call: c, Out: out, Decision: d, started: true}
}

// ArgumentsOnly reports whether every call answered so far (at least one)
// failed its tool's argument checks: no tool ran. last is the last such
// call's text, as the model read it.
func (p *Policy[T, R]) ArgumentsOnly() (calls int, last string, ok bool) {
	return p.answered, p.lastBad, p.answered > 0 && p.badArgs == p.answered
}
