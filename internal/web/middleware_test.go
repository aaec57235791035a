package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/config"
)

func TestRoutesWithoutAuth(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct {
		method, path string
		status       int
		code         string // JSON error code, "" for a success
		allow        string
	}{
		{http.MethodGet, "/healthz", http.StatusOK, "", ""},
		{http.MethodHead, "/healthz", http.StatusOK, "", ""},
		{http.MethodPost, "/healthz", http.StatusMethodNotAllowed, CodeMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "/", http.StatusNotFound, CodeNotFound, ""},
		{http.MethodGet, "/nope", http.StatusNotFound, CodeNotFound, ""},
		{http.MethodGet, "/healthz/x", http.StatusNotFound, CodeNotFound, ""},
		{http.MethodPut, "/mcp", http.StatusMethodNotAllowed, CodeMethodNotAllowed, "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := h.do(httptest.NewRequest(tt.method, "http://127.0.0.1:8080"+tt.path, nil))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d; body %s", w.Code, tt.status, w.Body)
			}
			if got := w.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.code == "" {
				if tt.method == http.MethodGet && w.Body.String() != "ok\n" {
					t.Errorf("body %q, want ok", w.Body)
				}
				return
			}
			var body struct{ Error, Message string }
			if strings.HasPrefix(tt.path, "/mcp") {
				body.Error, body.Message = rpcError(t, w.Body.Bytes())
			} else if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", w.Body, err)
			}
			if body.Error != tt.code || body.Message == "" {
				t.Errorf("error %q message %q, want code %q", body.Error, body.Message, tt.code)
			}
		})
	}
}

func TestHostAllowlist(t *testing.T) {
	for _, public := range []string{"https://notes.example.com", "https://notes.example.com:443/", "http://[2001:db8::1]:8080"} {
		h := newHarness(t, func(o *Options) { o.PublicURL = config.MustParsePublicURL(public) })
		allowed := []string{"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:1", "[::1]", "[::1]:9999"}
		refused := []string{"", "evil.example", "evil.example:443", "127.0.0.2", "127.0.0.1:", "127.0.0.1:x",
			"localhost.evil.example", "[::1", "::1", "notes.example.com.evil.example", "notes.example.com:8443",
			"[2001:db8::1]", "user@notes.example.com", "notes.example.com/x"}
		if strings.HasPrefix(public, "https://notes") {
			allowed = append(allowed, "notes.example.com", "NOTES.example.com", "notes.example.com:443")
			refused = append(refused, "notes.example.com:80", "[2001:db8::1]:8080")
		} else {
			allowed = append(allowed, "[2001:db8::1]:8080", "[2001:DB8::1]:8080")
			refused = append(refused, "notes.example.com")
		}
		for _, host := range allowed {
			if !h.srv.hostAllowed(host) {
				t.Errorf("public %s: Host %q refused, want allowed", public, host)
			}
		}
		for _, host := range refused {
			if h.srv.hostAllowed(host) {
				t.Errorf("public %s: Host %q allowed, want refused", public, host)
			}
		}
	}

	// And on the wire, before authentication and for every route.
	h := newHarness(t, nil)
	for _, path := range []string{"/mcp", "/healthz", "/nope"} {
		r := mcpRequest(http.MethodPost, secretA, "", initializeBody)
		r.URL.Path = path
		r.Host = "rebound.evil.example"
		w := h.do(r)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), CodeForbiddenHost) {
			t.Errorf("%s with foreign Host: status %d body %s, want 403 %s", path, w.Code, w.Body, CodeForbiddenHost)
		}
	}
	r := mcpRequest(http.MethodPost, secretA, "", initializeBody)
	r.Host = "notes.example.com"
	if w := h.do(r); w.Code != http.StatusOK {
		t.Errorf("public Host through a local proxy: status %d, want 200; body %s", w.Code, w.Body)
	}
}

func TestOriginCheck(t *testing.T) {
	h := newHarness(t, nil)
	allowed := []string{"https://notes.example.com", "https://notes.example.com:443", "HTTPS://Notes.Example.com",
		"http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443"}
	refused := []string{"null", "https://evil.example", "http://notes.example.com", "https://notes.example.com:8443",
		"https://notes.example.com.evil.example", "https://notes.example.com/path", "file://", "notes.example.com",
		"https://user@notes.example.com", "http://127.0.0.2", "chrome-extension://abc"}
	for _, o := range allowed {
		if !h.srv.originAllowed(o) {
			t.Errorf("Origin %q refused, want allowed", o)
		}
	}
	for _, o := range refused {
		if h.srv.originAllowed(o) {
			t.Errorf("Origin %q allowed, want refused", o)
		}
	}

	r := mcpRequest(http.MethodPost, secretA, "", initializeBody)
	r.Header.Set("Origin", "https://evil.example")
	w := h.do(r)
	if w.Code != http.StatusForbidden {
		t.Fatalf("foreign Origin: status %d, want 403", w.Code)
	}
	if code, _ := rpcError(t, w.Body.Bytes()); code != CodeForbiddenOrigin {
		t.Errorf("foreign Origin: code %q", code)
	}
	r = mcpRequest(http.MethodPost, secretA, "", initializeBody)
	r.Header.Set("Origin", "https://notes.example.com")
	if w := h.do(r); w.Code != http.StatusOK {
		t.Errorf("own Origin: status %d, want 200", w.Code)
	}
}

func TestBodyCap(t *testing.T) {
	const limit = 1024
	h := newHarness(t, func(o *Options) { o.MaxBody = limit })
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", limit) + `"}}`

	// Declared too large: refused before anything reads it.
	w := h.do(mcpRequest(http.MethodPost, secretA, "", big))
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("declared length: status %d, want 413", w.Code)
	}
	if code, _ := rpcError(t, w.Body.Bytes()); code != CodeBodyTooLarge {
		t.Errorf("declared length: code %q", code)
	}

	// Undeclared (chunked): cut off while reading.
	ts := h.start(t)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+secretA)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked: status %d, want 413", resp.StatusCode)
	}

	// At the limit is fine.
	if w := h.do(mcpRequest(http.MethodPost, secretA, "", initializeBody)); w.Code != http.StatusOK {
		t.Errorf("small body: status %d", w.Code)
	}
}

func TestPanicIsA500WithoutDetails(t *testing.T) {
	h := newHarness(t, nil)
	handler := h.srv.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("secret internal state")
	}))
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/x", nil))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	if strings.Contains(w.Body.String(), "secret internal state") || !strings.Contains(w.Body.String(), CodeInternal) {
		t.Errorf("body %q leaks details or lacks the code", w.Body)
	}
	if log := h.log.String(); !strings.Contains(log, "secret internal state") || !strings.Contains(log, "status=500") {
		t.Errorf("log lacks the panic or the 500:\n%s", log)
	}
}

func TestRequestLogHasNoSecrets(t *testing.T) {
	h := newHarness(t, nil)
	h.do(mcpRequest(http.MethodPost, secretA, "", initializeBody))
	h.do(mcpRequest(http.MethodPost, "ctx_wrong-secret-zzz", "", initializeBody))
	log := h.log.String()
	for _, secret := range []string{secretA, "ctx_wrong-secret-zzz", "Authorization", "clientInfo"} {
		if strings.Contains(log, secret) {
			t.Errorf("log contains %q:\n%s", secret, log)
		}
	}
	for _, want := range []string{"method=POST path=/mcp status=200", "app=app-a", "status=401", "code=invalid_token"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestNullOriginFromOwnPage(t *testing.T) {
	h := newHarness(t, nil)
	for _, tt := range []struct {
		site string
		want int
	}{{"same-origin", http.StatusNotFound}, {"cross-site", http.StatusForbidden}, {"", http.StatusForbidden}} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/login/totp", strings.NewReader("code=1"))
		r.Header.Set("Origin", "null")
		if tt.site != "" {
			r.Header.Set("Sec-Fetch-Site", tt.site)
		}
		if w := h.do(r); w.Code != tt.want {
			t.Errorf("Origin null, Sec-Fetch-Site %q: %d, want %d", tt.site, w.Code, tt.want)
		}
	}
}
