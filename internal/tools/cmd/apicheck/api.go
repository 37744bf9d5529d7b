package main

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
)

// apiLines returns the exported API of pkg, one line per feature, sorted, in
// the manner of the Go project's api/*.txt files: "pkg NAME, func F(int)
// error", "pkg NAME, type T struct, Field string", "pkg NAME, method (*T)
// M() error". Parameter names are left out (renaming one is no change for a
// caller); a method set lists promoted methods under the outer type, since a
// caller calls them there; an interface also gets a summary line naming all
// its methods, so adding one changes a line.
func apiLines(pkg *types.Package) []string {
	w := &apiWriter{pkg: pkg, prefix: "pkg " + pkg.Name() + ", "}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			w.emit("const %s %s = %s", name, w.typ(obj.Type()), obj.Val().ExactString())
		case *types.Var:
			w.emit("var %s %s", name, w.typ(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			w.emit("func %s%s%s", name, w.typeParams(sig.TypeParams()), w.signature(sig))
		case *types.TypeName:
			w.typeDecl(obj)
		}
	}
	sort.Strings(w.lines)
	out := w.lines[:0]
	for i, l := range w.lines {
		if i == 0 || l != w.lines[i-1] {
			out = append(out, l)
		}
	}
	return out
}

type apiWriter struct {
	pkg    *types.Package
	prefix string
	lines  []string
}

func (w *apiWriter) emit(format string, args ...any) {
	w.lines = append(w.lines, w.prefix+fmt.Sprintf(format, args...))
}

// qualifier writes another package's types with its name, as a caller
// writes them, and this package's types bare.
func (w *apiWriter) qualifier(p *types.Package) string {
	if p == w.pkg {
		return ""
	}
	return p.Name()
}

func (w *apiWriter) qualified(obj types.Object) string {
	if obj.Pkg() == nil || obj.Pkg() == w.pkg {
		return obj.Name()
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

func (w *apiWriter) typeDecl(obj *types.TypeName) {
	name := obj.Name()
	if alias, ok := obj.Type().(*types.Alias); ok {
		w.emit("type %s%s = %s", name, w.typeParams(alias.TypeParams()), w.typ(alias.Rhs()))
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok { // an alias while gotypesalias=0
		w.emit("type %s = %s", name, w.typ(obj.Type()))
		return
	}
	head := name + w.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		w.emit("type %s struct", head)
		w.fields(head, u, map[*types.Struct]bool{u: true})
	case *types.Interface:
		if !u.IsMethodSet() {
			w.emit("type %s %s", head, types.TypeString(u, w.qualifier))
			return
		}
		var names []string
		unexported := false
		for i := range u.NumMethods() {
			m := u.Method(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			w.emit("type %s interface, %s%s", head, m.Name(), w.signature(m.Type().(*types.Signature)))
		}
		sort.Strings(names)
		if unexported {
			names = append(names, "unexported methods")
		}
		summary := "interface {}"
		if len(names) > 0 {
			summary = "interface { " + strings.Join(names, ", ") + " }"
		}
		w.emit("type %s %s", head, summary)
		return // an interface's methods are listed above
	default:
		w.emit("type %s %s", head, w.typ(u))
	}

	// The method set of T, then what *T adds to it: what a caller can call
	// on a value and on a pointer, promoted methods included.
	recv := name + w.typeParamNames(named.TypeParams())
	seen := map[string]bool{}
	vset := types.NewMethodSet(named)
	for i := range vset.Len() {
		m := vset.At(i).Obj()
		if m.Exported() {
			seen[m.Name()] = true
			w.emit("method (%s) %s%s", recv, m.Name(), w.signature(m.Type().(*types.Signature)))
		}
	}
	pset := types.NewMethodSet(types.NewPointer(named))
	for i := range pset.Len() {
		m := pset.At(i).Obj()
		if m.Exported() && !seen[m.Name()] {
			w.emit("method (*%s) %s%s", recv, m.Name(), w.signature(m.Type().(*types.Signature)))
		}
	}
}

// fields lists a struct's exported fields; an exported embedded type is one
// line, an unexported embedded struct's exported fields are promoted to the
// outer struct and listed as its own.
func (w *apiWriter) fields(head string, s *types.Struct, seen map[*types.Struct]bool) {
	for i := range s.NumFields() {
		f := s.Field(i)
		if f.Embedded() {
			if f.Exported() {
				w.emit("type %s struct, embedded %s", head, w.typ(f.Type()))
				continue
			}
			t := f.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if inner, ok := t.Underlying().(*types.Struct); ok && !seen[inner] {
				seen[inner] = true
				w.fields(head, inner, seen)
			}
			continue
		}
		if f.Exported() {
			w.emit("type %s struct, %s %s", head, f.Name(), w.typ(f.Type()))
		}
	}
}

func (w *apiWriter) typeParams(list *types.TypeParamList) string {
	if list.Len() == 0 {
		return ""
	}
	parts := make([]string, list.Len())
	for i := range list.Len() {
		tp := list.At(i)
		parts[i] = tp.Obj().Name() + " " + w.typ(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (w *apiWriter) typeParamNames(list *types.TypeParamList) string {
	if list.Len() == 0 {
		return ""
	}
	parts := make([]string, list.Len())
	for i := range list.Len() {
		parts[i] = list.At(i).Obj().Name()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature writes "(params) results" with types only.
func (w *apiWriter) signature(sig *types.Signature) string {
	var b strings.Builder
	b.WriteByte('(')
	params := sig.Params()
	for i := range params.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := params.At(i).Type()
		if sig.Variadic() && i == params.Len()-1 {
			if s, ok := t.(*types.Slice); ok {
				b.WriteString("..." + w.typ(s.Elem()))
				continue
			}
		}
		b.WriteString(w.typ(t))
	}
	b.WriteByte(')')
	results := sig.Results()
	switch results.Len() {
	case 0:
	case 1:
		b.WriteString(" " + w.typ(results.At(0).Type()))
	default:
		b.WriteString(" (")
		for i := range results.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.typ(results.At(i).Type()))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// typ writes a type as a caller would, except that function types inside it
// carry no parameter names (types.TypeString would keep them) and an empty
// interface is "any" however it was spelled.
func (w *apiWriter) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Basic:
		return t.Name()
	case *types.Pointer:
		return "*" + w.typ(t.Elem())
	case *types.Slice:
		return "[]" + w.typ(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), w.typ(t.Elem()))
	case *types.Map:
		return "map[" + w.typ(t.Key()) + "]" + w.typ(t.Elem())
	case *types.Chan:
		elem := w.typ(t.Elem())
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + elem
		case types.RecvOnly:
			return "<-chan " + elem
		}
		if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
			return "chan (" + elem + ")"
		}
		return "chan " + elem
	case *types.Signature:
		return "func" + w.signature(t)
	case *types.Named:
		return w.qualified(t.Obj()) + w.typeArgs(t.TypeArgs())
	case *types.Alias:
		if t.Obj().Pkg() == nil && t.Obj().Name() == "any" {
			return "any"
		}
		return w.qualified(t.Obj()) + w.typeArgs(t.TypeArgs())
	case *types.TypeParam:
		return t.Obj().Name()
	case *types.Struct:
		parts := make([]string, t.NumFields())
		for i := range t.NumFields() {
			f := t.Field(i)
			if f.Embedded() {
				parts[i] = w.typ(f.Type())
			} else {
				parts[i] = f.Name() + " " + w.typ(f.Type())
			}
		}
		return "struct{" + strings.Join(parts, "; ") + "}"
	case *types.Interface:
		if t.Empty() {
			return "any"
		}
		if !t.IsMethodSet() {
			return types.TypeString(t, w.qualifier)
		}
		parts := make([]string, t.NumMethods())
		for i := range t.NumMethods() {
			m := t.Method(i)
			parts[i] = m.Name() + w.signature(m.Type().(*types.Signature))
		}
		return "interface{" + strings.Join(parts, "; ") + "}"
	}
	return types.TypeString(t, w.qualifier)
}

func (w *apiWriter) typeArgs(list *types.TypeList) string {
	if list.Len() == 0 {
		return ""
	}
	parts := make([]string, list.Len())
	for i := range list.Len() {
		parts[i] = w.typ(list.At(i))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
