package threads_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	_ = threadstest.Start
)

func main() {}
`

// TestReadmeCodeBlocksCompile builds every Go code block of README.md: whole
// programs as they are, top-level declarations and statement fragments
// inside the prelude above.
func TestReadmeCodeBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	// A fence closes only on a line of its own (CommonMark): text after
	// the backticks would leave the block open and swallow the page.
	for i, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "```") && strings.Trim(line, "`") != "" && !regexp.MustCompile("^```[a-z]+$").MatchString(line) {
			t.Errorf("README.md:%d: a fence with text after it: %q", i+1, line)
		}
	}
	blocks := regexp.MustCompile("(?sm)^```go\n(.*?)^```$").FindAllStringSubmatch(string(readme), -1)
	require.NotEmpty(t, blocks)

	// Build in a temporary module that requires this one through a replace
	// directive, so the blocks compile against the working tree and the
	// test writes nothing inside the package (which may be read-only, as in
	// the module cache).
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	gomod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	gosum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(gomod), "\n") // drop the module line
	require.True(t, ok)
	dir := t.TempDir()
	mod := "module readmecheck\n" + rest + fmt.Sprintf("\nrequire github.com/threadsapi/threads-go v0.0.0\n\nreplace github.com/threadsapi/threads-go => %q\n", root)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644))
	var pkgs []string
	for i, b := range blocks {
		code := b[1]
		var src string
		switch {
		case strings.HasPrefix(code, "package "):
			src = code
		case strings.HasPrefix(code, "func "):
			src = readmePrelude + "\n" + code
		default:
			src = readmePrelude + "\nfunc snippet(ctx context.Context, client *threads.Client, threadID string) error {\n" + code + "\nreturn nil\n}\n"
		}
		pkg := filepath.Join(dir, fmt.Sprint("block", i))
		require.NoError(t, os.MkdirAll(pkg, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(pkg, "main.go"), []byte(src), 0o644))
		pkgs = append(pkgs, "./"+fmt.Sprint("block", i))
	}
	cmd := exec.Command("go", append([]string{"build", "-o", os.DevNull}, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "README code blocks do not compile:\n%s", out)
	t.Logf("%d README code blocks compile", len(blocks))
}
