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
	"github.com/threadsapi/threads-go/internal/termtext"
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
	cfg, err := s.client.settings(opts)
	if err != nil {
		return "", err
	}
	if err := s.put(ctx, cfg, up.UploadURL.Reveal(), contentType, data); err != nil {
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

// put sends data to the presigned URL, outside the request path, within
// the call's request timeout (the storage host is bounded like the
// service). The URL must be https, unless the service itself is reached
// over http (a local deployment): a service on https that presigns an
// http URL would have the file sent in the clear. Errors name the host,
// redacted and cut short (the URL is the server's text: it may echo the
// key, and its signature is never shown).
func (s *StorageService) put(ctx context.Context, cfg *config, rawURL, contentType string, data []byte) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("threads: Storage.Upload: the service's upload URL is not an http(s) URL")
	}
	if u.Scheme == "http" && s.client.base.Scheme != "http" {
		return errors.New("threads: Storage.Upload: the service's upload URL is plain http, not https; the file is not sent")
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
	hc := &http.Client{
		Transport:     &attemptTransport{next: tr, d: cfg.requestTimeout},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL holds the signature
		}
		return uploadError(cfg, fmt.Sprintf("threads: Storage.Upload: PUT to %s: ", u.Host), err, urlSecrets(u)...)
	}
	defer drainClose(resp.Body)
	if !ok2xx(resp.StatusCode) {
		return uploadError(cfg, fmt.Sprintf("threads: Storage.Upload: PUT to %s: %d %s", u.Host, resp.StatusCode, http.StatusText(resp.StatusCode)), nil, urlSecrets(u)...)
	}
	return nil
}

// maxUploadErrorText bounds an upload error's text (the host is the
// server's choice, as is the transport error that repeats it).
const maxUploadErrorText = 512

// uploadError is msg followed by err: err is wrapped (errors.Is finds a
// timeout) only when the text holds no secret (the key, or secrets: the
// upload URL's signature, which the caller's transport may quote) and is
// short; otherwise the error is the cleaned text alone, so that no Unwrap
// reaches them.
func uploadError(cfg *config, msg string, err error, secrets ...string) error {
	raw := msg
	if err != nil {
		raw += err.Error()
	}
	clean := cfg.redact(raw, secrets...)
	if err != nil && clean == raw && len(raw) <= maxUploadErrorText && termtext.OneLine(raw, maxUploadErrorText) == raw {
		return fmt.Errorf("%s%w", msg, err)
	}
	return errors.New(termtext.OneLine(clean, maxUploadErrorText))
}

// urlSecrets are the parts of a presigned URL that grant the upload: its
// query, whole and each value of it long enough to be a credential (a
// signature, a credential id, a SAS token; a date or an expiry is hidden
// too, which costs nothing).
func urlSecrets(u *url.URL) []string {
	if u.RawQuery == "" {
		return nil
	}
	out := []string{u.RawQuery}
	for _, vs := range u.Query() {
		for _, v := range vs {
			if len(v) >= 8 {
				out = append(out, v)
			}
		}
	}
	return out
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
