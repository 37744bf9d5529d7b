package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// presignServer answers POST /storage/presign with uploadURL (made from
// the server's own URL by mk) and counts the other requests (the PUTs).
func presignServer(t *testing.T, tls bool, mk func(base string) string, put http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var puts atomic.Int64
	var srv *httptest.Server
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/storage/presign" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"uploadUrl": mk(srv.URL), "attachmentUri": "attachment://p/f", "expiresIn": 3600})
			return
		}
		puts.Add(1)
		if put != nil {
			put(w, r)
		}
	})
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv, &puts
}

// hostErrTransport fails every request to another host than allowed with
// the error net/http gives for an unknown host, which names the host.
type hostErrTransport struct{ allowed string }

func (h hostErrTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host == h.allowed {
		return http.DefaultTransport.RoundTrip(r)
	}
	return nil, fmt.Errorf("dial tcp: lookup %s: no such host", r.URL.Host)
}

// TestUploadErrorHidesKeyInUploadHost: a presign answer whose upload host
// holds the API key (a hostile or echoing service: https://<key>.evil/)
// must not put the key in Upload's error, which names the host and wraps
// the transport's error (which names it too).
func TestUploadErrorHidesKeyInUploadHost(t *testing.T) {
	t.Parallel()
	srv, _ := presignServer(t, false, func(string) string { return "https://" + strings.ToLower(testKey) + ".evil.example/u?sig=1" }, nil)
	host := strings.TrimPrefix(srv.URL, "http://")
	c, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(strings.ToLower(testKey)),
		threads.WithoutEnvironmentDefaults(), threads.WithHTTPClient(&http.Client{Transport: hostErrTransport{host}}))
	require.NoError(t, err)
	_, err = c.Storage.Upload(context.Background(), strings.NewReader("abc"), "text/plain", 3)
	require.Error(t, err)
	assert.NotContains(t, strings.ToLower(err.Error()), strings.ToLower(testKey))
	assert.NotContains(t, fmt.Sprintf("%+v %#v", err, err), strings.ToLower(testKey))
}

// TestUploadRefusesPlainHTTPFromHTTPSService: a service reached over
// https that presigns an http:// URL would have the file sent in the
// clear; Upload refuses it before sending anything.
func TestUploadRefusesPlainHTTPFromHTTPSService(t *testing.T) {
	t.Parallel()
	plain, plainPuts := presignServer(t, false, func(b string) string { return b + "/never" }, nil)
	srv, _ := presignServer(t, true, func(string) string { return plain.URL + "/upload?sig=1" }, nil)
	c, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey),
		threads.WithoutEnvironmentDefaults(), threads.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	_, err = c.Storage.Upload(context.Background(), strings.NewReader("abc"), "text/plain", 3)
	require.ErrorContains(t, err, "https")
	assert.Zero(t, plainPuts.Load(), "the file went over plain http")
}

// TestUploadPutIsBoundedByRequestTimeout: a storage host that never
// answers holds Upload no longer than the request timeout (as every other
// call), not until the caller's context ends. In a synctest bubble over an
// in-memory network: the timeout is fake time, so a loaded machine cannot
// stretch the presign call past it before the PUT is sent (it did, once
// in 8 runs beside a second copy of the suite).
func TestUploadPutIsBoundedByRequestTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var puts atomic.Int64
		base, tr := pipeServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/storage/presign" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				json.NewEncoder(w).Encode(map[string]any{"uploadUrl": "http://pipe.invalid/upload?sig=1", "attachmentUri": "attachment://p/f", "expiresIn": 3600})
				return
			}
			puts.Add(1)
			// A storage host that never answers. (The body read first: the
			// server notices the client leave only once it reads again.)
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}))
		c, err := threads.NewClient(threads.WithBaseURL(base), threads.WithAPIKey(testKey), threads.WithoutEnvironmentDefaults(),
			threads.WithHTTPClient(&http.Client{Transport: tr}))
		require.NoError(t, err)
		// The context is only the test's safety net: the request timeout
		// must end the call first.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		start := time.Now()
		_, err = c.Storage.Upload(ctx, bytes.NewReader([]byte("abc")), "text/plain", 3, threads.WithRequestTimeout(100*time.Millisecond))
		require.Error(t, err)
		assert.Equal(t, int64(1), puts.Load())
		assert.Equal(t, 100*time.Millisecond, time.Since(start), "the PUT's timeout, on the fake clock")
		assert.NoError(t, ctx.Err(), "the call lasted until the caller's context ended: %v", err)
		assert.Contains(t, err.Error(), "WithRequestTimeout")
	})
}

// TestPresignDecodeErrorHidesUploadURL: a presign answer that holds the
// upload URL but does not decode (a member of the wrong type) must not
// quote the URL, whose signature grants the upload, in the error.
func TestPresignDecodeErrorHidesUploadURL(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	const sig = "X-Amz-Signature=SIGSECRET0123456789"
	srv.Inject(threadstest.Fault{Method: http.MethodPost, Path: "/storage/presign", Status: http.StatusCreated,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   `{"uploadUrl":"https://store.example/f?` + sig + `","attachmentUri":5}`})
	_, err := c.Storage.Upload(context.Background(), strings.NewReader("x"), "text/plain", 1)
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.NotContains(t, err.Error(), "SIGSECRET")
}

// urlErrTransport sends the service's requests and fails the others with
// an error that quotes the request's URL, as wrapping transports (retry
// or logging ones) do.
type urlErrTransport struct{ allowed string }

func (u urlErrTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host == u.allowed {
		return http.DefaultTransport.RoundTrip(r)
	}
	return nil, fmt.Errorf("%s %s giving up after 1 attempt", r.Method, r.URL)
}

// TestUploadErrorHidesSignatureFromTransport: the caller's transport may
// quote the URL it failed to reach; Upload's error must not carry the
// upload URL's signature (its doc: the URL never appears in an error).
func TestUploadErrorHidesSignatureFromTransport(t *testing.T) {
	t.Parallel()
	srv, _ := presignServer(t, false, func(string) string {
		return "https://store.example/bucket/f?X-Amz-Credential=AKIDSECRET&X-Amz-Signature=SIGSECRET0123456789"
	}, nil)
	c, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey),
		threads.WithoutEnvironmentDefaults(), threads.WithHTTPClient(&http.Client{Transport: urlErrTransport{strings.TrimPrefix(srv.URL, "http://")}}))
	require.NoError(t, err)
	_, err = c.Storage.Upload(context.Background(), strings.NewReader("abc"), "text/plain", 3)
	require.Error(t, err)
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err)} {
		assert.NotContains(t, s, "SIGSECRET")
		assert.NotContains(t, s, "AKIDSECRET")
	}
}

func TestUploadPutsWithoutTheKeyAndReturnsURI(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	data := []byte("%PDF-1.7 fake")
	uri, err := c.Storage.Upload(context.Background(), bytes.NewReader(data), "application/pdf", int64(len(data)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(uri, "attachment://"+srv.ProjectID+"/"), uri)
	got, hdr, ok := srv.Upload(uri)
	require.True(t, ok)
	assert.Equal(t, data, got)
	assert.Equal(t, "application/pdf", hdr.Get("Content-Type"))
	assert.Empty(t, hdr.Get("Authorization"), "no key to the storage host")
	for k, vs := range hdr {
		assert.NotContains(t, strings.Join(vs, " "), testKey, k)
	}

	msg := threads.UserMessage("what is this?")
	msg.Content = append(msg.Content, threads.AttachmentPart(uri, "application/pdf", "a.pdf"))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Messages.Create(context.Background(), th.ID, msg)
	require.NoError(t, err)
	reqs := srv.Requests()
	assert.Contains(t, string(reqs[len(reqs)-1].Body), `"uri":"`+uri+`"`)
}

func TestUploadChecksBeforeSending(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	_, err := c.Storage.Upload(ctx, strings.NewReader("x"), "text/plain", threads.MaxAttachmentSize+1)
	require.ErrorContains(t, err, "must be 1 to")
	_, err = c.Storage.Upload(ctx, strings.NewReader("x"), "text/plain", 0)
	require.Error(t, err)
	_, err = c.Storage.Upload(ctx, strings.NewReader("x"), "not a type", 1)
	require.ErrorContains(t, err, "not a media type")
	_, err = c.Storage.Upload(ctx, strings.NewReader("abc"), "text/plain", 2)
	require.ErrorContains(t, err, "more than that")
	_, err = c.Storage.Upload(ctx, strings.NewReader("a"), "text/plain", 2)
	require.ErrorContains(t, err, "holds 1 bytes")
	_, err = c.Storage.Upload(ctx, iotest.ErrReader(errors.New("disk")), "text/plain", 2)
	require.ErrorContains(t, err, "disk")
	assert.Empty(t, srv.Requests(), "nothing sent")
}

func TestPresignAnswer(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	up, err := c.Storage.Presign(context.Background(), threads.PresignParams{ContentType: "image/png", Size: 10})
	require.NoError(t, err)
	assert.Equal(t, 3600, up.ExpiresIn)
	assert.Contains(t, up.UploadURL.Reveal(), "X-Amz-Signature")
	assert.NotContains(t, fmt.Sprintf("%v %+v", up, *up), "X-Amz-Signature", "the signed URL prints redacted")
}
