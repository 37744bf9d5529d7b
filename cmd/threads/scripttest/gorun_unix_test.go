//go:build unix

package scripttest

import (
	"bufio"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// goRunFake is the fake that "gorunfake" started as the README starts it:
// "go run ./cmd/threads fake &", go run's child.
type goRunFake struct {
	goRun *exec.Cmd     // the go run process: $! in the README's shell
	host  string        // where the fake listens
	eof   chan struct{} // closed when every writer of the fake's stdout has closed it: go run and the fake exited
}

// goRunFakeCmd returns "gorunfake": it runs "go run <the command> fake" in
// the background from dir (this module, whose replace directive builds the
// checkout) as the README does, reads the export lines the fake prints,
// and sets them in the script's environment. The fake's stderr goes to
// $WORK/fake.stderr.
func goRunFakeCmd(dir string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: gorunfake")
		}
		r, w, err := os.Pipe()
		ts.Check(err)
		errFile, err := os.Create(ts.MkAbs("fake.stderr"))
		ts.Check(err)
		defer errFile.Close()
		cmd := exec.Command("go", "run", cliPackage, "fake", "--throttle", "0")
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, w, errFile
		// A group of its own, so that the cleanup can stop whatever is
		// left of it (go run and the fake) whatever the script did.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = cmd.Start()
		w.Close() // the children hold their copies: EOF comes when they are all gone
		if err != nil {
			r.Close()
			ts.Fatalf("go run: %v", err)
		}
		f := &goRunFake{goRun: cmd, eof: make(chan struct{})}
		ts.Value(fakeKey{}).(*fakeHolder).goRun = f
		br := bufio.NewReader(r)
		ts.Defer(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group: gone already, normally
			cmd.Wait()
			r.Close()
			<-f.eof
		})
		defer func() {
			// Whatever the lines said: the rest of the output is read
			// to its end, which is what fakestops waits for.
			go func() {
				io.Copy(io.Discard, br)
				close(f.eof)
			}()
		}()
		for range 4 {
			line, err := br.ReadString('\n')
			if err != nil {
				ts.Fatalf("reading the fake's export lines: %v (see fake.stderr)", err)
			}
			name, value, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "export ")), "=")
			if !ok {
				ts.Fatalf("not an export line: %q", line)
			}
			value = strings.Trim(value, "'")
			ts.Setenv(name, value)
			if name == "THREADS_BASE_URL" {
				u, err := url.Parse(value)
				ts.Check(err)
				f.host = u.Host
			}
		}
	}
}

// cmdKillGoRun is "killgorun": SIGTERM to the go run of gorunfake, as
// "kill $!" sends it, and nothing to the fake, its child. It waits for go
// run to exit.
func cmdKillGoRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: killgorun")
	}
	f := ts.Value(fakeKey{}).(*fakeHolder).goRun
	if f == nil {
		ts.Fatalf("no go run: run gorunfake first")
	}
	ts.Check(f.goRun.Process.Signal(syscall.SIGTERM))
	f.goRun.Wait() // killed by the signal: an error, as expected
}

// fakeStops returns "fakestops": it waits until the fake of gorunfake has
// exited (its stdout, which go run and the fake share, is closed by all),
// then checks that nothing listens where it did.
func fakeStops(t *testing.T) func(ts *testscript.TestScript, neg bool, args []string) {
	wait := waiter(t)
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: fakestops")
		}
		f := ts.Value(fakeKey{}).(*fakeHolder).goRun
		if f == nil {
			ts.Fatalf("no go run: run gorunfake first")
		}
		wait(ts, f.eof, "the fake is still running after go run exited")
		if c, err := net.Dial("tcp", f.host); err == nil {
			c.Close()
			ts.Fatalf("something still listens on %s", f.host)
		}
	}
}
