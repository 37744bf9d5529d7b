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
	"unicode"

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

// readmeBlocks returns the Go code blocks of README.md, in order.
func readmeBlocks(t *testing.T) (readme string, blocks []readmeBlock) {
	t.Helper()
	return markdownBlocks(t, "README.md")
}

// docPages are the Markdown pages whose Go blocks must compile and whose
// links must resolve: the README and the docs/ pages it sends readers to.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	return append([]string{"README.md"}, pages...)
}

// markdownBlocks returns the Go code blocks of the Markdown file name, in
// order. A fence closes only on a line of its own (CommonMark): text
// after the backticks would leave the block open and swallow the page, so
// such a line fails the test.
func markdownBlocks(t *testing.T, name string) (text string, blocks []readmeBlock) {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	text = string(b)
	fence := regexp.MustCompile("^```[a-z]+$")
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") && strings.Trim(line, "`") != "" && !fence.MatchString(line) {
			t.Errorf("%s:%d: a fence with text after it: %q", name, i+1, line)
		}
	}
	heading := ""
	headings := regexp.MustCompile("(?m)^#{2,3} .*$")
	for _, m := range regexp.MustCompile("(?sm)^```go\n(.*?)^```$").FindAllStringSubmatchIndex(text, -1) {
		if hs := headings.FindAllString(text[:m[0]], -1); len(hs) > 0 {
			heading = hs[len(hs)-1]
		}
		blocks = append(blocks, readmeBlock{heading: heading, code: text[m[2]:m[3]]})
	}
	return text, blocks
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

// TestReadmeCodeBlocksCompile builds every Go code block of README.md and
// of the docs/ pages.
func TestReadmeCodeBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	var blocks []readmeBlock
	for _, page := range docPages(t) {
		_, bs := markdownBlocks(t, page)
		blocks = append(blocks, bs...)
	}
	require.NotEmpty(t, blocks)
	dir, pkgs := readmeModule(t, blocks)
	goBuild(t, dir, append([]string{"-o", os.DevNull}, pkgs...)...)
	t.Logf("%d Go code blocks of README.md and docs/ compile", len(blocks))
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

// TestReadmeIsATour holds the README to a tour of the SDK: deeper material
// goes to docs/ pages and package documentation, which it links.
func TestReadmeIsATour(t *testing.T) {
	readme, _ := readmeBlocks(t)
	lines := strings.Count(readme, "\n")
	assert.LessOrEqual(t, lines, 800, "README.md has %d lines: move a section to a docs/ page and link it", lines)
}

// TestReadmeLinksResolve checks that every relative link of README.md and
// the docs/ pages names a file of the repository and, with a #fragment
// into a Markdown page, one of its headings (as GitHub makes anchors).
func TestReadmeLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(page)
		require.NoError(t, err)
		a := map[string]bool{}
		for _, line := range strings.Split(proseOf(string(b)), "\n") {
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
				slug := headingAnchor(h)
				for n := 1; a[slug]; n++ { // GitHub numbers repeated headings
					slug = fmt.Sprintf("%s-%d", headingAnchor(h), n)
				}
				a[slug] = true
			}
		}
		anchors[page] = a
		return a
	}
	checked := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(proseOf(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: no such file", page, target)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[frag] {
				t.Errorf("%s: link %q: %s has no heading with that anchor", page, target, path)
			}
		}
	}
	require.Positive(t, checked)
}

// TestReadmeLinksEveryDocsPage: a docs/ page the README does not link is
// one a newcomer never finds; each gets a row under "Where to read more"
// (or a link elsewhere in the README).
func TestReadmeLinksEveryDocsPage(t *testing.T) {
	readme, _ := readmeBlocks(t)
	for _, page := range docPages(t)[1:] {
		assert.Contains(t, readme, "]("+filepath.ToSlash(page)+")", "README.md does not link %s", page)
	}
}

// proseOf returns Markdown text without its fenced code blocks and inline
// code spans, where brackets and hashes are code, not links or headings.
func proseOf(md string) string {
	md = regexp.MustCompile("(?sm)^```.*?^```$").ReplaceAllString(md, "")
	return regexp.MustCompile("`[^`\n]*`").ReplaceAllStringFunc(md, func(code string) string {
		return strings.Trim(code, "`") // a heading's code still counts in its anchor
	})
}

// headingAnchor is GitHub's anchor for a heading: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', everything else dropped.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeListsEveryExample: an example folder the README's table of
// programs does not name is one a newcomer never runs (examples/refund
// was missing from it).
func TestReadmeListsEveryExample(t *testing.T) {
	readme, _ := readmeBlocks(t)
	dirs, err := os.ReadDir("examples")
	require.NoError(t, err)
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		assert.Contains(t, readme, "| `go run ./examples/"+d.Name()+"` |", "README.md's table of programs does not list examples/%s", d.Name())
	}
	require.Positive(t, n)
}

// TestReadmeTestPasses runs the README's test of a cancelled run (under
// "Testing with the fake") as go test runs a user's: a test a newcomer
// copies must not only compile but pass.
func TestReadmeTestPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test with the go command")
	}
	_, all := readmeBlocks(t)
	i := indexFunc(all, func(b readmeBlock) bool {
		return strings.HasPrefix(b.heading, "## Testing with the fake") && strings.Contains(b.code, "func Test")
	})
	require.GreaterOrEqual(t, i, 0, "README.md has no test under \"## Testing with the fake\"")
	dir, _ := readmeModule(t, nil)
	pkg := filepath.Join(dir, "readmetest")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "readme_test.go"), []byte(all[i].code), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "./readmetest")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the README's test fails:\n%s", out)
}

// apiNames returns the names api/*.txt records, per package: its
// declarations (Tool, NewTool, ErrNotFound) and its types' members and
// methods (Tool.NeedsApproval, Stream.Close).
func apiNames(t *testing.T) map[string]map[string]bool {
	t.Helper()
	api := map[string]map[string]bool{}
	files, err := filepath.Glob(filepath.Join("api", "*.txt"))
	require.NoError(t, err)
	decl := regexp.MustCompile(`^pkg (\w+), (?:func|type|const|var) (\w+)`)
	method := regexp.MustCompile(`^pkg (\w+), method \(\*?(\w+)(?:\[[^\]]*\])?\) (\w+)`)
	member := regexp.MustCompile(`^pkg (\w+), type (\w+)(?:\[[^\]]*\])? (?:struct|interface), (?:embedded \*?(?:\w+\.)?)?(\w+)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n") {
			add := func(pkg, name string) {
				if api[pkg] == nil {
					api[pkg] = map[string]bool{}
				}
				api[pkg][name] = true
			}
			if m := member.FindStringSubmatch(line); m != nil {
				add(m[1], m[2]+"."+m[3])
			}
			if m := decl.FindStringSubmatch(line); m != nil {
				add(m[1], m[2])
			}
			if m := method.FindStringSubmatch(line); m != nil {
				add(m[1], m[2]+"."+m[3])
			}
		}
	}
	return api
}

// TestDocsNameTheCurrentAPI: every qualified name that README.md, the
// docs/ pages and the doc comments of the module's packages give
// (threads.Tool.NeedsApproval, proxy.WithStore, runs.PendingToolCall...)
// is one that api/*.txt records, so that a rename or a removal cannot
// leave the prose behind (proxy.Approvals.Tools, threadsmcp.ToolError.Tool
// were renamed or removed this round). A Type.Member name is checked when
// Type is a type with recorded members.
func TestDocsNameTheCurrentAPI(t *testing.T) {
	api := apiNames(t)
	require.NotEmpty(t, api["threads"])
	hasMembers := func(pkg, typ string) bool {
		for name := range api[pkg] {
			if strings.HasPrefix(name, typ+".") {
				return true
			}
		}
		return false
	}

	texts := docPages(t)
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == filepath.Join("internal", "tools") || path == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			texts = append(texts, path)
		}
		return nil
	})
	require.NoError(t, err)
	name := regexp.MustCompile(`\b(threads|runs|proxy|threadstest|redisstore|storetest|threadsotel|threadsmcp)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	checked := 0
	for _, path := range texts {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(path, ".go") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue // Go code, which the compiler checks
			}
			for _, m := range name.FindAllStringSubmatch(line, -1) {
				pkg, a, b := m[1], m[2], m[3]
				if strings.HasPrefix(a, "Example") || api[pkg] == nil {
					continue
				}
				checked++
				if !api[pkg][a] {
					t.Errorf("%s:%d: %s.%s is not in api/ (renamed or removed?)", path, i+1, pkg, a)
					continue
				}
				if b != "" && hasMembers(pkg, a) && !api[pkg][a+"."+b] {
					t.Errorf("%s:%d: %s.%s.%s is not in api/ (renamed or removed?)", path, i+1, pkg, a, b)
				}
			}
		}
	}
	require.Positive(t, checked)
}

// TestDocLinksResolve: every doc link of the public packages' comments
// ([Name], [Type.Member], [pkg.Name], [*pkg.Type]) names something api/
// records; go doc and pkg.go.dev show one that does not as plain text, and
// nothing else notices it.
func TestDocLinksResolve(t *testing.T) {
	api := apiNames(t)
	dirs := map[string]string{".": "threads", "runs": "runs", "proxy": "proxy", "threadstest": "threadstest",
		filepath.Join("proxy", "storetest"): "storetest", filepath.Join("proxy", "redisstore"): "redisstore",
		"otel": "threadsotel", "mcp": "threadsmcp"}
	imported := map[string]bool{"threads": true, "runs": true, "proxy": true, "threadstest": true,
		"storetest": true, "redisstore": true, "threadsotel": true, "threadsmcp": true}
	link := regexp.MustCompile(`\[\*?([A-Za-z_][\w.]*)\]`)
	checked := 0
	for dir, pkg := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for i, line := range strings.Split(string(b), "\n") {
				if !strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				for _, m := range link.FindAllStringSubmatch(line, -1) {
					p, name := pkg, m[1]
					if first, rest, ok := strings.Cut(name, "."); ok && imported[first] {
						p, name = first, rest
					} else if name[0] < 'A' || name[0] > 'Z' {
						continue // another package's link (http.Handler, json.RawMessage...)
					}
					if strings.ToUpper(name) == name {
						continue // text in brackets, such as [REDACTED], not a link
					}
					checked++
					if !api[p][name] {
						t.Errorf("%s:%d: doc link [%s] names nothing in api/%s", f, i+1, m[1], p)
					}
				}
			}
		}
	}
	require.Positive(t, checked)
}
