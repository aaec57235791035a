package owner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestTOTPLoginAndReplay(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("198.51.100.7:4000")
	code := h.code()
	resp := b.loginTOTP(code)
	wantStatus(t, resp, http.StatusSeeOther)
	if loc := resp.Header.Get("Location"); loc != "/login" {
		t.Fatalf("redirect to %q", loc)
	}
	s, ok := b.signedIn()
	if !ok || s.Method != "totp" {
		t.Fatalf("not signed in after TOTP: %+v", s)
	}
	// The same code again, from another browser within the same step, is
	// refused: a code seen over a shoulder cannot be replayed.
	other := h.browser("203.0.113.9:5000")
	wantStatus(t, other.loginTOTP(code), http.StatusUnauthorized)
	if _, ok := other.signedIn(); ok {
		t.Fatal("replayed code signed in")
	}
	// So is the previous step's code, once a later step was used.
	h.nextStep()
	fresh := h.code()
	wantStatus(t, other.loginTOTP(fresh), http.StatusSeeOther)
	h.clk.Advance(-totpPeriod) // an earlier code, still inside the skew window
	wantStatus(t, h.browser("203.0.113.10:1").loginTOTP(code), http.StatusUnauthorized)
}

func TestTOTPSkewEdges(t *testing.T) {
	h := newHarness(t, nil)
	codeAt := func(d time.Duration) string {
		h.clk.Advance(d)
		defer h.clk.Advance(-d)
		return h.code()
	}
	// Each case uses a fresh owner step by moving far ahead first.
	cases := []struct {
		name   string
		offset time.Duration // when the code was made, relative to the server's now
		ok     bool
	}{
		{"one step behind", -totpPeriod, true},
		{"now", 0, true},
		{"one step ahead", totpPeriod, true},
		{"two steps behind", -2 * totpPeriod, false},
		{"two steps ahead", 2 * totpPeriod, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.clk.Advance(time.Duration(10+i*10) * totpPeriod)
			// Start of a step, so that "one step behind" is exactly at its edge.
			now := h.clk.Now()
			h.clk.Advance(-time.Duration(now.Unix()%30) * time.Second)
			code := codeAt(tc.offset)
			resp := h.browser("198.51.100.1:1").loginTOTP(code)
			if got := resp.StatusCode == http.StatusSeeOther; got != tc.ok {
				t.Fatalf("accepted=%v, want %v (status %d)", got, tc.ok, resp.StatusCode)
			}
		})
	}
	// A step's last second and the next step's first second.
	h.clk.Advance(100 * totpPeriod)
	h.clk.Advance(-time.Duration(h.clk.Now().Unix()%30)*time.Second + 29*time.Second)
	last := h.code()
	h.clk.Advance(time.Second)
	if h.code() == last {
		t.Skip("two consecutive steps share a code by chance")
	}
	wantStatus(t, h.browser("198.51.100.2:1").loginTOTP(last), http.StatusSeeOther)
}

func TestTOTPLockoutAndUnlock(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		// Budgets out of the way: this test is about the lock.
		o.Budgets = Budgets{CodeSourceBurst: 1000, CodeGlobalBurst: 1000}
	})
	b := h.browser("198.51.100.7:4000")
	wrong := "000000"
	if wrong == h.code() {
		wrong = "111111"
	}
	for i := 1; i < 50; i++ {
		wantStatus(t, b.loginTOTP(wrong), http.StatusUnauthorized)
	}
	resp := b.loginTOTP(wrong)
	wantStatus(t, resp, http.StatusForbidden)
	if !strings.Contains(testkit.Body(resp), "unlock-totp") {
		t.Fatalf("lock page does not say how to unlock:\n%s", testkit.Body(resp))
	}
	// Even the right code is refused now.
	wantStatus(t, b.loginTOTP(h.code()), http.StatusForbidden)
	// A recovery code unlocks.
	wantStatus(t, b.loginRecovery(h.setup.RecoveryCodes[0]), http.StatusSeeOther)
	h.nextStep()
	wantStatus(t, h.browser("198.51.100.8:1").loginTOTP(h.code()), http.StatusSeeOther)
	// b has signed in, so it now pays from its own device lane, which the
	// shared lock does not close (TestDeviceLane); the lock is about
	// browsers without one.
	b = h.browser("198.51.100.7:4000")

	// Lock again; the console unlocks.
	for range 50 {
		b.loginTOTP(wrong)
	}
	h.nextStep()
	wantStatus(t, b.loginTOTP(h.code()), http.StatusForbidden)
	if err := h.st.UnlockTOTP(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)

	// A passkey login unlocks too.
	k := newSoftKey(t)
	link, _, err := IssueEnrolLink(context.Background(), h.st, config.MustParsePublicURL(testPublicURL), h.clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	h.nextStep()
	wantStatus(t, b.enrol(k, linkSecret(link)), http.StatusOK)
	stranger := h.browser("198.51.100.9:1")
	for range 50 {
		stranger.loginTOTP(wrong)
	}
	wantStatus(t, stranger.loginTOTP(h.code()), http.StatusForbidden)
	wantStatus(t, b.loginPasskey(k), http.StatusOK)
	h.nextStep()
	wantStatus(t, h.browser("198.51.100.10:1").loginTOTP(h.code()), http.StatusSeeOther)
}

func TestRecoveryCodeSingleUse(t *testing.T) {
	h := newHarness(t, nil)
	code := h.setup.RecoveryCodes[4]
	b := h.browser("198.51.100.7:4000")
	// Forgiving input: lower case, spaces for dashes, O for 0.
	typed := strings.ReplaceAll(strings.ToLower(code), "-", " ")
	wantStatus(t, b.loginRecovery(typed), http.StatusSeeOther)
	if s, ok := b.signedIn(); !ok || s.Method != "recovery" {
		t.Fatalf("not signed in: %+v", s)
	}
	resp := h.browser("198.51.100.8:1").loginRecovery(code)
	wantStatus(t, resp, http.StatusUnauthorized)
	if !strings.Contains(testkit.Body(resp), "not accepted") {
		t.Fatalf("refusal page:\n%s", testkit.Body(resp))
	}
	wantStatus(t, h.browser("198.51.100.9:1").loginRecovery("not-a-code"), http.StatusUnauthorized)
	left, _ := h.st.RecoveryCodesLeft(context.Background())
	if left != 9 {
		t.Fatalf("%d codes left, want 9", left)
	}
}

func TestSessionExpiryRotationLogout(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.SessionIdle = time.Hour; o.SessionMax = 3 * time.Hour })
	b := h.browser("198.51.100.7:4000")
	b.Get("/login")
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	first := b.Cookies[sessionCookie]
	if len(first) != 43 {
		t.Fatalf("session cookie %q is not 256 bits of base64url", first)
	}

	// Rotation: a new login replaces the browser's session; the old cookie dies.
	h.nextStep()
	wantStatus(t, b.loginRecovery(h.setup.RecoveryCodes[1]), http.StatusSeeOther)
	second := b.Cookies[sessionCookie]
	if second == first {
		t.Fatal("session cookie not rotated at login")
	}
	old := h.browser("198.51.100.7:4000")
	old.Cookies[sessionCookie] = first
	if _, ok := old.signedIn(); ok {
		t.Fatal("the pre-login session still works")
	}

	// Idle expiry: activity keeps it alive, an hour of silence ends it.
	for range 3 { // to 2h30 after login, never idle for an hour
		h.clk.Advance(50 * time.Minute)
		if _, ok := b.signedIn(); !ok {
			t.Fatal("active session expired")
		}
	}
	// Absolute expiry: 3 h after login, however active.
	h.clk.Advance(35 * time.Minute) // 3h05 after login, idle only 35 min
	if _, ok := b.signedIn(); ok {
		t.Fatal("session outlived its absolute expiry")
	}
	h.nextStep()
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	h.clk.Advance(time.Hour)
	if _, ok := b.signedIn(); ok {
		t.Fatal("idle session did not expire")
	}

	// Logout ends the session on the server too.
	h.nextStep()
	b.Get("/login")
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	cookie := b.Cookies[sessionCookie]
	b.Get("/login")
	wantStatus(t, b.PostForm("/logout", url.Values{}), http.StatusSeeOther)
	again := h.browser("x")
	again.Cookies[sessionCookie] = cookie
	if _, ok := again.signedIn(); ok {
		t.Fatal("session alive after logout")
	}
}

func TestCookieAttributes(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("198.51.100.7:4000")
	b.Get("/login")
	resp := b.loginTOTP(h.code())
	var found bool
	for _, c := range resp.Cookies() {
		if c.Name != sessionCookie {
			continue
		}
		found = true
		if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
			t.Fatalf("session cookie attributes: %+v", c)
		}
	}
	if !found || !strings.HasPrefix(sessionCookie, "__Host-") {
		t.Fatal("no __Host- session cookie set")
	}
	counts, _ := h.st.OwnerRowCounts(context.Background())
	if counts["owner_sessions"] != 1 {
		t.Fatalf("%d sessions stored", counts["owner_sessions"])
	}
}

func TestCSRFAndCrossOrigin(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("198.51.100.7:4000")
	b.Get("/login")
	// No token.
	wantStatus(t, b.PostForm("/login/totp", url.Values{"code": {h.code()}, "csrf": {""}}), http.StatusForbidden)
	// Another browser's token.
	other := h.browser("198.51.100.8:1")
	other.Get("/login")
	wantStatus(t, b.PostForm("/login/totp", url.Values{"code": {h.code()}, "csrf": {other.CSRF}}), http.StatusForbidden)
	// A cross-site form post is refused before anything else.
	r := httptest.NewRequest(http.MethodPost, "/login/totp", strings.NewReader(url.Values{"code": {h.code()}, "csrf": {b.CSRF}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	wantStatus(t, b.Do(r), http.StatusForbidden)
	if _, ok := b.signedIn(); ok {
		t.Fatal("signed in without a valid CSRF token")
	}
	// JSON routes too.
	b.CSRF = "nope"
	wantStatus(t, b.postJSON("/login/passkey/begin", map[string]string{}), http.StatusForbidden)
}

func TestSecurityHeaders(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser("198.51.100.7:4000")
	for _, path := range []string{"/login", "/enrol", "/login/assets/login.js"} {
		resp := b.Get(path)
		wantStatus(t, resp, http.StatusOK)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
	}
	if body := testkit.Body(b.Get("/login")); strings.Contains(body, "<script>") || strings.Contains(body, " on") && strings.Contains(body, "onclick") {
		t.Error("login page has inline script")
	}
	wantStatus(t, b.Get("/login/assets/login.html"), http.StatusNotFound)
}

func TestReturnPathAndRequireOwner(t *testing.T) {
	h := newHarness(t, nil)
	mux := h.mux
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.o.RequireOwner(w, r); !ok {
			return
		}
		w.Write([]byte("consent for " + r.URL.Query().Get("client_id")))
	})
	b := h.browser("198.51.100.7:4000")
	resp := b.Get("/authorize?client_id=abc&state=x%2Fy")
	wantStatus(t, resp, http.StatusSeeOther)
	loc := resp.Header.Get("Location")
	if loc != "/login?return="+url.QueryEscape("/authorize?client_id=abc&state=x%2Fy") {
		t.Fatalf("redirect to %q", loc)
	}
	b.Get(loc)
	ret, _ := url.Parse(loc)
	resp = b.PostForm("/login/totp", url.Values{"code": {h.code()}, "return": {ret.Query().Get("return")}})
	wantStatus(t, resp, http.StatusSeeOther)
	if got := resp.Header.Get("Location"); got != "/authorize?client_id=abc&state=x%2Fy" {
		t.Fatalf("after login: %q", got)
	}
	if body := testkit.Body(b.Get("/authorize?client_id=abc")); body != "consent for abc" {
		t.Fatalf("signed-in /authorize: %q", body)
	}
	// A signed-in GET /login?return= goes straight on.
	resp = b.Get("/login?return=" + url.QueryEscape("/authorize?client_id=z"))
	wantStatus(t, resp, http.StatusSeeOther)

	// Hostile return paths are dropped.
	for _, bad := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "/a\nb", ""} {
		h.nextStep()
		c := h.browser("198.51.100.20:1")
		c.Get("/login")
		resp := c.PostForm("/login/totp", url.Values{"code": {h.code()}, "return": {bad}})
		wantStatus(t, resp, http.StatusSeeOther)
		if got := resp.Header.Get("Location"); got != "/login" {
			t.Errorf("return %q led to %q", bad, got)
		}
	}
}

func TestSafeReturnPath(t *testing.T) {
	cases := map[string]bool{
		"/authorize?client_id=a&x=%2F":  true,
		"/":                             true,
		"//evil":                        false,
		"/\\evil":                       false,
		"http://x/":                     false,
		"x":                             false,
		"/a\tb":                         false,
		"/" + strings.Repeat("a", 9000): false,
	}
	for in, want := range cases {
		if _, ok := SafeReturnPath(in); ok != want {
			t.Errorf("SafeReturnPath(%q) = %v, want %v", in, ok, want)
		}
	}
	if got := LoginURL("//evil"); got != "/login" {
		t.Errorf("LoginURL(//evil) = %q", got)
	}
}

func TestNoOwnerYet(t *testing.T) {
	h := newHarness(t, nil)
	if err := h.st.DeleteOwner(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := h.browser("198.51.100.7:4000")
	resp := b.loginTOTP("123456")
	wantStatus(t, resp, http.StatusServiceUnavailable)
	if !strings.Contains(testkit.Body(resp), "cortex admin setup") {
		t.Fatalf("no-owner page:\n%s", testkit.Body(resp))
	}
}
