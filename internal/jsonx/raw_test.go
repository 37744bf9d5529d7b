package jsonx

import (
	"testing"
	"time"
)

type rawInner struct {
	Raw
	B    bool      `json:"b"`
	At   time.Time `json:"at"`
	Skip string    `json:"-"`
}

type rawOuter struct {
	Raw
	ID    string              `json:"id"`
	Items []rawInner          `json:"items"`
	Ptr   *rawInner           `json:"ptr"`
	Map   map[string]rawInner `json:"map"`
}

func TestUnmarshalAnswerRecordsEveryValue(t *testing.T) {
	t.Parallel()
	in := ` {"id":"x", "new":{"k":[1,2]}, "items":[ {"b":true,"at":"2026-01-02T03:04:05Z","extra":1} ,{"b":false}],"ptr":{"B":true,"zz":null},"map":{"a":{"b":true,"skip":"s"}}} `
	var v rawOuter
	if err := UnmarshalAnswer([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if got, want := string(Bytes(v.Raw)), in[1:len(in)-1]; got != want {
		t.Errorf("outer raw %q, want %q", got, want)
	}
	if got := string(Bytes(v.Items[0].Raw)); got != `{"b":true,"at":"2026-01-02T03:04:05Z","extra":1}` {
		t.Errorf("items[0] raw %q", got)
	}
	if got := string(Bytes(v.Items[1].Raw)); got != `{"b":false}` {
		t.Errorf("items[1] raw %q", got)
	}
	if got := string(Bytes(v.Ptr.Raw)); got != `{"B":true,"zz":null}` {
		t.Errorf("ptr raw %q", got)
	}
	if got := string(Bytes(v.Map["a"].Raw)); got != `{"b":true,"skip":"s"}` {
		t.Errorf("map raw %q", got)
	}
	if !v.Items[0].At.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || !v.Ptr.B {
		t.Errorf("decoded %+v", v)
	}
	ex := Extra(v.Raw)
	if len(ex) != 1 || string(ex["new"]) != `{"k":[1,2]}` {
		t.Errorf("outer extra %q", ex)
	}
	if ex := Extra(v.Items[0].Raw); len(ex) != 1 || string(ex["extra"]) != "1" {
		t.Errorf("items[0] extra %q", ex)
	}
	if ex := Extra(v.Map["a"].Raw); len(ex) != 1 || string(ex["skip"]) != `"s"` {
		t.Errorf("map extra %q", ex)
	}
	t.Logf("%+v", v)
}
