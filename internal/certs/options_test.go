package certs

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/config"
)

func TestValidate(t *testing.T) {
	acme := func(f func(*Options)) Options {
		o := Options{Mode: ModeACME, PublicURL: config.MustParsePublicURL("https://notes.example.org"), CacheDir: "/state/acme"}
		f(&o)
		return o.WithDefaults()
	}
	tests := []struct {
		name string
		o    Options
		code string // "" means valid
	}{
		{"acme ok", acme(func(*Options) {}), ""},
		{"acme trailing slash ok", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://Notes.Example.org/") }), ""},
		{"acme explicit 443 ok", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://notes.example.org:443") }), ""},
		{"acme staging ok", acme(func(o *Options) { o.DirectoryURL = "https://acme-staging-v02.api.letsencrypt.org/directory" }), ""},
		{"acme email ok", acme(func(o *Options) { o.Email = "me@example.org" }), ""},
		{"acme no url", acme(func(o *Options) { o.PublicURL = config.PublicURL{} }), "tls_public_url_missing"},
		{"acme http url", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("http://notes.example.org") }), "tls_public_url_not_https"},
		{"acme ip", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://203.0.113.7") }), "tls_public_url_ip"},
		{"acme ipv6", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://[2001:db8::1]") }), "tls_public_url_ip"},
		{"acme localhost", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://localhost") }), "tls_public_url_host"},
		{"acme single label", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://cortex") }), "tls_public_url_host"},
		{"acme underscore", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://my_notes.example.org") }), "tls_public_url_host"},
		{"acme other port", acme(func(o *Options) { o.PublicURL = config.MustParsePublicURL("https://notes.example.org:8443") }), "tls_public_url_port"},
		{"acme no cache", acme(func(o *Options) { o.CacheDir = "" }), "tls_cache_missing"},
		{"acme http directory", acme(func(o *Options) { o.DirectoryURL = "http://ca.example.org/dir" }), "tls_acme_directory_invalid"},
		{"acme bad email", acme(func(o *Options) { o.Email = "not-an-address" }), "tls_acme_email_invalid"},
		{"acme two emails", acme(func(o *Options) { o.Email = "a@example.org, b@example.org" }), "tls_acme_email_invalid"},
		{"acme bad https addr", acme(func(o *Options) { o.HTTPSAddr = "443" }), "tls_listen_invalid"},
		{"off loopback", Options{Mode: ModeOff, ListenAddr: "127.0.0.1:8080"}, ""},
		{"off localhost", Options{Mode: ModeOff, ListenAddr: "localhost:8080"}, ""},
		{"off ipv6 loopback", Options{Mode: ModeOff, ListenAddr: "[::1]:8080"}, ""},
		{"off all interfaces", Options{Mode: ModeOff, ListenAddr: ":8080"}, "tls_off_not_loopback"},
		{"off public", Options{Mode: ModeOff, ListenAddr: "0.0.0.0:8080"}, "tls_off_not_loopback"},
		{"off lan", Options{Mode: ModeOff, ListenAddr: "192.0.2.10:8080"}, "tls_off_not_loopback"},
		{"off no addr", Options{Mode: ModeOff}, "tls_listen_missing"},
		{"off no port", Options{Mode: ModeOff, ListenAddr: "127.0.0.1"}, "tls_listen_invalid"},
		{"proxy ok", Options{Mode: ModeProxy, ListenAddr: "127.0.0.1:8080"}, ""},
		{"proxy all interfaces ok", Options{Mode: ModeProxy, ListenAddr: ":8080"}, ""},
		{"proxy no addr", Options{Mode: ModeProxy}, "tls_listen_missing"},
		{"no mode", Options{}, "tls_mode_missing"},
		{"unknown mode", Options{Mode: "letsencrypt"}, "tls_mode_unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Code != tt.code {
				t.Fatalf("Validate() = %v, want code %s", err, tt.code)
			}
			if !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("error does not wrap ErrInvalidOptions")
			}
			if oe.Msg == "" || strings.Contains(oe.Msg, "\n") {
				t.Errorf("message %q should be one sentence", oe.Msg)
			}
		})
	}
}

// A public URL with a path, user info or no shape at all never reaches the
// TLS options: config refuses it when it is parsed, once.
func TestMalformedPublicURLsNeverReachTheOptions(t *testing.T) {
	for _, raw := range []string{"https://notes.example.org/cortex", "https://u:p@notes.example.org", "::::"} {
		if u, err := config.ParsePublicURL(raw); err == nil {
			t.Errorf("ParsePublicURL(%q) = %s, want an error", raw, u)
		}
	}
}

func TestWarnings(t *testing.T) {
	lan := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name string
		o    Options
		want string // substring of the only warning; "" means none
	}{
		{"proxy beyond loopback without trusted", Options{Mode: ModeProxy, ListenAddr: ":8080"}, "without trusted proxies"},
		{"proxy beyond loopback with trusted", Options{Mode: ModeProxy, ListenAddr: ":8080", TrustedProxies: lan}, ""},
		{"proxy on loopback", Options{Mode: ModeProxy, ListenAddr: "127.0.0.1:8080"}, ""},
		{"proxy http public url", Options{Mode: ModeProxy, ListenAddr: "127.0.0.1:8080", PublicURL: config.MustParsePublicURL("http://notes.example.org")}, "not https"},
		{"off", Options{Mode: ModeOff, ListenAddr: "127.0.0.1:8080"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.o.Warnings()
			if tt.want == "" {
				if len(w) != 0 {
					t.Fatalf("Warnings() = %q, want none", w)
				}
				return
			}
			if len(w) != 1 || !strings.Contains(w[0], tt.want) {
				t.Fatalf("Warnings() = %q, want one containing %q", w, tt.want)
			}
		})
	}
}

func TestHealthURL(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Mode: ModeACME}, "http://127.0.0.1:80/healthz"},
		{Options{Mode: ModeACME, HTTPAddr: "[::]:8080"}, "http://[::1]:8080/healthz"},
		{Options{Mode: ModeOff, ListenAddr: "127.0.0.1:8080"}, "http://127.0.0.1:8080/healthz"},
		{Options{Mode: ModeProxy, ListenAddr: ":9000"}, "http://127.0.0.1:9000/healthz"},
		{Options{Mode: ModeProxy, ListenAddr: "0.0.0.0:9000"}, "http://127.0.0.1:9000/healthz"},
	}
	for _, tt := range tests {
		got, err := HealthURL(tt.o)
		if err != nil || got != tt.want {
			t.Errorf("HealthURL(%+v) = %q, %v; want %q", tt.o, got, err, tt.want)
		}
	}
	if _, err := HealthURL(Options{Mode: ModeOff, ListenAddr: "nope"}); err == nil {
		t.Errorf("HealthURL with a bad address: want an error")
	}
}
