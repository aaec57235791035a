package owner

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// SignedInForm is the check every other package's owner-only form makes
// (the console's): a live session, then the page's CSRF token, each
// refused with the sign-in pages' code and sentence.
func TestSignedInForm(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("192.0.2.7:1")
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	b.Get("/login") // a page of this server, with the session's CSRF token

	form := func(cookies bool, csrf string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/console/undo", strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookies {
			for k, v := range b.Cookies {
				r.AddCookie(&http.Cookie{Name: k, Value: v})
			}
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		r       *http.Request
		code    string
		message string
	}{
		{"signed out", form(false, b.CSRF), "signed_out", "You are not signed in any more."},
		{"another page's token", form(true, "nope"), "bad_csrf", "The page had expired."},
	} {
		_, err := h.o.SignedInForm(tc.r)
		var e *httpx.Error
		if !errors.As(err, &e) || e.Code != tc.code || !strings.HasPrefix(e.Message, tc.message) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	s, err := h.o.SignedInForm(form(true, b.CSRF))
	if err != nil || s.Created.IsZero() {
		t.Errorf("the owner's own form: %+v %v", s, err)
	}
	if e := BadForm(errors.New("cause")); e.Code != "bad_request" || e.Err == nil || e.Status != http.StatusBadRequest {
		t.Errorf("BadForm: %+v", e)
	}
}
