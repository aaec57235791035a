package httpx

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The form guard refuses, in order, another method, a post from another
// site's page, a body over MaxFormBody and a bad CSRF token; the handler
// runs only behind all four.
func TestFormGuard(t *testing.T) {
	crossOrigin := &Error{Status: http.StatusForbidden, Code: "cross_origin", Message: "Sent from another site."}
	badCSRF := &Error{Status: http.StatusForbidden, Code: "bad_csrf", Message: "The page had expired."}
	g, err := NewFormGuard("https://notes.example.org", crossOrigin)
	if err != nil {
		t.Fatal(err)
	}
	csrf := func(r *http.Request) error {
		if r.PostFormValue("csrf") != "good" {
			return badCSRF
		}
		return nil
	}
	var ran bool
	h := Handle(JSON, g.Guard(csrf, func(w http.ResponseWriter, r *http.Request) error {
		ran = true
		w.WriteHeader(http.StatusNoContent)
		return nil
	}))
	post := func(method, body string, headers ...string) *http.Request {
		r := httptest.NewRequest(method, "http://127.0.0.1/login/totp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		return r
	}
	for _, tc := range []struct {
		name   string
		r      *http.Request
		status int
		code   string
	}{
		{"another method", post(http.MethodPut, "csrf=good"), http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{"another site", post(http.MethodPost, "csrf=good", "Sec-Fetch-Site", "cross-site"), http.StatusForbidden, "cross_origin"},
		{"another site without Sec-Fetch-Site", post(http.MethodPost, "csrf=good", "Origin", "https://evil.example"), http.StatusForbidden, "cross_origin"},
		{"too large", post(http.MethodPost, "csrf=good&pad="+strings.Repeat("x", MaxFormBody)), http.StatusForbidden, "bad_csrf"},
		{"bad token", post(http.MethodPost, "csrf=bad"), http.StatusForbidden, "bad_csrf"},
		{"the public origin behind a proxy", post(http.MethodPost, "csrf=good", "Origin", "https://notes.example.org"), http.StatusNoContent, ""},
		{"the page's own form", post(http.MethodPost, "csrf=good", "Sec-Fetch-Site", "same-origin"), http.StatusNoContent, ""},
	} {
		ran = false
		w := httptest.NewRecorder()
		h.ServeHTTP(w, tc.r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.code) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, w.Code, w.Body, tc.status, tc.code)
		}
		if ran != (tc.status == http.StatusNoContent) {
			t.Errorf("%s: handler ran: %v", tc.name, ran)
		}
	}
}

// The body cap holds for a handler that reads the body itself (a page
// script's JSON), not only through ParseForm.
func TestFormGuardCapsTheBody(t *testing.T) {
	g, err := NewFormGuard("", &Error{Status: http.StatusForbidden, Code: "cross_origin"})
	if err != nil {
		t.Fatal(err)
	}
	var readErr error
	h := Handle(JSON, g.Guard(func(*http.Request) error { return nil }, func(w http.ResponseWriter, r *http.Request) error {
		_, readErr = io.ReadAll(r.Body)
		return nil
	}))
	r := httptest.NewRequest(http.MethodPost, "/login/passkey/finish", strings.NewReader(strings.Repeat("x", MaxFormBody+1)))
	h.ServeHTTP(httptest.NewRecorder(), r)
	var tooLarge *http.MaxBytesError
	if !errors.As(readErr, &tooLarge) || tooLarge.Limit != MaxFormBody {
		t.Fatalf("read %v, want the %d-byte cap", readErr, MaxFormBody)
	}
}
