package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	const key = "sk_live/AbC-123"
	for _, in := range []string{
		"raw sk_live/AbC-123 here",
		`escaped sk_live\/AbC-123 here`,
		`unicode \u0073k_live\u002fAbC\u002D123 here`,
		"twice sk_live/AbC-123sk_live/AbC-123",
	} {
		out := String(in, key)
		if Contains(out, key) || !strings.Contains(out, Mark) {
			t.Errorf("String(%q) = %q", in, out)
		}
	}
	if got := String("nothing to see", key); got != "nothing to see" {
		t.Errorf("changed clean text: %q", got)
	}
	if got := String(`almost sk_live\/AbC-12`, key); got != `almost sk_live\/AbC-12` {
		t.Errorf("changed a prefix: %q", got)
	}
}

func FuzzString(f *testing.F) {
	f.Add("sk_live/AbC-123", "prefix ", " suffix")
	f.Add("k", "", "")
	f.Add("é\"\\x", "a", "b")
	f.Fuzz(func(t *testing.T, key, pre, post string) {
		if key == "" || strings.Contains(Mark, key) || strings.ContainsRune(key, 0) || !utf8.ValidString(key) {
			return
		}
		// (A key inside the mark itself cannot be told apart from it; nor
		// one that the mark completes, such as "0[" after a "0": the
		// checks below read each mark as a NUL, which these keys lack.)
		unmark := func(s string) string { return strings.ReplaceAll(s, Mark, "\x00") }
		// Whatever spelling encoding/json gives the key inside a document,
		// it is gone after String.
		// Checked on what the document says once decoded: a key like "\\"
		// also occurs inside the escapes of other characters.
		enc, _ := json.Marshal(pre + key + post)
		var decoded string
		out := String(string(enc), key)
		if json.Unmarshal([]byte(out), &decoded) == nil && strings.Contains(unmark(decoded), key) {
			t.Fatalf("key %q survives in %q", key, out)
		}
		if out := String(pre+key+post, key); strings.Contains(unmark(out), key) {
			t.Fatalf("raw key %q survives in %q", key, out)
		}
	})
}

// Fold finds the key whatever the case a transport gave it (header names
// arrive canonicalised).
func TestFold(t *testing.T) {
	t.Parallel()
	const key = "sk_live_abc"
	for in, want := range map[string]string{
		"Sk_live_abc":            Mark,
		"x-SK_LIVE_ABC-y":        "x-" + Mark + "-y",
		"nothing here":           "nothing here",
		"sk_live_abcsk_live_abc": Mark + Mark,
	} {
		if got := Fold(in, key); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Fold("abc", ""); got != "abc" {
		t.Errorf("empty secret changed the text: %q", got)
	}
}
