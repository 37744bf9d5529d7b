package threads_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// readmePrelude makes README fragments compile: they use these imports
// and, inside a function body, ctx, client and threadID.
const readmePrelude = `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

var (
	_ = context.Background
	_ = errors.Is
	_ = fmt.Sprint
	_ = log.Println
	_ = slog.New
	_ http.Header
	_ = os.Stderr
	_ = time.Second
	_ testing.T
	_ = threads.NewClient
	_ = proxy.Relay
	_ = runs.New
	_ = threadstest.Start
)

func main() {}
`

// readmeBlock is one Go code block of README.md and the heading it is
// under.
type readmeBlock struct {
	heading string // "## A first program", "### A tool and a component"...
	code    string
}

// readmeBlocks returns the Go code blocks of README.md, in order. A fence
// closes only on a line of its own (CommonMark): text after the backticks
// would leave the block open and swallow the page, so such a line fails
// the test.
func readmeBlocks(t *testing.T) (readme string, blocks []readmeBlock) {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme = string(b)
	fence := regexp.MustCompile("^```[a-z]+$")
	for i, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "```") && strings.Trim(line, "`") != "" && !fence.MatchString(line) {
			t.Errorf("README.md:%d: a fence with text after it: %q", i+1, line)
		}
	}
	heading := ""
	headings := regexp.MustCompile("(?m)^#{2,3} .*$")
	for _, m := range regexp.MustCompile("(?sm)^```go\n(.*?)^```$").FindAllStringSubmatchIndex(readme, -1) {
		if hs := headings.FindAllString(readme[:m[0]], -1); len(hs) > 0 {
			heading = hs[len(hs)-1]
		}
		blocks = append(blocks, readmeBlock{heading: heading, code: readme[m[2]:m[3]]})
	}
	require.NotEmpty(t, blocks)
	return readme, blocks
}

// readmeModule writes blocks into a temporary module that requires this
// one through a replace directive, one package per block (block0,
// block1...), so that they compile against the working tree and the test
// writes nothing inside the package (which may be read-only, as in the
// module cache). Whole programs go as they are; top-level declarations and
// statement fragments inside readmePrelude.
func readmeModule(t *testing.T, blocks []readmeBlock) (dir string, pkgs []string) {
	t.Helper()
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	gomod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	gosum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(gomod), "\n") // drop the module line
	require.True(t, ok)
	dir = t.TempDir()
	mod := "module readmecheck\n" + rest + fmt.Sprintf("\nrequire github.com/threadsapi/threads-go v0.0.0\n\nreplace github.com/threadsapi/threads-go => %q\n", root)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644))
	for i, b := range blocks {
		var src string
		switch {
		case strings.HasPrefix(b.code, "package "):
			src = b.code
		case strings.HasPrefix(strings.TrimLeft(regexp.MustCompile(`(?m)^//.*$`).ReplaceAllString(b.code, ""), "\n"), "func "):
			src = readmePrelude + "\n" + b.code // declarations, perhaps after a comment
		default:
			src = readmePrelude + "\nfunc snippet(ctx context.Context, client *threads.Client, threadID string) error {\n" + b.code + "\nreturn nil\n}\n"
		}
		pkg := filepath.Join(dir, fmt.Sprint("block", i))
		require.NoError(t, os.MkdirAll(pkg, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(pkg, "main.go"), []byte(src), 0o644))
		pkgs = append(pkgs, "./"+fmt.Sprint("block", i))
	}
	return dir, pkgs
}

// goBuild runs go build in the temporary module dir.
func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "README code blocks do not compile:\n%s", out)
}

// TestReadmeCodeBlocksCompile builds every Go code block of README.md.
func TestReadmeCodeBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	_, blocks := readmeBlocks(t)
	dir, pkgs := readmeModule(t, blocks)
	goBuild(t, dir, append([]string{"-o", os.DevNull}, pkgs...)...)
	t.Logf("%d README code blocks compile", len(blocks))
}

// readmePrograms are the README's programs that TestReadmeProgramsRun
// runs against threadstest, configured only by the environment as against
// the real service: the first Go block under heading, the fake's model
// scripted by script, and what the output must contain.
var readmePrograms = []struct {
	heading string
	script  func(*threadstest.Server)
	want    []string
}{
	{
		heading: "## A first program",
		want:    []string{"You said: Write a haiku about Go.\nthread thr_", " finished\n"},
	},
	{
		heading: "### A tool and a component",
		script: func(srv *threadstest.Server) {
			srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
				{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}},
			}})
			srv.PushRunScript(threadstest.RunScript{
				Component: &threadstest.RunComponent{Name: "WeatherCard", Props: map[string]any{"city": "Lisbon", "temperature": 22}},
				Text:      "Sunny in Lisbon.",
			})
		},
		want: []string{`(calling get_weather {"city":"Lisbon"})`, "[WeatherCard: Lisbon, 22°C]", "Sunny in Lisbon."},
	},
	{
		heading: "### A first program on the spec's routes",
		want:    []string{"You said: Write a haiku about Go.\n"},
	},
}

// TestReadmeProgramsRun runs the README's first programs, as a new user
// would, against the fake: they must not only compile but print what the
// README says.
func TestReadmeProgramsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	_, all := readmeBlocks(t)
	var blocks []readmeBlock
	for _, p := range readmePrograms {
		i := indexFunc(all, func(b readmeBlock) bool { return b.heading == p.heading })
		require.GreaterOrEqual(t, i, 0, "README.md has no Go block under %q", p.heading)
		require.True(t, strings.HasPrefix(all[i].code, "package main\n"), "the block under %q is a whole program", p.heading)
		blocks = append(blocks, all[i])
	}
	dir, pkgs := readmeModule(t, blocks)
	bin := filepath.Join(dir, "bin")
	goBuild(t, dir, append([]string{"-o", bin + string(filepath.Separator)}, pkgs...)...)

	for i, p := range readmePrograms {
		t.Run(strings.TrimLeft(p.heading, "# "), func(t *testing.T) {
			t.Parallel()
			srv := threadstest.NewServer(t)
			if p.script != nil {
				p.script(srv)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, fmt.Sprint("block", i)))
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "THREADS_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, threads.EnvBaseURL+"="+srv.URL, threads.EnvAPIKey+"="+srv.APIKey)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "stderr:\n%s\nstdout:\n%s", &stderr, &stdout)
			for _, w := range p.want {
				assert.Contains(t, stdout.String(), w)
			}
			t.Logf("output:\n%s", &stdout)
		})
	}
}

func indexFunc[T any](s []T, f func(T) bool) int {
	for i, v := range s {
		if f(v) {
			return i
		}
	}
	return -1
}

// TestReadmeQuickStart checks the two commands a new user runs first: the
// quickstart against the built-in fake, and the test command that CI
// (.ci/run) runs too.
func TestReadmeQuickStart(t *testing.T) {
	readme, _ := readmeBlocks(t)
	_, quick, ok := strings.Cut(readme, "\n## Quick start\n")
	require.True(t, ok, "README.md has a Quick start section")
	quick, _, _ = strings.Cut(quick, "\n## ")
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(quick)
	require.NotNil(t, m, "the Quick start begins with a sh block")
	assert.Regexp(t, `(?m)^go run \./examples/quickstart\s`, m[1])
	assert.Regexp(t, `(?m)^go test -race \./\.\.\.\s`, m[1])
	assert.Contains(t, quick, "Without `THREADS_BASE_URL` the quickstart starts the built-in fake")
	ci, err := os.ReadFile(".ci/run")
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^go test -race \./\.\.\.$`, string(ci), "CI runs the README's test command")
}
