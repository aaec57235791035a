package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func addClient(t *testing.T, s *Store, id string) {
	t.Helper()
	_, err := s.RegisterOAuthClient(context.Background(), OAuthClient{ID: id, Kind: ClientDCR, Name: id,
		RedirectURIs: []string{"http://127.0.0.1/cb"}, AuthMethod: "none"}, 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
}

func pending(id, source string, c *testkit.Clock) OAuthPending {
	return OAuthPending{IDHash: id, Source: source, BrowserHash: "b-" + id, ClientID: "c1", RedirectURI: "http://127.0.0.1/cb",
		Scope: "s", State: "st", Challenge: "ch", Resource: "r", Expires: c.Now().Add(10 * time.Minute)}
}

func TestPendingBounds(t *testing.T) {
	ctx := context.Background()
	lim := PendingLimits{PerSource: 3, Total: 10}
	tests := []struct {
		name  string
		adds  func(add func(id, src string, owner bool))
		gone  []string // ids evicted
		kept  []string
		total int
	}{
		{"per source the oldest goes", func(add func(string, string, bool)) {
			for i := range 5 {
				add(fmt.Sprint("a", i), "A", false)
			}
		}, []string{"a0", "a1"}, []string{"a2", "a3", "a4"}, 3},
		{"full table takes from the source holding most", func(add func(string, string, bool)) {
			add("owner", "O", false)
			for i := range 3 {
				add(fmt.Sprint("a", i), "A", false)
				add(fmt.Sprint("b", i), "B", false)
				add(fmt.Sprint("c", i), "C", false)
			}
			add("d0", "D", false) // table full (10): A, B, C hold 3 each; A's oldest goes
			add("e0", "E", false) // then B's oldest
		}, []string{"a0", "b0"}, []string{"owner", "a1", "b1", "c0", "d0", "e0"}, 10},
		{"a source holding one loses it only when all hold one", func(add func(string, string, bool)) {
			add("owner", "O", false)
			for i := range 9 {
				add(fmt.Sprint("s", i), fmt.Sprint("S", i), false)
			}
			add("x", "X", false)
		}, []string{"owner"}, []string{"s0", "x"}, 10},
		{"the signed-in owner's request outlives strangers", func(add func(string, string, bool)) {
			add("owner", "O", true)
			for i := range 30 {
				add(fmt.Sprint("s", i), fmt.Sprint("S", i), false)
			}
		}, []string{"s0"}, []string{"owner", "s29"}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testkit.NewClock(time.Time{})
			s := openStore(t, t.TempDir(), c)
			tt.adds(func(id, src string, owner bool) {
				c.Advance(time.Second)
				p := pending(id, src, c)
				p.Owner = owner
				if err := s.AddOAuthPending(ctx, p, lim); err != nil {
					t.Fatal(err)
				}
				if n, per, _ := s.PendingCounts(ctx); n > lim.Total || per > lim.PerSource {
					t.Fatalf("after %s: %d pending, %d from one source", id, n, per)
				}
			})
			for _, id := range tt.gone {
				if _, err := s.OAuthPendingRequest(ctx, id, "b-"+id); !errors.Is(err, ErrPendingNotFound) {
					t.Errorf("%s still pending (err %v)", id, err)
				}
			}
			for _, id := range tt.kept {
				if _, err := s.OAuthPendingRequest(ctx, id, "b-"+id); err != nil {
					t.Errorf("%s evicted: %v", id, err)
				}
			}
			if n, _, _ := s.PendingCounts(ctx); n != tt.total {
				t.Errorf("total %d, want %d", n, tt.total)
			}
		})
	}
}

func TestPendingBoundToBrowserAndExpiry(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	if err := s.AddOAuthPending(ctx, pending("p", "A", c), PendingLimits{PerSource: 10, Total: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeOAuthPending(ctx, "p", "other-browser"); !errors.Is(err, ErrPendingNotFound) {
		t.Fatalf("other browser took it: %v", err)
	}
	c.Advance(10 * time.Minute)
	if _, err := s.OAuthPendingRequest(ctx, "p", "b-p"); !errors.Is(err, ErrPendingNotFound) {
		t.Fatalf("expired request still readable: %v", err)
	}
}

func TestRegisterCap(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	reg := func(id string) error {
		_, err := s.RegisterOAuthClient(ctx, OAuthClient{ID: id, Kind: ClientDCR, Name: id, RedirectURIs: []string{"x"}, AuthMethod: "none"},
			3, c.Now().Add(-10*time.Minute))
		return err
	}
	for i := range 3 {
		if err := reg(fmt.Sprint("c", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg("young"); !errors.Is(err, ErrClientCapFull) {
		t.Fatalf("fourth young registration: %v, want ErrClientCapFull", err)
	}
	// A granted client is never evicted and does not count.
	if err := s.AddOAuthPending(ctx, pending("p", "A", c), PendingLimits{PerSource: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	p := pending("p", "A", c)
	p.ClientID = "c0"
	s.TakeOAuthPending(ctx, "p", "b-p")
	if err := s.AddOAuthPending(ctx, p, PendingLimits{PerSource: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveOAuthPending(ctx, "p", "b-p", OAuthApproval{CodeHash: "code", TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := reg("fits"); err != nil {
		t.Fatalf("registration after one client was granted: %v", err)
	}
	c.Advance(11 * time.Minute)
	if err := reg("evicts"); err != nil {
		t.Fatalf("registration with old unused clients: %v", err)
	}
	if _, err := s.OAuthClient(ctx, "c1"); !errors.Is(err, ErrClientNotFound) {
		t.Errorf("oldest unused client c1 not evicted: %v", err)
	}
	if _, err := s.OAuthClient(ctx, "c0"); err != nil {
		t.Errorf("granted client evicted: %v", err)
	}
}

// grantFor approves a pending request of client and redeems its code.
func grantFor(t *testing.T, s *Store, c *testkit.Clock, client, code string, toks IssuedTokens) OAuthGrant {
	t.Helper()
	ctx := context.Background()
	p := pending("req-"+code, "A", c)
	p.ClientID = client
	if err := s.AddOAuthPending(ctx, p, PendingLimits{PerSource: 10, Total: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveOAuthPending(ctx, p.IDHash, p.BrowserHash, OAuthApproval{CodeHash: code, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	g, err := s.RedeemOAuthCode(ctx, code, func(OAuthCode) error { return nil }, toks)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func toks(p string, c *testkit.Clock) IssuedTokens {
	return IssuedTokens{AccessHash: p + "-a", AccessExpires: c.Now().Add(time.Hour), RefreshHash: p + "-r",
		RefreshExpires: c.Now().Add(30 * 24 * time.Hour)}
}

func TestCodeOnceAndReplayRevokes(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	addClient(t, s, "c1")
	grantFor(t, s, c, "c1", "code", toks("t1", c))
	if a, err := s.VerifyOAuthAccess(ctx, "t1-a"); err != nil || a.ClientID != "c1" || a.Scope != "s" {
		t.Fatalf("access: %+v %v", a, err)
	}
	if _, err := s.RedeemOAuthCode(ctx, "code", func(OAuthCode) error { return nil }, toks("t2", c)); !errors.Is(err, ErrCodeReused) {
		t.Fatalf("replay: %v", err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t1-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatalf("access after code replay: %v", err)
	}
	if _, err := s.RotateOAuthRefresh(ctx, "t1-r", time.Minute, nil, toks("t3", c), nil); !errors.Is(err, ErrRefreshInvalid) {
		t.Fatalf("refresh after code replay: %v", err)
	}
}

func TestCodeExpiresAndCheckBurnsIt(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	addClient(t, s, "c1")
	for _, tc := range []struct {
		name    string
		advance time.Duration
		check   error
		want    error
	}{
		{"expired", time.Minute, nil, ErrCodeInvalid},
		{"refused", 0, errors.New("pkce"), nil},
	} {
		p := pending("r-"+tc.name, "A", c)
		p.ClientID = "c1"
		s.AddOAuthPending(ctx, p, PendingLimits{PerSource: 10, Total: 10})
		if _, err := s.ApproveOAuthPending(ctx, p.IDHash, p.BrowserHash, OAuthApproval{CodeHash: tc.name, TTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
		c.Advance(tc.advance)
		want := tc.want
		if want == nil {
			want = tc.check
		}
		if _, err := s.RedeemOAuthCode(ctx, tc.name, func(OAuthCode) error { return tc.check }, toks(tc.name, c)); !errors.Is(err, want) {
			t.Fatalf("%s: %v, want %v", tc.name, err, want)
		}
		if _, err := s.RedeemOAuthCode(ctx, tc.name, func(OAuthCode) error { return nil }, toks(tc.name+"2", c)); !errors.Is(err, ErrCodeReused) {
			t.Fatalf("%s second try: %v, want ErrCodeReused", tc.name, err)
		}
	}
}

func TestRefreshRotationGraceAndReuse(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	addClient(t, s, "c1")
	grantFor(t, s, c, "c1", "code", toks("t1", c))
	scope := func(g OAuthGrant) (string, error) { return g.Scope, nil }

	r, err := s.RotateOAuthRefresh(ctx, "t1-r", 30*time.Second, scope, toks("t2", c), []byte("sealed-t2"))
	if err != nil || r.Replayed {
		t.Fatalf("first rotation: %+v %v", r, err)
	}
	c.Advance(20 * time.Second)
	r, err = s.RotateOAuthRefresh(ctx, "t1-r", 30*time.Second, scope, toks("t3", c), []byte("sealed-t3"))
	if err != nil || !r.Replayed || string(r.Successor) != "sealed-t2" {
		t.Fatalf("within grace: %+v %v", r, err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t3-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatal("a replay within grace issued new tokens")
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t2-a"); err != nil {
		t.Fatalf("successor refused: %v", err)
	}
	c.Advance(11 * time.Second)
	if _, err := s.RotateOAuthRefresh(ctx, "t1-r", 30*time.Second, scope, toks("t4", c), nil); !errors.Is(err, ErrRefreshReused) {
		t.Fatalf("after grace: %v, want ErrRefreshReused", err)
	}
	for _, h := range []string{"t1-a", "t2-a"} {
		if _, err := s.VerifyOAuthAccess(ctx, h); !errors.Is(err, ErrAccessInvalid) {
			t.Errorf("%s alive after family revoked", h)
		}
	}
	if _, err := s.RotateOAuthRefresh(ctx, "t2-r", 30*time.Second, scope, toks("t5", c), nil); !errors.Is(err, ErrRefreshInvalid) {
		t.Fatalf("successor refresh after family revoked: %v", err)
	}
}

func TestRefreshGraceEndsOnceTheSuccessorIsSpent(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	addClient(t, s, "c1")
	grantFor(t, s, c, "c1", "code", toks("t1", c))
	scope := func(g OAuthGrant) (string, error) { return g.Scope, nil }
	if _, err := s.RotateOAuthRefresh(ctx, "t1-r", 30*time.Second, scope, toks("t2", c), []byte("sealed-t2")); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)
	if _, err := s.RotateOAuthRefresh(ctx, "t2-r", 30*time.Second, scope, toks("t3", c), []byte("sealed-t3")); err != nil {
		t.Fatal(err)
	}
	// The client has moved on to t3: t1 presented again, still within its
	// grace window, is a stolen token being replayed.
	c.Advance(time.Second)
	if _, err := s.RotateOAuthRefresh(ctx, "t1-r", 30*time.Second, scope, toks("t4", c), nil); !errors.Is(err, ErrRefreshReused) {
		t.Fatalf("superseded token within grace: %v, want ErrRefreshReused", err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t3-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Error("the live pair survived the replay of a superseded token")
	}
}

func TestAccessExpiryRevokeAndPrune(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	addClient(t, s, "c1")
	addClient(t, s, "c2")
	grantFor(t, s, c, "c1", "code1", toks("t1", c))
	grantFor(t, s, c, "c2", "code2", toks("t2", c))
	if ok, err := s.RevokeOAuthToken(ctx, "t1-r", "c2"); ok || err != nil {
		t.Fatalf("another client revoked c1's token: %v %v", ok, err)
	}
	if ok, err := s.RevokeOAuthToken(ctx, "t1-r", "c1"); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t1-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatal("access alive after its refresh token was revoked")
	}
	c.Advance(time.Hour)
	if _, err := s.VerifyOAuthAccess(ctx, "t2-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatal("access token alive after an hour")
	}
	if _, err := s.PruneOAuth(ctx, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	n, _ := s.OAuthRowCounts(ctx)
	if n["oauth_grants"] != 1 || n["oauth_tokens"] != 1 || n["oauth_codes"] != 0 {
		t.Fatalf("after prune: %v", n)
	}
	if err := s.DeleteOAuthClient(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RotateOAuthRefresh(ctx, "t2-r", 0, nil, toks("t3", c), nil); !errors.Is(err, ErrRefreshInvalid) {
		t.Fatalf("refresh of deleted client: %v", err)
	}
}

func TestDeleteOwnerRevokesEveryGrant(t *testing.T) {
	ctx := context.Background()
	s, c := setupOwner(t)
	addClient(t, s, "c1")
	grantFor(t, s, c, "c1", "code", toks("t1", c))
	if err := s.DeleteOwner(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t1-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Fatal("access token alive after the owner was deleted")
	}
	if err := s.DeleteOwner(ctx); !errors.Is(err, ErrNoOwner) {
		t.Fatalf("second delete: %v", err)
	}
	n, _ := s.OAuthRowCounts(ctx)
	if n["oauth_grants"]+n["oauth_tokens"]+n["oauth_codes"]+n["oauth_pending"] != 0 || n["oauth_clients"] != 1 {
		t.Fatalf("rows after reset: %v", n)
	}
}

func TestReplacingTheOwnerRevokesEveryGrant(t *testing.T) {
	ctx := context.Background()
	c := testkit.NewClock(time.Time{})
	s := openStore(t, t.TempDir(), c)
	if err := s.CreateOwner(ctx, newOwner("a"), false); err != nil {
		t.Fatal(err)
	}
	addClient(t, s, "c1")
	grantFor(t, s, c, "c1", "code", toks("t1", c))
	if _, err := s.VerifyOAuthAccess(ctx, "t1-a"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateOwner(ctx, newOwner("b"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyOAuthAccess(ctx, "t1-a"); !errors.Is(err, ErrAccessInvalid) {
		t.Errorf("an access token survived setup --force: %v", err)
	}
}
