package owner

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

// wrongCode is a code that matches no step within the skew window now.
func (h *harness) wrongCode() string {
	for _, c := range []string{"000000", "111111", "222222", "333333"} {
		if _, ok := matchTOTP(h.setup.TOTPSecret, c, h.clk.Now()); !ok {
			return c
		}
	}
	h.t.Fatal("no wrong code")
	return ""
}

// floodAddr is floodSource(i, j) as a RemoteAddr.
func floodAddr(i, j int) string {
	if a := floodSource(i, j); strings.Contains(a, ":") {
		return "[" + a + "]:1"
	}
	return floodSource(i, j) + ":1"
}

// deviceCookieOf returns the device cookie a response set.
func deviceCookieOf(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == deviceCookie {
			return c
		}
	}
	return nil
}

// TestDeviceCookieOutlivesCodeFlood: with passkeys off (an IP-address
// public URL), strangers flood wrong codes from 200 sources for six minutes
// of injected time, which empties the global budget again and again and
// locks TOTP. The owner's browser, which signed in before and so carries a
// device cookie, still signs in with a correct TOTP code, from any source;
// a browser without the cookie is refused.
func TestDeviceCookieOutlivesCodeFlood(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PublicURL = config.MustParsePublicURL("http://192.0.2.1:8080") })
	ctx := context.Background()
	owner := h.browser("192.0.2.10:1")
	resp := owner.loginTOTP(h.code())
	wantStatus(t, resp, http.StatusSeeOther)
	if deviceCookieOf(resp) == nil {
		t.Fatal("no device cookie after sign-in")
	}
	h.nextStep()

	const sources = 200
	var checked, limited, locked int
	failuresAtFirst429 := -1
	for round := range 12 { // 12 × 30 s
		for i := range sources {
			switch resp := h.browser(floodAddr(i, round)).loginTOTP(h.wrongCode()); resp.StatusCode {
			case http.StatusUnauthorized:
				checked++
			case http.StatusTooManyRequests:
				limited++
				if failuresAtFirst429 < 0 {
					own, _ := h.st.Owner(ctx)
					failuresAtFirst429 = own.TOTPFailures
				}
			case http.StatusForbidden:
				locked++
			default:
				t.Fatalf("stranger: %d %s", resp.StatusCode, testkit.Body(resp))
			}
		}
		h.nextStep()
	}
	own, err := h.st.Owner(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The global budget refused, and refusals were never counted.
	if limited == 0 || failuresAtFirst429 != DefaultBudgets.CodeGlobalBurst {
		t.Fatalf("limited %d; failures when the first 429 came: %d, want the global burst %d",
			limited, failuresAtFirst429, DefaultBudgets.CodeGlobalBurst)
	}
	if own.TOTPLocked.IsZero() || own.TOTPFailures != DefaultBudgets.TOTPLockAfter || checked != DefaultBudgets.TOTPLockAfter-1 {
		t.Fatalf("locked %v failures %d checked %d; want the flood to reach the lock at %d with 429s not counted",
			!own.TOTPLocked.IsZero(), own.TOTPFailures, checked, DefaultBudgets.TOTPLockAfter)
	}
	t.Logf("code flood: %d wrong codes from %d sources over 6 min; %d checked, %d refused with 429, %d refused as locked",
		checked+limited+locked, sources, checked, limited, locked)

	// Global budget empty and TOTP locked: the owner's browser still signs
	// in, even from an address a stranger has spent.
	owner.Addr = floodAddr(0, 11)
	for i := range sources / 10 {
		if resp := h.browser(floodAddr(i, 12)).loginTOTP(h.wrongCode()); resp.StatusCode != http.StatusTooManyRequests &&
			resp.StatusCode != http.StatusForbidden {
			t.Fatalf("stranger while locked: %d", resp.StatusCode)
		}
	}
	wantStatus(t, h.browser(owner.Addr).loginTOTP(h.code()), http.StatusTooManyRequests)
	wantStatus(t, owner.loginTOTP(h.code()), http.StatusSeeOther)
	if s, ok := owner.signedIn(); !ok || s.Method != "totp" {
		t.Fatal("owner not signed in")
	}
	// The lock still holds for everyone else, even with the right code.
	h.nextStep()
	h.clk.Advance(time.Minute)
	wantStatus(t, h.browser("203.0.113.50:1").loginTOTP(h.code()), http.StatusForbidden)
	if own, _ := h.st.Owner(ctx); own.TOTPLocked.IsZero() {
		t.Fatal("the device's TOTP sign-in unlocked TOTP for everyone")
	}
}

// TestDeviceLane: the numbers of a device's own budget, that nobody else
// spends it, that consecutive wrong codes close it, and which cookies count.
func TestDeviceLane(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PublicURL = config.MustParsePublicURL("http://192.0.2.1:8080") })
	ctx := context.Background()
	owner := h.browser("192.0.2.10:1")
	resp := owner.loginRecovery(h.setup.RecoveryCodes[0])
	wantStatus(t, resp, http.StatusSeeOther)
	c := deviceCookieOf(resp)
	if c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" ||
		c.MaxAge < 399*24*3600 || !strings.HasPrefix(c.Name, "__Host-") {
		t.Fatalf("device cookie %+v", c)
	}
	firstID, _, _ := strings.Cut(c.Value, ".")

	// Strangers empty the owner's own source budget (sharing its address),
	// then the global one. (The owner's first sign-in, before it had a
	// device cookie, spent one of the five.)
	for range 4 {
		wantStatus(t, h.browser("192.0.2.10:2").loginTOTP(h.wrongCode()), http.StatusUnauthorized)
	}
	for i := range 20 {
		h.browser(fmt.Sprintf("198.51.100.%d:1", i)).loginTOTP(h.wrongCode())
	}
	wantStatus(t, h.browser("192.0.2.10:3").loginTOTP(h.code()), http.StatusTooManyRequests)
	failures := func() int { own, _ := h.st.Owner(ctx); return own.TOTPFailures }
	before := failures()

	// The device: 5 attempts at once, then 2 a minute.
	for range 5 {
		wantStatus(t, owner.loginTOTP(h.wrongCode()), http.StatusUnauthorized)
	}
	resp = owner.loginTOTP(h.wrongCode())
	wantStatus(t, resp, http.StatusTooManyRequests)
	if ra := resp.Header.Get("Retry-After"); ra != "30" {
		t.Fatalf("device Retry-After %q, want 30", ra)
	}
	if got := failures(); got != before+5 {
		t.Fatalf("failures %d, want %d: the device's wrong codes count, its refused one does not", got, before+5)
	}
	h.nextStep()
	wantStatus(t, owner.loginTOTP(h.code()), http.StatusSeeOther)

	// Renewal keeps the device's id.
	id, _, _ := strings.Cut(owner.Cookies[deviceCookie], ".")
	if id != firstID {
		t.Fatal("sign-in gave the device a new id")
	}
	// Logging out keeps the device cookie: the browser has still signed in before.
	owner.Get("/login")
	wantStatus(t, owner.PostForm("/logout", map[string][]string{}), http.StatusSeeOther)
	if owner.Cookies[deviceCookie] == "" {
		t.Fatal("logout dropped the device cookie")
	}
	owner.Get("/login") // where logout sends the browser: a fresh form

	// DeviceLockAfter wrong codes in a row close the lane; the browser then
	// pays like a stranger, from an empty global budget.
	for range DefaultBudgets.DeviceLockAfter {
		h.clk.Advance(30 * time.Second)
		h.nextStep()
		wantStatus(t, owner.loginTOTP(h.wrongCode()), http.StatusUnauthorized)
	}
	for i := range 20 {
		h.browser(fmt.Sprintf("198.51.100.%d:1", 100+i)).loginTOTP(h.wrongCode())
	}
	wantStatus(t, owner.loginTOTP(h.code()), http.StatusTooManyRequests)
	// A recovery code still pays from the device's budget (the lane closes
	// only to TOTP guesses), and signing in reopens the lane.
	wantStatus(t, owner.loginRecovery(h.setup.RecoveryCodes[1]), http.StatusSeeOther)
	h.nextStep()
	wantStatus(t, owner.loginTOTP(h.code()), http.StatusSeeOther)
	if n := h.o.devices.len(); n != 1 {
		t.Fatalf("%d devices remembered, want 1", n)
	}

	// Cookies that are not a device's own: forged, from another key, expired.
	key := deviceKey(h.setup.TOTPSecret)
	now := h.clk.Now()
	for name, v := range map[string]string{
		"made up":     "AAAAAAAAAAAAAAAAAAAAAA.1.AAAA",
		"other key":   deviceValue(bytes.Repeat([]byte{1}, 32), firstID, now),
		"expired":     deviceValue(key, firstID, now.Add(-deviceTTL)),
		"future":      deviceValue(key, firstID, now.Add(2*time.Hour)),
		"id changed":  strings.Replace(deviceValue(key, firstID, now), firstID[:4], "zzzz", 1),
		"long":        strings.Repeat("a.", 100),
		"two fields":  firstID + "." + mac(key, "device", firstID),
		"empty parts": "..",
	} {
		if _, ok := parseDevice(key, v, now); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if id, ok := parseDevice(key, deviceValue(key, firstID, now.Add(-deviceTTL+time.Minute)), now); !ok || id != firstID {
		t.Error("a cookie within its lifetime was refused")
	}

	// setup --force replaces the TOTP secret, and so voids every device.
	if _, err := Setup(ctx, h.st, config.MustParsePublicURL("http://192.0.2.1:8080"), true, h.clk.Now); err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.AddCookie(&http.Cookie{Name: deviceCookie, Value: owner.Cookies[deviceCookie]})
	if _, ok := h.o.device(r); ok {
		t.Fatal("a device cookie survived setup --force")
	}
}

func FuzzParseDevice(f *testing.F) {
	key := deviceKey("JBSWY3DPEHPK3PXP")
	now := time.Unix(1_750_000_000, 0)
	f.Add(deviceValue(key, "AAAAAAAAAAAAAAAAAAAAAA", now))
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, v string) {
		if id, ok := parseDevice(key, v, now); ok && len(id) != 22 {
			t.Fatalf("accepted id %q", id)
		}
	})
}

func FuzzOpenCeremony(f *testing.F) {
	cs := newCeremonies(bytes.Repeat([]byte{3}, 32))
	now := time.Unix(1_750_000_000, 0)
	c := ceremony{Kind: kindLogin, Bind: bindHash("csrf"), Expires: now.Add(time.Minute).UnixNano()}
	c.Data.Challenge = "challenge"
	sealed, _ := cs.seal(c)
	f.Add(sealed)
	f.Add("e30.AAAA")
	f.Add(".")
	f.Fuzz(func(t *testing.T, v string) {
		if got, ok := cs.open(v, kindLogin, "csrf", now); ok && got.Data.Challenge != "challenge" {
			t.Fatalf("opened a ceremony nobody sealed: %+v", got)
		}
	})
}
