package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// docHost plays the web server of client metadata documents. The fetcher
// reaches it through a stub resolver (host → address, then checked) and a
// dialer that connects whatever checked address to this loopback server.
type docHost struct {
	ts   *httptest.Server
	mu   sync.Mutex
	docs map[string]string // path → body; "!500" answers 500
	addr map[string][]netip.Addr
	dial []string
}

func newDocHost(t *testing.T) *docHost {
	d := &docHost{docs: map[string]string{}, addr: map[string][]netip.Addr{
		"example.com": {netip.MustParseAddr("93.184.215.14")},
	}}
	d.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		body, ok := d.docs[r.URL.Path]
		d.mu.Unlock()
		switch {
		case !ok:
			http.NotFound(w, r)
		case body == "!500":
			http.Error(w, "down", 500)
		case body == "!redirect":
			http.Redirect(w, r, "https://example.com/elsewhere.json", http.StatusFound)
		case body == "!hang":
			<-r.Context().Done()
			// Abort rather than return: a handler that returns answers an
			// empty 200, which a client still waiting would take as the
			// document.
			panic(http.ErrAbortHandler)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		}
	}))
	t.Cleanup(d.ts.Close)
	return d
}

func (d *docHost) set(path, body string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[path] = body
}

func (d *docHost) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a, ok := d.addr[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (d *docHost) options(o *Options) {
	o.Resolver = d
	o.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.mu.Lock()
		d.dial = append(d.dial, addr)
		d.mu.Unlock()
		var nd net.Dialer
		return nd.DialContext(ctx, "tcp", d.ts.Listener.Addr().String())
	}
	pool := x509.NewCertPool()
	pool.AddCert(d.ts.Certificate())
	o.TLSConfig = &tls.Config{RootCAs: pool}
}

func (d *docHost) dials() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.dial)
}

func TestPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"93.184.215.14": true, "2606:4700::1111": true, "8.8.8.8": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "0.1.2.3": false, "224.0.0.1": false, "255.255.255.255": false,
		"198.18.0.1": false, "192.0.2.1": false, "203.0.113.5": false, "240.0.0.1": false, "192.0.0.8": false,
		"::1": false, "::": false, "fe80::1": false, "fc00::1": false, "fd12::1": false, "ff02::1": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "2001:db8::1": false,
		"2002:7f00:1::": false, "2001::1": false, "::7f00:1": false, "::a00:7": false,
	} {
		if got := publicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("publicAddr(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestFetchRefusals(t *testing.T) {
	d := newDocHost(t)
	h := newHarness(t, func(o *Options) { d.options(o); o.Limits.FetchTimeout = 300 * time.Millisecond })
	d.set("/doc.json", `{}`)
	d.set("/big.json", strings.Repeat(" ", 64<<10)+"{}")
	d.set("/redirect.json", "!redirect")
	d.set("/hang.json", "!hang")
	for _, host := range []string{"loopback.test", "private.test", "linklocal.test", "cgnat.test", "v6local.test", "mapped.test", "mixed.test", "nat64.test"} {
		d.addr[host] = nil
	}
	d.addr["loopback.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	d.addr["private.test"] = []netip.Addr{netip.MustParseAddr("10.0.0.7")}
	d.addr["linklocal.test"] = []netip.Addr{netip.MustParseAddr("169.254.169.254")}
	d.addr["cgnat.test"] = []netip.Addr{netip.MustParseAddr("100.100.1.1")}
	d.addr["v6local.test"] = []netip.Addr{netip.MustParseAddr("::1")}
	d.addr["mapped.test"] = []netip.Addr{netip.MustParseAddr("::ffff:192.168.0.1")}
	d.addr["mixed.test"] = []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.1")}
	d.addr["nat64.test"] = []netip.Addr{netip.MustParseAddr("64:ff9b::7f00:1")}
	tests := []struct {
		url     string
		refused bool // ErrFetchRefused, and nothing dialled
	}{
		{"https://loopback.test/doc.json", true},
		{"https://private.test/doc.json", true},
		{"https://linklocal.test/doc.json", true},
		{"https://cgnat.test/doc.json", true},
		{"https://v6local.test/doc.json", true},
		{"https://mapped.test/doc.json", true},
		{"https://mixed.test/doc.json", true},
		{"https://nat64.test/doc.json", true},
		{"http://example.com/doc.json", true},
		{"https://example.com:8443/doc.json", true},
		{"https://127.0.0.1/doc.json", true},
		{"https://[::1]/doc.json", true},
		{"https://user@example.com/doc.json", true},
		{"https://example.com/big.json", false},
		{"https://example.com/redirect.json", false},
		{"https://example.com/hang.json", false},
		{"https://nowhere.test/doc.json", false},
	}
	for _, tt := range tests {
		before := d.dials()
		_, err := h.srv.fetch.get(context.Background(), tt.url)
		if err == nil {
			t.Errorf("%s: fetched", tt.url)
			continue
		}
		if tt.refused && (!errors.Is(err, ErrFetchRefused) || d.dials() != before) {
			t.Errorf("%s: %v after %d dials, want a refusal before dialling", tt.url, err, d.dials()-before)
		}
	}
	if b, err := h.srv.fetch.get(context.Background(), "https://example.com/doc.json"); err != nil || string(b) != "{}" {
		t.Fatalf("public host: %q %v", b, err)
	}
	if got := d.dial[len(d.dial)-1]; got != "93.184.215.14:443" {
		t.Errorf("dialled %s, want the checked address on port 443", got)
	}
}

const claudeDoc = `{"client_id":"https://example.com/oauth/mcp-oauth-client-metadata","client_name":"Claude",
 "redirect_uris":["https://claude.ai/api/mcp/auth_callback","https://evil.example/steal"],
 "grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"none"}`

func TestDocumentClients(t *testing.T) {
	const id = "https://example.com/oauth/mcp-oauth-client-metadata"
	d := newDocHost(t)
	h := newHarness(t, d.options)
	for path, body := range map[string]string{
		"/mismatch.json":   `{"client_id":"https://example.com/other.json","redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}`,
		"/noredirect.json": `{"client_id":"https://example.com/noredirect.json","redirect_uris":["https://evil.example/cb"]}`,
		"/secret.json":     `{"client_id":"https://example.com/secret.json","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"client_secret_post"}`,
		"/array.json":      `["not an object"]`,
	} {
		d.set(path, body)
		b := h.browser("192.0.2.50:1")
		resp := b.Get(authURL("https://example.com"+path, claudeCallback, newPKCE("d"), nil))
		if resp.StatusCode != 400 || !strings.Contains(testkit.Body(resp), `data-code="unknown_client"`) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	d.set("/oauth/mcp-oauth-client-metadata", claudeDoc)
	b := h.browser("192.0.2.51:1")
	b.signIn()
	if resp := b.Get(authURL(id, "https://evil.example/steal", newPKCE("d"), nil)); resp.StatusCode != 400 {
		t.Fatalf("redirect off the allowlist accepted: %d", resp.StatusCode)
	}
	p := newPKCE("claude")
	code := h.approve(b, authURL(id, claudeCallback, p, nil))
	st, tok := h.exchange(id, code, claudeCallback, p)
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	ident, err := h.srv.VerifyAccessToken(context.Background(), str(tok, "access_token"))
	if err != nil || ident.App != "Claude ("+id+")" {
		t.Fatalf("identity: %+v %v", ident, err)
	}
	// The host goes down: the approved client keeps working from its copy.
	d.set("/oauth/mcp-oauth-client-metadata", "!500")
	h.clk.Advance(90 * time.Minute) // past the document's hour, within the sign-in's idle time
	p2 := newPKCE("again")
	h.approve(b, authURL(id, claudeCallback, p2, nil))
	if st, _ := h.refresh(id, str(tok, "refresh_token")); st != 200 {
		t.Fatalf("refresh with the host down: %d", st)
	}
	// A client never approved has no copy to fall back on.
	d.set("/new.json", "!500")
	if resp := b.Get(authURL("https://example.com/new.json", claudeCallback, p2, nil)); resp.StatusCode != 400 {
		t.Fatalf("unreachable new client: %d", resp.StatusCode)
	}
}

func TestDocumentFetchBudget(t *testing.T) {
	d := newDocHost(t)
	h := newHarness(t, func(o *Options) { d.options(o); o.Limits.FetchPerSource = Rate{Burst: 3, PerMinute: 1} })
	b := h.browser("192.0.2.60:1")
	for i := range 5 {
		b.Get(authURL(fmt.Sprintf("https://example.com/c%d.json", i), claudeCallback, newPKCE("b"), nil))
	}
	if d.dials() != 3 {
		t.Fatalf("%d fetches from one source, want 3", d.dials())
	}
	h.browser("192.0.2.61:1").Get(authURL("https://example.com/c9.json", claudeCallback, newPKCE("b"), nil))
	if d.dials() != 4 {
		t.Fatalf("another source could not fetch: %d", d.dials())
	}
}
