package config

import (
	"encoding/json"
	"testing"
)

func TestPublicURLParts(t *testing.T) {
	tests := []struct {
		in                                     string
		scheme, hostname, port, explicit, host string
		https, ip, loopback                    bool
	}{
		{"https://Notes.Example.org/", "https", "notes.example.org", "443", "", "notes.example.org", true, false, false},
		{"http://127.0.0.1:8080", "http", "127.0.0.1", "8080", "8080", "127.0.0.1:8080", false, true, true},
		{"http://[::1]", "http", "::1", "80", "", "[::1]", false, true, true},
		{"https://[2001:db8::1]:8443", "https", "2001:db8::1", "8443", "8443", "[2001:db8::1]:8443", true, true, false},
		{"http://localhost:9000", "http", "localhost", "9000", "9000", "localhost:9000", false, false, true},
	}
	for _, tt := range tests {
		u, err := ParsePublicURL(tt.in)
		if err != nil {
			t.Fatalf("ParsePublicURL(%q): %v", tt.in, err)
		}
		if u.Scheme() != tt.scheme || u.Hostname() != tt.hostname || u.Port() != tt.port || u.ExplicitPort() != tt.explicit || u.Host() != tt.host {
			t.Errorf("%q: scheme %q hostname %q port %q explicit %q host %q", tt.in, u.Scheme(), u.Hostname(), u.Port(), u.ExplicitPort(), u.Host())
		}
		if u.HTTPS() != tt.https || u.IsIP() != tt.ip || u.IsLoopback() != tt.loopback {
			t.Errorf("%q: https %v ip %v loopback %v", tt.in, u.HTTPS(), u.IsIP(), u.IsLoopback())
		}
		if got := u.URL().String(); got != u.String() {
			t.Errorf("%q: URL() = %q, String() = %q", tt.in, got, u.String())
		}
		if got := u.JoinPath("/mcp"); got != u.String()+"/mcp" {
			t.Errorf("%q: JoinPath = %q", tt.in, got)
		}
	}
}

func TestPublicURLZeroAndText(t *testing.T) {
	var z PublicURL
	if !z.IsZero() || z.String() != "" {
		t.Errorf("zero value: IsZero %v, String %q", z.IsZero(), z.String())
	}
	var v struct{ URL PublicURL }
	if err := json.Unmarshal([]byte(`{"URL":"HTTPS://A.example:443"}`), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"URL":"https://a.example"}` {
		t.Errorf("round trip = %s", b)
	}
	if err := json.Unmarshal([]byte(`{"URL":"ftp://a.example"}`), &v); err == nil {
		t.Error("an ftp URL was accepted")
	}
}

func TestPublicURLFromListen(t *testing.T) {
	u, err := PublicURLFromListen("127.0.0.1:8080")
	if err != nil || u.String() != "http://127.0.0.1:8080" {
		t.Errorf("= %q, %v", u, err)
	}
	if _, err := PublicURLFromListen("nonsense:port"); err == nil {
		t.Error("a bad listen address gave a URL")
	}
}

// FuzzParsePublicURL: whatever is accepted prints in a form that parses
// back to the same value, and the parts never carry what was refused.
func FuzzParsePublicURL(f *testing.F) {
	for _, s := range []string{"https://a.example", "http://[::1]:80/", "HTTP://X:1", "https://a.example/x", "https://u@a", "http://a:0", "https://a.example:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParsePublicURL(raw)
		if err != nil {
			return
		}
		again, err := ParsePublicURL(u.String())
		if err != nil || again != u {
			t.Fatalf("%q → %q → %v, %v", raw, u.String(), again, err)
		}
		if u.Hostname() == "" || (u.Scheme() != "http" && u.Scheme() != "https") {
			t.Fatalf("%q parsed to %+v", raw, u)
		}
	})
}
