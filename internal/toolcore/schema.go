package toolcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A tool may carry its arguments as one whole JSON Schema object (an MCP
// tool's inputSchema) instead of a list of parameters. /v1 sends it as it
// is (InputSchemaJSON checks that it is an object); the spec's routes
// declare parameters, one per property, and ParamsFromSchema maps the
// schema to them where nothing of its meaning is lost.

// InputSchemaJSON encodes a tool's whole input schema and checks that it
// is a JSON object, as both API generations require.
func InputSchemaJSON(schema any) ([]byte, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("its InputSchema does not encode as JSON: %w", err)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("its InputSchema is not a JSON Schema object (it encodes as %s)", jsonKind(t))
	}
	return b, nil
}

func jsonKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "nothing"
	case b[0] == '[':
		return "an array"
	case b[0] == '"':
		return "a string"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	case b[0] == 'n':
		return "null"
	}
	return "a number"
}

// Keywords of an object schema that the spec's routes' parameters cannot
// express: a schema that uses one (at its top level) is refused there.
var unmappable = []string{
	"$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
	"const", "enum", "dependentRequired", "dependentSchemas", "dependencies",
	"patternProperties", "propertyNames", "minProperties", "maxProperties", "unevaluatedProperties",
}

// ParamsFromSchema maps a whole input schema (a JSON Schema object) to the
// parameters the spec's routes declare: one per property, in the order
// the schema encodes them, required when "required" names it. A parameter's
// Schema is its property's schema as it is (the service hands the model
// that schema, so nothing of it is lost), its Type the property's type
// (the first one that is not "null" when it lists several; "object" when
// it names none, as for any JSON value), its Description and Enum (when
// every value is a string) taken from it, Items from an array's items.
//
// It fails, naming what cannot be mapped, for: a schema that is not an
// object schema ("type" other than "object"); a top-level keyword that
// parameters cannot express (anyOf, oneOf, allOf, $ref, not, if,
// patternProperties, a schema for additionalProperties, minProperties...);
// a "$ref" anywhere in a property (the parameters carry no $defs); a
// property schema that is false or not a schema; a required name that is
// not a property. Annotations ($schema, $id, title, description,
// examples) and additionalProperties true or false are left out: the
// service builds the object around the parameters itself.
func ParamsFromSchema(schema any) ([]Param, error) {
	b, err := InputSchemaJSON(schema)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("its InputSchema is not a JSON object: %w", err)
	}
	if raw, ok := top["type"]; ok {
		var typ string
		if json.Unmarshal(raw, &typ) != nil || typ != "object" {
			return nil, fmt.Errorf("its InputSchema has type %s; the spec's routes' parameters describe an object (type \"object\")", bytes.TrimSpace(raw))
		}
	}
	for _, k := range unmappable {
		if _, ok := top[k]; ok {
			return nil, fmt.Errorf("its InputSchema uses %q at its top level, which the spec's routes' parameters cannot express (use it on /v1, package runs, which sends the schema as it is)", k)
		}
	}
	if raw, ok := top["additionalProperties"]; ok {
		if t := bytes.TrimSpace(raw); !bytes.Equal(t, []byte("true")) && !bytes.Equal(t, []byte("false")) {
			return nil, errors.New("its InputSchema gives additionalProperties a schema, which the spec's routes' parameters cannot express (use it on /v1, package runs, which sends the schema as it is)")
		}
	}
	var required []string
	if raw, ok := top["required"]; ok {
		if err := json.Unmarshal(raw, &required); err != nil {
			return nil, errors.New("its InputSchema's \"required\" is not a list of names")
		}
	}
	names, props, err := orderedObject(top["properties"])
	if err != nil {
		return nil, err
	}
	for _, r := range required {
		if _, ok := props[r]; !ok {
			return nil, fmt.Errorf("its InputSchema requires %q, which is not among its properties", r)
		}
	}
	params := make([]Param, 0, len(names))
	for _, name := range names {
		p, err := paramOf(name, props[name], slices.Contains(required, name))
		if err != nil {
			return nil, err
		}
		params = append(params, p)
	}
	return params, nil
}

// orderedObject decodes the "properties" member: each name, in the order
// the schema lists them, and its schema. An absent member is no
// properties.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil, nil
	}
	props := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, nil, errors.New("its InputSchema's \"properties\" is not an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var names []string
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, err
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, props, nil
}

// paramOf maps one property.
func paramOf(name string, raw json.RawMessage, required bool) (Param, error) {
	if name == "" {
		return Param{}, errors.New("its InputSchema has a property with an empty name")
	}
	t := bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(t, []byte("true")):
		// Any value: as NewTool declares an interface field.
		return Param{Name: name, Type: "object", Required: required, Schema: map[string]any{}}, nil
	case bytes.Equal(t, []byte("false")):
		return Param{}, fmt.Errorf("its InputSchema's property %q is the schema false (no value fits)", name)
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber() // numbers as written: the schema is sent on as it is
	var s map[string]any
	if err := dec.Decode(&s); err != nil || s == nil {
		return Param{}, fmt.Errorf("its InputSchema's property %q is not a schema object", name)
	}
	if path := findRef(s, "#"); path != "" {
		return Param{}, fmt.Errorf("its InputSchema's property %q uses $ref (at %s), which the spec's routes' parameters cannot carry (use it on /v1, package runs, which sends the schema as it is)", name, path)
	}
	p := Param{Name: name, Required: required, Schema: s, Type: schemaType(s)}
	p.Description, _ = s["description"].(string)
	if vals, ok := s["enum"].([]any); ok {
		p.Enum = make([]string, 0, len(vals))
		for _, v := range vals {
			str, ok := v.(string)
			if !ok {
				p.Enum = nil // the schema carries them, typed
				break
			}
			p.Enum = append(p.Enum, str)
		}
	}
	if p.Type == "array" {
		if items, ok := s["items"].(map[string]any); ok {
			p.Items = schemaType(items)
		}
	}
	return p, nil
}

// schemaType is a property's type as the spec's routes name it.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if str, ok := v.(string); ok && str != "null" {
				return str
			}
		}
	}
	switch {
	case s["properties"] != nil:
		return "object"
	case s["items"] != nil:
		return "array"
	}
	if vals, ok := s["enum"].([]any); ok && len(vals) > 0 {
		if _, ok := vals[0].(string); ok {
			return "string"
		}
	}
	return "object" // any JSON value, as NewTool declares an interface field
}

// findRef returns the JSON Pointer of the first "$ref" (or "$dynamicRef")
// in v, "" when there is none.
func findRef(v any, at string) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			here := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if k == "$ref" || k == "$dynamicRef" {
				return here
			}
			if p := findRef(v[k], here); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range v {
			if p := findRef(e, fmt.Sprintf("%s/%d", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}
