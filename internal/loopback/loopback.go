// Package loopback is the harness of the SDK's stream benchmarks over
// loopback: a server that writes a whole body at once, the raw net/http
// client a bar compares the SDK with, and the many-streams benchmarks (N
// idle streams at once, many.go). Only tests use it.
package loopback

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Body starts a server that answers every request with 201 and body as an
// event stream, written at once. The caller closes it.
func Body(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	}))
}

// Post returns what a hand-written client does for one stream: POST reqBody
// to url with header, then read the body with read (which counts the
// events it decoded), drain and close it; it fails b on an error, or when
// read counted other than want events.
func Post(b testing.TB, url string, header http.Header, reqBody []byte, want int, read func(io.Reader) (int, error)) func() {
	return func() {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(reqBody))
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := read(resp.Body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n != want {
			b.Fatal(n, want, err)
		}
	}
}

// Discard is the floor's read: the body read and discarded, counted as
// want events.
func Discard(want int) func(io.Reader) (int, error) {
	return func(r io.Reader) (int, error) {
		_, err := io.Copy(io.Discard, r)
		return want, err
	}
}
