package sse

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	gosse "github.com/tmaxmax/go-sse"
)

// growing is n snapshot-like events whose data grows to 4 KiB and back,
// then DONE: the size mix of the stream benchmarks, without JSON.
func growing(n int) []byte {
	var b bytes.Buffer
	text := strings.Repeat("x", 4096)
	for i := range n {
		fmt.Fprintf(&b, "data: {\"text\":%q}\n\n", text[:(i%100+1)*40])
	}
	b.WriteString("data: DONE\n\n")
	return b.Bytes()
}

type chunks struct {
	data []byte
	n    int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p, c.data[:min(len(c.data), c.n)])
	c.data = c.data[k:]
	return k, nil
}

// BenchmarkGoSSEFeeding measures what go-sse allocates and spends per
// event depending on how it is fed: straight from the body, or through
// the whole-event filter (this package), with the body arriving whole or
// in 1 KiB and 16 KiB reads.
func BenchmarkGoSSEFeeding(b *testing.B) {
	const n = 10_000
	body := growing(n)
	for _, read := range []int{1 << 10, 16 << 10, len(body)} {
		for _, feed := range []string{"direct", "filter"} {
			b.Run(fmt.Sprintf("feed=%s/read=%d", feed, read), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					r := &chunks{data: body, n: read}
					k := 0
					if feed == "direct" {
						for _, err := range gosse.Read(r, &gosse.ReadConfig{MaxEventSize: 16 << 20}) {
							if err != nil {
								b.Fatal(err)
							}
							k++
						}
					} else {
						for _, err := range New(r, 16<<20).All() {
							if err != nil {
								b.Fatal(err)
							}
							k++
						}
					}
					if k != n+1 {
						b.Fatal(k)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/event")
			})
		}
	}
}
