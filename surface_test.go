package threads_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSurface keeps the public API readable in go doc and on pkg.go.dev:
// no exported type is an alias (go doc shows an alias without its fields),
// every exported identifier and every exported method of an exported type
// has a doc comment (a group's comment counts for its members), and every
// exported field of the generated model (types.gen.go) has a comment, and
// no exported signature, field or variable names an unexported type (go
// doc would show a name a caller cannot write).
func TestSurface(t *testing.T) {
	t.Parallel()
	for name, dir := range map[string]string{"threads": ".", "threadstest": "threadstest"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, offender := range surfaceOffenders(t, dir) {
				t.Error(offender)
			}
		})
	}
}

// TestSurfaceNoUnexportedTypes: in every public package, including runs,
// no exported function, method, type or variable shows an unexported type
// in go doc, a name the caller could not write (the doc-comment rules of
// TestSurface are not applied to runs here).
func TestSurfaceNoUnexportedTypes(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "threadstest", "runs"} {
		for _, offender := range surfaceOffenders(t, dir) {
			if strings.Contains(offender, "unexported type") {
				t.Error(offender)
			}
		}
	}
}

// surfaceOffenders parses the non-test Go files of dir and names each
// declaration that breaks a rule of TestSurface.
func surfaceOffenders(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		generated := filepath.Base(path) == "types.gen.go"
		where := func(n ast.Node) string { return fset.Position(n.Pos()).String() }
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverType(d.Recv)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				if !hasText(d.Doc) {
					out = append(out, where(d)+": func "+name+" has no doc comment")
				}
				for _, u := range unexportedTypes(d.Type, typeParams(d)) {
					out = append(out, where(d)+": func "+name+" names unexported type "+u)
				}
			case *ast.GenDecl:
				groupDoc := d.Lparen.IsValid() && hasText(d.Doc)
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.Assign.IsValid() {
							out = append(out, where(s)+": type "+s.Name.Name+" is an alias; declare it so go doc shows it")
						}
						if !hasText(s.Doc) && !hasText(d.Doc) {
							out = append(out, where(s)+": type "+s.Name.Name+" has no doc comment")
						}
						for _, u := range unexportedTypes(s.Type, fieldNames(s.TypeParams)) {
							out = append(out, where(s)+": type "+s.Name.Name+" shows unexported type "+u)
						}
						if st, ok := s.Type.(*ast.StructType); ok && generated {
							for _, field := range st.Fields.List {
								for _, n := range field.Names {
									if n.IsExported() && !hasText(field.Doc) && !hasText(field.Comment) {
										out = append(out, where(n)+": field "+s.Name.Name+"."+n.Name+" has no comment")
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && !hasText(s.Doc) && !hasText(s.Comment) && !groupDoc && !hasText(d.Doc) {
								out = append(out, where(n)+": "+d.Tok.String()+" "+n.Name+" has no doc comment")
							}
							if n.IsExported() && s.Type != nil {
								for _, u := range unexportedTypes(s.Type, nil) {
									out = append(out, where(n)+": "+d.Tok.String()+" "+n.Name+" has unexported type "+u)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// predeclared are the lower-case type names a signature may show.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "rune": true, "string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true,
}

// unexportedTypes returns the unexported type names that the type
// expression e shows in go doc: in parameters, results, exported fields,
// interface methods, element types and constraints. An unexported field
// is left out (go doc hides it), and so are the names in params (type
// parameters in scope). A qualified name (pkg.T) is exported by form.
func unexportedTypes(e ast.Expr, params map[string]bool) []string {
	var out []string
	var walk func(e ast.Expr)
	fields := func(l *ast.FieldList, all bool) {
		if l == nil {
			return
		}
		for _, f := range l.List {
			if !all && len(f.Names) > 0 && !slices.ContainsFunc(f.Names, (*ast.Ident).IsExported) {
				continue // unexported struct fields or interface methods
			}
			if !all && len(f.Names) == 0 {
				if id, ok := ast.Unparen(f.Type).(*ast.Ident); ok && !id.IsExported() && !predeclared[id.Name] {
					// An embedded unexported type: go doc hides it (its
					// promoted methods, if any, show as the outer type's).
					continue
				}
				if st, ok := f.Type.(*ast.StarExpr); ok {
					if id, ok := st.X.(*ast.Ident); ok && !id.IsExported() {
						continue
					}
				}
			}
			walk(f.Type)
		}
	}
	walk = func(e ast.Expr) {
		switch x := e.(type) {
		case *ast.Ident:
			if !x.IsExported() && !predeclared[x.Name] && !params[x.Name] {
				out = append(out, x.Name)
			}
		case *ast.StarExpr:
			walk(x.X)
		case *ast.ParenExpr:
			walk(x.X)
		case *ast.Ellipsis:
			walk(x.Elt)
		case *ast.ArrayType:
			walk(x.Elt)
		case *ast.MapType:
			walk(x.Key)
			walk(x.Value)
		case *ast.ChanType:
			walk(x.Value)
		case *ast.IndexExpr:
			walk(x.X)
			walk(x.Index)
		case *ast.IndexListExpr:
			walk(x.X)
			for _, i := range x.Indices {
				walk(i)
			}
		case *ast.UnaryExpr: // ~T
			walk(x.X)
		case *ast.BinaryExpr: // T | U
			walk(x.X)
			walk(x.Y)
		case *ast.FuncType:
			fields(x.TypeParams, true)
			fields(x.Params, true)
			fields(x.Results, true)
		case *ast.StructType:
			fields(x.Fields, false)
		case *ast.InterfaceType:
			fields(x.Methods, false)
		}
	}
	walk(e)
	return out
}

// typeParams returns the type parameter names in scope in a function's
// signature: its own and its receiver's (func (l *List[T]) ...).
func typeParams(d *ast.FuncDecl) map[string]bool {
	m := fieldNames(d.Type.TypeParams)
	if d.Recv != nil && len(d.Recv.List) > 0 {
		e := d.Recv.List[0].Type
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		var idx []ast.Expr
		switch x := e.(type) {
		case *ast.IndexExpr:
			idx = []ast.Expr{x.Index}
		case *ast.IndexListExpr:
			idx = x.Indices
		}
		for _, i := range idx {
			if id, ok := i.(*ast.Ident); ok {
				m[id.Name] = true
			}
		}
	}
	return m
}

func fieldNames(l *ast.FieldList) map[string]bool {
	m := map[string]bool{}
	if l != nil {
		for _, f := range l.List {
			for _, n := range f.Names {
				m[n.Name] = true
			}
		}
	}
	return m
}

// receiverType returns the name of a method's receiver type, without * or
// type parameters.
func receiverType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	e := recv.List[0].Type
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func hasText(g *ast.CommentGroup) bool {
	return g != nil && strings.TrimSpace(g.Text()) != ""
}

// maxDocWords bounds an exported declaration's doc comment: go doc answers
// in a screen, and rule catalogues go to sections of the package doc.
const maxDocWords = 150

// longDocsOwnedElsewhere are doc comments over maxDocWords in files that
// other work is rewriting this round; they are shortened there.
var longDocsOwnedElsewhere = map[string]bool{}

// TestDocCommentsShort: no exported declaration, field or interface
// method of a public package has a doc comment over maxDocWords words.
func TestDocCommentsShort(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "runs", "proxy", "proxy/redisstore", "proxy/storetest", "threadstest", "otel", "mcp"} {
		for name, words := range docWords(t, dir) {
			if words > maxDocWords && !longDocsOwnedElsewhere[name] {
				t.Errorf("%s: its doc comment has %d words (at most %d): move the catalogue to a section of the package doc", name, words, maxDocWords)
			}
		}
	}
}

// docWords returns the word count of every exported declaration's doc
// comment in the non-test files of dir, by package-qualified name
// ("threads.Client.Do", "runs.Thread.ID").
func docWords(t *testing.T, dir string) map[string]int {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	out := map[string]int{}
	count := func(name string, g *ast.CommentGroup) {
		if g != nil {
			out[name] = len(strings.Fields(g.Text()))
		}
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		require.NoError(t, err)
		pkg := f.Name.Name + "."
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					name = receiverType(d.Recv) + "." + name
				}
				if d.Name.IsExported() {
					count(pkg+name, d.Doc)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						count(pkg+s.Name.Name, doc)
						var fields *ast.FieldList
						switch ty := s.Type.(type) {
						case *ast.StructType:
							fields = ty.Fields
						case *ast.InterfaceType:
							fields = ty.Methods
						}
						for _, fl := range fieldsOf(fields) {
							for _, n := range fl.Names {
								if n.IsExported() {
									count(pkg+s.Name.Name+"."+n.Name, fl.Doc)
								}
							}
						}
					case *ast.ValueSpec:
						doc := s.Doc
						if doc == nil {
							doc = d.Doc
						}
						for _, n := range s.Names {
							if n.IsExported() {
								count(pkg+n.Name, doc)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// fieldsOf returns l's fields; none for a nil list.
func fieldsOf(l *ast.FieldList) []*ast.Field {
	if l == nil {
		return nil
	}
	return l.List
}

// TestTestsNamedByBehaviour: no test, fuzz target or benchmark of the
// module is named after the review round that wrote it (TestHarden...,
// TestAttack..., TestWave..., TestRound..., TestIssue...): a name says
// what the test shows.
func TestTestsNamedByBehaviour(t *testing.T) {
	t.Parallel()
	round := regexp.MustCompile(`^func (Test|Fuzz|Benchmark)(Harden|Attack|Wave|Round|Issue)[A-Z0-9_]`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if round.MatchString(line) {
				t.Errorf("%s:%d: %s: name the test after what it shows", path, i+1, strings.TrimSuffix(line, " {"))
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// TestRunsTestFilesBesideTheirCode: at least 80% of package runs' test
// files are named after the source file they test (x_test.go for x.go) or
// one of the shared subjects, so that a reader finds a test where it
// looks.
func TestRunsTestFilesBesideTheirCode(t *testing.T) {
	t.Parallel()
	shared := map[string]bool{"example": true, "fuzz": true, "bench": true, "helpers": true, "export": true,
		"main": true, "capture": true, "live": true}
	tests, err := filepath.Glob(filepath.Join("runs", "*_test.go"))
	require.NoError(t, err)
	var unpaired []string
	for _, f := range tests {
		base := strings.TrimSuffix(filepath.Base(f), "_test.go")
		if _, err := os.Stat(filepath.Join("runs", base+".go")); err == nil || shared[base] {
			continue
		}
		unpaired = append(unpaired, filepath.Base(f))
	}
	paired := len(tests) - len(unpaired)
	assert.GreaterOrEqual(t, paired*5, len(tests)*4, "%d of %d test files of runs are paired; not: %v", paired, len(tests), unpaired)
}
