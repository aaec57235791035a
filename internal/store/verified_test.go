package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// remembered reports whether s would answer key from memory right now.
func remembered(t *testing.T, s *Store, key string) bool {
	t.Helper()
	v, ok := s.verified.version()
	if !ok {
		t.Fatal("data_version unreadable")
	}
	_, hit := s.verified.get(key, v)
	return hit
}

// TestVerifiedTokenRevokedElsewhere is `cortex admin token revoke` run while
// the server is up: the server answers from memory, and another connection
// (another Store on the same file, as another process opens it, or plain
// SQL) commits the revocation. The very next verification must refuse.
func TestVerifiedTokenRevokedElsewhere(t *testing.T) {
	ctx := context.Background()
	revokes := map[string]func(t *testing.T, dir string){
		"admin store": func(t *testing.T, dir string) {
			admin := openStore(t, dir, testkit.NewClock(time.Time{}))
			if err := admin.RevokeToken(ctx, "laptop"); err != nil {
				t.Fatal(err)
			}
		},
		"plain SQL": func(t *testing.T, dir string) {
			db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`UPDATE tokens SET revoked = 1 WHERE name = 'laptop'`); err != nil {
				t.Fatal(err)
			}
		},
		"row deleted": func(t *testing.T, dir string) {
			db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`DELETE FROM tokens WHERE name = 'laptop'`); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, revoke := range revokes {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := openStore(t, dir, testkit.NewClock(time.Time{}))
			secret, _, err := s.CreateToken(ctx, "laptop")
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, err := s.VerifyToken(ctx, secret); err != nil {
					t.Fatal(err)
				}
			}
			key := "token:" + hashSecret(secret)
			if !remembered(t, s, key) {
				t.Fatal("a verified token is not remembered")
			}
			revoke(t, dir)
			if remembered(t, s, key) {
				t.Error("still remembered after another connection committed")
			}
			if got, err := s.VerifyToken(ctx, secret); !errors.Is(err, ErrTokenNotFound) {
				t.Fatalf("revoked elsewhere, VerifyToken = %+v, %v; want ErrTokenNotFound", got, err)
			}
		})
	}
}

// TestVerifiedTokenRevokedHere: a revocation through the same Store (its
// pool is other connections than the watching one) is immediate too.
func TestVerifiedTokenRevokedHere(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	secret, _, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.VerifyToken(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RevokeToken(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyToken(ctx, secret); !errors.Is(err, ErrTokenNotFound) {
		t.Fatalf("VerifyToken after revoke = %v", err)
	}
}

// TestVerifiedOAuthAccessRevokedElsewhere: the same for an OAuth grant
// revoked by another process, and the expiry still holds for a remembered
// access token.
func TestVerifiedOAuthAccessRevokedElsewhere(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, dir, c)
	addClient(t, s, "c1")
	addClient(t, s, "c2")
	grantFor(t, s, c, "c1", "code1", toks("t1", c))
	grantFor(t, s, c, "c2", "code2", toks("t2", c))
	for range 3 {
		for _, h := range []string{"t1-a", "t2-a"} {
			if _, err := s.VerifyOAuthAccess(ctx, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !remembered(t, s, "oauth:t1-a") {
		t.Fatal("a verified access token is not remembered")
	}
	admin := openStore(t, dir, c)
	if ok, err := admin.RevokeOAuthToken(ctx, "t1-r", "c1"); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t1-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatalf("access alive after its grant was revoked elsewhere: %v", err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t2-a"); err != nil {
		t.Fatal(err)
	}
	if !remembered(t, s, "oauth:t2-a") {
		t.Fatal("t2 not remembered")
	}
	c.Advance(time.Hour)
	if _, err := s.VerifyOAuthAccess(ctx, "t2-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatalf("a remembered access token outlived its expiry: %v", err)
	}
}

func TestVerifiedIsBounded(t *testing.T) {
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	for i := range 3 * maxVerified {
		s.verified.put(string(rune(i)), 1, Token{})
		if n := len(s.verified.entries); n > maxVerified {
			t.Fatalf("%d entries, bound is %d", n, maxVerified)
		}
	}
}

// TestVerifiedWithoutDataVersion: when the watching connection is gone, no
// answer is remembered and every check looks the token up.
func TestVerifiedWithoutDataVersion(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	secret, _, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	s.verified.conn.Close()
	if _, ok := s.verified.version(); ok {
		t.Fatal("data_version read on a closed connection")
	}
	if _, err := s.VerifyToken(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if len(s.verified.entries) != 0 {
		t.Error("an answer was remembered without a data version")
	}
	if err := s.RevokeToken(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyToken(ctx, secret); !errors.Is(err, ErrTokenNotFound) {
		t.Fatalf("VerifyToken after revoke = %v", err)
	}
}
