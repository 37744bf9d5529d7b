package threads

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/threadsapi/threads-go/internal/jsonx"
)

// snapshotDocs returns every data line of every transcript, every JSON
// fixture and every fuzz-corpus entry (and their data lines), in file
// order, plus edge cases, as the documents a snapshot decoder must decode
// as jsonx does. Each transcript's lines stay in order, so that the
// decoder's hints from one snapshot meet the next one as on a stream.
func snapshotDocs(t testing.TB) (names []string, docs []string) {
	add := func(name string, b []byte) {
		names, docs = append(names, name), append(docs, string(b))
	}
	addLines := func(name string, b []byte) {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
		for i, line := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				d = bytes.TrimPrefix(d, []byte(" "))
				if len(d) > 0 && string(d) != "DONE" {
					add(name+":"+strconv.Itoa(i+1), d)
				}
			}
		}
	}
	glob := func(pattern string) []string {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	read := func(f string) []byte {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, f := range append(glob("testdata/*.sse"), glob("testdata/live/*.sse")...) {
		addLines(f, read(f))
	}
	for _, f := range append(glob("testdata/*.json"), glob("testdata/live/*.json")...) {
		add(f, read(f))
	}
	for _, f := range glob("testdata/fuzz/*/*") {
		for i, line := range strings.Split(string(read(f)), "\n")[1:] {
			var lit string
			if l, ok := strings.CutPrefix(line, "[]byte("); ok {
				lit = strings.TrimSuffix(l, ")")
			} else if l, ok := strings.CutPrefix(line, "string("); ok {
				lit = strings.TrimSuffix(l, ")")
			} else {
				continue
			}
			s, err := strconv.Unquote(lit)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			name := f + "#" + strconv.Itoa(i)
			add(name, []byte(s))
			addLines(name, []byte(s))
		}
	}
	const msg = `{"responseMessageDto":{"id":"msg_1","content":[{"type":"text","text":%s}],"component":{"message":%s,"props":null}},"generationStage":"STREAMING_RESPONSE"}`
	texts := []string{
		`" "`, `"Hello, this is a long enough text to be remembered"`,
		`"Hello, this is a long enough text to be remembered, and more"`,
		`"Hello, this is a long enough text to be remembered"`, // shorter: no longer a prefix
		`"Line one\nline two \"quoted\""`, `"Line one\nline two \"quoted\" and \\ more"`,
		`"Line one\nline two \"quoted\" and \\ more \ud83d"`, `"Line one\nline two \"quoted\" and \\ more \ud83d\ude00"`,
		`"Line one\nline two \"quoted\" and \\ more \ud83d\ude00 é ✓"`, `"caf\u00e9 \u0000 \/"`,
		`"bad \x escape"`, `"control ` + "\t" + ` char"`, `"` + "\xff\xfe" + ` invalid utf-8 long enough to be remembered"`,
		`"unterminated`, `12`, `null`, `"€uro text long enough to be remembered, with runes ✓✓"`,
		`"€uro text long enough to be remembered, with runes ✓✓ and more"`,
	}
	for i, a := range texts {
		for j, b := range texts {
			if j == i || j == (i+1)%len(texts) {
				add("edge-text#"+strconv.Itoa(i)+"/"+strconv.Itoa(j), []byte(strings.Replace(strings.Replace(msg, "%s", a, 1), "%s", b, 1)))
			}
		}
	}
	for i, edge := range []string{
		`{"responseMessageDto":{"id":"a","ID":"b"}}`, `{"responseMessageDto":{"id":"a","id":"b"}}`,
		`{"responseMessageDto":{"CONTENT":[{"TYPE":"text","Text":"hi"}]}}`,
		`{"responseMessageDto":{"content":[null,{"type":"text","text":"x","image_url":{"url":"u"}}]}}`,
		`{"responseMessageDto":{"content":[]},"mcpAccessToken":"tok"}`, `{"mcpAccessToken":null}`, `{"mcpAccessToken":1}`,
		`{"responseMessageDto":{"createdAt":""}}`, `{"responseMessageDto":{"createdAt":"yesterday"}}`,
		`{"responseMessageDto":{"createdAt":12}}`, `{"responseMessageDto":{"createdAt":null}}`,
		`{"responseMessageDto":{"createdAt":"2026-11-21T23:57:44.826Z"}}`, `{"responseMessageDto":{"createdAt":"2026-11-21T23:57:44\u002e826Z"}}`,
		`{"responseMessageDto":{"reasoningDurationMS":12.5,"reasoning":["a"],"isCancelled":true}}`,
		`{"responseMessageDto":{"reasoning":[],"isCancelled":false,"metadata":{"a":{"b":[1,{}]}}}}`,
		`{"responseMessageDto":{"isCancelled":"yes"}}`, `{"responseMessageDto":{"isCancelled":nullx}}`,
		`{"responseMessageDto":{"isCancelled":truex}}`, `{"responseMessageDto":{"content":"not an array"}}`,
		`{"responseMessageDto":{"component":{"props":{"a":"}"},"componentState":{ },"toolCallRequest":{"toolName":"t","parameters":[]}}}}`,
		`{"responseMessageDto":{"toolCallRequest":{"toolName":"t","parameters":[{"parameterName":"p","parameterValue":[1,"]"]}]}}}`,
		` { "responseMessageDto" : { "id" : "x" , "content" : [ { "type" : "text" , "text" : "y" } ] } , "generationStage" : "COMPLETE" } `,
		`{"responseMessageDto":{"id":"x"}}x`, `{"responseMessageDto":{"id":"x"},}`, `{"responseMessageDto":{"id":"x"}`,
		`{"responseMessageDto":{"id":"x",}}`, `{"generationStage":"A","unknown":1}`, `{"responseMessageDto":{"metadata":{"a":1,"a":2}}}`,
		`{"responseMessageDto":{"metadata":{"a":1,}}}`, `{"responseMessageDto":{"reasoningDurationMS":1e400}}`,
		`{"responseMessageDto":{"metadata":{"x":"\ud800"}}}`, `[]`, `null`, `"str"`, `1`, `{`, ``, `{}`, `{"id":"\ud800"}`,
		`{"responseMessageDto":null,"statusMessage":null}`, `{"responseMessageDto":{"component":null,"content":null}}`,
	} {
		add("edge#"+strconv.Itoa(i), []byte(edge))
	}
	return names, docs
}

// checkSnapshot decodes doc with d and with jsonx and fails the test when
// d's result differs. It reports whether d took the document.
func checkSnapshot(t testing.TB, d *snapshotDecoder, name, doc string) bool {
	t.Helper()
	var want, got AdvanceResponse
	errWant := jsonx.Unmarshal([]byte(doc), &want)
	b := []byte(doc)
	cost, ok := d.decode(doc, &got, decodeBudget(defaultMaxEventSize))
	if !ok {
		return false
	}
	if errWant != nil {
		t.Errorf("%s: the snapshot decoder took what jsonx refuses (%v)", name, errWant)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: values differ\nsnapshot decoder: %+v\njsonx:            %+v", name, got, want)
	}
	if c := decodedCost(b); cost != c {
		t.Errorf("%s: cost %d, decodedCost %d", name, cost, c)
	}
	return true
}

// TestSnapshotDecoderEquivalence decodes every fixture, transcript line and
// fuzz-corpus entry with the snapshot decoder, carrying its hints from one
// document to the next as a stream does and also fresh, and requires
// jsonx's value (and decodedCost's cost) whenever it takes a document.
func TestSnapshotDecoderEquivalence(t *testing.T) {
	t.Parallel()
	names, docs := snapshotDocs(t)
	var carried snapshotDecoder
	took := 0
	for i, doc := range docs {
		if checkSnapshot(t, &carried, names[i], doc) {
			took++
		}
		var fresh snapshotDecoder
		checkSnapshot(t, &fresh, names[i]+" (fresh)", doc)
	}
	// The live transcripts are what the decoder is for: it must take them.
	for i, doc := range docs {
		if strings.HasPrefix(names[i], filepath.Join("testdata", "live")) && strings.HasSuffix(strings.Split(names[i], ":")[0], ".sse") {
			var d snapshotDecoder
			var v AdvanceResponse
			if _, ok := d.decode(doc, &v, decodeBudget(defaultMaxEventSize)); !ok && jsonx.Unmarshal([]byte(doc), &v) == nil {
				t.Errorf("%s: a live snapshot the decoder gave up on", names[i])
			}
		}
	}
	t.Logf("%d documents; the snapshot decoder took %d", len(docs), took)
}

// FuzzSnapshotDecoder decodes two documents in turn with one decoder (the
// second meets the hints of the first) and requires jsonx's values.
func FuzzSnapshotDecoder(f *testing.F) {
	_, docs := snapshotDocs(f)
	for i := 1; i < len(docs); i++ {
		f.Add(docs[i-1], docs[i])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var d snapshotDecoder
		checkSnapshot(t, &d, "first", a)
		checkSnapshot(t, &d, "second", b)
	})
}

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
