package httpx

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
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
			h := TrustForwarded(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
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
	h := StripForwarded(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
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

// TestTrustForwardedBoundsHops: past MaxForwardHops entries nothing more is
// believed, so a huge header costs no more than a short one.
func TestTrustForwardedBoundsHops(t *testing.T) {
	var got *http.Request
	h := TrustForwarded([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.1:1"
	r.Header.Set("X-Forwarded-For", "198.51.100.1,"+strings.Repeat("10.0.0.2,", 1000)+"10.0.0.3")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got.RemoteAddr == "198.51.100.1:0" || !strings.HasPrefix(got.RemoteAddr, "10.0.0.") {
		t.Fatalf("RemoteAddr %s", got.RemoteAddr)
	}
}

// The budget key of a request that came through the serve path: the peer,
// or behind a trusted proxy the right-most untrusted X-Forwarded-For entry;
// IPv4 alone, IPv6 per /48.
func TestSourceKeyBehindTrustForwarded(t *testing.T) {
	tests := []struct {
		remote, xff string
		want        string
	}{
		{"192.0.2.1:1234", "", "192.0.2.1/32"},
		{"192.0.2.1:1234", "198.51.100.9", "192.0.2.1/32"}, // an untrusted peer cannot forward
		{"[::ffff:192.0.2.1]:1234", "", "192.0.2.1/32"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1::/48"}, // one party usually holds a /48
		{"[2001:db8:1:ffff::1]:443", "", "2001:db8:1::/48"},
		{"127.0.0.1:5000", "", "127.0.0.1/32"},
		{"127.0.0.1:5000", "198.51.100.9", "127.0.0.1/32"},     // loopback is not trusted unless configured
		{"172.18.0.5:5000", "198.51.100.9", "198.51.100.9/32"}, // a trusted proxy network
		{"172.18.0.5:5000", "203.0.113.5, 198.51.100.9", "198.51.100.9/32"},
		{"172.18.0.5:5000", "198.51.100.9, 172.18.0.6", "198.51.100.9/32"}, // right-most untrusted
		{"172.19.0.5:5000", "198.51.100.9", "172.19.0.5/32"},
	}
	var got netip.Prefix
	h := TrustForwarded([]netip.Prefix{netip.MustParsePrefix("172.18.0.0/16")},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = SourceKey(r) }))
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/mcp", nil)
		r.RemoteAddr = tt.remote
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got.String() != tt.want {
			t.Errorf("SourceKey(%q, XFF %q) = %q, want %q", tt.remote, tt.xff, got, tt.want)
		}
	}
}
