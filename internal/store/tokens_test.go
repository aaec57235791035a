package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestCreateTokenSecret(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "ctx_") {
		t.Fatalf("secret %q lacks ctx_ prefix", secret)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(secret, "ctx_"))
	if err != nil || len(raw) != 32 {
		t.Fatalf("secret body is not unpadded base64url of 32 bytes: %d bytes, %v", len(raw), err)
	}
	if tok.ID == 0 || tok.Name != "laptop" || !tok.Created.Equal(c.Now()) || !tok.LastUsed.IsZero() {
		t.Errorf("token = %+v", tok)
	}

	// Only the hash is on disk.
	var hash string
	if err := s.db.QueryRow(`SELECT hash FROM tokens WHERE id = ?`, tok.ID).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secret))
	if hash != hex.EncodeToString(sum[:]) {
		t.Errorf("stored hash %q is not the SHA-256 hex of the secret", hash)
	}
	var n int
	s.db.QueryRow(`SELECT COUNT(*) FROM tokens WHERE hash = ? OR name = ?`, secret, secret).Scan(&n)
	if n != 0 {
		t.Error("secret stored in clear")
	}

	secret2, _, err := s.CreateToken(ctx, "phone")
	if err != nil {
		t.Fatal(err)
	}
	if secret2 == secret {
		t.Error("two tokens share a secret")
	}
}

func TestTokenNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"laptop", true},
		{"my-agent_2.local", true},
		{"A", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"has space", false},
		{"slash/name", false},
		{"naïve", false},
		{"new\nline", false},
		{"semi;colon", false},
	}
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.name), func(t *testing.T) {
			if got := ValidTokenName(tt.name); got != tt.ok {
				t.Errorf("ValidTokenName = %v, want %v", got, tt.ok)
			}
			_, _, err := s.CreateToken(context.Background(), tt.name)
			if tt.ok && err != nil {
				t.Errorf("CreateToken: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidTokenName) {
				t.Errorf("CreateToken = %v, want ErrInvalidTokenName", err)
			}
		})
	}
}

func TestTokenNameUniqueAmongLive(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	old, _, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateToken(ctx, "laptop"); !errors.Is(err, ErrTokenExists) {
		t.Fatalf("duplicate CreateToken = %v, want ErrTokenExists", err)
	}
	if err := s.RevokeToken(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	fresh, _, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatalf("name not reusable after revoke: %v", err)
	}
	if _, err := s.VerifyToken(ctx, old); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("revoked secret verifies: %v", err)
	}
	if _, err := s.VerifyToken(ctx, fresh); err != nil {
		t.Errorf("new secret: %v", err)
	}
}

func TestVerifyToken(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	secret, want, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, err := s.CreateToken(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeToken(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		secret string
		ok     bool
	}{
		{"valid", secret, true},
		{"revoked", revoked, false},
		{"empty", "", false},
		{"no prefix", strings.TrimPrefix(secret, "ctx_"), false},
		{"wrong prefix", "xtx_" + secret[4:], false},
		{"one char off", secret[:len(secret)-1] + flip(secret[len(secret)-1]), false},
		{"truncated", secret[:len(secret)-1], false},
		{"extended", secret + "A", false},
		{"with spaces", " " + secret, false},
		{"hash instead of secret", hashSecret(secret), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.VerifyToken(ctx, tt.secret)
			if tt.ok {
				if err != nil {
					t.Fatalf("VerifyToken: %v", err)
				}
				if got.ID != want.ID || got.Name != want.Name || !got.Created.Equal(want.Created) {
					t.Errorf("VerifyToken = %+v, want %+v", got, want)
				}
				return
			}
			if !errors.Is(err, ErrTokenNotFound) {
				t.Errorf("VerifyToken = %+v, %v; want ErrTokenNotFound", got, err)
			}
		})
	}
}

func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}

func TestVerifyTokenLastUsed(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	stored := func() time.Time {
		t.Helper()
		var n int64
		if err := s.db.QueryRow(`SELECT last_used FROM tokens WHERE id = ?`, tok.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return fromNanos(n)
	}
	if !stored().IsZero() {
		t.Fatal("new token has last_used")
	}

	c.Advance(time.Hour)
	first := c.Now()
	got, err := s.VerifyToken(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastUsed.Equal(first) || !stored().Equal(first) {
		t.Errorf("after first use: returned %v, stored %v, want %v", got.LastUsed, stored(), first)
	}

	c.Advance(59 * time.Second)
	if _, err := s.VerifyToken(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if !stored().Equal(first) {
		t.Errorf("last_used rewritten within a minute: %v", stored())
	}

	c.Advance(time.Second)
	if _, err := s.VerifyToken(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if !stored().Equal(c.Now()) {
		t.Errorf("last_used = %v after a minute, want %v", stored(), c.Now())
	}

	toks, err := s.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 1 || !toks[0].LastUsed.Equal(c.Now()) {
		t.Errorf("ListTokens = %+v", toks)
	}
}

// TestVerifyTokenWritesOncePerMinute checks the in-process memory: a second
// process (or a stale row) must not cause a write on every request.
func TestVerifyTokenWritesOncePerMinute(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyToken(ctx, secret); err != nil {
		t.Fatal(err)
	}
	// Someone rewinds the row (e.g. a restore); this process already wrote
	// within the minute, so it does not write again.
	if _, err := s.db.Exec(`UPDATE tokens SET last_used = 0 WHERE id = ?`, tok.ID); err != nil {
		t.Fatal(err)
	}
	c.Advance(30 * time.Second)
	got, err := s.VerifyToken(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastUsed.IsZero() {
		t.Errorf("wrote last_used twice within a minute: %v", got.LastUsed)
	}
}

func TestTouchedIsBounded(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	for id := range int64(3 * maxTouched) {
		if !s.shouldTouch(id+1, time.Time{}, c.Now()) {
			t.Fatalf("token %d: first use not written", id+1)
		}
		if n := len(s.touched); n > maxTouched {
			t.Fatalf("touched grew to %d entries, bound is %d", n, maxTouched)
		}
	}
	c.Advance(touchEvery)
	if !s.shouldTouch(1, time.Time{}, c.Now()) {
		t.Error("a minute later the use is not written")
	}
}

func TestListTokens(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	if toks, err := s.ListTokens(ctx); err != nil || len(toks) != 0 {
		t.Fatalf("empty ListTokens = %v, %v", toks, err)
	}
	for _, name := range []string{"b", "a", "gone", "c"} {
		if _, _, err := s.CreateToken(ctx, name); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Second)
	}
	if err := s.RevokeToken(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	toks, err := s.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tok := range toks {
		names = append(names, tok.Name)
	}
	if got := strings.Join(names, ","); got != "b,a,c" {
		t.Errorf("ListTokens names = %s, want b,a,c (oldest first, no revoked)", got)
	}
}

func TestRevokeToken(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	if _, _, err := s.CreateToken(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want error
	}{
		{"laptop", nil},
		{"laptop", ErrTokenNotFound}, // already revoked
		{"nobody", ErrTokenNotFound},
		{"bad name", ErrInvalidTokenName},
		{"", ErrInvalidTokenName},
	}
	for _, tt := range tests {
		if err := s.RevokeToken(ctx, tt.name); !errors.Is(err, tt.want) {
			t.Errorf("RevokeToken(%q) = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestLiveToken(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	if _, _, err := s.CreateScopedToken(ctx, "phone", `{"read":["Work"]}`); err != nil {
		t.Fatal(err)
	}
	if tok, err := s.LiveToken(ctx, "phone"); err != nil || tok.Name != "phone" || tok.VaultScope != `{"read":["Work"]}` {
		t.Errorf("LiveToken(phone) = %+v, %v", tok, err)
	}
	if err := s.RevokeToken(ctx, "phone"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"phone", "nobody"} {
		if _, err := s.LiveToken(ctx, name); !errors.Is(err, ErrTokenNotFound) {
			t.Errorf("LiveToken(%q) = %v, want ErrTokenNotFound", name, err)
		}
	}
}

func FuzzVerifyToken(f *testing.F) {
	s := openStore(f, f.TempDir(), testkit.NewClock(time.Time{}))
	ctx := context.Background()
	secret, _, err := s.CreateToken(ctx, "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(secret)
	f.Add("")
	f.Add("ctx_")
	f.Add("Bearer " + secret)
	f.Add(strings.Repeat("\x00", secretLen))
	f.Fuzz(func(t *testing.T, in string) {
		tok, err := s.VerifyToken(ctx, in)
		if in == secret {
			if err != nil || tok.Name != "fuzz" {
				t.Fatalf("VerifyToken(secret) = %+v, %v", tok, err)
			}
			return
		}
		if !errors.Is(err, ErrTokenNotFound) {
			t.Fatalf("VerifyToken(%q) = %+v, %v; want ErrTokenNotFound", in, tok, err)
		}
	})
}

func BenchmarkVerifyToken(b *testing.B) {
	c := testkit.NewClock(time.Time{})
	s := openStore(b, b.TempDir(), c)
	ctx := context.Background()
	secret, _, err := s.CreateToken(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	// Other tokens make the index realistic.
	for i := range 50 {
		if _, _, err := s.CreateToken(ctx, fmt.Sprintf("t%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.VerifyToken(ctx, secret); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.VerifyToken(ctx, secret); err != nil {
			b.Fatal(err)
		}
	}
}
