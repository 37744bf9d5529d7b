package jsonscan

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

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

// TestObject: Object hands each member's name to its func, which takes
// the value; a name sent twice, one it does not know and syntax errors
// give up. An object in a member's value has names of its own, and the
// outer object's are as they were after it.
func TestObject(t *testing.T) {
	decode := func(in string) (map[string]string, bool) {
		var s Scanner
		s.Reset(in)
		got := map[string]string{}
		var member func(name string) bool
		member = func(name string) bool {
			bit := map[string]uint{"a": 0, "b": 1, "o": 2}[name]
			if name != "a" && name != "b" && name != "o" || !s.Once(bit) {
				return false
			}
			if name == "o" {
				return s.Object(member)
			}
			v, ok := value(&s)
			got[name] = v
			return ok
		}
		ok := s.Object(member) && s.End()
		return got, ok
	}
	for _, tc := range []struct {
		in   string
		want map[string]string
		ok   bool
	}{
		{`{}`, map[string]string{}, true},
		{` { "a" : 1 , "b":"x" } `, map[string]string{"a": "1", "b": `"x"`}, true},
		{`{"a":1,"o":{"a":2,"b":3},"b":4}`, map[string]string{"a": "2", "b": "4"}, true},
		{`{"a":1,"a":2}`, nil, false},
		{`{"o":{"a":2},"o":{}}`, nil, false},
		{`{"a":1,"o":{"a":2},"a":3}`, nil, false}, // the outer "a" again, after the inner one
		{`{"c":1}`, nil, false},
		{`{"a":1 "b":2}`, nil, false},
		{`{,}`, nil, false},
		{`{"a":1,}`, nil, false},
		{`{"a":1`, nil, false},
		{`[]`, nil, false},
	} {
		got, ok := decode(tc.in)
		if ok != tc.ok || (ok && !equal(got, tc.want)) {
			t.Errorf("%s: %v %t, want %v %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// value reads a number, a string or (with Skip) any other value.
func value(s *Scanner) (string, bool) {
	p := s.Pos()
	if n, ok := s.Number(); ok {
		return n, true
	}
	if _, ok := s.String(); ok {
		return s.Since(p), true
	}
	return s.Skip()
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestElements: OpenArray and Element read an array's elements; a
// missing or trailing comma gives up.
func TestElements(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`[]`, nil, true},
		{`[ ]`, nil, true},
		{`[1, "a" ,{"x":[2]}]`, []string{"1", `"a"`, `{"x":[2]}`}, true},
		{`[1,]`, nil, false},
		{`[,1]`, nil, false},
		{`[1 2]`, nil, false},
		{`[1`, nil, false},
		{`{}`, nil, false},
	} {
		var s Scanner
		s.Reset(tc.in)
		var got []string
		ok := s.OpenArray()
		for first := true; ok; first = false {
			done, eok := s.Element(first)
			if !eok || done {
				ok = eok
				break
			}
			v, vok := value(&s)
			if !vok {
				ok = false
				break
			}
			got = append(got, v)
		}
		ok = ok && s.End()
		if ok != tc.ok || (ok && strings.Join(got, "|") != strings.Join(tc.want, "|")) {
			t.Errorf("%s: %q %t, want %q %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestEmpty: Empty consumes an empty object or array only, white space
// inside it allowed, and nothing else.
func TestEmpty(t *testing.T) {
	for _, tc := range []struct {
		in   string
		open byte
		ok   bool
	}{
		{`{}`, '{', true}, {"{ \n}", '{', true}, {`[ ]`, '[', true}, {`[]`, '[', true},
		{`{}`, '[', false}, {`[]`, '{', false}, {`{"a":1}`, '{', false}, {`[1]`, '[', false}, {`{`, '{', false}, {``, '{', false},
	} {
		var s Scanner
		s.Reset(tc.in)
		if ok := s.Empty(tc.open); ok != tc.ok || (ok && !s.End()) || (!ok && s.Pos() != 0) {
			t.Errorf("Empty(%q) on %q: %t at %d, want %t", tc.open, tc.in, ok, s.Pos(), tc.ok)
		}
	}
}

// TestHintedString: with hints carried from one document to the next,
// as on a stream of snapshots (each repeats the text so far, plain or
// escaped), every string decodes as String decodes it fresh, and the
// strings returned before stay as they were (the escaped ones share an
// append-only buffer).
func TestHintedString(t *testing.T) {
	long := strings.Repeat("plain words ", 4)
	docs := []string{
		`"` + long + `"`, `"` + long + `more"`, `"` + long + `more and more"`, `"short"`, `"` + long + `x"`,
		`"esc \"a\" \n"`, `"esc \"a\" \n b\t"`, `"esc \"a\" \n b\t\u00e9"`, `"esc \"a\" \n b\t\u00e9"`,
		`"smile \ud83d\ude00"`, `"smile \ud83d\ude00 \ud83d\ude01"`, `"other \\"`, `"other \\ \" end"`,
		`"` + long + "\u00e9" + `"`, `"` + long + "\u00e9\u00e8" + `"`, `"bad \x"`, `"esc \"a\""`,
		`"` + long + "\x01" + `"`, `"` + long,
	}
	var h Hints
	var kept, want []string
	for _, d := range docs {
		var fresh, hinted Scanner
		fresh.Reset(d)
		hinted.Reset(d)
		w, wok := fresh.String()
		g, gok := hinted.HintedString(&h)
		if g != w || gok != wok {
			t.Fatalf("%s: hinted %q %t, fresh %q %t", d, g, gok, w, wok)
		}
		if gok {
			kept, want = append(kept, g), append(want, strings.Clone(w))
		}
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("string %d changed to %q, was %q", i, kept[i], want[i])
		}
	}
}

// TestNullable: Str, Boolean and Float64 take null as no change, their
// kind, and give up on another.
func TestNullable(t *testing.T) {
	var s Scanner
	str, b, f := "keep", true, 1.5
	s.Reset(`null`)
	if !Str(&s, nil, &str) || str != "keep" {
		t.Errorf("Str(null) changed it: %q", str)
	}
	s.Reset(`null`)
	if !Boolean(&s, &b) || !b {
		t.Errorf("Boolean(null) changed it")
	}
	s.Reset(`null`)
	if !Float64(&s, &f) || f != 1.5 {
		t.Errorf("Float64(null) changed it")
	}
	s.Reset(`false`)
	if !Boolean(&s, &b) || b {
		t.Errorf("Boolean(false): %t", b)
	}
	s.Reset(`-2.5e1`)
	if !Float64(&s, &f) || f != -25 {
		t.Errorf("Float64: %v", f)
	}
	s.Reset(`"x"`)
	if Boolean(&s, &b) || Float64(&s, &f) {
		t.Error("a string taken as a boolean or number")
	}
	s.Reset(`nullx`)
	if Str(&s, nil, &str) {
		t.Error("nullx taken")
	}
	s.Reset(`1`)
	if Str(&s, nil, &str) {
		t.Error("a number taken as a string")
	}
}

// TestRewind: Since returns what was read since Pos, and Rewind reads it
// again.
func TestRewind(t *testing.T) {
	var s Scanner
	s.Reset(`"abc", 1`)
	p := s.Pos()
	if v, ok := s.String(); !ok || v != "abc" || s.Since(p) != `"abc"` {
		t.Fatalf("%q %t %q", v, ok, s.Since(p))
	}
	s.Rewind(p)
	if v, ok := s.Skip(); !ok || v != `"abc"` {
		t.Fatalf("after Rewind: %q %t", v, ok)
	}
}

// shortEnd finds what a byte-by-byte search finds, wherever the byte sits
// in its 8-byte word and whatever follows it (a borrow from one byte must
// not hide or fake another).
func TestShortEnd(t *testing.T) {
	t.Parallel()
	special := func(c byte) bool { return c < 0x20 || c >= 0x80 || c == '"' || c == '\\' }
	bytesOf := []byte{'a', ' ', '!', '"', '#', '\\', ']', 0x00, 0x01, 0x1f, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa0, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(90))
		for i := range b {
			b[i] = 'x'
			if rng.IntN(6) == 0 {
				b[i] = bytesOf[rng.IntN(len(bytesOf))]
			}
		}
		d := string(b)
		from := 0
		if len(d) > 0 {
			from = rng.IntN(len(d))
		}
		want := min(len(d), from+shortScan)
		for i := from; i < want; i++ {
			if special(d[i]) {
				want = i
				break
			}
		}
		if got := shortEnd(d, from); got != want {
			t.Fatalf("shortEnd(%q, %d) = %d, want %d", d, from, got, want)
		}
	}
}

// Float's fast path for short integers gives ParseFloat's value.
func TestFloatIntegers(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{"0", "7", "1795498170118", "999999999999999", "1000000000000000", "9007199254740993", "-0", "-12", "1.5", "1e3", "12345678901234567890"} {
		var s Scanner
		s.Reset(lit)
		got, ok := s.Float()
		want, err := strconv.ParseFloat(lit, 64)
		if !ok || err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("Float(%s) = %v %v, want %v", lit, got, ok, want)
		}
	}
}
