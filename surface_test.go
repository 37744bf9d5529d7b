package threads_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSurface keeps the public API readable in go doc and on pkg.go.dev:
// no exported type is an alias (go doc shows an alias without its fields),
// every exported identifier and every exported method of an exported type
// has a doc comment (a group's comment counts for its members), and every
// exported field of the generated model (types.gen.go) has a comment.
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
						}
					}
				}
			}
		}
	}
	return out
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
