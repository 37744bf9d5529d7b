package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	threads "github.com/threadsapi/threads-go"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1   // the service refused or failed, or a run or reply failed
	exitUsage       = 2   // bad arguments or configuration
	exitCancelled   = 3   // a run or reply ended cancelled (threads cancel, v1-cancel, elsewhere)
	exitInterrupted = 130 // Ctrl-C, as shells report it
)

// env is the process's world, so that tests can run the command in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	interrupt      <-chan os.Signal // Ctrl-C and SIGTERM
	// watchParent, when not nil, returns a channel closed when the
	// process that started this one exits (see the fake); nil in the
	// in-process tests, whose parent is the test runner.
	watchParent func(stop <-chan struct{}) <-chan struct{}
}

// command is one subcommand.
type command struct {
	name    string
	args    string // positional arguments, for the usage line
	summary string // one line, for the command list
	long    string // the usage's description; default summary
	example string
	flags   func(fs *flag.FlagSet) // declares the command's own flags
	run     func(e *env, c *call) int
}

// call is one invocation of a command: its parsed flags and arguments.
type call struct {
	cmd  *command
	fs   *flag.FlagSet
	args []string

	baseURL, keyHeader string
	keyFromStdin       bool
}

var commands []*command // filled in init, in usage order

func init() {
	commands = []*command{listCmd, createCmd, getCmd, cancelCmd, sendCmd, chatCmd,
		v1ListCmd, v1CreateCmd, v1GetCmd, v1MessagesCmd, v1RunCmd, v1CancelCmd, v1DeleteCmd, fakeCmd, proxyCmd}
}

const intro = `threads is a command-line client for the Conversation Threads API.

usage: threads <command> [flags] [arguments]

commands:
`

const outro = `
The environment (as the SDK reads it):
  THREADS_BASE_URL        the service, e.g. https://api.tambo.co (or --base-url)
  THREADS_API_KEY         the API key (or --api-key-stdin; never a flag)
  THREADS_API_KEY_HEADER  the header that carries the key, e.g. x-api-key
                          (or --api-key-header); unset: Authorization: Bearer,
                          then x-api-key if the service refuses Bearer
  THREADS_PROJECT_ID      the project to create threads in; unset: the key's
  THREADS_USER_KEY        the end user of the v1-* commands (or --user-key)

Exit status: 0 success; 1 the service refused or failed, or the run or reply
failed; 2 usage; 3 the run or reply was cancelled (by "threads cancel",
"threads v1-cancel" or another client); 130 interrupted (Ctrl-C).

Run "threads <command> --help" for a command's flags and an example;
"threads help json" for the --json outputs, field by field; "threads help
fake-script" for the run scripts of "threads fake --script";
"threads fake" runs a local fake of the service to try everything against.
`

func printUsage(w io.Writer) {
	fmt.Fprint(w, intro)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, outro)
}

// run runs the command line args (without the program name) and returns
// the exit status.
func run(args []string, e *env) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 2 && args[1] == "json" {
			fmt.Fprint(e.stdout, jsonHelp)
			return exitOK
		}
		if len(args) == 2 && args[1] == "fake-script" {
			fmt.Fprint(e.stdout, fakeScriptHelp)
			return exitOK
		}
		printUsage(e.stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.invoke(e, args[1:])
		}
	}
	fmt.Fprintf(e.stderr, "threads: unknown command %q; run \"threads --help\"\n", args[0])
	return exitUsage
}

func (c *command) usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: threads %s [flags]", c.name)
	if c.args != "" {
		fmt.Fprintf(w, " %s", c.args)
	}
	long := c.long
	if long == "" {
		long = c.summary
	}
	fmt.Fprintf(w, "\n\n%s\n\nflags:\n", long)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s", f.Name)
		if name != "" {
			fmt.Fprintf(w, " %s", name)
		}
		fmt.Fprintf(w, "\n      %s", strings.ReplaceAll(usage, "\n", "\n      "))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
	fmt.Fprintf(w, "\nexample:\n%s\n", c.example)
}

// invoke parses the command's flags and arguments and runs it.
func (c *command) invoke(e *env, args []string) int {
	fs := flag.NewFlagSet("threads "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	cl := &call{cmd: c, fs: fs}
	if c.name != "fake" {
		fs.StringVar(&cl.baseURL, "base-url", "", "the service's base URL (default $THREADS_BASE_URL)")
		if !strings.HasPrefix(c.name, "v1-") && c.name != "proxy" {
			// On /v1 the key always travels in x-api-key: the flag would do
			// nothing there, so those commands do not offer it.
			fs.StringVar(&cl.keyHeader, "api-key-header", "", "send the key in this header, e.g. x-api-key\n(default $THREADS_API_KEY_HEADER, else Authorization: Bearer,\nthen x-api-key if the service refuses Bearer)")
		}
		fs.BoolVar(&cl.keyFromStdin, "api-key-stdin", false, "read the API key from the first line of stdin (at most 4 KiB)\n(default $THREADS_API_KEY)")
	}
	if c.flags != nil {
		c.flags(fs)
	}
	var err error
	cl.args, err = parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(e.stdout, fs)
		return exitOK
	}
	if err != nil {
		// The flag package quotes the arguments it refuses as they are:
		// an argument may hold escape sequences, so it is printed as
		// one line of printable text.
		return cl.usageError(e, "%s", field(err.Error()))
	}
	return c.run(e, cl)
}

// parseInterspersed parses flags anywhere among the arguments ("get ID
// --json" as well as "get --json ID"); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// usageError reports a usage problem and returns exitUsage.
func (cl *call) usageError(e *env, format string, a ...any) int {
	fmt.Fprintf(e.stderr, "threads %s: %s\nrun \"threads %s --help\" for usage\n", cl.cmd.name, fmt.Sprintf(format, a...), cl.cmd.name)
	return exitUsage
}

// nargs checks the number of positional arguments.
func (cl *call) nargs(e *env, min, max int) bool {
	if len(cl.args) < min || len(cl.args) > max {
		cl.usageError(e, "want %s, got %d argument(s)", orNone(cl.cmd.args), len(cl.args))
		return false
	}
	return true
}

func orNone(s string) string {
	if s == "" {
		return "no arguments"
	}
	return s
}

// client builds the SDK client from the flags and the environment. A
// configuration error is a usage error: it prints and returns ok false.
func (cl *call) client(e *env) (*threads.Client, bool) {
	var opts []threads.ClientOption
	if cl.baseURL != "" {
		opts = append(opts, threads.WithBaseURL(cl.baseURL))
	} else if strings.TrimSpace(os.Getenv(threads.EnvBaseURL)) == "" {
		cl.usageError(e, "no service: set %s or --base-url (\"threads fake\" runs a local fake)", threads.EnvBaseURL)
		return nil, false
	}
	if cl.keyHeader != "" {
		opts = append(opts, threads.WithAPIKeyHeader(cl.keyHeader))
	}
	if cl.keyFromStdin {
		key, err := readKeyLine(e.stdin)
		if err != nil {
			cl.usageError(e, "--api-key-stdin: reading the key from stdin: %v", err)
			return nil, false
		}
		opts = append(opts, threads.WithAPIKey(key))
	} else if strings.TrimSpace(os.Getenv(threads.EnvAPIKey)) == "" {
		cl.usageError(e, "no API key: set %s or use --api-key-stdin", threads.EnvAPIKey)
		return nil, false
	}
	opts = append(opts, threads.WithDeprecationHandler(func(d threads.Deprecation) {
		fmt.Fprintf(e.stderr, "threads: note: the service retired %s; following its advice to %s\n", field(d.From), field(d.To))
	}))
	c, err := threads.NewClient(opts...)
	if err != nil {
		cl.usageError(e, "%s", oneLine(err))
		return nil, false
	}
	return c, true
}

// maxKeyLine bounds the line --api-key-stdin reads: API keys are a few
// dozen bytes, and a stdin without a newline (a file piped by mistake)
// must not be read whole into memory, nor sent as the key.
const maxKeyLine = 4 << 10

// readKeyLine reads the API key from the first line of r: at most
// maxKeyLine bytes before the newline (or the end of the input), white
// space trimmed. A longer line or an empty key is an error, which never
// quotes what was read.
func readKeyLine(r io.Reader) (string, error) {
	// Room for the line ending too ("\r\n"), so that a longer line shows.
	br := bufio.NewReaderSize(io.LimitReader(r, maxKeyLine+2), 512)
	line, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	if strings.HasSuffix(line, "\n") {
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	}
	if len(line) > maxKeyLine {
		return "", fmt.Errorf("the first line is longer than %d bytes; an API key is one short line", maxKeyLine)
	}
	key := strings.TrimSpace(line)
	if key == "" {
		return "", errors.New("empty")
	}
	return key, nil
}

// maxMessage bounds a message read from stdin ("-"): a message is text a
// person or a script wrote, and a file piped by mistake must not be read
// whole into memory. A longer input is refused, never cut short in silence.
const maxMessage = 1 << 20

// readMessage reads the message of a "-" argument from stdin: at most
// maxMessage bytes, less one line break ("\n" or "\r\n") at its end.
// The line break that ends what echo, a heredoc or a text file gives is
// not part of the message, as for the shell's read and $(...); other
// white space, and any line break before it, is kept.
func readMessage(r io.Reader) (string, error) {
	// Up to 3 bytes more than the bound: a message at the bound with its
	// "\r\n" is read whole, and one byte more is seen.
	b, err := io.ReadAll(io.LimitReader(r, maxMessage+3))
	if err != nil {
		return "", err
	}
	s := string(b)
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimSuffix(t, "\r")
	}
	if len(s) > maxMessage {
		return "", fmt.Errorf("the message is longer than %d MiB", maxMessage>>20)
	}
	return s, nil
}

// cancelled reports a run or reply that ended cancelled, on stderr, and
// returns exitCancelled: a script tells it from a success and from a
// failure by the status alone.
func cancelled(e *env, what string) int {
	fmt.Fprintf(e.stderr, "threads: %s was cancelled\n", what)
	return exitCancelled
}

// fail prints err as one line and returns exitFailed (exitInterrupted when
// the call was interrupted).
func fail(e *env, err error) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(e.stderr, "threads: interrupted")
		return exitInterrupted
	}
	msg := oneLine(err)
	if !strings.HasPrefix(msg, "threads: ") {
		msg = "threads: " + msg
	}
	fmt.Fprintln(e.stderr, msg)
	return exitFailed
}

// oneLine is the error's message on one line, safe for the terminal (it
// may quote the service's words).
func oneLine(err error) string {
	return strings.Join(strings.Fields(field(err.Error())), " ")
}

// interruptible returns a context that the first interrupt cancels, and its
// stop function, which releases the watcher and reports whether an
// interrupt arrived.
func interruptible(e *env) (context.Context, func() bool) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	hit := make(chan bool, 1)
	go func() {
		select {
		case <-e.interrupt:
			cancel()
			hit <- true
		case <-done:
			hit <- false
		}
	}()
	return ctx, func() bool {
		close(done)
		h := <-hit
		cancel()
		return h
	}
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// maxAllBytes bounds the page bodies one --all reads, whichever listing it
// pages: the bound the SDK's Threads.All keeps by default (64 MiB, some
// 100,000 threads of the live service). A server whose listing never ends
// makes --all fail with a paging-limit error instead of reading, and
// holding, without end.
const maxAllBytes = 64 << 20

// allBound is the request option of one --all: every page body it reads
// counts against maxAllBytes, and reading past it fails with an error
// that matches threads.ErrPagingLimit. Each --all makes its own.
func allBound() threads.RequestOption {
	read := new(atomic.Int64)
	return threads.WithMiddleware(func(req *http.Request, next threads.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err == nil && resp.Body != nil {
			resp.Body = &boundedBody{ReadCloser: resp.Body, read: read}
		}
		return resp, err
	})
}

// boundedBody is a page body of an --all, counted against maxAllBytes.
type boundedBody struct {
	io.ReadCloser
	read *atomic.Int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.read.Add(int64(n)) > maxAllBytes {
		return n, fmt.Errorf("--all: %w: read more than %d MiB of pages", threads.ErrPagingLimit, maxAllBytes>>20)
	}
	return n, err
}
