// Command apicheck is the repository's API guard (run it as
// `bash .ci/api.sh [check|update|baseline REV]`).
//
//	update        writes api/<package>.txt, the exported API of every package
//	              a user can import (one line per exported name, field and
//	              method, as the Go project's api/*.txt files are)
//	check         fails when the API differs from api/*.txt (an unrecorded
//	              change), or when an incompatible change since the baseline
//	              release (api/baseline) has no **Breaking** entry in
//	              CHANGELOG.md written since that release
//	baseline REV  records REV (a tag or commit of main) in api/baseline: the
//	              API callers have, that incompatible changes are counted from
//
// Incompatible changes are found by golang.org/x/exp/apidiff (the library of
// cmd/apidiff) between the packages as they were at the baseline commit
// (taken from git history with git archive) and the working tree.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const updateHint = "bash .ci/api.sh update"

func main() {
	root := flag.String("root", ".", "the repository's top directory")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: apicheck [-root DIR] check | update | baseline REV")
		flag.PrintDefaults()
	}
	flag.Parse()
	dir, err := filepath.Abs(*root)
	if err != nil {
		fatal(err)
	}
	switch flag.Arg(0) {
	case "check":
		if flag.NArg() != 1 {
			usage()
		}
		ok, err := check(os.Stdout, dir)
		if err != nil {
			fatal(err)
		}
		if !ok {
			os.Exit(1)
		}
	case "update":
		if flag.NArg() != 1 {
			usage()
		}
		if err := update(os.Stdout, dir); err != nil {
			fatal(err)
		}
	case "baseline":
		if flag.NArg() != 2 {
			usage()
		}
		if err := setBaseline(os.Stdout, dir, flag.Arg(1)); err != nil {
			fatal(err)
		}
	default:
		usage()
	}
}

func usage() {
	flag.Usage()
	os.Exit(2)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "apicheck:", err)
	os.Exit(1)
}

// apiFiles renders the API of pkgs as the contents of api/<name>.txt, keyed
// by file name.
func apiFiles(pkgs []*types.Package) (map[string][]byte, error) {
	files := map[string][]byte{}
	owner := map[string]string{}
	for _, p := range pkgs {
		name := p.Name() + ".txt"
		if prev, ok := owner[name]; ok {
			return nil, fmt.Errorf("packages %s and %s are both named %s: api/%s cannot hold both", prev, p.Path(), p.Name(), name)
		}
		owner[name] = p.Path()
		var b bytes.Buffer
		fmt.Fprintf(&b, "# The exported API of %s (package %s). Written by `%s`; do not edit.\n", p.Path(), p.Name(), updateHint)
		for _, l := range apiLines(p) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		files[name] = b.Bytes()
	}
	return files, nil
}

// committedFiles reads api/*.txt.
func committedFiles(root string) (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join(root, "api", "*.txt"))
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(n)] = b
	}
	return files, nil
}

func update(out io.Writer, root string) error {
	pkgs, err := publicPackages(root)
	if err != nil {
		return err
	}
	want, err := apiFiles(pkgs)
	if err != nil {
		return err
	}
	have, err := committedFiles(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		return err
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			if err := os.Remove(filepath.Join(root, "api", name)); err != nil {
				return err
			}
			fmt.Fprintf(out, "removed api/%s (no such package now)\n", name)
		}
	}
	for _, name := range sortedKeys(want) {
		if bytes.Equal(have[name], want[name]) {
			continue
		}
		if err := os.WriteFile(filepath.Join(root, "api", name), want[name], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote api/%s\n", name)
	}
	return nil
}

// check runs both checks and prints what each found; ok is false when
// either failed.
func check(out io.Writer, root string) (ok bool, err error) {
	pkgs, err := publicPackages(root)
	if err != nil {
		return false, err
	}
	recorded, err := checkRecorded(out, root, pkgs)
	if err != nil {
		return false, err
	}
	fmt.Fprintln(out)
	compatible, err := checkBreaking(out, root, pkgs)
	if err != nil {
		return false, err
	}
	return recorded && compatible, nil
}

// checkRecorded compares the API with api/*.txt and prints the difference.
func checkRecorded(out io.Writer, root string, pkgs []*types.Package) (bool, error) {
	want, err := apiFiles(pkgs)
	if err != nil {
		return false, err
	}
	have, err := committedFiles(root)
	if err != nil {
		return false, err
	}
	names := sortedKeys(want)
	for name := range have {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	same := true
	for _, name := range names {
		if bytes.Equal(have[name], want[name]) {
			continue
		}
		same = false
		switch {
		case have[name] == nil:
			fmt.Fprintf(out, "api/%s is missing (a new package?); it would hold:\n", name)
		case want[name] == nil:
			fmt.Fprintf(out, "api/%s records a package that no longer exists:\n", name)
		default:
			fmt.Fprintf(out, "api/%s differs from the exported API (- recorded, + now):\n", name)
		}
		for _, l := range lineDiff(have[name], want[name]) {
			fmt.Fprintln(out, l)
		}
	}
	if !same {
		fmt.Fprintf(out, "\nFAIL: the exported API changed without its record in api/. If the change is meant, run\n"+
			"    %s\nand commit api/ with it (reviewers see the API change there); otherwise undo it.\n", updateHint)
		return false, nil
	}
	fmt.Fprintf(out, "api/*.txt matches the exported API of %d packages\n", len(pkgs))
	return true, nil
}

// lineDiff lists the lines only in a ("-") and only in b ("+"). The files
// are sorted sets of lines, so a set difference is the whole story.
func lineDiff(a, b []byte) []string {
	inA := map[string]bool{}
	for _, l := range strings.Split(string(a), "\n") {
		inA[l] = true
	}
	inB := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		inB[l] = true
	}
	var out []string
	for l := range inA {
		if !inB[l] && l != "" {
			out = append(out, "-"+l)
		}
	}
	for l := range inB {
		if !inA[l] && l != "" {
			out = append(out, "+"+l)
		}
	}
	// Removed before added, each in file order.
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] == '-'
		}
		return out[i] < out[j]
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
