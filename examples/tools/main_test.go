package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestTools runs the example against the fake: both tools are called and
// their results come back in the answer.
func TestTools(t *testing.T) {
	srv := threadstest.NewServer(t)
	env := &demoEnv{Client: srv.Client(), ProjectID: srv.ProjectID, Fake: srv}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), env, &out))
	assert.Equal(t, `You: What's the weather and the time in Lisbon?
  (the model calls get_weather(city=Lisbon))
  (the model calls get_time(zone=Europe/Lisbon))
The tool returned: 22°C and sunny in Lisbon; 14:05 WET
`, out.String())
}
