package threads

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/threadsapi/threads-go/internal/jsonx"
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

// BenchmarkDecodedCost weighs the pre-scan that every stream event pays
// against the decoding it guards, over the live fixtures' snapshots:
// impl=scan is decodedCost, impl=bytewise its plain reference loop,
// impl=decode jsonx.Unmarshal.
func BenchmarkDecodedCost(b *testing.B) {
	var events [][]byte
	size := 0
	for _, name := range []string{"stream-tool-call-45.sse", "stream-create.sse", "stream-plain.sse"} {
		f, err := os.ReadFile("testdata/live/" + name)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(f))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: {")); ok {
				events = append(events, append([]byte("{"), d...))
				size += len(d) + 1
			}
		}
	}
	run := func(name string, f func([]byte)) {
		b.Run("impl="+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, ev := range events {
					f(ev)
				}
			}
		})
	}
	var sink int64
	run("scan", func(ev []byte) { sink += decodedCost(ev) })
	run("bytewise", func(ev []byte) { sink += decodedCostRef(ev) })
	run("decode", func(ev []byte) {
		var r AdvanceResponse
		if err := jsonx.Unmarshal(ev, &r); err != nil {
			b.Fatal(err)
		}
	})
	_ = sink
}
