package owner

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestCodeBudgetPerSourceThenGlobal(t *testing.T) {
	h := newHarness(t, nil) // DefaultBudgets: 5 then 2/min per source, 10/min global
	wrong := func() string {
		if h.code() == "000000" {
			return "111111"
		}
		return "000000"
	}()
	// One source: five attempts, then 429 with Retry-After.
	a := h.browser("198.51.100.1:1")
	for i := range 5 {
		wantStatus(t, a.loginTOTP(wrong), http.StatusUnauthorized)
		_ = i
	}
	resp := a.loginTOTP(wrong)
	wantStatus(t, resp, http.StatusTooManyRequests)
	if ra := resp.Header.Get("Retry-After"); ra != "30" {
		t.Fatalf("Retry-After %q, want 30", ra)
	}
	if body := testkit.Body(resp); !strings.Contains(body, "Too many attempts") || !strings.Contains(body, "30 seconds") {
		t.Fatalf("429 page:\n%s", body)
	}
	// One source never spends the whole global budget: five are left.
	b := h.browser("198.51.100.2:1")
	for range 5 {
		wantStatus(t, b.loginTOTP(wrong), http.StatusUnauthorized)
	}
	// The global budget is now empty: a third source is refused, and its
	// own token is given back.
	c := h.browser("198.51.100.3:1")
	resp = c.loginTOTP(wrong)
	wantStatus(t, resp, http.StatusTooManyRequests)
	if ra, _ := strconv.Atoi(resp.Header.Get("Retry-After")); ra != 6 {
		t.Fatalf("global Retry-After %d, want 6 (10 a minute)", ra)
	}
	// Recovery codes spend the same budgets.
	wantStatus(t, c.loginRecovery(h.setup.RecoveryCodes[0]), http.StatusTooManyRequests)
	// After a minute the global bucket holds 10 again; c still has all 5
	// of its own because the refused attempts were refunded.
	h.clk.Advance(time.Minute)
	h.nextStep()
	for range 4 {
		wantStatus(t, c.loginTOTP(wrong), http.StatusUnauthorized)
	}
	wantStatus(t, c.loginTOTP(h.code()), http.StatusSeeOther)
}

func TestPasskeyBudgetIsSeparate(t *testing.T) {
	h := newHarness(t, nil)
	k := newSoftKey(t)
	owner := h.browser("192.0.2.10:1")
	wantStatus(t, owner.enrol(k, linkSecret(h.setup.EnrolLink)), http.StatusOK)
	// Empty the global code budget from many sources.
	for i := range 50 {
		h.browser(fmt.Sprintf("198.51.100.%d:1", i)).loginTOTP("000000")
	}
	wantStatus(t, h.browser("198.51.100.200:1").loginTOTP("000000"), http.StatusTooManyRequests)
	// The passkey still works.
	h.clk.Advance(time.Second)
	wantStatus(t, owner.loginPasskey(k), http.StatusOK)

	// The passkey budget itself: 10 ceremonies, then 10 a minute.
	p := h.browser("203.0.113.1:1")
	p.Get("/login")
	for i := range 10 {
		wantStatus(t, p.postJSON("/login/passkey/begin", map[string]string{}), http.StatusOK)
		_ = i
	}
	resp := p.postJSON("/login/passkey/begin", map[string]string{})
	wantStatus(t, resp, http.StatusTooManyRequests)
	if resp.Header.Get("Retry-After") != "6" {
		t.Fatalf("Retry-After %q, want 6", resp.Header.Get("Retry-After"))
	}
	if m := decodeJSON(t, resp); m["error"] != "rate_limited" {
		t.Fatalf("body %v", m)
	}
}

func TestBudgetsDefaults(t *testing.T) {
	if got := (Budgets{}).withDefaults(); got != DefaultBudgets {
		t.Errorf("zero budgets: %+v, want the defaults", got)
	}
	set := Budgets{CodeSourceBurst: 1, DevicePerMinute: 0.5}
	if got := set.withDefaults(); got.CodeSourceBurst != 1 || got.DevicePerMinute != 0.5 || got.MaxDevices != DefaultBudgets.MaxDevices {
		t.Errorf("set budgets: %+v", got)
	}
}
