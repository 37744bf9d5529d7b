package jsonscan

import "testing"

func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string // content after the opening quote
		want int
	}{
		{`abc"`, 3},
		{`a\"b"`, 4},
		{`a\\"b"`, 3},
		{`a\\\"b"`, 6},
		{`no end`, 6},
		{`ends in \`, 9},
		{`"`, 0},
	} {
		if got := StringEnd(tc.in, 0); got != tc.want {
			t.Errorf("StringEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`"a,b}" , 1`, `"a,b}"`, true},
		{`{"a":[1,{"b":"]"}]},2`, `{"a":[1,{"b":"]"}]}`, true},
		{`123,`, `123`, true},
		{`true}`, `true`, true},
		{`null`, `null`, true},
		{`[1,2`, ``, false},
		{`"open`, ``, false},
		{`,`, ``, false},
		{``, ``, false},
	} {
		end, ok := SkipValue(tc.in, 0)
		if ok != tc.ok || (ok && tc.in[:end] != tc.want) {
			t.Errorf("SkipValue(%q) = %q, %t; want %q, %t", tc.in, tc.in[:end], ok, tc.want, tc.ok)
		}
	}
	var s Scanner
	s.Reset(`{"k": {"x":1}, "n": 2}`)
	if !s.OpenObject() {
		t.Fatal("OpenObject")
	}
	if name, done, ok := s.Member(true); name != "k" || done || !ok {
		t.Fatalf("Member: %q %t %t", name, done, ok)
	}
	if v, ok := s.Skip(); v != `{"x":1}` || !ok {
		t.Fatalf("Skip: %q %t", v, ok)
	}
}
