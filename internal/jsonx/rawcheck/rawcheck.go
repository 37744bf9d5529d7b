// Package rawcheck is a test helper: it visits every value inside a value
// decoded by the SDK that records its JSON (a struct that embeds
// threads.Raw or runs.Raw), so that each package's tests can check what
// every value of every answer recorded.
package rawcheck

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Recorder is a value that records its JSON: the methods threads.Raw and
// runs.Raw promote.
type Recorder interface {
	RawJSON() json.RawMessage
	ExtraFields() map[string]json.RawMessage
}

// Visit calls fn for each struct value reachable from v (through
// pointers, slices, arrays, maps and struct fields, v included) whose type
// is a Recorder, with its path from v ("Messages[2].Content[0]") and its
// type's name. A struct embedded in another one is part of it, not
// visited on its own.
func Visit(v any, fn func(path, typ string, r Recorder)) {
	visit(reflect.ValueOf(v), "", fn, 0)
}

func visit(v reflect.Value, path string, fn func(path, typ string, r Recorder), depth int) {
	if !v.IsValid() || depth > 32 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			visit(v.Elem(), path, fn, depth+1)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			visit(v.Index(i), fmt.Sprintf("%s[%d]", path, i), fn, depth+1)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			visit(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), fn, depth+1)
		}
	case reflect.Struct:
		if v.CanInterface() {
			if r, ok := v.Interface().(Recorder); ok {
				fn(path, v.Type().String(), r)
			}
		}
		fields(v, path, fn, depth)
	}
}

// fields visits the fields of struct v, those of embedded structs as its
// own.
func fields(v reflect.Value, path string, fn func(path, typ string, r Recorder), depth int) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			fields(v.Field(i), path, fn, depth+1)
			continue
		case !f.IsExported():
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		visit(v.Field(i), p, fn, depth+1)
	}
}
