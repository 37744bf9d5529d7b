package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/exp/apidiff"
)

// The baseline is the API callers have: a commit of main's history named in
// api/baseline, the last release (before the first release, the commit the
// guard started from). Counting from a recorded commit rather than from
// "the commit before this one" makes the check a property of the tree:
// it gives the same answer on every clone with the history, at every
// commit, whatever order branches were merged in and however many commits
// a change took; and no incompatible change can hide behind a later
// compatible one. A release moves it (`bash .ci/api.sh baseline vX.Y.Z`).
const baselineFile = "api/baseline"

var errNoBaseline = errors.New("no " + baselineFile)

// readBaseline returns the revision named in api/baseline: its first line
// that is neither blank nor a # comment.
func readBaseline(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, baselineFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: record the API callers have with `bash .ci/api.sh baseline REV`", errNoBaseline)
	}
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			return line, nil
		}
	}
	return "", fmt.Errorf("%s names no revision", baselineFile)
}

func setBaseline(out io.Writer, root, rev string) error {
	hash, err := resolve(root, rev)
	if err != nil {
		return err
	}
	text := fmt.Sprintf(`# The API callers have (%s): every incompatible change since this commit needs a
# **Breaking** entry in CHANGELOG.md written since it (checked by .ci/run with
# golang.org/x/exp/apidiff). Move it at each release: bash .ci/api.sh baseline vX.Y.Z
%s
`, rev, hash)
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, baselineFile), []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s: %s (%s)\n", baselineFile, hash, rev)
	return nil
}

func git(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%v: %s", err, msg)
		}
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

func resolve(root, rev string) (string, error) {
	out, err := git(root, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s names %q, which this clone does not have (a shallow clone? `git fetch --unshallow` brings the history): %w", baselineFile, rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// baselineTree returns a directory holding the tree of commit hash. It is
// kept in the user's cache directory, one per baseline, because the go
// command's build cache keys a package on its directory: a fresh temporary
// directory would cost a compile of the baseline's packages (2-3 s on two
// busy cores) on every check, a kept one costs it once. Without a cache
// directory the tree goes to a temporary directory that cleanup removes.
func baselineTree(root, hash string) (dir string, cleanup func(), err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		tmp, err := os.MkdirTemp("", "apicheck-baseline-")
		if err != nil {
			return "", nil, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		if err := extract(root, hash, tmp); err != nil {
			cleanup()
			return "", nil, err
		}
		return tmp, cleanup, nil
	}
	parent := filepath.Join(cache, "threads-go-apicheck")
	dir = filepath.Join(parent, hash)
	if _, err := os.Stat(dir); err == nil {
		return dir, func() {}, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", nil, err
	}
	// Extract beside it and rename: a concurrent check or an interrupted
	// one never leaves a half-written tree under the final name.
	tmp, err := os.MkdirTemp(parent, "tmp-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp) // gone after the rename; what is left if not
	if err := extract(root, hash, tmp); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			return "", nil, err
		}
		// Another check renamed its copy first: use that one.
	}
	return dir, func() {}, nil
}

// extract writes the tree of commit hash into dir.
func extract(root, hash, dir string) error {
	cmd := exec.Command("git", "-C", root, "archive", "--format=tar", hash)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	werr := untar(out, dir)
	if werr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", hash, err, strings.TrimSpace(stderr.String()))
	}
	return werr
}

func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("git archive: unexpected path %q", h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// incompatibility is one incompatible change apidiff found.
type incompatibility struct {
	pkg     string // the package's name
	message string // apidiff's message, "Name: what changed"
}

// incompatibleChanges compares the public packages of old and new by
// import path: a package that is gone is one incompatible change; in a
// package both have, apidiff lists them. compatible counts the rest.
func incompatibleChanges(old, new []*types.Package) (out []incompatibility, compatible int) {
	byPath := map[string]*types.Package{}
	for _, p := range new {
		byPath[p.Path()] = p
	}
	oldPaths := map[string]bool{}
	for _, op := range old {
		oldPaths[op.Path()] = true
		np, ok := byPath[op.Path()]
		if !ok {
			out = append(out, incompatibility{op.Name(), "package " + op.Path() + ": removed"})
			continue
		}
		for _, c := range apidiff.Changes(op, np).Changes {
			// A release sets a new value of its Version constant: no
			// program can rely on the old one.
			if c.Compatible || strings.HasPrefix(c.Message, "Version: value changed from ") {
				compatible++
				continue
			}
			out = append(out, incompatibility{np.Name(), c.Message})
		}
	}
	for _, np := range new {
		if !oldPaths[np.Path()] {
			compatible++
		}
	}
	return out, compatible
}

// changedNames returns the identifiers a CHANGELOG entry must name for an
// apidiff message: "(*Server).ThreadCount: removed" needs Server and
// ThreadCount, "ToolCall: removed" needs ToolCall, "package p/q: removed"
// needs q.
func changedNames(message string) []string {
	name, _, _ := strings.Cut(message, ": ")
	if path, ok := strings.CutPrefix(name, "package "); ok {
		return []string{path[strings.LastIndex(path, "/")+1:]}
	}
	// "T.M, method set of *U": the method M of an embedded T is gone.
	name, _, _ = strings.Cut(name, ", ")
	// An object of another package is written with its import path
	// ("example.com/m/p.T", "./sub.T"): keep what follows the package.
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
		if j := strings.Index(name, "."); j >= 0 {
			name = name[j+1:]
		}
	}
	// Type arguments ("(*Page[T]).Next") are not names to look for.
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.FieldsFunc(b.String(), func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f)
	})
}

// changelogEntries splits a Markdown changelog into its top-level list
// items (a line starting "- " or "* " and the indented lines after it),
// each with its white space collapsed.
func changelogEntries(text string) []string {
	var entries []string
	var cur []string
	flush := func() {
		if cur != nil {
			entries = append(entries, strings.Join(strings.Fields(strings.Join(cur, " ")), " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* "):
			flush()
			cur = []string{line}
		case cur != nil && strings.TrimSpace(line) != "" && (line[0] == ' ' || line[0] == '\t'):
			cur = append(cur, line)
		default:
			flush()
		}
	}
	flush()
	return entries
}

// newBreakingEntries returns the **Breaking** entries of now that are not
// in before (an entry rewritten since counts as new).
func newBreakingEntries(before, now string) []string {
	old := map[string]bool{}
	for _, e := range changelogEntries(before) {
		old[e] = true
	}
	var out []string
	for _, e := range changelogEntries(now) {
		if !old[e] && strings.Contains(e, "**Breaking") {
			out = append(out, e)
		}
	}
	return out
}

// coveringEntry returns the first entry that names every one of names as a
// whole word, or "".
func coveringEntry(entries []string, names []string) string {
	res := make([]*regexp.Regexp, len(names))
	for i, n := range names {
		res[i] = regexp.MustCompile(`(^|[^\pL\pN_])` + regexp.QuoteMeta(n) + `($|[^\pL\pN_])`)
	}
next:
	for _, e := range entries {
		for _, re := range res {
			if !re.MatchString(e) {
				continue next
			}
		}
		return e
	}
	return ""
}

// checkBreaking finds the incompatible changes between the baseline and
// now, and fails unless each is named by a **Breaking** entry that
// CHANGELOG.md gained since the baseline.
func checkBreaking(out io.Writer, root string, now []*types.Package) (bool, error) {
	rev, err := readBaseline(root)
	if err != nil {
		return false, err
	}
	hash, err := resolve(root, rev)
	if err != nil {
		return false, err
	}
	short := hash[:12]

	tree, cleanup, err := baselineTree(root, hash)
	if err != nil {
		return false, err
	}
	defer cleanup()
	old, err := publicPackages(tree)
	if err != nil {
		return false, fmt.Errorf("the baseline %s: %w", short, err)
	}
	changes, compatible := incompatibleChanges(old, now)

	before, err := git(root, "show", hash+":CHANGELOG.md")
	if err != nil {
		before = nil // no changelog then: every entry is new
	}
	current, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	entries := newBreakingEntries(string(before), string(current))

	if len(changes) == 0 {
		fmt.Fprintf(out, "no incompatible change since the baseline %s (%s); %d compatible\n", short, baselineFile, compatible)
		return true, nil
	}
	fmt.Fprintf(out, "incompatible changes since the baseline %s (%s), by golang.org/x/exp/apidiff; %d compatible:\n", short, baselineFile, compatible)
	var missing []string
	for _, c := range changes {
		names := changedNames(c.message)
		e := coveringEntry(entries, names)
		if e == "" {
			fmt.Fprintf(out, "  MISSING  %s: %s\n", c.pkg, c.message)
			missing = append(missing, c.pkg+"."+strings.Join(names, "."))
			continue
		}
		fmt.Fprintf(out, "  ok       %s: %s  (CHANGELOG: %.70s...)\n", c.pkg, c.message, e)
	}
	if len(missing) > 0 {
		fmt.Fprintf(out, "\nFAIL: %d incompatible change(s) have no **Breaking** entry in CHANGELOG.md. Each needs a\n"+
			"list entry under \"## [Unreleased]\", written since the baseline, that contains \"**Breaking\",\n"+
			"names the changed identifier(s) (%s) and says how to migrate\n"+
			"(\"- **Breaking: `X` is renamed `Y`.** Migrate: ...\"); or undo the change.\n",
			len(missing), strings.Join(missing, ", "))
		return false, nil
	}
	return true, nil
}
