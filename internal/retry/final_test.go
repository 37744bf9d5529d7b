package retry

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestShouldRetryFinalAnswers: x-should-retry never re-sends a 2xx or a
// 3xx (either may have acted) or a 410.
func TestShouldRetryFinalAnswers(t *testing.T) {
	t.Parallel()
	for _, status := range []int{200, 201, 204, 299, 301, 303, 304, 307, 410} {
		for _, idempotent := range []bool{true, false} {
			assert.False(t, ShouldRetry(idempotent, resp(status, "X-Should-Retry", "true"), nil, true), "%d", status)
		}
	}
}
