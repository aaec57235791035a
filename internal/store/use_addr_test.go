package store

import (
	"context"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// TestTokenLastAddr checks that a token's use records where it came from,
// with last_used and no more often than it.
func TestTokenLastAddr(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	secret, _, err := s.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	list := func() Token {
		t.Helper()
		toks, err := s.ListTokens(ctx)
		if err != nil || len(toks) != 1 {
			t.Fatalf("ListTokens = %+v, %v", toks, err)
		}
		return toks[0]
	}
	if got := list().LastAddr; got != "" {
		t.Fatalf("new token has last_addr %q", got)
	}
	got, err := s.VerifyToken(WithUseAddr(ctx, "192.0.2.7"), secret)
	if err != nil {
		t.Fatal(err)
	}
	if got.LastAddr != "192.0.2.7" || list().LastAddr != "192.0.2.7" {
		t.Errorf("after first use: returned %q, stored %q", got.LastAddr, list().LastAddr)
	}
	// Within the minute nothing is written, whatever the address.
	c.Advance(30 * time.Second)
	if _, err := s.VerifyToken(WithUseAddr(ctx, "2001:db8::1"), secret); err != nil {
		t.Fatal(err)
	}
	if got := list().LastAddr; got != "192.0.2.7" {
		t.Errorf("last_addr rewritten within a minute: %q", got)
	}
	c.Advance(30 * time.Second)
	if _, err := s.VerifyToken(WithUseAddr(ctx, "2001:db8::1"), secret); err != nil {
		t.Fatal(err)
	}
	if got := list(); got.LastAddr != "2001:db8::1" || !got.LastUsed.Equal(c.Now()) {
		t.Errorf("after a minute: %+v", got)
	}
}

func TestOAuthLastAddr(t *testing.T) {
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	ctx := context.Background()
	if _, err := s.RegisterOAuthClient(ctx, OAuthClient{ID: "client-1", Kind: ClientDCR, Name: "App",
		RedirectURIs: []string{"https://app.example/cb"}, AuthMethod: "none"}, 100, time.Time{}); err != nil {
		t.Fatal(err)
	}
	var grant int64
	if err := s.db.QueryRow(`INSERT INTO oauth_grants (client_id, scope, resource, created) VALUES ('client-1', 'notes:read', 'https://x/mcp', 1) RETURNING id`).Scan(&grant); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchOAuthUse(WithUseAddr(ctx, "198.51.100.4"), grant, c.Now()); err != nil {
		t.Fatal(err)
	}
	cs, err := s.ListOAuthClients(ctx)
	if err != nil || len(cs) != 1 || cs[0].LastAddr != "198.51.100.4" {
		t.Errorf("ListOAuthClients = %+v, %v", cs, err)
	}
	gs, err := s.LiveOAuthGrants(ctx)
	if err != nil || len(gs) != 1 || gs[0].LastAddr != "198.51.100.4" || !gs[0].LastUsed.Equal(c.Now()) {
		t.Errorf("LiveOAuthGrants = %+v, %v", gs, err)
	}
}
