package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// MaxForwardHops bounds how many X-Forwarded-For entries are looked at, so
// a huge header costs nothing more than a short one.
const MaxForwardHops = 32

// ClientAddr returns the address a request came from: the TCP peer, or, when
// the peer is one of trusted, the right-most X-Forwarded-For entry that is
// not itself trusted (everything to its left was written by the client and
// proves nothing), looking at no more than MaxForwardHops entries. An
// unparsable entry ends the walk at the last address a trusted hop vouched
// for. No other header is believed. The zero Addr means RemoteAddr itself
// could not be parsed.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := ParseAddr(r.RemoteAddr)
	if !peer.IsValid() || !InPrefixes(peer, trusted) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i, n := len(hops)-1, 0; i >= 0 && n < MaxForwardHops; i, n = i-1, n+1 {
		a := ParseAddr(strings.TrimSpace(hops[i]))
		if !a.IsValid() {
			return client
		}
		client = a
		if !InPrefixes(a, trusted) {
			return client
		}
	}
	return client
}

// SourceKey is the budget key of r: the source of the address the listener
// resolved (RemoteAddr, which the serve path has already set to the client
// behind a trusted proxy).
func SourceKey(r *http.Request) netip.Prefix { return AddrKey(ParseAddr(r.RemoteAddr)) }

// AddrKey groups addresses the way one party usually holds them: an IPv4
// address alone, an IPv6 address by its /48 (a home or a small provider
// hands out a /48 or /56; one attacker easily owns a whole /64). The invalid
// Addr maps to one shared key so that unparsable peers share one budget.
// A zone ("fe80::1%eth0") is dropped first: it names a local interface, not
// a party, and a zoned address has no prefix.
func AddrKey(a netip.Addr) netip.Prefix {
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

// ParseAddr accepts "1.2.3.4", "1.2.3.4:5", "2001:db8::1" and
// "[2001:db8::1]:5", and returns the invalid Addr for anything else; zones
// are refused (they never appear on the internet). IPv4-mapped addresses
// come back as IPv4.
func ParseAddr(s string) netip.Addr {
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

// InPrefixes reports whether a is in one of ps.
func InPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
