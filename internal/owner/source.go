package owner

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// maxForwardHops bounds how many X-Forwarded-For entries are looked at, so
// a huge header costs nothing more than a short one.
const maxForwardHops = 32

// ClientAddr returns the address a request came from: the TCP peer, or, when
// the peer is one of trusted, the right-most X-Forwarded-For entry that is
// not itself trusted (everything to its left was written by the client and
// proves nothing). An unparsable entry ends the walk at the last address a
// trusted hop vouched for. No other header is believed. The zero Addr means
// RemoteAddr itself could not be parsed.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !inPrefixes(peer, trusted) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i, n := len(hops)-1, 0; i >= 0 && n < maxForwardHops; i, n = i-1, n+1 {
		a := parseHost(strings.TrimSpace(hops[i]))
		if !a.IsValid() {
			return client
		}
		client = a
		if !inPrefixes(a, trusted) {
			return client
		}
	}
	return client
}

// SourceKey groups addresses the way one party usually holds them: an IPv4
// address alone, an IPv6 address by its /48 (a home or a small provider
// hands out a /48 or /56; one attacker easily owns a whole /64). The invalid
// Addr maps to one shared key so that unparsable peers share one budget.
// A zone ("fe80::1%eth0") is dropped first: it names a local interface, not
// a party, and a zoned address has no prefix.
func SourceKey(a netip.Addr) netip.Prefix {
	if !a.IsValid() {
		return netip.Prefix{}
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(48)
	return p
}

// parseHost accepts "1.2.3.4", "1.2.3.4:5", "2001:db8::1" and
// "[2001:db8::1]:5"; zones are refused (they never appear on the internet).
func parseHost(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}
		}
		return a.Unmap()
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return netip.Addr{}
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}
	}
	return a.Unmap()
}

func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
