package threadstest_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

func TestWithAddr(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	srv := threadstest.NewServer(t, threadstest.WithAddr(addr))
	assert.Equal(t, "http://"+addr, srv.URL)
	_, err = srv.Client().Threads.List(context.Background(), nil)
	require.NoError(t, err)

	// The address is taken now: a second server cannot listen there.
	defer func() {
		assert.Contains(t, recover(), `threadstest: WithAddr("`+addr+`"): listen tcp `+addr)
	}()
	threadstest.Start(threadstest.WithAddr(addr)).Close()
	t.Error("Start did not panic")
}

func TestWithAddrAnyPort(t *testing.T) {
	srv := threadstest.NewServer(t, threadstest.WithAddr("127.0.0.1:0"))
	assert.Regexp(t, `^http://127\.0\.0\.1:[1-9][0-9]*$`, srv.URL)
}
