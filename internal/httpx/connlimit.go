package httpx

import (
	"net"
	"net/netip"
	"sync"
)

// LimitConnections caps the connections open at once from one source (an
// IPv4 address or an IPv6 /48) and in total. A connection over either cap is
// closed as soon as it is accepted, so a stranger holding many idle or
// trickling connections cannot starve the owner's. It belongs on listeners
// that face clients directly (acme mode); behind a reverse proxy every
// connection comes from the proxy.
func LimitConnections(ln net.Listener, perSource, total int) net.Listener {
	return &limitedListener{Listener: ln, perSource: perSource, total: total, open: map[netip.Prefix]int{}}
}

type limitedListener struct {
	net.Listener
	perSource, total int

	mu    sync.Mutex
	open  map[netip.Prefix]int
	count int
}

func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := sourceOf(c.RemoteAddr())
		l.mu.Lock()
		ok := l.count < l.total && l.open[key] < l.perSource
		if ok {
			l.count++
			l.open[key]++
		}
		l.mu.Unlock()
		if !ok {
			c.Close()
			continue
		}
		return &limitedConn{Conn: c, release: sync.OnceFunc(func() { l.release(key) })}, nil
	}
}

func (l *limitedListener) release(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count--
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

func sourceOf(a net.Addr) netip.Prefix {
	var addr netip.Addr
	if ta, ok := a.(*net.TCPAddr); ok {
		addr, _ = netip.AddrFromSlice(ta.IP)
	} else if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		addr = ap.Addr()
	}
	return AddrKey(addr.Unmap())
}

type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	c.release()
	return c.Conn.Close()
}
