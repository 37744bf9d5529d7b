package threads_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestThousandConcurrentStreams runs 1,000 streams at once through one
// Client, then 1,000 more through 50 workers: every stream completes, the
// second wave reuses connections (at most the idle pool plus the
// concurrency), and goleak (TestMain) finds no goroutine left behind.
func TestThousandConcurrentStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 streams")
	}
	const idlePool = 50
	srv := threadstest.Start(threadstest.WithAPIKey(testKey))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: idlePool, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey),
		threads.WithHTTPClient(&http.Client{Transport: tr}), threads.WithMaxRetries(0))
	require.NoError(t, err)

	run := func(id int) error {
		s, err := c.Threads.CreateAndAdvanceStream(context.Background(), threads.AdvanceParams{Message: threads.UserMessage("hello")})
		if err != nil {
			return err
		}
		n := 0
		for _, err := range s.All() {
			if err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			t.Errorf("stream %d had no events", id)
		}
		return nil
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2000)
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- run(i)
		}()
	}
	wg.Wait()
	firstWave := srv.Connections()
	assert.LessOrEqual(t, firstWave, 1000+idlePool)

	const workers = 50
	jobs := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				errs <- run(i)
			}
		}()
	}
	for i := range 1000 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	secondWave := srv.Connections() - firstWave
	assert.LessOrEqual(t, secondWave, idlePool+workers, "connections are reused after DONE")
	assert.Equal(t, 2000, len(srv.ThreadIDs()))
	t.Logf("connections: %d for 1,000 at once, %d more for 1,000 through %d workers", firstWave, secondWave, workers)
}
