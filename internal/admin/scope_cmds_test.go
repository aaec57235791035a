package admin

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// storedScope is the scope the store keeps for the live token name.
func storedScope(t *testing.T, env Env, name string) scope.Scope {
	t.Helper()
	st := openStore(t, env.StateDir)
	defer st.Close()
	toks, err := st.ListTokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Name == name {
			sc, err := scope.Decode(tok.VaultScope)
			if err != nil {
				t.Fatal(err)
			}
			return sc
		}
	}
	t.Fatalf("no token %q", name)
	return scope.Scope{}
}

func TestTokenScope(t *testing.T) {
	env := testEnv(t)
	r := run(t, env, "token", "create", "phone", "--read", "Work/**, Journal/2026-*.md", "--write", "Work/Drafts", "--private")
	if r.code != 0 || !secretRE.MatchString(r.stdout) ||
		!strings.Contains(r.stderr, "Scope: read Work/**, Journal/2026-*.md; write Work/Drafts, private notes included (change it with: cortex admin token scope phone)\n") {
		t.Fatalf("create: %+v", r)
	}
	if got := storedScope(t, env, "phone"); got.Describe() != "read Work/**, Journal/2026-*.md; write Work/Drafts, private notes included" {
		t.Errorf("stored: %s", got.Describe())
	}
	createToken(t, env, "laptop")

	for _, tc := range []struct {
		args []string
		msg  string
		want string // the stored scope afterwards
	}{
		{[]string{"phone", "--write", "Work/**"}, `scope of token "phone" is now: read Work/**, Journal/2026-*.md; write Work/**, private notes included; it applies from the token's next request.`,
			"read Work/**, Journal/2026-*.md; write Work/**, private notes included"},
		{[]string{"phone", "--no-private"}, "", "read Work/**, Journal/2026-*.md; write Work/**"},
		{[]string{"phone", "--whole"}, "", "the whole vault"},
		{[]string{"phone", "--read", "Journal", "--private"}, "", "read Journal; write nothing, private notes included"},
	} {
		r := run(t, env, append([]string{"token", "scope"}, tc.args...)...)
		if r.code != 0 || !strings.Contains(r.stderr, tc.msg) {
			t.Fatalf("token scope %v: %+v", tc.args, r)
		}
		if got := storedScope(t, env, "phone").Describe(); got != tc.want {
			t.Errorf("token scope %v: stored %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := storedScope(t, env, "laptop"); !got.Whole() || got.Private {
		t.Errorf("the other token changed: %s", got.Describe())
	}
	r = run(t, env, "token", "list")
	if !strings.Contains(r.stdout, "read Journal; write nothing, private notes included\n") || !strings.Contains(r.stdout, "the whole vault\n") {
		t.Errorf("token list:\n%s", r.stdout)
	}
}

func TestScopeErrors(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"token", "create", "x", "--read", "Work/[a"}, 1, "cortex admin: --read: bad pattern \"Work/[a\": it has an unclosed [ or a trailing \\\nhint: patterns are relative to the vault"},
		{[]string{"token", "create", "x", "--write", "../etc"}, 1, "cortex admin: --write: bad pattern \"../etc\": it has a . or .. folder; use paths inside the vault"},
		{[]string{"token", "scope", "laptop"}, 2, "token scope: nothing to change\nhint: give --read, --write, --whole, --private or --no-private; e.g. cortex admin token scope NAME --read 'Work/**'"},
		{[]string{"token", "scope", "laptop", "--whole", "--read", "Work"}, 2, "--whole with --read or --write"},
		{[]string{"token", "scope", "laptop", "--private", "--no-private"}, 2, "--private with --no-private"},
		{[]string{"token", "scope", "laptop", "--read", "Work/a**"}, 1, "** matches whole folder levels only"},
		{[]string{"token", "create", "x", "--read", "Caf\xe9"}, 1, "--read: the patterns are not valid UTF-8"},
		{[]string{"token", "scope", "tablet", "--whole"}, 1, "no live token named \"tablet\""},
		{[]string{"clients", "scope", "cx_nobody", "--whole"}, 1, "no OAuth app or live token with ID \"cx_nobody\""},
		{[]string{"clients", "show", "cx_nobody"}, 1, "no OAuth app or live token with ID \"cx_nobody\""},
	} {
		r := run(t, env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: %d %q", tc.args, r.code, r.stderr)
		}
	}
	if r := run(t, env, "token", "list"); strings.Contains(r.stdout, "x ") {
		t.Errorf("a token was created despite a bad pattern:\n%s", r.stdout)
	}
}

func TestClientsScopeAndShow(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()
	createToken(t, env, "laptop")
	st := openStore(t, env.StateDir)
	if _, err := st.RegisterOAuthClient(ctx, store.OAuthClient{ID: "cx_app", Kind: store.ClientDCR, Name: "Meta AI",
		RedirectURIs: []string{"https://agent.example/cb"}, AuthMethod: "none"}, 0, fixedNow); err != nil {
		t.Fatal(err)
	}
	p := store.OAuthPending{IDHash: "p", Source: "s", BrowserHash: "b", ClientID: "cx_app", RedirectURI: "x", Scope: "notes:read", Resource: "r", Expires: fixedNow.Add(time.Hour)}
	if err := st.AddOAuthPending(ctx, p, store.PendingLimits{PerSource: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	chosen, _ := scope.Parse("Work", "", false)
	if _, err := st.ApproveOAuthPending(ctx, "p", "b", store.OAuthApproval{CodeHash: "code", VaultScope: chosen.Encode(), TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RedeemOAuthCode(ctx, "code", func(store.OAuthCode) error { return nil }, store.IssuedTokens{AccessHash: "a",
		AccessExpires: fixedNow.Add(time.Hour), RefreshHash: "r", RefreshExpires: fixedNow.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchOAuthUse(store.WithUseAddr(ctx, "198.51.100.4"), 1, fixedNow); err != nil {
		t.Fatal(err)
	}
	st.Close()

	r := run(t, env, "clients", "show", "cx_app")
	want := "" +
		"ID           cx_app\n" +
		"NAME         Meta AI\n" +
		"KIND         oauth (registered)\n" +
		"CREATED      2025-03-14 09:26 UTC\n" +
		"SCOPE        read Work; write nothing\n" +
		"LAST USED    2025-03-14 09:26 UTC\n" +
		"LAST FROM    198.51.100.4\n" +
		"LIVE GRANTS  1\n" +
		"REDIRECT     https://agent.example/cb\n" +
		"READ         no notes\n" +
		"CHANGED      no notes\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("clients show: %d %q\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, want)
	}

	r = run(t, env, "clients", "scope", "cx_app", "--private")
	if r.code != 0 || !strings.Contains(r.stderr, "scope of app cx_app is now: read Work; write nothing, private notes included; it applies from the app's next request.") {
		t.Fatalf("clients scope: %+v", r)
	}
	st = openStore(t, env.StateDir)
	a, err := st.VerifyOAuthAccess(ctx, "a")
	st.Close()
	if got, _ := scope.Decode(a.VaultScope); err != nil || got.Describe() != "read Work; write nothing, private notes included" {
		t.Errorf("the grant's scope: %q, %v", a.VaultScope, err)
	}
	// A bearer token through clients scope and clients show, as revoke.
	if r := run(t, env, "clients", "scope", "laptop", "--read", "Inbox"); r.code != 0 {
		t.Fatalf("clients scope of a token: %+v", r)
	}
	if r := run(t, env, "clients", "show", "laptop"); r.code != 0 || !strings.Contains(r.stdout, "KIND       bearer token\n") || !strings.Contains(r.stdout, "SCOPE      read Inbox; write nothing\n") {
		t.Errorf("clients show of a token: %d %q\n%s", r.code, r.stderr, r.stdout)
	}
	r = run(t, env, "clients", "list")
	if !strings.Contains(r.stdout, "SCOPE") || !strings.Contains(r.stdout, "read Work; write nothing, private notes included  1\n") || !strings.Contains(r.stdout, "read Inbox; write nothing                         -\n") {
		t.Errorf("clients list:\n%s", r.stdout)
	}
}
