package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkOutput(t *testing.T, dir string) (bool, string) {
	t.Helper()
	var out bytes.Buffer
	ok, err := check(&out, dir)
	if err != nil {
		t.Fatal(err)
	}
	return ok, out.String()
}

// TestCheck runs the guard on a small repository as CI does: a rename
// fails both checks (unrecorded, and no Breaking entry), `update` records
// it, and a Breaking entry naming it makes the check pass.
func TestCheck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	// The baseline's tree goes to the user's cache directory: a temporary
	// one here (on Linux), with the go command's build cache kept where it is.
	t.Setenv("GOCACHE", run(t, ".", "go", "env", "GOCACHE"))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/m\n\ngo 1.25.0\n")
	write(t, dir, "m.go", "// Package m is a package.\npackage m\n\n// F does nothing.\nfunc F() {}\n")
	write(t, dir, "CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n")
	run(t, dir, "git", "init", "-q")
	run(t, dir, "git", "add", ".")
	run(t, dir, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "v1")
	if err := setBaseline(io.Discard, dir, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if err := update(io.Discard, dir); err != nil {
		t.Fatal(err)
	}
	if ok, out := checkOutput(t, dir); !ok {
		t.Fatalf("check failed on the baseline itself:\n%s", out)
	}

	write(t, dir, "m.go", "// Package m is a package.\npackage m\n\n// G does nothing.\nfunc G() {}\n")
	ok, out := checkOutput(t, dir)
	for _, want := range []string{"-pkg m, func F()", "+pkg m, func G()", "bash .ci/api.sh update", "MISSING  m: F: removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if ok {
		t.Fatalf("check passed after a rename:\n%s", out)
	}

	if err := update(io.Discard, dir); err != nil {
		t.Fatal(err)
	}
	ok, out = checkOutput(t, dir)
	if ok || strings.Contains(out, "differs") || !strings.Contains(out, "MISSING  m: F: removed") {
		t.Fatalf("recorded but not in the changelog: ok=%v\n%s", ok, out)
	}

	write(t, dir, "CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n- **Breaking: `F` is renamed `G`.** Migrate: call `G`.\n")
	if ok, out := checkOutput(t, dir); !ok || !strings.Contains(out, "ok       m: F: removed") {
		t.Fatalf("check with the Breaking entry: ok=%v\n%s", ok, out)
	}
}
