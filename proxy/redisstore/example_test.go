package redisstore_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/proxy/redisstore"
)

// A backend instance behind a load balancer: its Handler keeps pending
// server results and run slots in Redis, shared with the other instances,
// and on SIGTERM (a rolling deploy) lets its runs end before it stops.
func ExampleOpen() {
	client, err := threads.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	store, err := redisstore.Open(os.Getenv("REDIS_URL")) // rediss://app:secret@redis.internal:6379/0
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	userOf := func(r *http.Request) (proxy.User, error) {
		c, err := r.Cookie("session")
		if err != nil {
			return proxy.User{}, err
		}
		return proxy.User{Key: "user-" + c.Value}, nil // look the session up in your store
	}
	h, err := proxy.New(client, userOf,
		proxy.WithStore(store), proxy.WithStoreKeyPrefix("shop"), proxy.WithMaxRunsPerUser(3))
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: ":8080", Handler: http.StripPrefix("/api/tambo", h)}
	go func() {
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	// The load balancer stops sending here; runs in flight get 25 s to end.
	shutdown, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	_ = h.Shutdown(shutdown)
	_ = srv.Shutdown(shutdown)
}
