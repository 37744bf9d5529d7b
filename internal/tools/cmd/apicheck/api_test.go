package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// typeCheck type-checks one file of package p (stdlib imports only).
func typeCheck(t *testing.T, path, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(path, fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

const apiSource = `package p

import "context"

const Untyped = 1 << 20
const Typed Kind = "k"
const unexportedConst = 2

type Kind string

var V []func(name string) error

func F(ctx context.Context, opts ...Option) (*T, error) { return nil, nil }
func G[E any, K comparable](E, K) {}
func unexportedFunc() {}

type Option interface{ apply() }
type Public interface {
	B(n int) string
	A()
}

type inner struct {
	Promoted int
	hidden   int
}

func (inner) InnerMethod()  {}
func (*inner) InnerPtr()    {}
func (inner) innerPrivate() {}

type Embedded struct{}

func (Embedded) EmbMethod() {}

type T struct {
	Field map[string][]chan<- int
	inner
	Embedded
	unexported int
	Anon       struct{ X, y int }
}

func (t T) Value()                      {}
func (t *T) Pointer(cb func(n int) bool) {}
func (t *T) private()                   {}

type Page[E any] struct{ Items []E }

func (p *Page[E]) Next() (E, bool) { var e E; return e, false }

type Alias = T
type Func func(a, b int) (sum int)
type hidden struct{}

func (hidden) Exported() {}
`

// TestAPILines pins the format: one line per exported name, field and
// method (promoted ones under the outer type, pointer methods apart), an
// interface's summary line, no parameter names, no unexported names.
func TestAPILines(t *testing.T) {
	got := strings.Join(apiLines(typeCheck(t, "example.com/p", apiSource)), "\n")
	want := `pkg p, const Typed Kind = "k"
pkg p, const Untyped untyped int = 1048576
pkg p, func F(context.Context, ...Option) (*T, error)
pkg p, func G[E any, K comparable](E, K)
pkg p, method (*Page[E]) Next() (E, bool)
pkg p, method (*T) InnerPtr()
pkg p, method (*T) Pointer(func(int) bool)
pkg p, method (Embedded) EmbMethod()
pkg p, method (T) EmbMethod()
pkg p, method (T) InnerMethod()
pkg p, method (T) Value()
pkg p, type Alias = T
pkg p, type Embedded struct
pkg p, type Func func(int, int) int
pkg p, type Kind string
pkg p, type Option interface { unexported methods }
pkg p, type Page[E any] struct
pkg p, type Page[E any] struct, Items []E
pkg p, type Public interface { A, B }
pkg p, type Public interface, A()
pkg p, type Public interface, B(int) string
pkg p, type T struct
pkg p, type T struct, Anon struct{X int; y int}
pkg p, type T struct, Field map[string][]chan<- int
pkg p, type T struct, Promoted int
pkg p, type T struct, embedded Embedded
pkg p, var V []func(string) error`
	if got != want {
		t.Errorf("apiLines:\n%s\n\nwant:\n%s", got, want)
	}
}

// TestAPILinesIgnoreSpelling: renaming a parameter (as WithRetryWait's
// were), spelling interface{} as any, or reordering declarations changes
// nothing a caller sees, so it changes no line.
func TestAPILinesIgnoreSpelling(t *testing.T) {
	before := typeCheck(t, "example.com/p", `package p
func Wait(min, max int, fn func(x interface{}) error) {}
type A struct{ X int }
func (a *A) M(v interface{}) {}
`)
	after := typeCheck(t, "example.com/p", `package p
func (self *A) M(value any) {}
type A struct{ X int }
func Wait(minWait, maxWait int, callback func(any) error) {}
`)
	b, a := strings.Join(apiLines(before), "\n"), strings.Join(apiLines(after), "\n")
	if a != b {
		t.Errorf("lines changed:\n%s\n\nto:\n%s", b, a)
	}
}

// TestAPILinesInterfaceMethodAdded: adding a method to an interface that
// callers implement breaks them; the summary line changes, so a removed
// line shows it even in a plain diff of the files.
func TestAPILinesInterfaceMethodAdded(t *testing.T) {
	before := apiLines(typeCheck(t, "example.com/p", "package p\ntype I interface{ A() }\n"))
	after := apiLines(typeCheck(t, "example.com/p", "package p\ntype I interface{ A(); B() }\n"))
	diff := lineDiff([]byte(strings.Join(before, "\n")), []byte(strings.Join(after, "\n")))
	want := "-pkg p, type I interface { A }"
	if len(diff) == 0 || diff[0] != want {
		t.Errorf("diff %q, want it to start with %q", diff, want)
	}
}
