package permission

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// TestPolicy_FetchDial: the address a fetch connects to is judged as it
// connects. An address a deny rule names is refused whatever name led to
// it; a private address is refused for a host that was judged public
// (its name answered otherwise when the fetch connected: DNS rebinding),
// unless the person wrote an allow rule for the name or the mode is
// bypassPermissions.
func TestPolicy_FetchDial(t *testing.T) {
	allow := []string{"web_fetch(domain:intranet.test)"}
	deny := []string{"web_fetch(domain:127.0.0.9)"}
	for _, tc := range []struct {
		name, host, addr string
		mode             Mode
		prepare          func(p *Policy)
		refused          string // part of the refusal; "" when it connects
	}{
		{"a public address", "public.test", "93.184.216.34", ModeDefault, nil, ""},
		{"a public name answering a private address", "public.test", "10.0.0.1", ModeDefault, nil, "only when the fetch connected"},
		{"a public name answering the metadata address", "public.test", "169.254.169.254", ModeDefault, nil, "only when the fetch connected"},
		{"a public name answering loopback, IPv4-mapped", "public.test", "::ffff:127.0.0.1", ModeDefault, nil, "only when the fetch connected"},
		{"an \"always\" answer for the name does not cover a private address", "public.test", "10.0.0.1", ModeDefault,
			func(p *Policy) { p.Remember([]string{"web_fetch:public.test"}, true) }, "only when the fetch connected"},
		{"the host is that private address", "10.0.0.1", "10.0.0.1", ModeDefault, nil, ""},
		{"localhost", "localhost", "::1", ModeDefault, nil, ""},
		{"a name found private when judged", "db.test", "10.0.0.2", ModeDefault, func(p *Policy) { p.sawPrivate("db.test") }, ""},
		{"an allow rule names the host", "intranet.test", "10.1.2.3", ModeDefault, nil, ""},
		{"bypassPermissions", "public.test", "10.0.0.1", ModeBypass, nil, ""},
		{"a denied address, by name", "public.test", "127.0.0.9", ModeDefault, nil, "denied by the permission rule web_fetch(domain:127.0.0.9)"},
		{"a denied address, in bypassPermissions", "public.test", "127.0.0.9", ModeBypass, nil, "denied by the permission rule"},
		{"a denied address, by an allowed name", "intranet.test", "127.0.0.9", ModeDefault, nil, "denied by the permission rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, tc.mode, allow, nil, deny)
			if tc.prepare != nil {
				tc.prepare(p)
			}
			err := p.FetchDial(context.Background(), reg.Get("web_fetch", scope), tc.host, netip.MustParseAddr(tc.addr))
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Errorf("got %v, want a refusal saying %q", err, tc.refused)
			}
		})
	}
	t.Run("a judgement records a host it finds private", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			ask  []string
		}{
			{"asked for the private network", nil},
			{"asked by a rule", []string{"web_fetch"}}, // the prompt need not say private
		} {
			p, reg, scope, _ := testPolicy(t, ModeDefault, nil, tc.ask, nil)
			p.Decide(context.Background(), reg.Get("web_fetch", scope), jargs("url", "http://0x7f000001/"))
			p.mu.Lock()
			if !p.private["127.0.0.1"] {
				t.Errorf("%s: recorded %v", tc.name, p.private)
			}
			p.mu.Unlock()
		}
	})
	t.Run("a redirect it follows records a host it finds private", func(t *testing.T) {
		p, reg, scope, _ := testPolicy(t, ModeDefault, nil, nil, nil)
		p.Remember([]string{"web_fetch:127.0.0.1"}, true)
		from, _ := url.Parse("https://example.com/")
		to, _ := url.Parse("http://0x7f000001/")
		if err := p.FetchHop(context.Background(), reg.Get("web_fetch", scope), from, to); err != nil {
			t.Fatalf("hop refused: %v", err)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.private["127.0.0.1"] {
			t.Errorf("recorded %v", p.private)
		}
	})
}
