package httpx

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestClientAddr(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	cases := []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"peer v4", "203.0.113.5:4000", nil, nil, "203.0.113.5"},
		{"peer v6", "[2001:db8::7]:443", nil, nil, "2001:db8::7"},
		{"v4-mapped peer", "[::ffff:203.0.113.5]:1", nil, nil, "203.0.113.5"},
		{"xff ignored without trusted proxies", "203.0.113.5:4000", []string{"198.51.100.1"}, nil, "203.0.113.5"},
		{"xff ignored from an untrusted peer", "203.0.113.5:4000", []string{"198.51.100.1"}, proxies, "203.0.113.5"},
		{"trusted peer, one hop", "10.1.2.3:5555", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"client-written entries on the left are not believed", "10.1.2.3:1", []string{"1.2.3.4, 198.51.100.1"}, proxies, "198.51.100.1"},
		{"chain of trusted proxies", "10.0.0.1:1", []string{"198.51.100.1, 10.0.0.9", "10.0.0.8"}, proxies, "198.51.100.1"},
		{"all trusted: left-most", "10.0.0.1:1", []string{"10.0.0.3, 10.0.0.2"}, proxies, "10.0.0.3"},
		{"garbage stops at the last vouched hop", "10.0.0.1:1", []string{"1.2.3.4, garbage, 10.0.0.2"}, proxies, "10.0.0.2"},
		{"ports and brackets", "[::1]:8080", []string{"[2001:db8::1]:5678"}, proxies, "2001:db8::1"},
		{"v4 with port", "[::1]:8080", []string{"198.51.100.2:999"}, proxies, "198.51.100.2"},
		{"zones refused", "[::1]:8080", []string{"fe80::1%eth0"}, proxies, "::1"},
		{"trusted peer without xff", "10.0.0.1:1", nil, proxies, "10.0.0.1"},
		{"unparsable peer", "not an address", nil, proxies, "invalid IP"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			r.Header.Set("X-Real-Ip", "9.9.9.9")
			r.Header.Set("Forwarded", "for=9.9.9.9")
			if got := ClientAddr(r, tc.trusted).String(); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestClientAddrBoundsHops(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.1:1"
	r.Header.Set("X-Forwarded-For", "198.51.100.1,"+strings.Repeat("10.0.0.2,", 1000)+"10.0.0.3")
	got := ClientAddr(r, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	if got.String() == "198.51.100.1" {
		t.Fatal("walked past the hop limit")
	}
	if !netip.MustParsePrefix("10.0.0.0/8").Contains(got) {
		t.Fatalf("got %s", got)
	}
}

func TestAddrKey(t *testing.T) {
	cases := []struct{ in, want string }{
		{"203.0.113.5", "203.0.113.5/32"},
		{"::ffff:203.0.113.5", "203.0.113.5/32"},
		{"2001:db8:1234:5678::1", "2001:db8:1234::/48"},
		{"2001:db8:1234:ffff:ffff::9", "2001:db8:1234::/48"},
		{"2001:db8:1235::1", "2001:db8:1235::/48"},
		// Zones name a local interface: dropped, never an invalid key.
		{"fe80::1%eth0", "fe80::/48"},
		{"fe80::1%eth1", "fe80::/48"},
		{"2001:db8:1234::1%7", "2001:db8:1234::/48"},
		{"::ffff:203.0.113.5%eth0", "203.0.113.5/32"},
	}
	for _, tc := range cases {
		got := AddrKey(netip.MustParseAddr(tc.in))
		if !got.IsValid() || got.String() != tc.want {
			t.Errorf("AddrKey(%s) = %s (valid %v), want %s", tc.in, got, got.IsValid(), tc.want)
		}
	}
	if AddrKey(netip.Addr{}) != (netip.Prefix{}) {
		t.Error("invalid address has a real key")
	}
}

func FuzzClientAddr(f *testing.F) {
	f.Add("10.0.0.1:1", "198.51.100.1, 10.0.0.2")
	f.Add("[::1]:80", "[2001:db8::1]:5, garbage")
	f.Add("bad", "")
	f.Add("10.0.0.1:1", strings.Repeat(",", 100))
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		a := ClientAddr(r, trusted)
		if a.IsValid() && a.Zone() != "" {
			t.Fatalf("zoned address %s", a)
		}
		AddrKey(a)
	})
}

func TestSourceKeyReadsRemoteAddr(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8:1:2::5]:443"
	r.Header.Set("X-Forwarded-For", "198.51.100.9")
	if got := SourceKey(r).String(); got != "2001:db8:1::/48" {
		t.Fatalf("SourceKey = %s, want the peer's /48 (headers are the serve path's business)", got)
	}
}
