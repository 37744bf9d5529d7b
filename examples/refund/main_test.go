package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Against the built-in fake: the small refund runs without asking, the
// large one is asked about and refused with the person's reason, which
// the model reads; the pause, delivered twice, refunds once.
func TestRefundAgainstFake(t *testing.T) {
	if os.Getenv(threads.EnvBaseURL) != "" {
		t.Skip("THREADS_BASE_URL is set: the fake is not used")
	}
	var out strings.Builder
	if err := run(context.Background(), strings.NewReader("only a manager refunds over 100 €\n"), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Approve refund map[amount:480 order:B-7]? [y/reason] ",
		"(refund: refunded 12.50 € on order A-1042)",
		"(refund: the call was not approved: only a manager refunds over 100 €)",
		"the refund on B-7 needs a manager.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "(refunding "); n != 1 {
		t.Errorf("%d refunds ran, want 1:\n%s", n, got)
	}
	if n := strings.Count(got, "Approve "); n != 1 {
		t.Errorf("the person was asked %d times, want 1:\n%s", n, got)
	}
}
