package threads_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
)

func TestTranscribe(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	text, err := c.Audio.Transcribe(context.Background(), strings.NewReader("RIFF....WAVE"), "memo.wav")
	require.NoError(t, err)
	assert.Equal(t, "transcript of memo.wav (12 bytes)", text)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.True(t, strings.HasPrefix(reqs[0].Header.Get("Content-Type"), "multipart/form-data; boundary="))

	_, err = c.Audio.Transcribe(context.Background(), strings.NewReader("x"), "memo.txt")
	require.ErrorContains(t, err, "file name")
	_, err = c.Audio.Transcribe(context.Background(), bytes.NewReader(make([]byte, threads.MaxAudioSize+1)), "big.mp3")
	require.ErrorContains(t, err, "25 MB")
	assert.Len(t, srv.Requests(), 1, "nothing more sent")
}
