package toolcore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A whole input schema maps to parameters in its order, each keeping its
// property's schema (numbers as written); a boolean true property is any
// value; the annotations at the top are left out.
func TestParamsFromSchema(t *testing.T) {
	t.Parallel()
	params, err := ParamsFromSchema(json.RawMessage(`{"$schema":"x","title":"T","description":"D","additionalProperties":false,
		"properties":{"z":{"type":"number","maximum":12345678901234567890},"a":true,"n":{"type":["null","boolean"]},
		"o":{"properties":{"x":{"type":"string"}}},"e":{"type":"integer","enum":[1,2]}},"required":["a","z"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var names, types []string
	for _, p := range params {
		names, types = append(names, p.Name), append(types, p.Type)
	}
	if !reflect.DeepEqual(names, []string{"z", "a", "n", "o", "e"}) || !reflect.DeepEqual(types, []string{"number", "object", "boolean", "object", "integer"}) {
		t.Fatalf("%v %v", names, types)
	}
	if !params[0].Required || !params[1].Required || params[2].Required {
		t.Fatalf("required: %+v", params)
	}
	if b, _ := json.Marshal(params[0].Schema); string(b) != `{"maximum":12345678901234567890,"type":"number"}` {
		t.Fatalf("schema changed: %s", b)
	}
	if params[4].Enum != nil {
		t.Fatalf("a number enum is not EnumValues: %v", params[4].Enum)
	}
	if s := params[1].ModelSchema(); s != nil {
		t.Fatalf("any value: %v", s)
	}
}

// What parameters cannot express is refused, naming it.
func TestParamsFromSchemaRefuses(t *testing.T) {
	t.Parallel()
	for schema, want := range map[string]string{
		`{"oneOf":[{"type":"object"}]}`:                                  `uses "oneOf" at its top level`,
		`{"type":"string"}`:                                              `has type "string"`,
		`{"additionalProperties":{"type":"string"}}`:                     `gives additionalProperties a schema`,
		`{"properties":{"a":{"items":[{"$ref":"#/$defs/x"}]}}}`:          `property "a" uses $ref (at #/items/0/$ref)`,
		`{"properties":{"a":false}}`:                                     `property "a" is the schema false`,
		`{"properties":{"a":3}}`:                                         `property "a" is not a schema object`,
		`{"properties":{"a":{}},"required":["b"]}`:                       `requires "b", which is not among its properties`,
		`{"properties":[]}`:                                              `"properties" is not an object`,
		`{"required":"a"}`:                                               `"required" is not a list of names`,
		`{"properties":{"":{}}}`:                                         `a property with an empty name`,
		`{"type":"object","properties":{"a":{}},"patternProperties":{}}`: `uses "patternProperties"`,
	} {
		_, err := ParamsFromSchema(json.RawMessage(schema))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", schema, err, want)
		}
	}
	if _, err := ParamsFromSchema(func() {}); err == nil || !strings.Contains(err.Error(), "does not encode as JSON") {
		t.Errorf("func: %v", err)
	}
}
