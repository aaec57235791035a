package certs

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestTrustForwarded(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name      string
		remote    string
		xff       []string
		proto     string
		wantAddr  string
		wantProto string
	}{
		{"untrusted peer is ignored", "203.0.113.9:5555", []string{"198.51.100.1"}, "https", "203.0.113.9:5555", ""},
		{"trusted peer, one hop", "127.0.0.1:40000", []string{"198.51.100.1"}, "https", "198.51.100.1:0", "https"},
		{"client-written entries to the left are skipped", "127.0.0.1:40000", []string{"6.6.6.6, 198.51.100.1"}, "http", "198.51.100.1:0", "http"},
		{"trusted chain", "127.0.0.1:40000", []string{"198.51.100.1, 10.1.2.3"}, "HTTPS", "198.51.100.1:0", "https"},
		{"repeated headers", "127.0.0.1:40000", []string{"6.6.6.6", "198.51.100.1, 10.1.2.3"}, "", "198.51.100.1:0", ""},
		{"all trusted", "127.0.0.1:40000", []string{"10.0.0.1, 10.0.0.2"}, "", "10.0.0.1:0", ""},
		{"ipv6 with port", "127.0.0.1:40000", []string{"[2001:db8::1]:443"}, "", "[2001:db8::1]:0", ""},
		{"garbage stops at the proxy", "127.0.0.1:40000", []string{"not-an-ip"}, "", "127.0.0.1:0", ""},
		{"garbage left of a real client", "127.0.0.1:40000", []string{"junk, 198.51.100.1"}, "", "198.51.100.1:0", ""},
		{"odd proto dropped", "127.0.0.1:40000", []string{"198.51.100.1"}, "gopher", "198.51.100.1:0", ""},
		{"no xff from trusted peer", "127.0.0.1:40000", nil, "https", "127.0.0.1:40000", ""},
		{"mapped ipv4 peer", "[::ffff:127.0.0.1]:40000", []string{"198.51.100.1"}, "", "198.51.100.1:0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *http.Request
			h := trustForwarded(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			r.Header.Set("Forwarded", "for=6.6.6.6")
			h.ServeHTTP(httptest.NewRecorder(), r)
			if got.RemoteAddr != tt.wantAddr {
				t.Errorf("RemoteAddr = %q, want %q", got.RemoteAddr, tt.wantAddr)
			}
			if p := got.Header.Get("X-Forwarded-Proto"); p != tt.wantProto {
				t.Errorf("X-Forwarded-Proto = %q, want %q", p, tt.wantProto)
			}
			if got.Header.Get("Forwarded") != "" {
				t.Errorf("Forwarded header was kept")
			}
		})
	}
}

func TestStripForwarded(t *testing.T) {
	var got *http.Request
	h := stripForwardedHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, k := range forwardHeaders {
		r.Header.Set(k, "x")
	}
	h.ServeHTTP(httptest.NewRecorder(), r)
	for _, k := range forwardHeaders {
		if got.Header.Get(k) != "" {
			t.Errorf("%s survived", k)
		}
	}
}

// FuzzClientAddr feeds attacker-written X-Forwarded-For values: the result
// must always be the peer or an address that appears in the header.
func FuzzClientAddr(f *testing.F) {
	for _, s := range []string{"198.51.100.1", "6.6.6.6, 10.0.0.1", "[2001:db8::1]:443, junk", "", ",,,", "fe80::1%eth0", "::ffff:1.2.3.4"} {
		f.Add(s)
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	peer := netip.MustParseAddr("10.9.9.9")
	f.Fuzz(func(t *testing.T, xff string) {
		a := clientAddr(peer, []string{xff}, trusted)
		if !a.IsValid() || a.Zone() != "" {
			t.Fatalf("clientAddr(%q) = %v", xff, a)
		}
	})
}
