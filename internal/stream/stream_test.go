package stream

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/sse"
)

// TestMain fails the package's tests if any of them leaves a goroutine
// running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// toy is a Decoder of "data: <word>" events: DONE is Last, "PAUSE" is
// Pause, "end" is DeliverLast, "bad" is Refused; any other word is
// delivered.
type toy struct {
	cur    string
	mu     sync.Mutex
	ends   []End
	errors []error
}

func (d *toy) Decode(ev sse.Event) (Verdict, error) {
	switch ev.Data {
	case "":
		return Skip, nil
	case "DONE":
		return Last, nil
	case "PAUSE":
		return Pause, nil
	case "bad":
		return Refused, errors.New("bad event")
	case "end":
		d.cur = ev.Data
		return DeliverLast, nil
	}
	d.cur = ev.Data
	return Deliver, nil
}

func (d *toy) ReadFailure(err error) error { return err }
func (d *toy) IdleFailure() error          { return errIdle }

func (d *toy) Ended(how End, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ends = append(d.ends, how)
	d.errors = append(d.errors, err)
}

func (d *toy) ended() []End {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]End(nil), d.ends...)
}

var errIdle = errors.New("idle")

// obs records what the engine reports.
type obs struct {
	mu     sync.Mutex
	events int
	rounds []int
	left   bool
	ends   []error
}

func (o *obs) Event()          { o.mu.Lock(); o.events++; o.mu.Unlock() }
func (o *obs) ToolRound(n int) { o.mu.Lock(); o.rounds = append(o.rounds, n); o.mu.Unlock() }

func (o *obs) ToolApproval(string, bool, bool, string) {}
func (o *obs) Usage(core.TokenUsage)                   {}
func (o *obs) Leave()                                  { o.mu.Lock(); o.left = true; o.mu.Unlock() }
func (o *obs) End(err error)                           { o.mu.Lock(); o.ends = append(o.ends, err); o.mu.Unlock() }

// tbody is a ReadCloser over text that records its Close.
type tbody struct {
	io.Reader
	closed chan struct{}
	once   sync.Once
}

func newBody(text string) *tbody {
	return &tbody{Reader: strings.NewReader(text), closed: make(chan struct{})}
}

func (b *tbody) Close() error { b.once.Do(func() { close(b.closed) }); return nil }

func (b *tbody) isClosed() bool {
	select {
	case <-b.closed:
		return true
	default:
		return false
	}
}

// rounds is an owner that continues a paused stream with its bodies in
// turn, then ends it, as a package's Next does around the engine's.
type rounds struct {
	e      *Engine
	bodies []*tbody
	obs    []*obs
	wait   time.Duration // how long each round's work takes
}

// next is the owner's Next: the engine's, continued at each pause.
func (r *rounds) next() bool {
	for {
		if r.e.Next() {
			return true
		}
		if !r.e.Paused() {
			return false
		}
		time.Sleep(r.wait)
		if len(r.bodies) == 0 {
			r.e.EndPause(nil)
			continue
		}
		b, o := r.bodies[0], &obs{}
		r.bodies = r.bodies[1:]
		r.obs = append(r.obs, o)
		r.e.Continue(&Source{Body: b, Observe: o})
	}
}

func start(text string, cfg Config) (*Engine, *toy, *obs, *tbody) {
	e, d, o, b := new(Engine), &toy{}, &obs{}, newBody(text)
	Start(e, context.Background(), b, d, cfg)
	e.Observe(o)
	return e, d, o, b
}

// A zero (or nil) Engine is a stream that has ended: Next false, Err the
// package's error, Close and Collect harmless.
func TestEngineZero(t *testing.T) {
	t.Parallel()
	zero := errors.New("zero")
	for _, e := range []*Engine{nil, new(Engine)} {
		if e.Next() || e.Err(zero) != zero || !e.Done() || !e.Zero() {
			t.Errorf("%v: a zero Engine works as an ended stream", e == nil)
		}
		e.Close()
		e.Collect(func() bool { return false })
	}
}

// The bodies that continue a paused stream are read on the same stream,
// by All as by Next: each adopted body's call observation ends, the
// stream's own hears the round, and the stream ends where the owner ends
// the last pause.
func TestEngineContinuesAtPause(t *testing.T) {
	t.Parallel()
	for _, push := range []bool{true, false} {
		e, d, o, b := start("data: a\n\ndata: PAUSE\n\n", Config{})
		next := []*tbody{newBody("data: b\n\n\ndata: c\n\ndata: PAUSE\n\n"), newBody("data: PAUSE\n\n")}
		r := &rounds{e: e, bodies: append([]*tbody(nil), next...)}
		var got []string
		if push {
			for ev, err := range All(e, r.next, func() string { return d.cur }, func() error { return e.Err(nil) }) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
		}
		for r.next() {
			got = append(got, d.cur)
		}
		e.Close()
		if strings.Join(got, " ") != "a b c" || e.Err(nil) != nil || e.Rounds() != 2 {
			t.Errorf("push %v: events %q, err %v, rounds %d", push, got, e.Err(nil), e.Rounds())
		}
		if !b.isClosed() || !next[0].isClosed() || !next[1].isClosed() {
			t.Errorf("push %v: a body is left open", push)
		}
		if o.events != 3 || len(o.ends) != 1 || o.ends[0] != nil || len(o.rounds) != 2 || o.left {
			t.Errorf("push %v: observed %+v", push, o)
		}
		for i, ro := range r.obs {
			if len(ro.ends) != 1 || ro.events != 0 {
				t.Errorf("push %v: round %d's call: %+v", push, i+1, ro)
			}
		}
		if ends := d.ended(); len(ends) != 1 || ends[0] != Clean {
			t.Errorf("push %v: ended %v", push, ends)
		}
	}
}

// The idle clock does not run while the owner works at a pause: a round
// longer than the idle timeout does not end the stream.
func TestEngineIdlePausedWhileContinuing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e, d, _, _ := start("data: a\n\ndata: PAUSE\n\n", Config{IdleTimeout: 50 * time.Millisecond})
		r := &rounds{e: e, bodies: []*tbody{newBody("data: b\n\ndata: PAUSE\n\n")}, wait: 200 * time.Millisecond}
		var got []string
		for r.next() {
			got = append(got, d.cur)
		}
		if strings.Join(got, " ") != "a b" || e.Err(nil) != nil {
			t.Errorf("events %q, err %v", got, e.Err(nil))
		}
	})
}

// Close from another goroutine ends a Next blocked in a read: the decoder
// and the observer hear of it once, as the caller leaving.
func TestEngineCloseWhileNextBlocks(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	e, d, o := new(Engine), &toy{}, &obs{}
	Start(e, context.Background(), pr, d, Config{})
	e.Observe(o)
	go func() {
		pw.Write([]byte("data: a\n\n"))
	}()
	if !e.Next() {
		t.Fatal(e.Err(nil))
	}
	done := make(chan bool)
	go func() { done <- e.Next() }()
	e.Close()
	if <-done || e.Err(nil) != nil {
		t.Errorf("Next after Close: err %v", e.Err(nil))
	}
	e.Close()
	if ends := d.ended(); len(ends) != 1 || ends[0] != ByClient {
		t.Errorf("ended %v", ends)
	}
	if !o.left || len(o.ends) != 1 || o.ends[0] != nil {
		t.Errorf("observed %+v", o)
	}
}

// A delivered last event ends the stream; what follows it is read by the
// Next after it (not by a goroutine), and the body closed.
func TestEngineDeliverLastDrainsOnNext(t *testing.T) {
	t.Parallel()
	e, d, o, b := start("data: a\n\ndata: end\n\ndata: late\n\n", Config{})
	first, second := e.Next(), e.Next()
	if !first || !second || d.cur != "end" || !e.Done() {
		t.Fatalf("cur %q, done %v, err %v", d.cur, e.Done(), e.Err(nil))
	}
	if b.isClosed() {
		t.Fatal("the body is closed before what follows the end is read")
	}
	if e.Next() || !b.isClosed() || b.Reader.(*strings.Reader).Len() != 0 {
		t.Errorf("after the Next after the end: closed %v, unread %d", b.isClosed(), b.Reader.(*strings.Reader).Len())
	}
	if ends := d.ended(); len(ends) != 1 || ends[0] != Clean || len(o.ends) != 1 || o.left {
		t.Errorf("ended %v, observed %+v", ends, o)
	}
}

// A Refused event ends the stream by the client, with its error, once.
func TestEngineRefused(t *testing.T) {
	t.Parallel()
	e, d, o, b := start("data: a\n\ndata: bad\n\ndata: c\n\n", Config{})
	n := 0
	for e.Next() {
		n++
	}
	e.Close()
	if n != 1 || e.Err(nil) == nil || e.Err(nil).Error() != "bad event" || !b.isClosed() {
		t.Errorf("%d events, err %v, closed %v", n, e.Err(nil), b.isClosed())
	}
	if ends := d.ended(); len(ends) != 1 || ends[0] != ByClient || o.left || len(o.ends) != 1 || o.ends[0] == nil {
		t.Errorf("ended %v, observed %+v", ends, o)
	}
}

// Continue after a clean end reads a further body (a /v1 tool stream's
// next run) as a call of its own; after Close it refuses, closing the body
// and ending its call as left.
func TestEngineContinuesAfterCleanEnd(t *testing.T) {
	t.Parallel()
	e, d, o, b := start("data: a\n\ndata: end\n\n", Config{})
	var got []string
	for e.Next() {
		got = append(got, d.cur)
	}
	o2, b2 := &obs{}, newBody("data: b\n\ndata: end\n\n")
	if !e.Continue(&Source{Body: b2, Observe: o2}) {
		t.Fatal("Continue refused after a clean end")
	}
	for e.Next() {
		got = append(got, d.cur)
	}
	if strings.Join(got, " ") != "a end b end" || e.Err(nil) != nil || !b.isClosed() || !b2.isClosed() {
		t.Errorf("events %q, err %v, closed %v %v", got, e.Err(nil), b.isClosed(), b2.isClosed())
	}
	if o.events != 2 || len(o.ends) != 1 || o2.events != 2 || len(o2.ends) != 1 || o2.left {
		t.Errorf("observed %+v, then %+v", o, o2)
	}
	e.Close()
	o3, b3 := &obs{}, newBody("data: c\n\n")
	if e.Continue(&Source{Body: b3, Observe: o3}) || !b3.isClosed() || !o3.left || len(o3.ends) != 1 {
		t.Errorf("Continue after Close: closed %v, observed %+v", b3.isClosed(), o3)
	}
	if ends := d.ended(); len(ends) != 2 || ends[0] != Clean || ends[1] != Clean {
		t.Errorf("ended %v", ends)
	}
}

// An open stream runs nothing of its own: once Next has delivered an event
// and while the caller is away, the stream holds no goroutine (go-sse has
// only a push iterator, and the coroutine that pulled from it was one more
// goroutine per open stream, idle ones included).
func TestEngineIdleStreamRunsNothing(t *testing.T) {
	before := goleak.IgnoreCurrent()
	pr, pw := io.Pipe()
	defer pw.Close()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		pw.Write([]byte("data: a\n\ndata: b\n\n"))
	}()
	e, d := new(Engine), &toy{}
	Start(e, context.Background(), pr, d, Config{IdleTimeout: time.Hour})
	defer e.Close()
	if !e.Next() || d.cur != "a" {
		t.Fatal(d.cur, e.Err(nil))
	}
	<-wrote
	if err := goleak.Find(before); err != nil {
		t.Errorf("an open stream, between events: %v", err)
	}
	if !e.Next() || d.cur != "b" {
		t.Fatal(d.cur, e.Err(nil))
	}
	if err := goleak.Find(before); err != nil {
		t.Errorf("an open stream waiting for the server: %v", err)
	}
}

// The idle clock measures the server's silence only: an event that had
// arrived while the caller was busy is delivered however long the caller
// took, and the wait after it is timed from the Next that waits.
func TestEngineIdleCountsWaitsOnly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		go pw.Write([]byte("data: a\n\ndata: b\n\n"))
		e, d := new(Engine), &toy{}
		Start(e, context.Background(), pr, d, Config{IdleTimeout: 50 * time.Millisecond})
		defer e.Close()
		if !e.Next() || d.cur != "a" {
			t.Fatal(d.cur, e.Err(nil))
		}
		time.Sleep(time.Second) // the caller's own work
		if !e.Next() || d.cur != "b" {
			t.Fatalf("the event that had arrived: %q, %v", d.cur, e.Err(nil))
		}
		start := time.Now()
		if e.Next() || e.Err(nil) != errIdle || time.Since(start) != 50*time.Millisecond {
			t.Errorf("the wait after it: err %v after %v", e.Err(nil), time.Since(start))
		}
	})
}

// Close while the owner works at a pause (from another goroutine, as a
// caller leaving while a tool runs) ends the stream as the caller leaving,
// once: the body the owner then offers is closed and its call ended.
func TestEngineCloseAtPause(t *testing.T) {
	t.Parallel()
	e, d, o, b := start("data: a\n\ndata: PAUSE\n\n", Config{})
	if !e.Next() || e.Next() || !e.Paused() || e.Done() {
		t.Fatalf("paused %v, done %v, err %v", e.Paused(), e.Done(), e.Err(nil))
	}
	e.Close()
	o2, b2 := &obs{}, newBody("data: b\n\n")
	if e.Continue(&Source{Body: b2, Observe: o2}) || e.Next() || !e.Done() || e.Err(nil) != nil {
		t.Fatalf("Continue after Close: done %v, err %v", e.Done(), e.Err(nil))
	}
	if !b.isClosed() || !b2.isClosed() || len(o2.ends) != 1 {
		t.Errorf("closed %v %v, offered call %+v", b.isClosed(), b2.isClosed(), o2)
	}
	if ends := d.ended(); len(ends) != 1 || ends[0] != ByClient || !o.left || len(o.ends) != 1 {
		t.Errorf("ended %v, observed %+v", ends, o)
	}
}

// EndPause ends a paused stream cleanly, or with the owner's error as the
// client's failure.
func TestEngineEndPause(t *testing.T) {
	t.Parallel()
	for _, want := range []error{nil, errors.New("too many rounds")} {
		e, d, o, b := start("data: a\n\ndata: PAUSE\n\n", Config{})
		for e.Next() {
		}
		e.EndPause(want)
		if e.Next() || !e.Done() || e.Paused() || e.Err(nil) != want || !b.isClosed() {
			t.Errorf("%v: done %v, err %v, closed %v", want, e.Done(), e.Err(nil), b.isClosed())
		}
		how := Clean
		if want != nil {
			how = ByClient
		}
		if ends := d.ended(); len(ends) != 1 || ends[0] != how || o.left || len(o.ends) != 1 || o.ends[0] != want {
			t.Errorf("%v: ended %v, observed %+v", want, ends, o)
		}
	}
}
