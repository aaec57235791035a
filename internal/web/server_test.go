package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
)

func TestNewChecksOptions(t *testing.T) {
	var errURL error
	withURL := func(raw string) func(*Options) {
		return func(o *Options) {
			o.PublicURL, errURL = config.ParsePublicURL(raw)
		}
	}
	ok := Options{
		PublicURL:    config.MustParsePublicURL("https://notes.example.com"),
		Verify:       StoreVerifier(&fakeTokens{}),
		NewMCPServer: func(*http.Request) *mcp.Server { return nil },
	}
	tests := []struct {
		name    string
		edit    func(*Options)
		wantErr string
	}{
		{"ok", func(*Options) {}, ""},
		{"loopback http", withURL("http://127.0.0.1:8080"), ""},
		{"trailing slash", withURL("https://notes.example.com/"), ""},
		{"no verifier", func(o *Options) { o.Verify = nil }, "Verify"},
		{"no server", func(o *Options) { o.NewMCPServer = nil }, "NewMCPServer"},
		{"empty URL", withURL(""), "must start with"},
		{"no scheme", withURL("notes.example.com"), "must start with"},
		{"ftp", withURL("ftp://notes.example.com"), "must start with"},
		{"path", withURL("https://example.com/notes"), "only scheme and host"},
		{"query", withURL("https://example.com?x=1"), "only scheme and host"},
		{"user", withURL("https://me@example.com"), "only scheme and host"},
		{"bad port", withURL("https://example.com:http"), "not a URL"},
		{"no URL", func(o *Options) { o.PublicURL = config.PublicURL{} }, "PublicURL is required"},
		{"negative rate", func(o *Options) { o.RatePerMinute = -1 }, "negative"},
		{"negative body", func(o *Options) { o.MaxBody = -1 }, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.edit(&o)
			s, err := New(o)
			if errURL != nil {
				// The public URL is parsed once, by config; what it
				// refuses never reaches New.
				err, errURL = errURL, nil
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if s.opts.RatePerMinute != DefaultRatePerMinute || s.opts.RateBurst != DefaultRateBurst ||
					s.opts.MaxBody != DefaultMaxBody {
					t.Errorf("defaults not applied: %+v", s.opts)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New: %v, want an error about %q", err, tt.wantErr)
			}
		})
	}
}

// FuzzHostAndOrigin feeds untrusted Host and Origin headers to the checks:
// they must never panic, and whatever they allow must name the public host
// or a loopback host.
func FuzzHostAndOrigin(f *testing.F) {
	for _, seed := range []string{"notes.example.com", "notes.example.com:443", "127.0.0.1:8080", "[::1]:1",
		"localhost", "https://notes.example.com", "http://[::1]:3000", "null", "[", "]:", "a:b:c", "%00", ""} {
		f.Add(seed)
	}
	s, err := New(Options{PublicURL: config.MustParsePublicURL(testPublicURL), Verify: StoreVerifier(&fakeTokens{}),
		NewMCPServer: func(*http.Request) *mcp.Server { return nil }})
	if err != nil {
		f.Fatal(err)
	}
	allowedHost := func(h string) bool {
		h = strings.ToLower(h)
		return h == "notes.example.com" || isLoopbackName(h)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if s.hostAllowed(in) {
			host, _, _ := splitHost(strings.ToLower(in))
			if !allowedHost(host) {
				t.Errorf("Host %q allowed", in)
			}
		}
		if s.originAllowed(in) {
			rest := strings.ToLower(in)
			rest = rest[strings.Index(rest, "://")+3:]
			host, _, _ := splitHost(rest)
			if !allowedHost(host) {
				t.Errorf("Origin %q allowed", in)
			}
		}
	})
}
