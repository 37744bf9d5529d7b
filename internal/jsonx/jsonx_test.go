package jsonx

import (
	"testing"
	"time"
)

func TestTolerantTimesAndInts(t *testing.T) {
	t.Parallel()
	type doc struct {
		At time.Time `json:"at"`
		N  int       `json:"n"`
	}
	want := time.Date(2026, 11, 21, 23, 57, 44, 826e6, time.UTC)
	for in, exp := range map[string]doc{
		`{"at":"2026-11-21T23:57:44.826Z","n":3}`: {At: want, N: 3},
		`{"at":"","n":12.9}`:                      {N: 12},
		`{"at":"21/11/2026","n":-2.5}`:            {N: -2},
		`{"at":17,"n":1e3}`:                       {N: 1000},
		`{"at":{},"n":0.0}`:                       {},
		`{"at":null,"n":null}`:                    {},
	} {
		var got doc
		if err := Unmarshal([]byte(in), &got); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !got.At.Equal(exp.At) || got.N != exp.N {
			t.Errorf("%s: got %+v, want %+v", in, got, exp)
		}
	}
	for _, in := range []string{`{"n":1e300}`, `{"n":"7"}`, `{"at":"x"`, `{"n":true}`} {
		var got doc
		if err := Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}
