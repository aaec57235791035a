package owner

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
)

func TestRecoveryCodeShape(t *testing.T) {
	shape := regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$`)
	seen := make(map[string]bool)
	for range 1000 {
		c := newRecoveryCode()
		if !shape.MatchString(c) {
			t.Fatalf("code %q has the wrong shape", c)
		}
		if seen[c] {
			t.Fatalf("code %q repeated", c)
		}
		seen[c] = true
	}
	// 16 characters of a 32-letter alphabet: 80 bits.
	if recoveryLen*5 < 80 {
		t.Fatal("recovery codes carry less than 80 bits")
	}
}

func TestNormalizeRecoveryCode(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"7KQ2-M9XD-3HTA-PV0C", "7KQ2M9XD3HTAPV0C", true},
		{"7kq2 m9xd 3hta pv0c", "7KQ2M9XD3HTAPV0C", true},
		{"7KQ2-M9XD-3HTA-PVOC", "7KQ2M9XD3HTAPV0C", true}, // O read as 0
		{"lKQ2-M9XD-3HTA-PV0C", "1KQ2M9XD3HTAPV0C", true}, // l read as 1
		{"7KQ2-M9XD-3HTA-PV0", "", false},
		{"7KQ2-M9XD-3HTA-PV0CC", "", false},
		{"7KQ2-M9XD-3HTA-PVUC", "", false}, // U is not in the alphabet
		{"7KQ2-M9XD-3HTA-PV0Ç", "", false},
		{"", "", false},
		{strings.Repeat("A", 100), "", false},
	}
	for _, tc := range cases {
		got, ok := normalizeRecoveryCode(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("normalize(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzNormalizeRecoveryCode(f *testing.F) {
	for _, s := range []string{"7KQ2-M9XD-3HTA-PV0C", "ooii-llll-0000-1111", "", "ÇÇÇÇ", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := normalizeRecoveryCode(s)
		if !ok {
			return
		}
		if len(n) != recoveryLen {
			t.Fatalf("normalized %q to %q", s, n)
		}
		if again, ok := normalizeRecoveryCode(n); !ok || again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, again)
		}
	})
}

func FuzzSafeReturnPath(f *testing.F) {
	for _, s := range []string{"/authorize?x=1", "//evil", "/\\evil", "http://x", "/%2F%2Fevil", "/\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := SafeReturnPath(s)
		if !ok {
			return
		}
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, "\\") {
			t.Fatalf("unsafe path accepted: %q", p)
		}
	})
}

func TestValidTOTPFormat(t *testing.T) {
	for in, want := range map[string]bool{"123456": true, "12345": false, "1234567": false, "12345a": false, "１２３４５６": false} {
		if validTOTPFormat(in) != want {
			t.Errorf("validTOTPFormat(%q) != %v", in, want)
		}
	}
}

func TestSetupForceReplacesEverything(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	b := h.browser("192.0.2.10:1")
	wantStatus(t, b.loginTOTP(h.code()), 303)
	if _, err := Setup(ctx, h.st, config.MustParsePublicURL(testPublicURL), false, h.clk.Now); !errors.Is(err, store.ErrOwnerExists) {
		t.Fatalf("second setup: %v", err)
	}
	old := h.setup
	at := h.clk.Now()
	res, err := Setup(ctx, h.st, config.MustParsePublicURL(testPublicURL), true, h.clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if res.TOTPSecret == old.TOTPSecret || res.RecoveryCodes[0] == old.RecoveryCodes[0] || res.EnrolLink == old.EnrolLink {
		t.Fatal("setup --force kept a factor")
	}
	if _, ok := b.signedIn(); ok {
		t.Fatal("sign-in survived setup --force")
	}
	h.nextStep()
	wantStatus(t, h.browser("192.0.2.11:1").loginRecovery(old.RecoveryCodes[2]), 401)
	wantStatus(t, h.browser("192.0.2.12:1").loginRecovery(res.RecoveryCodes[2]), 303)
	if !strings.HasPrefix(res.TOTPURI, "otpauth://totp/cortex:owner@cortex.example?") || !strings.Contains(res.TOTPURI, "issuer=cortex") {
		t.Fatalf("TOTP URI %q", res.TOTPURI)
	}
	if len(linkSecret(res.EnrolLink)) != 43 || !strings.HasPrefix(res.EnrolLink, testPublicURL+"/enrol#") {
		t.Fatalf("enrol link %q", res.EnrolLink)
	}
	if !res.EnrolExpires.Equal(at.Add(10 * time.Minute)) {
		t.Fatalf("link expires %v", res.EnrolExpires)
	}
}

func TestSetupWithIPAddressHasNoLink(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Setup(context.Background(), st, config.MustParsePublicURL("http://192.0.2.1:8080"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.EnrolLink != "" || len(res.RecoveryCodes) != 10 || res.TOTPURI == "" {
		t.Fatalf("setup result: %+v", res)
	}
	if _, _, err := IssueEnrolLink(context.Background(), st, config.MustParsePublicURL("http://192.0.2.1:8080"), nil); !errors.Is(err, ErrBadPublicURL) {
		t.Fatalf("link with an IP URL: %v", err)
	}
	// A URL config refused (ftp://x, say) never gets here; none at all is refused here too.
	if _, err := Setup(context.Background(), st, config.PublicURL{}, true, nil); !errors.Is(err, ErrBadPublicURL) {
		t.Fatalf("no URL: %v", err)
	}
}
