package permission

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// sawPrivate records that a judgement found host on this machine or a
// private network, so that the person, a rule or the mode decided the
// fetch knowing it.
func (p *Policy) sawPrivate(host string) {
	p.mu.Lock()
	p.private[host] = true
	p.mu.Unlock()
}

// FetchDial judges the address a fetch connects to for host (the URL's
// host, or a redirect's), as the connection is made: a name's answer may
// change between the judgement and the connection (DNS rebinding), and
// the address connected to is the one that counts. An address a deny rule
// names is refused whatever name led to it. An address on this machine or
// a private network is refused unless the judgement knew the host to be
// private (the host is that address, localhost, or was found private when
// it was judged), an allow rule names the host, or the mode is
// bypassPermissions. Its error is the tool's message.
func (p *Policy) FetchDial(ctx context.Context, t *registry.Tool, host string, addr netip.Addr) error {
	host, addr = CanonicalHost(host), addr.Unmap()
	at := &call{tool: t, host: addr.String(), ctx: ctx}
	for _, r := range p.deny {
		if why := p.denies(r, at); why != "" {
			return fmt.Errorf("%s answered with %s, which is denied by the permission rule %s: not connected", host, addr, r.Text)
		}
	}
	if !PrivateAddr(addr) || p.mode() == ModeBypass {
		return nil
	}
	if a, isAddr := parseAddr(host); (isAddr && a == addr) || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return nil
	}
	p.mu.Lock()
	known := p.private[host]
	p.mu.Unlock()
	if known {
		return nil
	}
	named := &call{tool: t, host: host, ctx: ctx}
	for _, r := range p.allow {
		if r.Tool == t.Name && r.matchHost(named) {
			return nil
		}
	}
	return fmt.Errorf("%s answered with %s, on this machine or a private network, only when the fetch connected (it was judged as a public host): not connected", host, addr)
}
