package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func envProject() string { return os.Getenv("THREADS_PROJECT_ID") }

var fakeCmd = &command{
	name:    "fake",
	summary: "run a local fake of the service",
	long: "Run the SDK's fake of the service (threadstest) until Ctrl-C or SIGTERM, and print on stdout the\n" +
		"export lines that point this command, the SDK and any other program at it (eval them in a\n" +
		"shell; THREADS_FAKE=1 says that a scripted model, not a real one, answers). Without --live-habits\n" +
		"the fake reads the key as Authorization: Bearer, as the spec says.\n" +
		"On Unix the fake also stops when the process that started it exits (unless --outlive-parent):\n" +
		"\"go run ./cmd/threads fake &\" then \"kill $!\" signals go run only, and the fake stops with it.\n" +
		"--script FILE scripts the /v1 runs, one per run in order: text, tool calls that pause, failures\n" +
		"with a code, slow or held runs to cancel, reasoning, token usage (\"threads help fake-script\"),\n" +
		"so that a shell script can reach each exit status of v1-run.",
	example: `  threads fake > fake.env &     # or, in another terminal: threads fake
  eval "$(cat fake.env)"
  threads send --new "hello"
  kill %1                        # or kill $!; also with go run ./cmd/threads fake &
  threads fake --script runs.json > fake.env 2> fake.log &   # see "threads help fake-script"`,
	flags: func(fs *flag.FlagSet) {
		fs.String("addr", "127.0.0.1:0", "the address to listen on (port 0: any free port)")
		fs.Bool("outlive-parent", false, "keep running after the process that started the fake exits\n(nohup, a subshell that exits at once)")
		fs.Bool("live-habits", false, "behave like the live deployment: the key in x-api-key, no GET /threads, ...")
		fs.Duration("throttle", 50*time.Millisecond, "pause between streamed snapshots (the live service's is 50ms)")
		fs.String("script", "", "a JSON file of /v1 run scripts, taken one per run (see \"threads help fake-script\")")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 0) {
			return exitUsage
		}
		stderr := &lockedWriter{w: e.stderr}
		hold := make(chan struct{}) // a held run waits for it: closed when the fake stops
		var scripts []threadstest.RunScript
		if path := cl.str("script"); path != "" {
			var err error
			scripts, err = loadFakeScripts(path, hold, func(threadID, runID string) {
				fmt.Fprintf(stderr, "threads fake: run %s of thread %s is held; cancel it with: threads v1-cancel %s %s\n",
					runID, threadID, threadID, runID)
			})
			if err != nil {
				return cl.usageError(e, "--script: %v", err)
			}
		}
		opts := []threadstest.Option{threadstest.WithAddr(cl.str("addr"))}
		if cl.bool("live-habits") {
			opts = append(opts, threadstest.WithLiveHabits())
		}
		// After WithLiveHabits, which sets the live 50ms: --throttle wins.
		opts = append(opts, threadstest.WithThrottle(cl.duration("throttle")))
		srv, err := startFake(opts)
		if err != nil {
			return fail(e, err)
		}
		defer srv.Close()
		defer close(hold) // first: srv.Close waits for the runs it holds
		for _, sc := range scripts {
			srv.PushRunScript(sc)
		}
		header := ""
		if cl.bool("live-habits") {
			header = "x-api-key"
		}
		for _, kv := range [][2]string{
			{threads.EnvBaseURL, srv.URL},
			{threads.EnvAPIKey, srv.APIKey},
			{threads.EnvAPIKeyHeader, header},
			{"THREADS_PROJECT_ID", srv.ProjectID},
			// THREADS_FAKE tells a program (the SDK's live tests) that no
			// real model answers: the fake's scripted model calls a tool
			// with the first value of an enum, whatever its description.
			{"THREADS_FAKE", "1"},
		} {
			fmt.Fprintf(e.stdout, "export %s=%s\n", kv[0], shellQuote(kv[1]))
		}
		fmt.Fprintf(stderr, "threads fake: a fake Threads service is listening on %s; "+
			"eval the export lines above in a shell to use it; Ctrl-C stops it\n", srv.URL)
		var parentGone <-chan struct{} // nil: never
		if e.watchParent != nil && !cl.bool("outlive-parent") {
			stop := make(chan struct{})
			defer close(stop)
			parentGone = e.watchParent(stop)
		}
		select {
		case <-e.interrupt:
			fmt.Fprintln(stderr, "threads fake: stopped")
		case <-parentGone:
			fmt.Fprintln(stderr, "threads fake: the process that started it exited; stopped")
		}
		return exitOK
	},
}

// parentPoll is how often the fake looks at the parent process.
const parentPoll = 200 * time.Millisecond

// parentWatcher returns the env's watchParent for a process whose parent
// was ppid when it started (read first thing, so that a parent gone before
// the fake listens is seen too). Its channel is closed when the process
// that started this one exits, until stop is closed. "go run" runs the
// command as its child and dies of a SIGTERM without passing it on ("kill
// $!" reaches go run only): its child, the fake, would keep its port and
// run on, unseen. A Unix process whose parent exits is adopted by another
// (init or a subreaper), so its parent id changes: that is what is
// watched, every parentPoll (no portable event says it). Where the id
// never changes (Windows), the channel is never closed.
func parentWatcher(ppid int) func(stop <-chan struct{}) <-chan struct{} {
	return func(stop <-chan struct{}) <-chan struct{} {
		gone := make(chan struct{})
		go func() {
			t := time.NewTicker(parentPoll)
			defer t.Stop()
			for {
				if os.Getppid() != ppid {
					close(gone)
					return
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		return gone
	}
}

// startFake starts the fake; threadstest panics when it cannot listen.
func startFake(opts []threadstest.Option) (srv *threadstest.Server, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fake: %v", r)
		}
	}()
	return threadstest.Start(opts...), nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
