package scripttest

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdProxyStart is "proxystart VAR [args...]": it starts "threads proxy
// args..." in the background with the script's environment, waits for
// its export line, and sets $VAR to the URL it serves and $VAR_PORT to its
// port. The proxy is stopped (SIGTERM) when the script ends.
func cmdProxyStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: proxystart VAR [args...]")
	}
	bin := ""
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, "threads"); fileExists(p) {
			bin = p
			break
		}
	}
	if bin == "" {
		ts.Fatalf("no threads command on the script's PATH")
	}
	cmd := exec.Command(bin, append([]string{"proxy"}, args[1:]...)...)
	for _, v := range []string{"PATH", "HOME", "TMPDIR", "THREADS_BASE_URL", "THREADS_API_KEY", "THREADS_API_KEY_HEADER", "THREADS_USER_KEY", "GORACE"} {
		cmd.Env = append(cmd.Env, v+"="+ts.Getenv(v))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	ts.Defer(func() {
		if cmd.Process.Signal(syscall.SIGTERM) != nil {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Wait()
		ts.Fatalf("threads proxy printed no export line (%v): %s", err, stderr.String())
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "export THREADS_PROXY_URL=")
	if !ok {
		ts.Fatalf("threads proxy: unexpected first line %q", line)
	}
	url = strings.Trim(url, "'")
	ts.Setenv(args[0], url)
	ts.Setenv(args[0]+"_PORT", url[strings.LastIndex(url, ":")+1:])
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// headerFlags is a repeatable -H Name:value flag.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

// cmdHTTPReq is "httpreq [-host HOST] [-H Name:value]... METHOD URL
// [BODY]": it sends one request, as a browser's page could, and prints
// "HTTP <status>", the answer's headers (but Date) one per line, a blank
// line and the body.
func cmdHTTPReq(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("httpreq", flag.ContinueOnError)
	host := fs.String("host", "", "")
	var hdrs headerFlags
	fs.Var(&hdrs, "H", "")
	if neg || fs.Parse(args) != nil || fs.NArg() < 2 || fs.NArg() > 3 {
		ts.Fatalf("usage: httpreq [-host HOST] [-H Name:value]... METHOD URL [BODY]")
	}
	var body io.Reader
	if fs.NArg() == 3 {
		body = strings.NewReader(fs.Arg(2))
	}
	req, err := http.NewRequest(fs.Arg(0), fs.Arg(1), body)
	ts.Check(err)
	if *host != "" {
		req.Host = *host
	}
	for _, h := range hdrs {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			ts.Fatalf("httpreq: -H %q: want Name:value", h)
		}
		req.Header.Set(name, value)
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	w := ts.Stdout()
	fmt.Fprintf(w, "HTTP %d\n", resp.StatusCode)
	names := make([]string, 0, len(resp.Header))
	for name := range resp.Header {
		if name != "Date" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(w, "%s: %s\n", name, strings.Join(resp.Header[name], ", "))
	}
	fmt.Fprintf(w, "\n%s\n", b)
}
