package redact

import (
	"strings"
	"testing"
)

func TestQueryAndURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"a=1&api_key=s3cret&Token=x&pass=y&PASSWORD=z&Authorization=q&x_auth=w",
			"a=1&api_key=%5BREDACTED%5D&Token=%5BREDACTED%5D&pass=y&PASSWORD=%5BREDACTED%5D&Authorization=%5BREDACTED%5D&x_auth=%5BREDACTED%5D"},
		{"q=shortk&other=1", "q=[REDACTED]&other=1"},
		{"api%5Fkey=1", "api%5Fkey=%5BREDACTED%5D"},
	} {
		if got := Query(tc.in, "shortk"); got != tc.want {
			t.Errorf("Query(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := URL("https://u:p@h.example/threads/shortk?client_secret=abc&x=1#frag", "shortk")
	if want := "https://[REDACTED]@h.example/threads/[REDACTED]?client_secret=%5BREDACTED%5D&x=1"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	if got := URL("http://h/x?q=%73hortk", "shortk"); strings.Contains(got, "hortk") {
		t.Errorf("percent-spelled key kept: %q", got)
	}
}

// TestShortSecretsRedacted: a secret is redacted at any length (even one
// byte), at the price of hiding ordinary text that spells it.
func TestShortSecretsRedacted(t *testing.T) {
	t.Parallel()
	if got := String(`key "ab1" or a\u0062\u0031`, "ab1"); got != `key "[REDACTED]" or [REDACTED]` {
		t.Errorf("got %q", got)
	}
	if got := String("xyz", "y"); got != "x[REDACTED]z" {
		t.Errorf("got %q", got)
	}
}
