package web

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"
)

// Browsers ask for /favicon.ico unasked, and every page links the SVG
// icon; both are served here, without an outside address.
func TestFavicon(t *testing.T) {
	h := newHarness(t, withSite(t))
	for path, ctype := range map[string]string{"/favicon.ico": "image/x-icon", "/favicon.svg": "image/svg+xml"} {
		w := h.do(httptest.NewRequest("GET", testPublicURL+path, nil))
		if w.Code != 200 || w.Header().Get("Content-Type") != ctype || w.Body.Len() == 0 {
			t.Errorf("%s: %d %q, %d bytes", path, w.Code, w.Header().Get("Content-Type"), w.Body.Len())
		}
		if path == "/favicon.ico" && !bytes.HasPrefix(w.Body.Bytes(), []byte{0, 0, 1, 0}) {
			t.Errorf("%s is not an icon file: % x", path, w.Body.Bytes()[:min(8, w.Body.Len())])
		}
		if path == "/favicon.svg" && (strings.Contains(w.Body.String(), "href") || !strings.Contains(w.Body.String(), "<svg")) {
			t.Errorf("%s refers to another address or is no SVG: %s", path, w.Body)
		}
	}
	w := h.do(httptest.NewRequest("GET", testPublicURL+"/login", nil))
	if !strings.Contains(w.Body.String(), `<link rel="icon" href="/favicon.svg" type="image/svg+xml">`) {
		t.Error("the sign-in page does not link the icon")
	}
}
