package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

const workScope = `{"read":["Work/**"]}`

// TestTokenVaultScope checks that a token's scope is kept, listed, and that
// a change is seen by the token's very next verification, as a revocation
// is.
func TestTokenVaultScope(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, t.TempDir(), testkit.NewClock(time.Time{}))
	whole, _, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	scoped, tok, err := s.CreateScopedToken(ctx, "phone", workScope)
	if err != nil || tok.VaultScope != workScope {
		t.Fatalf("CreateScopedToken = %+v, %v", tok, err)
	}
	verify := func(secret, want string) {
		t.Helper()
		got, err := s.VerifyToken(ctx, secret)
		if err != nil || got.VaultScope != want {
			t.Fatalf("VerifyToken = %q, %v; want scope %q", got.VaultScope, err, want)
		}
	}
	verify(whole, "")
	verify(scoped, workScope)
	verify(scoped, workScope) // the remembered answer

	if err := s.SetTokenScope(ctx, "phone", ""); err != nil {
		t.Fatal(err)
	}
	verify(scoped, "")
	if err := s.SetTokenScope(ctx, "laptop", workScope); err != nil {
		t.Fatal(err)
	}
	verify(whole, workScope)
	toks, err := s.ListTokens(ctx)
	if err != nil || len(toks) != 2 || toks[0].VaultScope != workScope || toks[1].VaultScope != "" {
		t.Fatalf("ListTokens = %+v, %v", toks, err)
	}

	if err := s.SetTokenScope(ctx, "tablet", ""); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("unknown token: %v", err)
	}
	if err := s.SetTokenScope(ctx, "no such", ""); !errors.Is(err, ErrInvalidTokenName) {
		t.Errorf("bad name: %v", err)
	}
	if err := s.RevokeToken(ctx, "phone"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTokenScope(ctx, "phone", workScope); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("revoked token: %v", err)
	}
}

// TestGrantVaultScope follows the owner's choice from approval to the
// grant, through refresh, and a later change for the whole client.
func TestGrantVaultScope(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	addClient(t, s, "c1")
	p := pending("req-1", "A", c)
	p.ClientID = "c1"
	if err := s.AddOAuthPending(ctx, p, PendingLimits{PerSource: 10, Total: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveOAuthPending(ctx, p.IDHash, p.BrowserHash, OAuthApproval{CodeHash: "code", Scope: "notes:read", VaultScope: workScope, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	g, err := s.RedeemOAuthCode(ctx, "code", func(c OAuthCode) error {
		if c.VaultScope != workScope || c.Scope != "notes:read" {
			t.Errorf("code carries %q, %q", c.Scope, c.VaultScope)
		}
		return nil
	}, toks("t1", c))
	if err != nil || g.VaultScope != workScope {
		t.Fatalf("RedeemOAuthCode = %+v, %v", g, err)
	}
	access := func(hash, want string) {
		t.Helper()
		a, err := s.VerifyOAuthAccess(ctx, hash)
		if err != nil || a.VaultScope != want {
			t.Fatalf("VerifyOAuthAccess(%s) = %q, %v; want %q", hash, a.VaultScope, err, want)
		}
	}
	access("t1-a", workScope)
	r, err := s.RotateOAuthRefresh(ctx, "t1-r", time.Minute, nil, toks("t2", c), nil)
	if err != nil || r.Grant.VaultScope != workScope {
		t.Fatalf("RotateOAuthRefresh = %+v, %v", r, err)
	}
	access("t2-a", workScope)

	// A second grant of the same app, for the whole vault.
	grantFor(t, s, c, "c1", "code2", toks("t3", c))
	cs, err := s.ListOAuthClients(ctx)
	if err != nil || len(cs) != 1 || !slices.Equal(cs[0].VaultScopes, []string{"", workScope}) {
		t.Fatalf("ListOAuthClients = %+v, %v", cs, err)
	}
	n, err := s.SetClientScope(ctx, "c1", `{"read":["Journal"]}`)
	if err != nil || n != 2 {
		t.Fatalf("SetClientScope = %d, %v", n, err)
	}
	access("t2-a", `{"read":["Journal"]}`)
	access("t3-a", `{"read":["Journal"]}`)
	gs, err := s.LiveOAuthGrants(ctx)
	if err != nil || len(gs) != 2 || gs[0].VaultScope != `{"read":["Journal"]}` {
		t.Fatalf("LiveOAuthGrants = %+v, %v", gs, err)
	}
	if _, err := s.SetClientScope(ctx, "c9", ""); !errors.Is(err, ErrClientNotFound) {
		t.Errorf("unknown client: %v", err)
	}
}

// TestVaultScopeMigration upgrades a database an older cortex left, with a
// token and a grant in it: both keep working, for the whole vault.
func TestVaultScopeMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	oldDatabase(t, dir, 9)
	db := openRaw(t, dir)
	secret := tokenPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	for _, q := range []string{
		`INSERT INTO tokens (name, hash, created) VALUES ('old', '` + hashSecret(secret) + `', 1)`,
		`INSERT INTO oauth_clients (id, kind, name, redirect_uris, auth_method, created) VALUES ('c1', 'dcr', 'App', '[]', 'none', 1)`,
		`INSERT INTO oauth_grants (id, client_id, scope, resource, created) VALUES (7, 'c1', 'notes:read', 'r', 1)`,
		`INSERT INTO oauth_tokens (hash, grant_id, kind, scope, created, expires) VALUES ('a', 7, 'access', 'notes:read', 1, 9e18)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s := openStore(t, dir, testkit.NewClock(time.Time{}))
	if tok, err := s.VerifyToken(ctx, secret); err != nil || tok.Name != "old" || tok.VaultScope != "" {
		t.Errorf("old token: %+v, %v", tok, err)
	}
	if a, err := s.VerifyOAuthAccess(ctx, "a"); err != nil || a.GrantID != 7 || a.VaultScope != "" {
		t.Errorf("old grant: %+v, %v", a, err)
	}
	if cs, err := s.ListOAuthClients(ctx); err != nil || len(cs) != 1 || !slices.Equal(cs[0].VaultScopes, []string{""}) {
		t.Errorf("ListOAuthClients = %+v, %v", cs, err)
	}
}

// openRaw opens the state database of dir without migrating it.
func openRaw(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
