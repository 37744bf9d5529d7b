// Package routecheck is a test helper: it finds where a package's
// production files build routes, so that each package's test can hold it
// to its claim that one file (its routes.go) lists every route.
package routecheck

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Literals returns, for each non-test Go file of dir, the composite
// literals whose type (as printed: "route.Route", "endpoint[Thread]")
// starts with one of the prefixes, as "file:line type".
func Literals(dir string, prefixes ...string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var found []string
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || lit.Type == nil {
				return true
			}
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, lit.Type); err != nil {
				return true
			}
			for _, p := range prefixes {
				if strings.HasPrefix(b.String(), p) {
					pos := fset.Position(lit.Pos())
					found = append(found, filepath.Base(pos.Filename)+":"+strconv.Itoa(pos.Line)+" "+b.String())
					break
				}
			}
			return true
		})
	}
	sort.Strings(found)
	return found, nil
}
