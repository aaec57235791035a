package certs

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// Forwarding headers cortex understands. "Forwarded" (RFC 7239) is not parsed
// and is always removed so nothing downstream is tempted to believe it.
var forwardHeaders = []string{"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-Ip"}

// trustForwarded returns a handler that believes X-Forwarded-For, -Proto and
// -Host only when the connection comes from one of trusted. Then RemoteAddr
// becomes the client address (port 0) and the -Proto and -Host headers stay;
// otherwise every forwarding header is removed. After it, a downstream handler
// may read X-Forwarded-Proto knowing a trusted proxy set it.
func trustForwarded(trusted []netip.Prefix, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, ok := remoteAddr(r.RemoteAddr)
		if !ok || !inPrefixes(peer, trusted) || r.Header.Get("X-Forwarded-For") == "" {
			stripForwarded(r.Header)
			h.ServeHTTP(w, r)
			return
		}
		client := clientAddr(peer, r.Header.Values("X-Forwarded-For"), trusted)
		r2 := r.Clone(r.Context())
		r2.RemoteAddr = net.JoinHostPort(client.String(), "0")
		r2.Header.Del("Forwarded")
		r2.Header.Del("X-Real-Ip")
		switch p := strings.ToLower(strings.TrimSpace(r2.Header.Get("X-Forwarded-Proto"))); p {
		case "http", "https":
			r2.Header.Set("X-Forwarded-Proto", p)
		default:
			r2.Header.Del("X-Forwarded-Proto")
		}
		h.ServeHTTP(w, r2)
	})
}

// stripForwarded is used by the modes without a proxy: a client must not be
// able to claim another address or scheme.
func stripForwarded(hdr http.Header) {
	for _, k := range forwardHeaders {
		hdr.Del(k)
	}
}

func stripForwardedHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stripForwarded(r.Header)
		h.ServeHTTP(w, r)
	})
}

func remoteAddr(s string) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(s)
	if err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(s)
	return a.Unmap(), err == nil
}

func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr walks the X-Forwarded-For chain from the nearest hop outwards
// and returns the first address not in trusted: everything to its left was
// written by the client itself and cannot be believed. An unparsable entry
// stops the walk at the last address that was vouched for.
func clientAddr(peer netip.Addr, values []string, trusted []netip.Prefix) netip.Addr {
	var hops []string
	for _, v := range values {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			return client
		}
		client = a
		if !inPrefixes(a, trusted) {
			return client
		}
	}
	return client
}

// parseHop accepts "1.2.3.4", "1.2.3.4:5", "2001:db8::1" and "[2001:db8::1]:5".
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return netip.Addr{}, false
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}
