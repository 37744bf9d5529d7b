package echo

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteBounded(t *testing.T) {
	t.Parallel()
	q := Quote(strings.Repeat("‹", 1<<20) + "\x1b]0;x\a")
	if n := utf8.RuneCountInString(q); n > MaxRunes+3 {
		t.Fatalf("%d runes", n)
	}
}

func TestErrorTextBoundedAndClean(t *testing.T) {
	t.Parallel()
	const key = "sk-secret"
	err := errors.New(strings.Repeat("é", MaxErrorText) + key)
	got := ErrorText(err, len(key), func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") })
	if len(got) > MaxErrorText || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Fatalf("%d bytes, valid %t", len(got), utf8.ValidString(got))
	}
	short := ErrorText(errors.New("boom "+key), len(key), func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") })
	if short != "boom [REDACTED]" {
		t.Fatalf("%q", short)
	}
}

func TestCutOnRuneBoundary(t *testing.T) {
	t.Parallel()
	if got := Cut("aé", 2); got != "a" {
		t.Fatalf("%q", got)
	}
	if got := Cut("abc", 5); got != "abc" {
		t.Fatalf("%q", got)
	}
}
