package tools

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// DialFunc judges the address a fetch connects to for host (the URL's
// host, or a redirect's), as the connection is made; an error refuses the
// connection and stops the fetch with that message.
type DialFunc func(ctx context.Context, host string, addr netip.Addr) error

// dialError is a connection the DialFunc refused.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// fetchTransport is http.DefaultTransport with every connection to a
// server judged by judge at the address the socket is about to connect to,
// after name resolution, each address of a name separately. A connection
// to a proxy from the environment is not judged: the proxy, not this
// machine, resolves and connects. proxy chooses the proxy of a request
// (http.ProxyFromEnvironment).
func fetchTransport(judge DialFunc, proxy func(*http.Request) (*url.URL, error)) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	var proxies sync.Map // host:port of every proxy a request was sent through
	t.Proxy = func(req *http.Request) (*url.URL, error) {
		u, err := proxy(req)
		if u != nil {
			proxies.Store(proxyAddr(u), true)
		}
		return u, err
	}
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		d := net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		if _, viaProxy := proxies.Load(address); !viaProxy {
			host, _, _ := net.SplitHostPort(address)
			d.ControlContext = func(ctx context.Context, _, addr string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(addr)
				if err != nil {
					return err
				}
				if err := judge(ctx, host, ap.Addr()); err != nil {
					return &dialError{err}
				}
				return nil
			}
		}
		return d.DialContext(ctx, network, address)
	}
	return t
}

// proxyAddr is the host:port a transport dials for proxy u.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
