package runs

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newStatic serves body with status to every request, as the service's
// JSON; it returns the base URL.
func newStatic(t testing.TB, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
