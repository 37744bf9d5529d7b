package toolcore

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

type tripArgs struct {
	City  string     `json:"city" description:"Destination city"`
	Pace  string     `json:"pace" enum:"packed,normal,relaxed"`
	Days  int        `json:"days,omitempty" enum:"1,2,3"`
	When  *time.Time `json:"when"`
	Stops []struct {
		Name string `json:"name"`
	} `json:"stops,omitempty"`
}

// TakeStatus takes both of the service's arguments out, whatever their
// values, and nothing else.
func TestTakeStatus(t *testing.T) {
	t.Parallel()
	args := map[string]any{StatusMessageArg: "Planning…", CompletionStatusMessageArg: 3, "city": "Lisbon"}
	st := TakeStatus(args)
	if st != (Status{Message: "Planning…"}) {
		t.Fatalf("status %+v", st)
	}
	if !reflect.DeepEqual(args, map[string]any{"city": "Lisbon"}) {
		t.Fatalf("args %v", args)
	}
	if st := TakeStatus(nil); st != (Status{}) {
		t.Fatalf("nil args: %+v", st)
	}
}

// Decode leaves the service's status arguments out of the checks and of
// the value, without changing the caller's map; other problems are
// ArgumentsErrors that match ErrArguments and list the parameters.
func TestDecode(t *testing.T) {
	t.Parallel()
	a, err := NewArgs(reflect.TypeFor[*tripArgs]())
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"city": "Lisbon", "pace": "relaxed", "when": nil, StatusMessageArg: "…", CompletionStatusMessageArg: "done"}
	v, err := a.Decode("plan_trip", in)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Interface().(*tripArgs); got.City != "Lisbon" || got.Pace != "relaxed" {
		t.Fatalf("%+v", got)
	}
	if len(in) != 5 {
		t.Fatalf("the caller's map changed: %v", in)
	}
	_, err = a.Decode("plan_trip", map[string]any{"pace": "frantic", "days": "two", "x": 1})
	if !errors.Is(err, ErrArguments) {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{`the required argument "city" is missing`, `argument "pace" is frantic, want one of: packed, normal, relaxed`,
		`there is no parameter "x"`, "the parameters are: city (string), pace (string), days (integer, optional), when (string, optional), stops (array, optional)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if !errors.Is(NotAnObject("t"), ErrArguments) {
		t.Error("NotAnObject does not match ErrArguments")
	}
	if _, err := NewArgs(reflect.TypeFor[int]()); err == nil {
		t.Error("NewArgs(int) succeeded")
	}
}

// The struct's schema is the object schema of its parameters, each with
// its description, enum values (typed) and nested schema.
func TestSchema(t *testing.T) {
	t.Parallel()
	a, err := NewArgs(reflect.TypeFor[tripArgs]())
	if err != nil {
		t.Fatal(err)
	}
	s := a.Schema()
	if !reflect.DeepEqual(s["required"], []string{"city", "pace"}) {
		t.Fatalf("required %v", s["required"])
	}
	props := s["properties"].(map[string]any)
	if d := props["city"].(map[string]any)["description"]; d != "Destination city" {
		t.Errorf("city description %v", d)
	}
	if e := props["days"].(map[string]any)["enum"]; !reflect.DeepEqual(e, []any{1.0, 2.0, 3.0}) {
		t.Errorf("days enum %v", e)
	}
	stops := props["stops"].(map[string]any)["items"].(map[string]any)
	if stops["additionalProperties"] != false || !reflect.DeepEqual(stops["required"], []string{"name"}) {
		t.Errorf("stops items %v", stops)
	}
	if _, err := ObjectSchema([]Param{{Name: "a"}, {Name: "a"}}); err == nil {
		t.Error("a name given twice")
	}
	if p := (Param{Type: "enum", Enum: []string{"x"}}).ModelSchema(); !reflect.DeepEqual(p, map[string]any{"type": "string", "enum": []any{"x"}}) {
		t.Errorf("enum param %v", p)
	}
}

// Invoke turns a panic into an error and logs it with its stack.
func TestInvokePanic(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	_, err := Invoke(context.Background(), logger, "boom", func(context.Context) (string, error) { panic("no clock") })
	if err == nil || err.Error() != `tool "boom" failed: panic: no clock` {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(buf.String(), "a tool panicked") || !strings.Contains(buf.String(), "stack=") {
		t.Fatalf("log: %s", buf.String())
	}
	got, err := Invoke(context.Background(), nil, "ok", func(context.Context) (string, error) { return "fine", nil })
	if got != "fine" || err != nil {
		t.Fatalf("%q %v", got, err)
	}
}

// UnknownTool lists both kinds of tools, sorted, and quotes the server's
// name bounded.
func TestUnknownTool(t *testing.T) {
	t.Parallel()
	err := UnknownTool(strings.Repeat("x", 1<<20), map[string]int{"b": 1}, map[string]bool{"a": true})
	if len(err.Error()) > 200 || !strings.HasSuffix(err.Error(), "the tools are: a, b") {
		t.Fatalf("%.300s", err)
	}
}
