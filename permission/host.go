package permission

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// CanonicalHost returns the one spelling of a URL host that rules are
// compared in: lower case, no trailing dots, IDNA names in ASCII, and
// addresses in their standard form — decimal, hex and octal IPv4 forms
// (2130706433, 0x7f000001, 0177.1) become dotted quads, IPv4-mapped IPv6
// becomes IPv4, and the unspecified addresses (0.0.0.0, ::), which reach
// this machine, become its loopback address.
func CanonicalHost(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimPrefix(strings.TrimSuffix(h, "]"), "[")
	if i := strings.IndexByte(h, '%'); i >= 0 { // IPv6 zone
		h = h[:i]
	}
	h = strings.TrimRight(strings.ToLower(h), ".")
	if a, ok := parseAddr(h); ok {
		return a.String()
	}
	if ascii, err := idna.Lookup.ToASCII(h); err == nil {
		h = ascii
	}
	return h
}

// parseAddr parses every spelling of an IP address a URL may carry.
func parseAddr(h string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(h)
	if err != nil {
		v4, ok := parseInetAton(h)
		if !ok {
			return netip.Addr{}, false
		}
		a = v4
	}
	a = a.Unmap()
	if a.IsUnspecified() {
		if a.Is4() {
			return netip.AddrFrom4([4]byte{127, 0, 0, 1}), true
		}
		return netip.IPv6Loopback(), true
	}
	return a, true
}

// parseInetAton parses the IPv4 forms inet_aton accepts: one to four
// parts, each decimal, 0x-hex or 0-octal, the last filling the rest.
func parseInetAton(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" {
			if base == 16 {
				return netip.Addr{}, false
			}
			p = "0"
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// PrivateAddr reports whether an address is on this machine or a private
// network: loopback, private ranges, link-local (the cloud metadata
// service), carrier-grade NAT, unique-local IPv6 and unspecified.
func PrivateAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(a) || netip.MustParsePrefix("192.0.0.0/24").Contains(a)
}

// HostAddrs returns the addresses a canonical host stands for: itself
// when it is an address, else what the resolver answers (bounded in time;
// nothing on failure).
func HostAddrs(ctx context.Context, host string) []netip.Addr {
	if a, ok := parseAddr(host); ok {
		return []netip.Addr{a}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	out := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		out = append(out, ip.Unmap())
	}
	return out
}

// privateHost reports whether a host is, or resolves to, a private
// destination ("localhost" and *.localhost always are).
func privateHost(ctx context.Context, host string) (private bool, addrs []string) {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		private = true
	}
	for _, a := range HostAddrs(ctx, host) {
		addrs = append(addrs, a.String())
		private = private || PrivateAddr(a)
	}
	return private, addrs
}
