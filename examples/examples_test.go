// Package examples_test builds every example program and runs it, as a user
// would, against a fake service configured like the live deployment.
package examples_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// programs are the example commands, each a folder of this directory, with
// what their output must contain against the fake: every one that runs to
// its end (webapp is a server; its own test drives it). chat reads its lines from
// stdin. v1 marks a program of the /v1 API, where the key always travels in
// x-api-key: it needs no THREADS_API_KEY_HEADER.
var programs = []struct {
	name  string
	stdin string
	want  []string
	v1    bool
}{
	{name: "quickstart", v1: true, want: []string{"Assistant: You said: What can you do?", "run finished): You said: Thanks. Anything else?", "idle with 4 messages"}},
	{name: "specroutes", want: []string{"Assistant: You said: What can you do?", "COMPLETE with 4 messages"}},
	{name: "streaming", want: []string{"assistant: You said: What did Go 1.23 add?", "Thread is now CANCELLED"}},
	{name: "tools", want: []string{"(the model calls get_weather", "The tool returned:"}},
	{name: "errors", want: []string{"403 Forbidden", "errors.Is(err, threads.ErrForbidden)", "404 Not Found", "errors.Is(err, threads.ErrNotFound)", "transport error"}},
	{name: "migration", want: []string{"handler: POST /threads/", "call 2: COMPLETE", "Deprecation(): from \"POST /threads/advance\""}},
	{name: "runs", v1: true, want: []string{"(the model calls get_weather", "assistant: The tool said: 18°C and cloudy.", "(the run ended cancelled)", "(cancelled)", "[result of call_", "errors.Is(err, runs.ErrInvalidPreviousRun): true"}},
	{name: "agent", v1: true, want: []string{"(calling get_weather", "(get_weather ok:", "1 tool rounds"}},
	{name: "refund", v1: true, want: []string{"(refunding ", "(refund: refunded "}},
	{name: "chat", stdin: "hello there\n/new\nhow are you\n", want: []string{"You said: hello there", "You said: how are you"}},
}

// build compiles every example into dir, in parallel, and returns the
// binaries by name.
func build(t *testing.T, dir string) map[string]string {
	t.Helper()
	// go test puts the go command that runs it first on PATH.
	goTool, err := exec.LookPath("go")
	require.NoError(t, err)
	bins := make(map[string]string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range programs {
		bin := filepath.Join(dir, p.name)
		bins[p.name] = bin
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(goTool, "build", "-o", bin, "./"+p.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("go build ./examples/%s: %v\n%s", p.name, err, out)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return bins
}

type result struct {
	exit           int
	stdout, stderr string
}

// run runs bin with the environment minus every THREADS_ variable plus env.
func run(t *testing.T, bin, stdin string, env ...string) result {
	t.Helper()
	// No clock of its own: an example that hangs is stopped shortly before
	// the test binary's -timeout (which would give no output), however slow
	// a busy machine makes the ones that work.
	ctx, cancel := context.WithCancel(context.Background())
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), deadline.Add(-time.Until(deadline)/10))
	}
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "THREADS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin) // EOF after the lines: chat exits
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "running %s:\n%s", filepath.Base(bin), r.stderr)
		r.exit = ee.ExitCode()
	}
	require.NoError(t, ctx.Err(), "%s timed out", filepath.Base(bin))
	return r
}

// TestExamplesAgainstLiveHabits runs every example against
// threadstest.WithLiveHabits (the key in x-api-key only, GET /threads 404,
// the per-project list route, 403 for an unknown thread id), configured
// only by the environment, as against the live service:
//   - with THREADS_BASE_URL and THREADS_API_KEY only, each exits 0: the
//     first call is refused as Bearer, sent again with the key in
//     x-api-key, and every later call sends x-api-key;
//   - with THREADS_API_KEY_HEADER=x-api-key too, each exits 0 without a
//     refused call;
//   - with a wrong key, each prints an error that names the variable once
//     and exits non-zero.
//
// In each, the quickstart (and its spec-route twin) lists the thread it created.
func TestExamplesAgainstLiveHabits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every example: skipped with -short")
	}
	bins := build(t, t.TempDir())

	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			succeeds := func(t *testing.T, srv *threadstest.Server, env ...string) {
				t.Helper()
				r := run(t, bins[p.name], p.stdin, append([]string{threads.EnvBaseURL + "=" + srv.URL, threads.EnvAPIKey + "=" + srv.APIKey}, env...)...)
				require.Equal(t, 0, r.exit, "exit code; stderr:\n%s\nstdout:\n%s", r.stderr, r.stdout)
				assert.NotContains(t, r.stdout, "built-in fake", "the example used its own fake, not the environment")
				assert.Empty(t, r.stderr)
				for _, w := range p.want {
					assert.Contains(t, r.stdout, w)
				}
				if p.name == "quickstart" || p.name == "specroutes" {
					checkQuickstartListsItsThread(t, r.stdout)
				}
				assert.NotContains(t, r.stdout, srv.APIKey, "the key is never printed")
				t.Logf("%s output:\n%s", p.name, r.stdout)
			}

			t.Run("key only", func(t *testing.T) {
				t.Parallel()
				srv := threadstest.NewServer(t, threadstest.WithLiveHabits()) // and its 50 ms between snapshots, as live
				succeeds(t, srv)
				reqs := srv.Requests()
				if p.v1 {
					// /v1 sends the key in x-api-key from the start.
					for _, rq := range reqs {
						assert.Equal(t, srv.APIKey, rq.Header.Get("X-Api-Key"), "%s %s", rq.Method, rq.Path)
						assert.NotEqual(t, "Bearer "+srv.APIKey, rq.Header.Get("Authorization"), "%s %s", rq.Method, rq.Path)
					}
					return
				}
				require.GreaterOrEqual(t, len(reqs), 2)
				assert.Equal(t, "Bearer "+srv.APIKey, reqs[0].Header.Get("Authorization"), "the first call as the spec says")
				assert.Empty(t, reqs[0].Header.Get("X-Api-Key"))
				for i, rq := range reqs[1:] {
					assert.Equal(t, srv.APIKey, rq.Header.Get("X-Api-Key"), "request %d (%s %s): after the one refused call, x-api-key", i+1, rq.Method, rq.Path)
					assert.Empty(t, rq.Header.Get("Authorization"), "request %d (%s %s)", i+1, rq.Method, rq.Path)
				}
				assert.Equal(t, reqs[0].Method+" "+reqs[0].Path, reqs[1].Method+" "+reqs[1].Path, "the refused call is the one sent again")
			})

			t.Run("x-api-key", func(t *testing.T) {
				t.Parallel()
				srv := threadstest.NewServer(t, threadstest.WithLiveHabits())
				succeeds(t, srv, threads.EnvAPIKeyHeader+"=x-api-key")
				for _, rq := range srv.Requests() {
					assert.NotEqual(t, "Bearer "+srv.APIKey, rq.Header.Get("Authorization"), "%s %s: no refused Bearer call", rq.Method, rq.Path)
				}
			})

			t.Run("wrong key", func(t *testing.T) {
				t.Parallel()
				srv := threadstest.NewServer(t, threadstest.WithLiveHabits())
				r := run(t, bins[p.name], p.stdin, threads.EnvBaseURL+"="+srv.URL, threads.EnvAPIKey+"=sk-not-the-key")
				if p.v1 {
					// /v1 sends the key in x-api-key whatever the variable
					// says: no fallback, no hint about it.
					assert.NotEqual(t, 0, r.exit, "exit code; stdout:\n%s", r.stdout)
					assert.NotContains(t, r.stderr+r.stdout, "sk-not-the-key", "the key is never printed")
					return
				}
				assert.NotEqual(t, 0, r.exit, "exit code; stdout:\n%s", r.stdout)
				assert.Equal(t, 1, strings.Count(r.stderr, threads.EnvAPIKeyHeader), "the error names the variable once; stderr:\n%s\nstdout:\n%s", r.stderr, r.stdout)
				assert.NotContains(t, r.stderr+r.stdout, "sk-not-the-key", "the key is never printed")
				t.Logf("%s error: %s", p.name, r.stderr)
			})
		})
	}
}

// checkQuickstartListsItsThread finds "Created thread <id>" and then that id
// in the listing, marked with "*".
func checkQuickstartListsItsThread(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`Created thread (\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "the quickstart says which thread it created:\n%s", out)
	assert.Regexp(t, `(?m)^ \* `+regexp.QuoteMeta(m[1])+` `, out, "the listing shows the created thread")
}
