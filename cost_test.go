package threads

import (
	"math/rand/v2"
	"testing"
)

// decodedCostRef is decodedCost's plain byte loop, the specification of the
// faster one.
func decodedCostRef(data []byte) int64 {
	var containers, values int64
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if in {
			switch c {
			case '\\':
				i++
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '{', '[':
			containers++
		case ',', ':':
			values++
		}
	}
	return int64(len(data)) + containers*costContainer + values*costValue
}

func FuzzDecodedCost(f *testing.F) {
	for _, s := range []string{
		``, `"`, `\`, `"\`, `"\"`, `"\\"`, `"\\\"`, `"\\\\",{}`, `{"a":[1,2,{"b\"c":"d\\"}],"e":"\u0022,"}`,
		`[{},{},{}]`, `"abc`, `"a\"b",[`, `\"{`, `"\\\\\\\"\\\\"[,:]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := decodedCost(data), decodedCostRef(data); got != want {
			t.Fatalf("decodedCost(%q) = %d, want %d", data, got, want)
		}
	})
}

// TestDecodedCostRandom compares decodedCost with its reference on random
// inputs over the bytes that matter.
func TestDecodedCostRandom(t *testing.T) {
	const alphabet = `"\{}[],:a `
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 64)
	for range 200_000 {
		b := buf[:r.IntN(len(buf))]
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := decodedCost(b), decodedCostRef(b); got != want {
			t.Fatalf("decodedCost(%q) = %d, want %d", b, got, want)
		}
	}
}
