package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFake runs "threads fake" in-process: its stdout is four export lines
// that a shell can eval; a client configured from them works; SIGTERM stops
// it with status 0.
func TestFake(t *testing.T) {
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	interrupt := make(chan os.Signal, 1)
	status := make(chan int, 1)
	go func() {
		status <- run([]string{"fake", "--throttle", "0"}, &env{stdin: strings.NewReader(""), stdout: outW, stderr: &stderr, interrupt: interrupt})
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	var lines []string
	for len(lines) < 5 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.Len(t, lines, 5)
	assert.Regexp(t, `^export THREADS_BASE_URL=http://127\.0\.0\.1:\d+$`, lines[0])
	assert.Equal(t, "export THREADS_API_KEY=test-key", lines[1])
	assert.Equal(t, "export THREADS_API_KEY_HEADER=''", lines[2])
	assert.Equal(t, "export THREADS_PROJECT_ID=p_FakeProj.c0ffee", lines[3])
	assert.Equal(t, "export THREADS_FAKE=1", lines[4])

	script := strings.Join(lines, "\n")
	if sh, err := exec.LookPath("sh"); err == nil {
		out, err := exec.Command(sh, "-c", script+"\n"+`echo "$THREADS_BASE_URL|$THREADS_API_KEY|$THREADS_API_KEY_HEADER|"`).Output()
		require.NoError(t, err)
		assert.Equal(t, strings.TrimPrefix(lines[0], "export THREADS_BASE_URL=")+"|test-key||\n", string(out))
	}
	for _, l := range lines {
		name, value, _ := strings.Cut(strings.TrimPrefix(l, "export "), "=")
		t.Setenv(name, strings.Trim(value, "'"))
	}

	var out, errOut bytes.Buffer
	code := run([]string{"send", "--new", "hello"}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, interrupt: make(chan os.Signal)})
	assert.Equal(t, exitOK, code, errOut.String())
	assert.Equal(t, "You said: hello\n", out.String())

	interrupt <- syscall.SIGTERM
	assert.Equal(t, exitOK, <-status)
	rest, _ := io.ReadAll(outR)
	assert.Empty(t, rest, "only the export lines go to stdout")
	assert.Contains(t, stderr.String(), "Ctrl-C stops it")
	assert.Contains(t, stderr.String(), "threads fake: stopped")
}

// TestFakeAddrInUse: an address that cannot be listened on is exit 1 with
// one line on stderr.
func TestFakeAddrInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	var out, errOut bytes.Buffer
	code := run([]string{"fake", "--addr", l.Addr().String()}, &env{stdout: &out, stderr: &errOut, interrupt: make(chan os.Signal)})
	assert.Equal(t, exitFailed, code)
	assert.Empty(t, out.String())
	assert.Regexp(t, `^threads: fake: threadstest: WithAddr\("127\.0\.0\.1:\d+"\): listen tcp 127\.0\.0\.1:\d+: .*\n$`, errOut.String())
}

// TestFakeStopsWithParent: the fake stops, with status 0 and a line that
// says why, when the process that started it exits; --outlive-parent
// keeps it running until an interrupt.
func TestFakeStopsWithParent(t *testing.T) {
	gone := make(chan struct{})
	watched := make(chan struct{}, 1)
	watch := func(stop <-chan struct{}) <-chan struct{} {
		watched <- struct{}{}
		return gone
	}
	var stderr bytes.Buffer
	status := make(chan int, 1)
	go func() {
		status <- run([]string{"fake", "--throttle", "0"}, &env{stdout: io.Discard, stderr: &stderr, interrupt: make(chan os.Signal), watchParent: watch})
	}()
	<-watched
	close(gone)
	assert.Equal(t, exitOK, <-status)
	assert.Contains(t, stderr.String(), "threads fake: the process that started it exited; stopped\n")

	interrupt := make(chan os.Signal, 1)
	interrupt <- syscall.SIGTERM
	stderr.Reset()
	code := run([]string{"fake", "--throttle", "0", "--outlive-parent"}, &env{stdout: io.Discard, stderr: &stderr, interrupt: interrupt,
		watchParent: func(<-chan struct{}) <-chan struct{} { t.Error("--outlive-parent watched the parent"); return nil }})
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr.String(), "threads fake: stopped\n")
}

// TestParentWatcher: the channel is closed once the parent process is not
// the one the command started with, and the watch ends with stop.
func TestParentWatcher(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	<-parentWatcher(os.Getppid() + 1)(stop) // another parent than ours: "it exited"

	stop2 := make(chan struct{})
	gone := parentWatcher(os.Getppid())(stop2)
	close(stop2) // goleak (TestMain) checks that the watch ended
	select {
	case <-gone:
		t.Fatal("the parent is still there")
	default:
	}
}
