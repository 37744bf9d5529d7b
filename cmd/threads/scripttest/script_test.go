package scripttest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// cliPackage is the command the scripts run as "threads": TestScripts
// builds it once (with the race detector when this test binary has it) and
// puts it first on the scripts' PATH.
const cliPackage = "github.com/threadsapi/threads-go/cmd/threads"

// TestMain lets the scripts run "status N threads ...", which runs the
// built command and succeeds only when its exit status is N. It is a
// program (this test binary, in a child process), not a script command, so
// that a script can run it in the background and signal it ("kill -INT"),
// which it passes on to the command. The test process itself, which runs
// the fakes, is checked for leaked goroutines.
func TestMain(m *testing.M) {
	testscript.Main(leakChecked{m}, map[string]func(){
		"status": statusMain,
	})
}

type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// statusMain is "status N threads args...": it runs the command found on
// PATH and exits 0 when its status is N, 1 (saying why) otherwise. SIGINT
// and SIGTERM sent to it go to the command, as they went to the command
// when it ran in this process.
func statusMain() {
	if len(os.Args) < 3 || os.Args[2] != "threads" {
		fmt.Fprintln(os.Stderr, "usage: status N threads [args...]")
		os.Exit(1)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "status:", err)
		os.Exit(1)
	}
	// Notified before the start, so that a signal that comes before the
	// command runs waits in the channel and is passed on once it does.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	cmd := exec.Command("threads", os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "status:", err)
		os.Exit(1)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				_ = cmd.Process.Signal(sig) // it may have exited meanwhile
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	signal.Stop(sigs)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "status:", err)
		os.Exit(1)
	}
	if got := cmd.ProcessState.ExitCode(); got != want {
		if got < 0 { // killed by a signal it did not handle
			fmt.Fprintf(os.Stderr, "status: %v, want exit status %d\n", cmd.ProcessState, want)
		} else {
			fmt.Fprintf(os.Stderr, "status: exit status %d, want %d\n", got, want)
		}
		os.Exit(1)
	}
	os.Exit(0)
}

// buildCLI builds the threads command into a new directory and returns
// the directory. The go command on PATH is the one running this test (go
// test puts its GOROOT/bin first).
func buildCLI(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"build", "-o", filepath.Join(dir, "threads")}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, cliPackage)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", cliPackage, err, out)
	}
	return dir
}

// TestScripts runs testdata/script/*.txtar. Each script starts a fake with
// the "fake" command (a threadstest server in this test process) and runs
// the real command, built from this checkout, against it through the
// environment.
func TestScripts(t *testing.T) {
	bin := buildCLI(t)
	dir, err := os.Getwd() // this module: where gorunfake's go run builds the command
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", bin+string(filepath.ListSeparator)+e.Getenv("PATH"))
			e.Values[fakeKey{}] = &fakeHolder{}
			// Nothing from the developer's environment leaks in.
			for _, v := range []string{threads.EnvBaseURL, threads.EnvAPIKey, threads.EnvAPIKeyHeader, "THREADS_PROJECT_ID", "THREADS_FAKE"} {
				e.Setenv(v, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fake":          cmdFake,
			"fakethread":    cmdFakeThread,
			"fakehold":      cmdFakeHold,
			"fakedeprecate": cmdFakeDeprecate,
			"fakeheld":      fakeHeld(t),
			"fakestage":     cmdFakeStage,
			"fakecount":     cmdFakeCount,
			"jsonlines":     cmdJSONLines,
			"jsonfield":     cmdJSONField,
			"fakerun":       cmdFakeRun,
			"fakeheldrun":   cmdFakeHeldRun,
			"fakerelease":   cmdFakeRelease,
			"fakefail":      cmdFakeFail,
			"fakerunfail":   cmdFakeRunFail,
			"fakerunhold":   cmdFakeRunHold,
			"fakerunheld":   fakeRunHeld(t),
			"fakerunning":   cmdFakeRunning,
			"gorunfake":     goRunFakeCmd(dir),
			"killgorun":     cmdKillGoRun,
			"fakestops":     fakeStops(t),
			"proxystart":    cmdProxyStart,
			"httpreq":       cmdHTTPReq,
			"clifake":       cmdCLIFake,
			"clifakeheld":   cliFakeHeld(t),
		},
	})
}

type fakeKey struct{}

type fakeHolder struct {
	srv     *threadstest.Server
	held    chan struct{} // closed when fakehold's reply reaches its hold
	release func()        // releases fakehold's reply (once)
	runHeld chan struct{} // closed when fakerunhold's run reaches its hold
	goRun   *goRunFake    // the fake of gorunfake
	cli     *cliFake      // the fake of clifake
}

func fakeOf(ts *testscript.TestScript) *threadstest.Server {
	h := ts.Value(fakeKey{}).(*fakeHolder)
	if h.srv == nil {
		ts.Fatalf("no fake: run the fake command first")
	}
	return h.srv
}

// cmdFake is "fake [-live-habits] [-throttle d]": it starts a fake and
// points THREADS_BASE_URL and THREADS_API_KEY at it. THREADS_API_KEY_HEADER
// stays unset (Bearer), also with -live-habits, whose fake reads x-api-key.
func cmdFake(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	live := fs.Bool("live-habits", false, "")
	throttle := fs.Duration("throttle", 0, "")
	if neg || fs.Parse(args) != nil || fs.NArg() != 0 {
		ts.Fatalf("usage: fake [-live-habits] [-throttle d]")
	}
	var opts []threadstest.Option
	if *live {
		opts = append(opts, threadstest.WithLiveHabits())
	}
	// After WithLiveHabits, which sets the live 50ms.
	opts = append(opts, threadstest.WithThrottle(*throttle))
	srv := threadstest.Start(opts...)
	ts.Defer(srv.Close)
	ts.Value(fakeKey{}).(*fakeHolder).srv = srv
	ts.Setenv(threads.EnvBaseURL, srv.URL)
	ts.Setenv(threads.EnvAPIKey, srv.APIKey)
	ts.Setenv("FAKE_PROJECT", srv.ProjectID)
}

// cmdFakeThread is "fakethread VAR [contextKey]": it creates a thread on the
// fake and sets $VAR to its id.
func cmdFakeThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: fakethread VAR [contextKey]")
	}
	srv := fakeOf(ts)
	p := threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "made by the test"}
	if len(args) == 2 {
		p.ContextKey = args[1]
	}
	th, err := srv.Client().Threads.Create(context.Background(), p)
	ts.Check(err)
	ts.Setenv(args[0], th.ID)
}

// cmdFakeHold is "fakehold": the next reply stalls after two snapshots
// (the placeholder and "You") until the script ends; fakeheld waits until
// it has.
func cmdFakeHold(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakehold")
	}
	hold, held := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	ts.Defer(release)
	h := ts.Value(fakeKey{}).(*fakeHolder)
	h.held, h.release = held, release
	fakeOf(ts).PushScript(threadstest.Script{Hold: hold, HoldAfter: 2, OnHold: func() { close(held) }})
}

// cmdFakeRelease is "fakerelease": fakehold's reply goes on (a thread
// cancelled meanwhile ends it with its CANCELLED snapshot).
func cmdFakeRelease(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakerelease")
	}
	release := ts.Value(fakeKey{}).(*fakeHolder).release
	if release == nil {
		ts.Fatalf("no held reply: run fakehold first")
	}
	release()
}

// cmdFakeFail is "fakefail": the next reply ends with the service's error:
// line after its first snapshot.
func cmdFakeFail(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakefail")
	}
	fakeOf(ts).PushScript(threadstest.Script{Error: true, ErrorAfter: 1})
}

// cmdFakeRunFail is "fakerunfail CODE CATEGORY": the next /v1 run fails
// after its first event with RUN_ERROR CODE (status 500).
func cmdFakeRunFail(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fakerunfail CODE CATEGORY")
	}
	fakeOf(ts).PushRunScript(threadstest.RunScript{Text: "never shown", ErrorAfter: 1,
		Error: &threadstest.RunFailure{Code: args[0], Category: args[1], Message: "the model failed"}})
}

// cmdFakeRunHold is "fakerunhold": the next /v1 run holds after
// RUN_STARTED until it is cancelled (or the script ends); fakerunheld
// waits until it has.
func cmdFakeRunHold(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakerunhold")
	}
	hold, held := make(chan struct{}), make(chan struct{})
	ts.Defer(func() { close(hold) })
	ts.Value(fakeKey{}).(*fakeHolder).runHeld = held
	fakeOf(ts).PushRunScript(threadstest.RunScript{Hold: hold, OnHold: func() { close(held) }})
}

// cmdFakeRunning is "fakerunning USER TVAR RVAR": it sets $TVAR and $RVAR
// to the thread and run of USER's run in progress (there must be one).
func cmdFakeRunning(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakerunning USER TVAR RVAR")
	}
	c := runs.New(fakeOf(ts).Client()).ForUser(args[0])
	for th, err := range c.AllThreads(context.Background(), nil) {
		ts.Check(err)
		if th.CurrentRunID != "" {
			ts.Setenv(args[1], th.ID)
			ts.Setenv(args[2], th.CurrentRunID)
			return
		}
	}
	ts.Fatalf("%s has no run in progress", args[0])
}

// fakeHeld returns the "fakeheld" command: it waits until the reply of
// fakehold has reached its hold, so the command reading it is streaming.
func fakeHeld(t *testing.T) func(ts *testscript.TestScript, neg bool, args []string) {
	wait := waiter(t)
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: fakeheld")
		}
		held := ts.Value(fakeKey{}).(*fakeHolder).held
		if held == nil {
			ts.Fatalf("no held reply: run fakehold first")
		}
		wait(ts, held, "the held reply never reached its hold (did the command fail before streaming?)")
	}
}

// fakeRunHeld returns the "fakerunheld" command: it waits until the run
// of fakerunhold has reached its hold, so the command reading it is
// streaming.
func fakeRunHeld(t *testing.T) func(ts *testscript.TestScript, neg bool, args []string) {
	wait := waiter(t)
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: fakerunheld")
		}
		held := ts.Value(fakeKey{}).(*fakeHolder).runHeld
		if held == nil {
			ts.Fatalf("no held run: run fakerunhold first")
		}
		wait(ts, held, "the held run never reached its hold (did the command fail before streaming?)")
	}
}

// waiter returns a wait for a channel that something the script started
// closes. It is a signal, not a poll: the wait ends when the channel is
// closed. Only a signal that never comes (the command failed before it)
// makes it give up with the message why, shortly before the test binary's
// -timeout would, so that the script's log is shown.
func waiter(t *testing.T) func(ts *testscript.TestScript, ch <-chan struct{}, why string) {
	deadline, hasDeadline := t.Deadline()
	grace := time.Until(deadline) / 10 // time left to report, once given up
	return func(ts *testscript.TestScript, ch <-chan struct{}, why string) {
		var giveUp <-chan time.Time // nil without a -timeout: wait as long as it takes
		if hasDeadline {
			timer := time.NewTimer(time.Until(deadline) - grace)
			defer timer.Stop()
			giveUp = timer.C
		}
		select {
		case <-ch:
		case <-giveUp:
			ts.Fatalf("%s", why)
		}
	}
}

// cmdFakeDeprecate is "fakedeprecate METHOD PATH ADVICE": from now on,
// METHOD PATH answers as the service does when it retires an endpoint: 410
// ENDPOINT_DEPRECATED with details.migrateToEndpoint ADVICE.
func cmdFakeDeprecate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakedeprecate METHOD PATH ADVICE")
	}
	method, args := args[0], args[1:]
	body, err := json.Marshal(map[string]any{
		"type": "https://docs.tambo.co/reference/problems/endpoint-deprecated", "status": 410,
		"title": "Endpoint Deprecated", "detail": "This endpoint has been retired.",
		"code": "ENDPOINT_DEPRECATED", "instance": args[0],
		"details": map[string]any{"migrateToEndpoint": args[1]},
	})
	ts.Check(err)
	fakeOf(ts).Inject(threadstest.Fault{
		Method: method, Path: args[0], Times: -1, Status: 410, Body: string(body),
		Header: map[string][]string{"Content-Type": {"application/json; charset=utf-8"}},
	})
}

// cmdFakeStage is "fakestage ID STAGE": the thread's generation stage on
// the fake is STAGE now (no waiting: the script orders it after what set
// it).
func cmdFakeStage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fakestage ID STAGE")
	}
	th, err := fakeOf(ts).Client().Threads.Get(context.Background(), args[0])
	ts.Check(err)
	if string(th.GenerationStage) != args[1] {
		ts.Fatalf("thread %s: stage %s, want %s", args[0], th.GenerationStage, args[1])
	}
}

// cmdFakeCount is "fakecount N METHOD PATH": the fake received N such
// requests.
func cmdFakeCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakecount N METHOD PATH")
	}
	if got := fmt.Sprint(fakeOf(ts).Count(args[1], args[2])); got != args[0] {
		ts.Fatalf("%s %s: %s requests, want %s", args[1], args[2], got, args[0])
	}
}

// cmdJSONLines is "jsonlines [-count=N] stdout|FILE": every line is a JSON
// value (N lines, with -count).
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("jsonlines", flag.ContinueOnError)
	count := fs.Int("count", -1, "")
	if neg || fs.Parse(args) != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: jsonlines [-count=N] stdout|FILE")
	}
	text := ts.ReadFile(fs.Arg(0))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	for i, line := range lines {
		if !json.Valid([]byte(line)) {
			ts.Fatalf("line %d is not JSON: %q", i+1, line)
		}
	}
	if *count >= 0 && len(lines) != *count {
		ts.Fatalf("%d lines, want %d", len(lines), *count)
	}
}

// cmdJSONField is "jsonfield [-count=N] stdout|FILE PATH REGEXP", a jq-like
// check: every line is a JSON object (NDJSON; N lines with -count) whose
// value at PATH (".a.b", ".list.0") prints (as jq -r would) to text that
// matches REGEXP.
func cmdJSONField(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("jsonfield", flag.ContinueOnError)
	count := fs.Int("count", -1, "")
	if neg || fs.Parse(args) != nil || fs.NArg() != 3 {
		ts.Fatalf("usage: jsonfield [-count=N] stdout|FILE PATH REGEXP")
	}
	re, err := regexp.Compile(fs.Arg(2))
	ts.Check(err)
	text := ts.ReadFile(fs.Arg(0))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	if *count >= 0 && len(lines) != *count {
		ts.Fatalf("%d lines, want %d", len(lines), *count)
	}
	for i, line := range lines {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			ts.Fatalf("line %d is not JSON: %q", i+1, line)
		}
		for _, k := range strings.Split(strings.TrimPrefix(fs.Arg(1), "."), ".") {
			if k == "" {
				continue
			}
			switch x := v.(type) {
			case map[string]any:
				v = x[k]
			case []any:
				n, err := strconv.Atoi(k)
				if err != nil || n < 0 || n >= len(x) {
					ts.Fatalf("line %d: %s: no element %s", i+1, fs.Arg(1), k)
				}
				v = x[n]
			default:
				ts.Fatalf("line %d: %s: %s is not in a %T", i+1, fs.Arg(1), k, v)
			}
		}
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		if !re.MatchString(s) {
			ts.Fatalf("line %d: %s is %q, which does not match %q", i+1, fs.Arg(1), s, fs.Arg(2))
		}
	}
}

// cmdFakeRun is "fakerun NAME ARGS-JSON...": the next /v1 run calls the
// client tool NAME with each ARGS-JSON (one call each) and pauses.
func cmdFakeRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fakerun NAME ARGS-JSON...")
	}
	var calls []threadstest.RunToolCall
	for _, a := range args[1:] {
		var m map[string]any
		ts.Check(json.Unmarshal([]byte(a), &m))
		calls = append(calls, threadstest.RunToolCall{Name: args[0], Arguments: m})
	}
	fakeOf(ts).PushRunScript(threadstest.RunScript{ToolCalls: calls})
}

// cmdFakeHeldRun is "fakeheldrun TVAR RVAR": it starts a /v1 run for
// user-1 on a new thread that holds after RUN_STARTED until the script
// ends, and sets $TVAR and $RVAR to its thread and run ids.
func cmdFakeHeldRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fakeheldrun TVAR RVAR")
	}
	srv := fakeOf(ts)
	hold := make(chan struct{})
	srv.PushRunScript(threadstest.RunScript{Hold: hold})
	c := runs.New(srv.Client()).ForUser("user-1")
	st, err := c.CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("wait")}}})
	ts.Check(err)
	ts.Defer(func() { st.Close(); close(hold) })
	ts.Setenv(args[0], st.ThreadID())
	ts.Setenv(args[1], st.RunID())
}

// cliFake is "threads fake" run as a process by clifake: what its stderr
// said of the runs it holds.
type cliFake struct {
	held chan [2]string // thread and run of each held run, in order
}

// heldLine is what "threads fake --script" prints when a run reaches its
// hold.
var heldLine = regexp.MustCompile(`^threads fake: run (\S+) of thread (\S+) is held;`)

// cmdCLIFake is "clifake [ARGS...]": it runs the built "threads fake
// ARGS..." as a process of its own (as a shell would), points the
// environment at it with its export lines, and copies its stderr to
// fake.stderr; clifakeheld waits for the runs it holds. The process is
// interrupted (killed where signals are not) when the script ends.
func cmdCLIFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: clifake [ARGS...]")
	}
	bin := ""
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, "threads"); fileExists(p) || fileExists(p+".exe") {
			bin = p
			break
		}
	}
	if bin == "" {
		ts.Fatalf("no threads command on the script's PATH")
	}
	cmd := exec.Command(bin, append([]string{"fake", "--throttle", "0"}, args...)...)
	cmd.Dir = ts.Getenv("WORK")
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	stderr, err := cmd.StderrPipe()
	ts.Check(err)
	errFile, err := os.Create(ts.MkAbs("fake.stderr"))
	ts.Check(err)
	ts.Check(cmd.Start())
	f := &cliFake{held: make(chan [2]string, 16)}
	ts.Value(fakeKey{}).(*fakeHolder).cli = f
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		defer errFile.Close()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(errFile, sc.Text())
			if m := heldLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case f.held <- [2]string{m[2], m[1]}:
				default:
				}
			}
		}
	}()
	ts.Defer(func() {
		if cmd.Process.Signal(os.Interrupt) != nil {
			cmd.Process.Kill()
		}
		io.Copy(io.Discard, stdout)
		<-copied
		cmd.Wait()
	})
	br := bufio.NewReader(stdout)
	for range 5 {
		line, err := br.ReadString('\n')
		if err != nil {
			ts.Fatalf("reading the fake's export lines: %v (see fake.stderr)", err)
		}
		name, value, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "export ")), "=")
		if !ok {
			ts.Fatalf("not an export line: %q", line)
		}
		ts.Setenv(name, strings.Trim(value, "'"))
	}
}

// cliFakeHeld returns "clifakeheld TVAR RVAR": it waits until the fake of
// clifake says a run is held, and sets $TVAR and $RVAR to its thread and
// run.
func cliFakeHeld(t *testing.T) func(ts *testscript.TestScript, neg bool, args []string) {
	wait := waiter(t)
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: clifakeheld TVAR RVAR")
		}
		f := ts.Value(fakeKey{}).(*fakeHolder).cli
		if f == nil {
			ts.Fatalf("no fake process: run clifake first")
		}
		got, stop := make(chan struct{}), make(chan struct{})
		var ids [2]string
		go func() {
			select {
			case ids = <-f.held:
				close(got)
			case <-stop:
			}
		}()
		defer close(stop) // after a give-up too: the goroutine ends
		wait(ts, got, "the fake held no run (see fake.stderr)")
		ts.Setenv(args[0], ids[0])
		ts.Setenv(args[1], ids[1])
	}
}
