// Package redact removes secrets from text that came from a server before
// the SDK puts that text in an error, a log line or a formatted value.
//
// A server may echo a credential raw or spelled with JSON escapes ("\/",
// "\u0041", "\n"...), so a plain substring search is not enough: String
// matches every spelling in which each character of the secret is either
// itself or one JSON escape of itself.
//
// A secret is redacted whatever its length. A very short one (a key of a
// few bytes) also hides ordinary text that happens to spell it: that text
// reads "[REDACTED]" in errors and logs. That is the chosen price: a key
// is never shown, and real keys are long enough that it is never paid.
package redact

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Mark replaces every secret.
const Mark = "[REDACTED]"

// String returns s with every spelling of each non-empty secret replaced by
// Mark. It allocates only when it finds one.
func String(s string, secrets ...string) string {
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		s = one(s, secret)
	}
	return s
}

// Bytes is String for a byte slice; it returns b itself when nothing matched.
func Bytes(b []byte, secrets ...string) []byte {
	s := string(b)
	r := String(s, secrets...)
	if r == s {
		return b
	}
	return []byte(r)
}

// Contains reports whether s holds any spelling of secret.
func Contains(s, secret string) bool {
	if secret == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if n := matchAt(s, i, secret); n > 0 {
			return true
		}
	}
	return false
}

func one(s, secret string) string {
	// Fast path: no raw spelling, and no escape that could start one.
	if !strings.Contains(s, secret) && !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	last := 0
	// A spelling starts only at the secret's first byte or at a
	// backslash: the search jumps from one such byte to the next (a long
	// text with escapes, a relay's batch of events, is not walked byte by
	// byte).
	esc, first := index(s, 0, '\\'), index(s, 0, secret[0])
	for i := min(esc, first); i < len(s); i = min(esc, first) {
		if n := matchAt(s, i, secret); n > 0 {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			b.WriteString(Mark)
			i += n
			last = i
		} else {
			i++
		}
		if esc < i {
			esc = index(s, i, '\\')
		}
		if first < i {
			first = index(s, i, secret[0])
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// index returns the position of the first c in s at or after from;
// len(s) when there is none.
func index(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// matchAt returns the length of the spelling of secret that starts at s[i],
// or 0.
func matchAt(s string, i int, secret string) int {
	if s[i] != '\\' && s[i] != secret[0] {
		return 0 // neither the secret's first byte nor an escape
	}
	// Fast path: no backslash, so every character is spelled raw.
	if strings.IndexByte(s[i:min(len(s), i+4*len(secret)+8)], '\\') < 0 {
		if strings.HasPrefix(s[i:], secret) {
			return len(secret)
		}
		return 0
	}
	// A backslash may be a raw character of the secret or start an escape
	// of the next one, so follow every position a spelling can reach (at
	// most a few per character: no backtracking blow-up).
	pos := []int{i}
	var next []int
	for _, want := range secret {
		next = next[:0]
		for _, p := range pos {
			if p >= len(s) {
				continue
			}
			if r, size := utf8.DecodeRuneInString(s[p:]); r == want {
				next = appendNew(next, p+size)
			}
			if s[p] == '\\' {
				if n, ok := escapeOf(s[p:], want); ok {
					next = appendNew(next, p+n)
				}
			}
		}
		if len(next) == 0 {
			return 0
		}
		pos, next = next, pos
	}
	// The longest spelling, so that no tail of an escape is left behind.
	longest := pos[0]
	for _, p := range pos[1:] {
		longest = max(longest, p)
	}
	return longest - i
}

func appendNew(ps []int, p int) []int {
	for _, q := range ps {
		if q == p {
			return ps
		}
	}
	return append(ps, p)
}

// escapeOf reports whether s starts with a JSON escape of r, and its length.
func escapeOf(s string, r rune) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	switch s[1] {
	case 'u':
		if len(s) < 6 {
			return 0, false
		}
		v, ok := hex4(s[2:6])
		if !ok {
			return 0, false
		}
		if v >= 0xD800 && v < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			lo, ok := hex4(s[8:12])
			if ok && lo >= 0xDC00 && lo < 0xE000 {
				return 12, rune((v-0xD800)<<10|(lo-0xDC00))+0x10000 == r
			}
		}
		return 6, rune(v) == r
	case '"', '\\', '/':
		return 2, rune(s[1]) == r
	case 'b':
		return 2, r == '\b'
	case 'f':
		return 2, r == '\f'
	case 'n':
		return 2, r == '\n'
	case 'r':
		return 2, r == '\r'
	case 't':
		return 2, r == '\t'
	}
	return 0, false
}

func hex4(s string) (int, bool) {
	v := 0
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// CredentialName reports whether a query parameter (or similar) name looks
// like it carries a credential: it contains "key", "token", "secret",
// "password", "passwd" or "auth" in any case.
func CredentialName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range [...]string{"key", "token", "secret", "password", "passwd", "auth"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Query returns a raw query with the values of credential-like parameters
// replaced by Mark (query-escaped, "%5BREDACTED%5D", so the query stays
// well-formed), and every secret removed from the rest.
func Query(raw string, secrets ...string) string {
	if raw == "" {
		return ""
	}
	pairs := strings.Split(raw, "&")
	for i, pair := range pairs {
		k, _, hasValue := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && CredentialName(name) {
			pairs[i] = k + "=" + url.QueryEscape(Mark)
		}
	}
	return redactEscaped(strings.Join(pairs, "&"), secrets)
}

// URL returns a URL as an error or a log line may show it: no user
// information, credential-like query values replaced by Mark (see Query),
// no fragment, and no spelling of any secret (raw or percent-encoded).
func URL(raw string, secrets ...string) string {
	s := raw
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	path, query, hasQuery := strings.Cut(s, "?")
	if i := strings.Index(path, "://"); i >= 0 {
		rest := path[i+3:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			path = path[:i+3] + Mark + "@" + rest[at+1:]
		}
	}
	path = redactEscaped(path, secrets)
	if !hasQuery {
		return path
	}
	return path + "?" + Query(query, secrets...)
}

// redactEscaped removes secrets from URL text, in their raw and their
// percent-encoded spellings.
func redactEscaped(s string, secrets []string) string {
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		s = String(s, secret, url.QueryEscape(secret), url.PathEscape(secret))
		if u, err := url.QueryUnescape(s); err == nil && Contains(u, secret) {
			// Spelled with escapes the two functions above do not produce
			// (such as "%73k_..."): hide the whole text rather than the key.
			return Mark
		}
	}
	return s
}

// Fold returns s with secret replaced by Mark whatever the ASCII case of
// either: for text whose case a transport may have changed, such as header
// names ("Sk-Live-..." for a key echoed as a header name). It matches the
// raw spelling only.
func Fold(s, secret string) string {
	if secret == "" || len(s) < len(secret) {
		return s
	}
	ls, lsec := asciiLower(s), asciiLower(secret)
	if !strings.Contains(ls, lsec) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(ls, lsec)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(Mark)
		s, ls = s[i+len(secret):], ls[i+len(secret):]
	}
}

// asciiLower lowers ASCII letters only, so byte offsets stay aligned with s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
