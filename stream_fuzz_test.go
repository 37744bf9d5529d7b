package threads_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
)

// FuzzStreamDeltas decodes arbitrary bytes, whole and in reads of any
// size: no panic; applying the events in order (TextReset: replace, else
// append) rebuilds each message's final text; both ways give the same
// events and ending; no error string holds the API key in any spelling.
func FuzzStreamDeltas(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.sse")
	live, _ := filepath.Glob("testdata/live/*.sse")
	for _, name := range append(files, live...) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(7))
	}
	f.Add([]byte(snap("m", " ")+snap("m", "Hello world\n")+snap("m", "Hello world")+snap("", "x")+snap("m", "Hello")+"data: [DONE]\n\n"), uint8(3))
	f.Add([]byte("\xEF\xBB\xBFerror: key "+streamKey+"\n\n"), uint8(1))
	f.Add([]byte(`data: {"responseMessageDto":{"id":"`+streamKey+`","createdAt":5}}`+"\nerror: \\u0073k\n\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole, wholeErr := readAll(bytesStream(t, data, 0, threads.WithMaxEventSize(64<<10)))
		split, splitErr := readAll(bytesStream(t, data, int(chunk), threads.WithMaxEventSize(64<<10)))
		if (wholeErr == nil) != (splitErr == nil) || len(whole) != len(split) {
			t.Fatalf("whole: %d events, %v; split by %d: %d events, %v", len(whole), wholeErr, chunk, len(split), splitErr)
		}
		for i := range whole {
			a, b := whole[i], split[i]
			if a.Message.ID != b.Message.ID || a.TextDelta != b.TextDelta || a.TextReset != b.TextReset {
				t.Fatalf("event %d differs", i)
			}
		}
		final := map[string]string{}
		for _, ev := range whole {
			text := ev.Message.Text()
			if strings.TrimSpace(text) == "" {
				text = ""
			}
			final[ev.Message.ID] = text
		}
		got := rebuild(whole)
		for id, want := range final {
			if got[id] != want {
				t.Fatalf("message %q: rebuilt %q, final text %q", id, got[id], want)
			}
		}
		for _, err := range []error{wholeErr, splitErr} {
			if err != nil && redact.Contains(err.Error(), streamKey) {
				t.Fatalf("the key in %q", err)
			}
		}
	})
}
