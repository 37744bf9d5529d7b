package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/threadsapi/threads-go/proxy"
)

// envProxyURL is the variable whose export line "threads proxy" prints.
const envProxyURL = "THREADS_PROXY_URL"

var proxyCmd = &command{
	name:    "proxy",
	summary: "serve the /v1 routes to a local web client, as one end user",
	long: "Serve the /v1 routes that the service's official web clients call (@tambo-ai/client,\n" +
		"the React library, the TypeScript SDK) in front of the configured service, as the end user\n" +
		"--user-key (or $" + envUserKey + "), until Ctrl-C or SIGTERM: point the web client's base URL\n" +
		"at it and it needs no API key of its own (any placeholder will do; the browser's key and\n" +
		"userKey are never used). Prints one export line, " + envProxyURL + ", on stdout.\n" +
		"With --allow-origin, a page of that origin may call it (CORS); without, only same-origin\n" +
		"pages and programs can.",
	example: `  threads proxy --user-key user-1 --allow-origin http://localhost:5173 > proxy.env &
  eval "$(cat proxy.env)"
  # new TamboClient({ apiKey: "unused", tamboUrl: process.env.THREADS_PROXY_URL, userKey: "ignored" })`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		fs.String("addr", "127.0.0.1:0", "the address to listen on (port 0: any free port)")
		fs.String("allow-origin", "", "answer CORS requests of this origin, e.g. http://localhost:5173")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 0) {
			return exitUsage
		}
		key := cl.str("user-key")
		if key == "" {
			key = strings.TrimSpace(os.Getenv(envUserKey))
		}
		if key == "" {
			return cl.usageError(e, "no end user: set %s or --user-key", envUserKey)
		}
		c, ok := cl.client(e)
		if !ok {
			return exitUsage
		}
		h, err := proxy.New(c, func(*http.Request) (proxy.User, error) { return proxy.User{Key: key}, nil })
		if err != nil {
			return fail(e, err)
		}
		ln, err := net.Listen("tcp", cl.str("addr"))
		if err != nil {
			return fail(e, fmt.Errorf("proxy: %w", err))
		}
		srv := &http.Server{Handler: allowOrigin(cl.str("allow-origin"), h), ReadHeaderTimeout: 10 * time.Second}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		url := "http://" + ln.Addr().String()
		fmt.Fprintf(e.stdout, "export %s=%s\n", envProxyURL, shellQuote(url))
		fmt.Fprintf(e.stderr, "threads proxy: serving the /v1 routes at %s as end user %s, in front of %s; "+
			"Ctrl-C stops it\n", url, field(key), field(serviceURL(cl)))
		select {
		case <-e.interrupt:
		case err := <-served:
			return fail(e, fmt.Errorf("proxy: %w", err))
		}
		// Runs in flight get a moment to end; then their connections
		// close, which cancels them on the service.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fail(e, fmt.Errorf("proxy: %w", err))
		}
		fmt.Fprintln(e.stderr, "threads proxy: stopped")
		return exitOK
	},
}

// serviceURL is the service the command talks to, for its banner.
func serviceURL(cl *call) string {
	if cl.baseURL != "" {
		return cl.baseURL
	}
	return os.Getenv("THREADS_BASE_URL")
}

// allowOrigin answers CORS for one origin around h: a preflight is
// answered here, other requests get the headers a cross-origin fetch
// needs to read the answer and the run's id headers. No origin: h alone.
func allowOrigin(origin string, h http.Handler) http.Handler {
	if origin == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != origin {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		w.Header().Set("Access-Control-Expose-Headers", "X-Run-Id, X-Thread-Id")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
			if hdr := r.Header.Get("Access-Control-Request-Headers"); hdr != "" {
				w.Header().Set("Access-Control-Allow-Headers", hdr)
			}
			w.Header().Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.ServeHTTP(w, r)
	})
}
