package owner

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// everyRequest is each route (and some that must not exist) with each method
// and a variety of bodies a stranger might send.
func everyRequest() []*http.Request {
	paths := []string{
		"/login", "/login/totp", "/login/recovery", "/login/passkey/begin", "/login/passkey/finish",
		"/logout", "/enrol", "/enrol/passkey/begin", "/enrol/passkey/finish", "/login/assets/login.js",
		"/setup", "/reset", "/owner", "/admin", "/enrol/passkey", "/login/passkey", "/unlock-totp",
	}
	bodies := []string{
		"",
		"code=123456&csrf=x",
		`{"link":"` + strings.Repeat("A", 43) + `","code":"123456","name":"x"}`,
		`{"ceremony":"x","credential":{}}`,
		`{"force":true,"reset":true}`,
	}
	var out []*http.Request
	for _, p := range paths {
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
			for _, b := range bodies {
				r := httptest.NewRequest(m, p, bytes.NewReader([]byte(b)))
				if strings.HasPrefix(b, "{") {
					r.Header.Set("Content-Type", "application/json")
				} else {
					r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				out = append(out, r)
			}
		}
	}
	return out
}

func TestNoRouteCreatesTheOwner(t *testing.T) {
	h := newHarness(t, nil)
	if err := h.st.DeleteOwner(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range everyRequest() {
		b := h.browser("198.51.100.1:1")
		b.Get("/login") // a valid CSRF token, so nothing is stopped early by it
		r.Header.Set(csrfHeader, b.CSRF)
		b.Do(r)
	}
	counts, err := h.st.OwnerRowCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for table, n := range counts {
		if n != 0 {
			t.Errorf("%s has %d rows; no web request may create anything", table, n)
		}
	}
}

func TestNoRouteResetsTheOwner(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Budgets = Budgets{CodeSourceBurst: 1 << 20, CodeGlobalBurst: 1 << 20, PasskeySourceBurst: 1 << 20}
	})
	ctx := context.Background()
	before, _ := h.st.Owner(ctx)
	for _, r := range everyRequest() {
		b := h.browser("198.51.100.1:1")
		b.Get("/login")
		r.Header.Set(csrfHeader, b.CSRF)
		b.Do(r)
	}
	after, err := h.st.Owner(ctx)
	if err != nil {
		t.Fatalf("owner gone: %v", err)
	}
	if !bytes.Equal(before.UserHandle, after.UserHandle) || before.TOTPSecret != after.TOTPSecret || !reflect.DeepEqual(before.Created, after.Created) {
		t.Fatal("the owner's identity changed")
	}
	counts, _ := h.st.OwnerRowCounts(ctx)
	if counts["owner_recovery_codes"] != 10 || counts["owner_passkeys"] != 0 || counts["owner_enrol_links"] != 1 {
		t.Fatalf("factors changed: %v", counts)
	}
	for _, p := range []string{"/setup", "/reset", "/owner", "/admin", "/unlock-totp"} {
		rec := httptest.NewRecorder()
		h.mux.ServeHTTP(rec, httptest.NewRequest("POST", p, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("POST %s answered %d, want 404", p, rec.Code)
		}
	}
}
