package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
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
		"userKey are never used). Prints one export line, " + envProxyURL + ", on stdout.\n\n" +
		"It answers only requests for the host of --addr, for localhost, 127.0.0.1 or [::1] with its\n" +
		"port, or for a host named by --allow-host: a page that points its own name at this machine\n" +
		"(DNS rebinding) gets 403. It refuses (403) a request that the browser marks as coming from\n" +
		"another site, by its Origin or Sec-Fetch-Site header, unless --allow-origin names that origin,\n" +
		"which may then call it with CORS; a program that sends neither header is served. A request\n" +
		"body must be JSON (415 otherwise), so no page can post a form or text/plain to it.",
	example: `  threads proxy --user-key user-1 --allow-origin http://localhost:5173 > proxy.env &
  eval "$(cat proxy.env)"
  # new TamboClient({ apiKey: "unused", tamboUrl: process.env.THREADS_PROXY_URL, userKey: "ignored" })`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		fs.String("addr", "127.0.0.1:0", "the address to listen on (port 0: any free port)")
		fs.String("allow-origin", "", "serve this origin's pages, with CORS, e.g. http://localhost:5173")
		fs.String("allow-host", "", "also answer these host names (comma-separated; NAME on any port, NAME:PORT on that one)")
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
		allowed, err := allowedHosts(cl.str("allow-host"))
		if err != nil {
			return cl.usageError(e, "--allow-host: %v", err)
		}
		origin := cl.str("allow-origin")
		if origin != "" {
			if u, err := url.Parse(origin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
				u.Path != "" || u.RawQuery != "" || u.User != nil || origin != u.Scheme+"://"+u.Host {
				return cl.usageError(e, "--allow-origin %s: want an origin, scheme://host[:port], e.g. http://localhost:5173", field(origin))
			}
		}
		ln, err := net.Listen("tcp", cl.str("addr"))
		if err != nil {
			return fail(e, fmt.Errorf("proxy: %w", err))
		}
		g := &guard{hosts: allowed, origin: origin, h: allowOrigin(origin, h)}
		g.addListener(cl.str("addr"), ln.Addr())
		srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
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

// guard serves h only to requests that a page of another site cannot
// make through a browser: for one of the hosts it answers (a page that
// rebinds its own name to this machine sends that name as Host), and not
// marked by the browser as coming from another site than the allowed
// origin. Bodies that another site's page could post without a CORS
// preflight (text/plain, forms) are the Handler's own refusal (415).
type guard struct {
	// hosts are the hosts answered: "name:port" on that port, "name" on
	// any port (all lower case).
	hosts  map[string]bool
	origin string // --allow-origin, or ""
	h      http.Handler
}

// allowedHosts reads --allow-host: comma-separated names, each with or
// without a port.
func allowedHosts(list string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, v := range strings.Split(list, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" {
			continue
		}
		if strings.ContainsAny(v, "/@?# ") {
			return nil, fmt.Errorf("%s is not a host name", field(v))
		}
		if h, p, err := net.SplitHostPort(v); err == nil {
			v = net.JoinHostPort(h, p)
		}
		out[v] = true
	}
	return out, nil
}

// addListener adds the hosts of the listening address: --addr's host
// (unless it is every interface's) and the loopback names, with the port
// it listens on.
func (g *guard) addListener(addr string, ln net.Addr) {
	_, port, err := net.SplitHostPort(ln.String())
	if err != nil {
		return
	}
	names := []string{"localhost", "127.0.0.1", "::1"}
	if h, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(h); h != "" && (ip == nil || !ip.IsUnspecified()) {
			names = append(names, strings.ToLower(h))
		}
	}
	for _, n := range names {
		g.hosts[net.JoinHostPort(n, port)] = true
	}
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		refuse(w, "this host name is not served; to serve it, start threads proxy with --allow-host NAME")
		return
	}
	if g.crossSite(r) {
		refuse(w, "a request from another site's page; to serve an origin, start threads proxy with --allow-origin ORIGIN")
		return
	}
	g.h.ServeHTTP(w, r)
}

// hostAllowed reports whether host (a request's Host) is one answered.
func (g *guard) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
	}
	return name != "" && (g.hosts[name] || g.hosts[net.JoinHostPort(name, port)])
}

// crossSite reports whether the browser says that r comes from a page of
// another origin than this server's and the allowed one: its
// Sec-Fetch-Site is cross-site or same-site (another port of the same
// host is another origin), or its Origin is not this server's. A request
// with neither header (a program, a browser's top-level navigation of old)
// is not.
func (g *guard) crossSite(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if g.origin != "" && origin == g.origin {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return true
	}
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Scheme != "http" || !strings.EqualFold(u.Host, r.Host)
}

// refuse answers 403 in the service's error shape, which the official
// clients read.
func refuse(w http.ResponseWriter, why string) {
	b, _ := json.Marshal(map[string]any{"message": "threads proxy: " + why, "error": "Forbidden", "statusCode": http.StatusForbidden})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(b)
}
