package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// dialLog is a DialFunc that records what it judged and refuses the
// hosts it is told to.
type dialLog struct {
	mu     sync.Mutex
	seen   []string // "host addr"
	refuse func(host string, addr netip.Addr) bool
}

func (d *dialLog) judge(_ context.Context, host string, addr netip.Addr) error {
	d.mu.Lock()
	d.seen = append(d.seen, host+" "+addr.String())
	d.mu.Unlock()
	if d.refuse(host, addr) {
		return fmt.Errorf("%s at %s refused by the test", host, addr)
	}
	return nil
}

func (d *dialLog) judged() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.seen...)
}

// TestWebFetch_DialJudged: every address web_fetch connects to is judged
// as the connection is made, under the name that led to it, redirects
// included; a refusal is the tool's failure, and the server never sees
// the request.
func TestWebFetch_DialJudged(t *testing.T) {
	var hits sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.Host+r.URL.Path, true)
		if r.URL.Path == "/away" { // to the same server under another name
			http.Redirect(w, r, "http://localhost:"+strings.Split(r.Host, ":")[1]+"/plain", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "just text")
	}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))
	for _, tc := range []struct {
		name, path string
		refuse     func(string, netip.Addr) bool
		want       string // "" when the fetch succeeds; else the message's start
		judged     string // a judgement that must have been made
	}{
		{"an address that passes", "/plain", func(string, netip.Addr) bool { return false }, "", "127.0.0.1 127.0.0.1"},
		{"an address refused", "/plain", func(string, netip.Addr) bool { return true }, "127.0.0.1 at 127.0.0.1 refused by the test", "127.0.0.1 127.0.0.1"},
		{"a redirect's connection is judged under its name", "/away", func(h string, _ netip.Addr) bool { return h == "localhost" }, "localhost at ", "localhost "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &dialLog{refuse: tc.refuse}
			e := newEnv(t, LocalHost{}, func(o *Options) { o.FetchDial = d.judge })
			r := e.call("web_fetch", `{"url":"`+srv.URL+tc.path+`"}`)
			if tc.want == "" {
				if got := wantOK(t, r); !strings.Contains(got, "just text") {
					t.Errorf("fetched %q", got)
				}
			} else {
				wantErr(t, r, "WEB_ADDRESS_REFUSED", "")
				if !strings.HasPrefix(r.Error.Message, tc.want) {
					t.Errorf("message %q, want it to start %q", r.Error.Message, tc.want)
				}
			}
			found := false
			for _, j := range d.judged() {
				found = found || strings.HasPrefix(j, tc.judged)
			}
			if !found {
				t.Errorf("judged %q, want one starting %q", d.judged(), tc.judged)
			}
		})
	}
	if _, reached := hits.Load(fmt.Sprintf("localhost:%d/plain", addr.Port())); reached {
		t.Errorf("a refused connection reached the server")
	}
}

// TestFetchTransport_Proxy: a connection to the proxy a request is sent
// through is not judged (the proxy resolves the name and connects); the
// request still gets there.
func TestFetchTransport_Proxy(t *testing.T) {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "proxied %s", r.URL) // a proxy is asked for an absolute URL
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	d := &dialLog{refuse: func(string, netip.Addr) bool { return true }}
	client := &http.Client{Transport: fetchTransport(d.judge, http.ProxyURL(pu))}
	resp, err := client.Get("http://upstream.invalid/x")
	if err != nil {
		t.Fatalf("through the proxy: %v (judged %q)", err, d.judged())
	}
	resp.Body.Close()
	if got := d.judged(); len(got) != 0 {
		t.Errorf("the proxy's connection was judged: %q", got)
	}
	// Without a proxy the same refusal holds.
	direct := &http.Client{Transport: fetchTransport(d.judge, func(*http.Request) (*url.URL, error) { return nil, nil })}
	_, err = direct.Get(proxy.URL + "/x")
	var de *dialError
	if !errors.As(err, &de) {
		t.Errorf("a direct connection was not judged: %v", err)
	}
}

// TestFetchTransport_ClosedWithTheTools: the connections a session's own
// fetch transport keeps open end when its tools are disposed, not 90 s
// later.
func TestFetchTransport_ClosedWithTheTools(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer srv.Close()
	ws, _ := workspace.New(t.TempDir())
	reg := registry.New()
	scope := reg.NewScope("s", nil)
	dispose, err := Register(reg, scope, Options{Workspace: ws, FetchDial: func(context.Context, string, netip.Addr) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ws: ws, host: LocalHost{}, reg: reg, scope: scope}
	e.setPipeline()
	wantOK(t, e.call("web_fetch", `{"url":"`+srv.URL+`"}`))
	if n := persistConns(); n == 0 {
		t.Fatal("the fetch kept no connection open: nothing to check")
	}
	dispose()
	deadline := time.Now().Add(2 * time.Second)
	for persistConns() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := persistConns(); n > 0 {
		t.Errorf("%d connection goroutines outlived the tools", n)
	}
}

// persistConns counts the goroutines of open client connections.
func persistConns() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "net/http.(*persistConn).readLoop")
}
