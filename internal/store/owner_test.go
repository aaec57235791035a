package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func ownerHashes(prefix string) []string {
	var hs []string
	for i := range RecoveryCodeCount {
		hs = append(hs, fmt.Sprintf("%s%02d", prefix, i))
	}
	return hs
}

func newOwner(prefix string) NewOwner {
	return NewOwner{UserHandle: []byte(prefix + "-handle-0123456789abcdef"), TOTPSecret: prefix + "SECRET", RecoveryHashes: ownerHashes(prefix)}
}

func setupOwner(t *testing.T) (*Store, *testkit.Clock) {
	t.Helper()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	if err := s.CreateOwner(context.Background(), newOwner("a"), false); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestCreateOwnerOnceAndReplace(t *testing.T) {
	ctx := context.Background()
	s, _ := setupOwner(t)
	if err := s.CreateOwner(ctx, newOwner("b"), false); !errors.Is(err, ErrOwnerExists) {
		t.Fatalf("second create: got %v, want ErrOwnerExists", err)
	}
	if err := s.CreateEnrolLink(ctx, "link", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateOwnerSession(ctx, "sess", "totp", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateOwner(ctx, newOwner("b"), true); err != nil {
		t.Fatal(err)
	}
	o, err := s.Owner(ctx)
	if err != nil || o.TOTPSecret != "bSECRET" {
		t.Fatalf("owner after replace: %+v, %v", o, err)
	}
	if ok, _ := s.UseRecoveryCode(ctx, "a00"); ok {
		t.Fatal("old recovery code still works after replace")
	}
	if ok, _ := s.UseRecoveryCode(ctx, "b00"); !ok {
		t.Fatal("new recovery code refused")
	}
	counts, err := s.OwnerRowCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"owner": 1, "owner_passkeys": 0, "owner_recovery_codes": 9, "owner_sessions": 0, "owner_enrol_links": 0}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d rows, want %d", k, counts[k], v)
		}
	}
}

func TestCreateOwnerValidates(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	bad := []NewOwner{
		{UserHandle: []byte("short"), TOTPSecret: "X", RecoveryHashes: ownerHashes("a")},
		{UserHandle: make([]byte, 32), TOTPSecret: "", RecoveryHashes: ownerHashes("a")},
		{UserHandle: make([]byte, 32), TOTPSecret: "X", RecoveryHashes: ownerHashes("a")[:3]},
	}
	for i, n := range bad {
		if err := s.CreateOwner(context.Background(), n, false); !errors.Is(err, ErrInvalidOwner) {
			t.Errorf("case %d: got %v, want ErrInvalidOwner", i, err)
		}
	}
	if _, err := s.Owner(context.Background()); !errors.Is(err, ErrNoOwner) {
		t.Fatalf("Owner: got %v, want ErrNoOwner", err)
	}
}

func TestTOTPStepIsUsedOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := setupOwner(t)
	steps := []struct {
		step int64
		want bool
	}{{100, true}, {100, false}, {99, false}, {101, true}, {50, false}, {102, true}}
	for _, tc := range steps {
		got, err := s.UseTOTPStep(ctx, tc.step)
		if err != nil || got != tc.want {
			t.Fatalf("UseTOTPStep(%d) = %v, %v; want %v", tc.step, got, err, tc.want)
		}
	}
}

func TestTOTPLockAndUnlock(t *testing.T) {
	ctx := context.Background()
	s, _ := setupOwner(t)
	for i := 1; i <= 3; i++ {
		n, locked, err := s.RecordTOTPFailure(ctx, 3)
		if err != nil || n != i || locked != (i == 3) {
			t.Fatalf("failure %d: n=%d locked=%v err=%v", i, n, locked, err)
		}
	}
	if ok, _ := s.UseTOTPStep(ctx, 500); ok {
		t.Fatal("locked TOTP accepted a step")
	}
	if err := s.UnlockTOTP(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.UseTOTPStep(ctx, 500); !ok {
		t.Fatal("unlocked TOTP refused a fresh step")
	}
	// A recovery code also unlocks.
	for range 3 {
		s.RecordTOTPFailure(ctx, 3)
	}
	if ok, _ := s.UseRecoveryCode(ctx, "a05"); !ok {
		t.Fatal("recovery code refused")
	}
	if o, _ := s.Owner(ctx); !o.TOTPLocked.IsZero() || o.TOTPFailures != 0 {
		t.Fatalf("recovery login left TOTP locked: %+v", o)
	}
}

func TestRecoveryCodesSingleUseAndRegenerate(t *testing.T) {
	ctx := context.Background()
	s, _ := setupOwner(t)
	if ok, _ := s.UseRecoveryCode(ctx, "a01"); !ok {
		t.Fatal("first use refused")
	}
	if ok, _ := s.UseRecoveryCode(ctx, "a01"); ok {
		t.Fatal("second use accepted")
	}
	if n, _ := s.RecoveryCodesLeft(ctx); n != 9 {
		t.Fatalf("left = %d, want 9", n)
	}
	if err := s.ReplaceRecoveryCodes(ctx, ownerHashes("z")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.UseRecoveryCode(ctx, "a02"); ok {
		t.Fatal("old code works after regenerate")
	}
	if ok, _ := s.UseRecoveryCode(ctx, "z02"); !ok {
		t.Fatal("new code refused")
	}
}

func TestEnrolLinkAddsOnePasskey(t *testing.T) {
	ctx := context.Background()
	s, c := setupOwner(t)
	if err := s.CreateEnrolLink(ctx, "L1", c.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.EnrolLinkValid(ctx, "L1"); !ok {
		t.Fatal("fresh link not valid")
	}
	pk := Passkey{CredentialID: []byte{1, 2, 3}, PublicKey: []byte{4}, Name: "laptop", Transports: []string{"internal", "hybrid"}, Flags: 0x1d}
	got, err := s.AddPasskeyWithLink(ctx, "L1", pk)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddPasskeyWithLink(ctx, "L1", Passkey{CredentialID: []byte{9}, PublicKey: []byte{4}, Name: "x"}); !errors.Is(err, ErrEnrolLinkInvalid) {
		t.Fatalf("reused link: got %v", err)
	}
	// Expiry.
	s.CreateEnrolLink(ctx, "L2", c.Now().Add(10*time.Minute))
	c.Advance(10 * time.Minute)
	if ok, _ := s.EnrolLinkValid(ctx, "L2"); ok {
		t.Fatal("expired link valid")
	}
	if _, err := s.AddPasskeyWithLink(ctx, "L2", Passkey{CredentialID: []byte{9}, PublicKey: []byte{4}, Name: "x"}); !errors.Is(err, ErrEnrolLinkInvalid) {
		t.Fatalf("expired link: got %v", err)
	}
	if err := s.RecordPasskeyLogin(ctx, []byte{1, 2, 3}, 7, 0x1d); err != nil {
		t.Fatal(err)
	}
	list, err := s.Passkeys(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("Passkeys: %v %v", list, err)
	}
	p := list[0]
	if p.ID != got.ID || p.SignCount != 7 || p.Flags != 0x1d || p.Name != "laptop" || len(p.Transports) != 2 || p.LastUsed.IsZero() {
		t.Fatalf("stored passkey: %+v", p)
	}
	if err := s.RemovePasskey(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePasskey(ctx, p.ID); !errors.Is(err, ErrPasskeyNotFound) {
		t.Fatalf("second remove: %v", err)
	}
}

func TestEnrolLinksAreCapped(t *testing.T) {
	ctx := context.Background()
	s, c := setupOwner(t)
	for i := range MaxEnrolLinks + 3 {
		c.Advance(time.Second)
		if err := s.CreateEnrolLink(ctx, fmt.Sprint("L", i), c.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	counts, _ := s.OwnerRowCounts(ctx)
	if counts["owner_enrol_links"] != MaxEnrolLinks {
		t.Fatalf("links = %d, want %d", counts["owner_enrol_links"], MaxEnrolLinks)
	}
	if ok, _ := s.EnrolLinkValid(ctx, "L0"); ok {
		t.Fatal("oldest link survived the cap")
	}
	if ok, _ := s.EnrolLinkValid(ctx, fmt.Sprint("L", MaxEnrolLinks+2)); !ok {
		t.Fatal("newest link missing")
	}
}

func TestOwnerSessionsRotateCapAndPrune(t *testing.T) {
	ctx := context.Background()
	s, c := setupOwner(t)
	if _, err := s.CreateOwnerSession(ctx, "s1", "totp", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateOwnerSession(ctx, "s2", "passkey", "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LookupOwnerSession(ctx, "s1"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("rotated session still there: %v", err)
	}
	c.Advance(time.Minute)
	if err := s.TouchOwnerSession(ctx, "s2", c.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := s.LookupOwnerSession(ctx, "s2")
	if err != nil || got.Method != "passkey" || !got.LastSeen.Equal(c.Now()) {
		t.Fatalf("lookup: %+v %v", got, err)
	}
	for i := range MaxOwnerSessions + 5 {
		c.Advance(time.Second)
		s.CreateOwnerSession(ctx, fmt.Sprint("x", i), "totp", "")
	}
	counts, _ := s.OwnerRowCounts(ctx)
	if counts["owner_sessions"] != MaxOwnerSessions {
		t.Fatalf("sessions = %d, want %d", counts["owner_sessions"], MaxOwnerSessions)
	}
	n, err := s.PruneOwnerSessions(ctx, c.Now().Add(-10*time.Second), time.Time{})
	if err != nil || n != MaxOwnerSessions-11 { // the last 11 were seen at or after the cut-off
		t.Fatalf("pruned %d (%v), want %d", n, err, MaxOwnerSessions-11)
	}
	if err := s.DeleteOwnerSession(ctx, fmt.Sprint("x", MaxOwnerSessions+4)); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteOwnerCascades(t *testing.T) {
	ctx := context.Background()
	s, c := setupOwner(t)
	s.CreateEnrolLink(ctx, "L", c.Now().Add(time.Hour))
	s.AddPasskeyWithLink(ctx, "L", Passkey{CredentialID: []byte{1}, PublicKey: []byte{2}, Name: "k"})
	s.CreateOwnerSession(ctx, "s", "totp", "")
	if err := s.DeleteOwner(ctx); err != nil {
		t.Fatal(err)
	}
	counts, _ := s.OwnerRowCounts(ctx)
	for k, v := range counts {
		if v != 0 {
			t.Errorf("%s has %d rows after reset", k, v)
		}
	}
	if err := s.DeleteOwner(ctx); !errors.Is(err, ErrNoOwner) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.CreateOwnerSession(ctx, "s", "totp", ""); !errors.Is(err, ErrNoOwner) {
		t.Fatalf("session without owner: %v", err)
	}
}

func TestPasskeysRefuseOutOfRangeCounters(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		sc, flags int64
		ok        bool
	}{
		{"largest", 1<<32 - 1, 0xff, true},
		{"negative sign count", -1, 0x1d, false},
		{"sign count past uint32", 1 << 32, 0x1d, false},
		{"negative flags", 7, -1, false},
		{"flags past a byte", 7, 0x100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := setupOwner(t)
			if err := s.CreateEnrolLink(ctx, "L", c.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.AddPasskeyWithLink(ctx, "L", Passkey{CredentialID: []byte{1}, PublicKey: []byte{2}, Name: "k"}); err != nil {
				t.Fatal(err)
			}
			// A damaged database, not anything cortex writes.
			if _, err := s.db.ExecContext(ctx, `UPDATE owner_passkeys SET sign_count = ?, flags = ?`, tc.sc, tc.flags); err != nil {
				t.Fatal(err)
			}
			list, err := s.Passkeys(ctx)
			if !tc.ok {
				if err == nil {
					t.Fatalf("Passkeys = %+v, want an error", list)
				}
				return
			}
			if err != nil || len(list) != 1 || int64(list[0].SignCount) != tc.sc || int64(list[0].Flags) != tc.flags {
				t.Fatalf("Passkeys = %+v, %v", list, err)
			}
		})
	}
}
