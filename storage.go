package threads

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/threadsapi/threads-go/internal/core"
)

// MaxAttachmentSize is the largest file the service takes through
// [StorageService.Presign] and [StorageService.Upload]: 10 MB (10 MiB, as
// the service's source counts it).
const MaxAttachmentSize = 10 << 20

// StorageService uploads files that messages refer to; use it as
// Client.Storage.
//
// Its route is not in the API spec nor in the recorded captures: it
// follows the service's source (apps/api/src/storage: POST
// /storage/presign, guarded by the project key; the answer is 201 with
// uploadUrl, attachmentUri and expiresIn).
type StorageService struct{ client *Client }

// Format prints "threads.StorageService" whatever the verb (see
// ProjectsService.Format).
func (s StorageService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.StorageService") }

// PresignParams says what will be uploaded.
type PresignParams struct {
	ContentType string // the file's media type, such as application/pdf; required
	Size        int64  // the file's size in bytes: 1 to MaxAttachmentSize
}

// PresignedUpload is where to put a file and how messages name it.
type PresignedUpload struct {
	// UploadURL is the storage host's URL to PUT the file to, with the
	// same Content-Type. It carries a signature that grants the upload,
	// so it is a Token: printed redacted; Reveal it to send it.
	UploadURL Token `json:"uploadUrl"`
	// AttachmentURI names the file in a message: attachment://...
	AttachmentURI string `json:"attachmentUri"`
	// ExpiresIn is how many seconds UploadURL stays valid (3600 at the
	// service).
	ExpiresIn int `json:"expiresIn,omitzero"`
}

var epPresign = endpoint[PresignedUpload]{http.MethodPost, "/storage/presign"}

// Presign asks for a URL to upload a file of params.Size bytes and
// params.ContentType to. The project key may call it (the service
// answers 503 when its storage is not configured). A size outside 1 to
// [MaxAttachmentSize] or a content type that is not a media type is
// refused before anything is sent. It is a POST: only what provably did
// not act is retried.
func (s *StorageService) Presign(ctx context.Context, params PresignParams, opts ...RequestOption) (*PresignedUpload, error) {
	if err := checkPresign(params); err != nil {
		return nil, err
	}
	r, _ := epPresign.route("Storage.Presign")
	body := map[string]any{"contentType": params.ContentType, "size": params.Size}
	var c *Client
	if s != nil {
		c = s.client
	}
	up, err := epPresign.do(ctx, c, opts, core.Call{Route: r, Body: body})
	if err != nil {
		return nil, err
	}
	if up.UploadURL.IsZero() || !strings.HasPrefix(up.AttachmentURI, "attachment://") {
		return nil, unexpectedResponse(r.Method, r.Template, http.StatusOK, "no uploadUrl or attachment:// URI in the answer")
	}
	return up, nil
}

func checkPresign(p PresignParams) error {
	if p.Size <= 0 || p.Size > MaxAttachmentSize {
		return fmt.Errorf("threads: Storage: size %d: must be 1 to %d bytes (10 MB)", p.Size, MaxAttachmentSize)
	}
	if _, _, err := mime.ParseMediaType(p.ContentType); err != nil || !validHeaderValue(p.ContentType) {
		return fmt.Errorf("threads: Storage: content type %q is not a media type", p.ContentType)
	}
	return nil
}

// Upload stores size bytes read from r as a file of contentType and
// returns its attachment:// URI, for [AttachmentPart]. It presigns
// (Presign), then PUTs the bytes to the upload URL: a plain request
// through the transport of the client's http.Client (WithHTTPClient),
// without the API key, the SDK's headers, middlewares or retries, since
// the storage host is not the service. r must yield exactly size bytes
// (read before anything is sent, at most MaxAttachmentSize); size and
// contentType are checked before anything is sent. The upload URL never
// appears in an error.
func (s *StorageService) Upload(ctx context.Context, r io.Reader, contentType string, size int64, opts ...RequestOption) (string, error) {
	if err := checkPresign(PresignParams{ContentType: contentType, Size: size}); err != nil {
		return "", err
	}
	if r == nil {
		return "", errors.New("threads: Storage.Upload: nil reader")
	}
	data, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return "", fmt.Errorf("threads: Storage.Upload: reading the file: %w", err)
	}
	if int64(len(data)) != size {
		return "", fmt.Errorf("threads: Storage.Upload: the reader holds %s bytes, not the %d given", countUpTo(len(data), size), size)
	}
	up, err := s.Presign(ctx, PresignParams{ContentType: contentType, Size: size}, opts...)
	if err != nil {
		return "", err
	}
	if err := s.put(ctx, up.UploadURL.Reveal(), contentType, data); err != nil {
		return "", err
	}
	return up.AttachmentURI, nil
}

func countUpTo(n int, size int64) string {
	if int64(n) > size {
		return "more than that"
	}
	return fmt.Sprint(n)
}

// put sends data to the presigned URL, outside the request path.
func (s *StorageService) put(ctx context.Context, rawURL, contentType string, data []byte) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("threads: Storage.Upload: the service's upload URL is not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, rawURL, bytes.NewReader(data))
	if err != nil {
		return errors.New("threads: Storage.Upload: the service's upload URL cannot be requested")
	}
	req.ContentLength = int64(len(data))
	req.Header.Set("Content-Type", contentType)
	tr := http.DefaultTransport
	if hc := s.client.cfg.httpClient; hc != nil && hc.Transport != nil {
		tr = hc.Transport
	}
	// No redirects: a presigned URL answers itself, and a redirect would
	// carry the file elsewhere.
	resp, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL holds the signature
		}
		return fmt.Errorf("threads: Storage.Upload: PUT to %s: %w", u.Host, err)
	}
	defer drainClose(resp.Body)
	if !ok2xx(resp.StatusCode) {
		return fmt.Errorf("threads: Storage.Upload: PUT to %s: %d %s", u.Host, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return nil
}

// AttachmentPart returns a content part that attaches an uploaded file
// (its attachment:// URI, from [StorageService.Upload]) to a message:
//
//	msg := threads.UserMessage("What does this say?")
//	msg.Content = append(msg.Content, threads.AttachmentPart(uri, "application/pdf", "report.pdf"))
//
// The part is a resource part with the URI, media type and name (name may
// be empty), as the service's source reads attachments.
func AttachmentPart(uri, contentType, name string) ContentPart {
	return ContentPart{Type: ContentPartTypeResource, Resource: &Resource{URI: uri, MIMEType: contentType, Name: name}}
}
