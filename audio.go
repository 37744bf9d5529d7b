package threads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strings"

	"github.com/threadsapi/threads-go/internal/core"
)

// MaxAudioSize is the largest file [AudioService.Transcribe] sends: 25 MB
// (25 MiB, as the service's source counts it).
const MaxAudioSize = 25 << 20

// AudioService transcribes speech; use it as Client.Audio.
//
// Its route is not in the API spec nor in the recorded captures: it
// follows the service's source (apps/api/src/audio: POST
// /audio/transcribe, multipart/form-data with the file in the "file"
// field, guarded by the project key; MP3, WAV, MP4, MPEG, MPGA, M4A and
// WEBM, at most 25 MB).
type AudioService struct{ client *Client }

// Format prints "threads.AudioService" whatever the verb (see
// ProjectsService.Format).
func (s AudioService) Format(f fmt.State, verb rune) { fmt.Fprint(f, "threads.AudioService") }

// audioTypes maps the file name extensions the service accepts to the
// media type sent for the file part.
var audioTypes = map[string]string{
	".mp3": "audio/mpeg", ".mpeg": "audio/mpeg", ".mpga": "audio/mpeg",
	".wav": "audio/wav", ".mp4": "audio/mp4", ".m4a": "audio/m4a", ".webm": "audio/webm",
}

// Transcribe sends the audio read from r (named filename, whose extension
// says its format: .mp3, .mpeg, .mpga, .wav, .mp4, .m4a or .webm) and
// returns its transcription. The project key may call it. The file is
// read whole before anything is sent (at most [MaxAudioSize]; more, or an
// unknown extension, is refused without sending). It is a POST: only what
// provably did not act is retried. The answer may be the text itself, a
// JSON string, or a JSON object with a "text" member: all read the same.
func (s *AudioService) Transcribe(ctx context.Context, r io.Reader, filename string, opts ...RequestOption) (string, error) {
	ext := strings.ToLower(path.Ext(filename))
	ct, ok := audioTypes[ext]
	if !ok {
		return "", fmt.Errorf("threads: Audio.Transcribe: file name %q: want an .mp3, .mpeg, .mpga, .wav, .mp4, .m4a or .webm file", filename)
	}
	if r == nil {
		return "", errors.New("threads: Audio.Transcribe: nil reader")
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxAudioSize+1))
	if err != nil {
		return "", fmt.Errorf("threads: Audio.Transcribe: reading the audio: %w", err)
	}
	if len(data) > MaxAudioSize {
		return "", fmt.Errorf("threads: Audio.Transcribe: the audio is more than %d bytes (25 MB)", MaxAudioSize)
	}
	if len(data) == 0 {
		return "", errors.New("threads: Audio.Transcribe: empty audio")
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, path.Base(strings.ReplaceAll(filename, `\`, "/"))))
	h.Set("Content-Type", ct)
	part, _ := mw.CreatePart(h)
	part.Write(data)
	mw.Close()

	var c *Client
	if s != nil {
		c = s.client
	}
	rt, _ := epTranscribe.route("Audio.Transcribe")
	cl := core.Call{Route: rt, Raw: buf.Bytes(), Header: http.Header{"Content-Type": {mw.FormDataContentType()}}}
	resp, cfg, err := c.exchange(ctx, opts, cl)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := readBody(resp, rt.Method, rt.Template, int64(cfg.maxResponseSize))
	if err != nil {
		return "", err
	}
	return transcript(body), nil
}

// transcript reads the answer of /audio/transcribe in its possible forms.
func transcript(body []byte) string {
	trimmed := bytes.TrimSpace(body)
	var s string
	if json.Unmarshal(trimmed, &s) == nil {
		return s
	}
	var obj struct {
		Text string `json:"text"`
	}
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &obj) == nil {
		return obj.Text
	}
	return string(body)
}
