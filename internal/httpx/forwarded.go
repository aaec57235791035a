package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Forwarding headers cortex understands. "Forwarded" (RFC 7239) is not
// parsed and is always removed so nothing downstream is tempted to believe
// it.
var forwardHeaders = []string{"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-Ip"}

// TrustForwarded is the one place cortex believes forwarding headers: only
// from a peer in trusted, and then RemoteAddr becomes the client address
// that ClientAddr finds (port 0), X-Forwarded-Proto is kept when it says
// http or https, and X-Forwarded-Host is kept; otherwise every forwarding
// header is removed. Everything after it reads the client from RemoteAddr
// (SourceKey) and may read X-Forwarded-Proto knowing a trusted proxy set it.
func TrustForwarded(trusted []netip.Prefix, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer := ParseAddr(r.RemoteAddr)
		if !peer.IsValid() || !InPrefixes(peer, trusted) || r.Header.Get("X-Forwarded-For") == "" {
			stripForwarded(r.Header)
			h.ServeHTTP(w, r)
			return
		}
		client := ClientAddr(r, trusted)
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

// StripForwarded removes every forwarding header, for the modes without a
// proxy: a client must not be able to claim another address or scheme.
func StripForwarded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stripForwarded(r.Header)
		h.ServeHTTP(w, r)
	})
}

func stripForwarded(hdr http.Header) {
	for _, k := range forwardHeaders {
		hdr.Del(k)
	}
}
