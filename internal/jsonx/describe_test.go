package jsonx

import (
	"strings"
	"testing"
)

// Describe keeps what went wrong and where, never a value, a member name
// or a character of the input.
func TestDescribeHasNoInput(t *testing.T) {
	type inner struct {
		B bool `json:"b"`
	}
	var v struct {
		N  int              `json:"n"`
		S  string           `json:"s"`
		I  []inner          `json:"i"`
		M  map[string]int   `json:"m"`
		MM map[string]inner `json:"mm"`
	}
	for in, want := range map[string]string{
		`{"n":"SECRET"}`:            "cannot decode JSON string into Go int",
		`{"n":1e999SECRET}`:         "cannot decode into Go *int",
		`{"s":SECRET}`:              "invalid JSON syntax",
		`{"i":["SECRET"]}`:          "cannot decode JSON string into Go jsonx.inner",
		`{"m":{"SECRET":"x"}}`:      "cannot decode JSON string into Go int",
		`{"mm":{"SECRET":{"b":1}}}`: "cannot decode JSON number into Go bool",
		`{"SECRET":"a` + "\x01\"}":  "invalid JSON syntax",
		`{"SECRET":"`:               "unexpected end of JSON input",
		`{"n":1e400}`:               "cannot decode into Go *int",
	} {
		err := Unmarshal([]byte(in), &v)
		if err == nil {
			t.Fatalf("%s: no error", in)
		}
		got := Describe(err)
		if !strings.HasPrefix(got, want) || strings.Contains(got, "SECRET") || strings.Contains(got, "400") {
			t.Errorf("Describe(%q) = %q, want %q... without the input", err, got, want)
		}
	}
}
