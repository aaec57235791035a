package admin

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

var clientIDRE = regexp.MustCompile(`^cx_[a-z2-7]{24}$`)

func TestClientsAddListRevoke(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop")

	r := run(t, env, "clients", "add", "--name", "Meta AI", "--redirect-uri", "https://agent.meta.ai/api/hatch/oauth/callback", "--secret")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !clientIDRE.MatchString(lines[0]) || !strings.HasPrefix(lines[1], "cxs_") {
		t.Fatalf("add: %d %q %q", r.code, r.stdout, r.stderr)
	}
	id := lines[0]
	r = run(t, env, "clients", "add", "--redirect-uri", "myapp://cb", "--name", "Desk app", "--redirect-uri", "http://127.0.0.1/cb")
	if r.code != 0 || !clientIDRE.MatchString(strings.TrimSpace(r.stdout)) {
		t.Fatalf("public add: %d %q %q", r.code, r.stdout, r.stderr)
	}

	st := openStore(t, env.StateDir)
	c, err := st.OAuthClient(context.Background(), id)
	if err != nil || c.Kind != store.ClientAdmin || c.AuthMethod != "client_secret_post" || strings.Contains(c.SecretHash, lines[1][4:]) {
		t.Fatalf("stored client: %+v %v", c, err)
	}
	st.Close()

	r = run(t, env, "clients", "list")
	for _, want := range []string{id, "Meta AI", "oauth (console)", "Desk app", "laptop", "bearer token", "never", "LIVE GRANTS"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, r.stdout)
		}
	}
	if r = run(t, env, "clients", "revoke", id); r.code != 0 {
		t.Fatalf("revoke: %d %s", r.code, r.stderr)
	}
	if r = run(t, env, "clients", "revoke", id); r.code != 1 || !strings.Contains(r.stderr, "no OAuth app or live token") {
		t.Fatalf("second revoke: %d %s", r.code, r.stderr)
	}
	if r = run(t, env, "clients", "revoke", "laptop"); r.code != 0 {
		t.Fatalf("revoke token through clients: %d %s", r.code, r.stderr)
	}
	if r = run(t, env, "clients", "list"); strings.Contains(r.stdout, "Meta AI") || strings.Contains(r.stdout, "laptop") {
		t.Fatalf("list after revoke:\n%s", r.stdout)
	}
	if r = run(t, env, "token", "create", "phone"); r.code != 0 {
		t.Fatalf("token create: %d %s", r.code, r.stderr)
	}
	if r = run(t, env, "token", "revoke", "phone"); r.code != 0 {
		t.Fatalf("token revoke: %d %s", r.code, r.stderr)
	}

	// The console's Activity lists each of these as done from the CLI; the
	// refused second revoke did nothing and is not there.
	st = openStore(t, env.StateDir)
	defer st.Close()
	acts, err := st.OwnerActions(context.Background(), time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.Writer+" "+a.Action+" "+a.Target)
	}
	wantActs := []string{"owner (cli) revoked token phone", "owner (cli) created token phone",
		"owner (cli) revoked token laptop", "owner (cli) revoked app " + id, "owner (cli) created token laptop"}
	if strings.Join(got, "\n") != strings.Join(wantActs, "\n") {
		t.Errorf("owner actions, newest first:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantActs, "\n"))
	}
}

func TestClientsUsageErrors(t *testing.T) {
	env := testEnv(t)
	openStore(t, env.StateDir) // a server has run here: clients add needs its state
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"clients"}, 2, "clients needs a subcommand"},
		{[]string{"clients", "frob"}, 2, "unknown clients subcommand"},
		{[]string{"clients", "add", "--name", "x"}, 2, "needs --name and at least one --redirect-uri"},
		{[]string{"clients", "add", "--name", "x", "--redirect-uri", "http://evil.example/cb"}, 1, "plain http is allowed only"},
		{[]string{"clients", "add", "--name", "x", "--redirect-uri", "https://a.example/cb#frag"}, 1, "invalid client"},
		{[]string{"clients", "add", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"clients", "revoke"}, 2, "wrong number of arguments"},
	} {
		r := run(t, env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: %d %q", tc.args, r.code, r.stderr)
		}
	}
	if r := run(t, env, "help"); !strings.Contains(r.stdout, "clients add --name NAME") {
		t.Errorf("help lacks the clients commands:\n%s", r.stdout)
	}
}

func TestResetRevokesEveryGrant(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()
	st := openStore(t, env.StateDir)
	hs := make([]string, store.RecoveryCodeCount)
	for i := range hs {
		hs[i] = string(rune('a' + i))
	}
	if err := st.CreateOwner(ctx, store.NewOwner{UserHandle: []byte("0123456789abcdef0123"), TOTPSecret: "S", RecoveryHashes: hs}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RegisterOAuthClient(ctx, store.OAuthClient{ID: "c1", Kind: store.ClientDCR, Name: "c", RedirectURIs: []string{"x"}, AuthMethod: "none"}, 0, fixedNow); err != nil {
		t.Fatal(err)
	}
	p := store.OAuthPending{IDHash: "p", Source: "s", BrowserHash: "b", ClientID: "c1", RedirectURI: "x", Scope: "s", Resource: "r", Expires: fixedNow.Add(time.Hour)}
	if err := st.AddOAuthPending(ctx, p, store.PendingLimits{PerSource: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApproveOAuthPending(ctx, "p", "b", store.OAuthApproval{CodeHash: "code", TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RedeemOAuthCode(ctx, "code", func(store.OAuthCode) error { return nil }, store.IssuedTokens{AccessHash: "a",
		AccessExpires: fixedNow.Add(time.Hour), RefreshHash: "r", RefreshExpires: fixedNow.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if r := run(t, env, "reset", "--yes"); r.code != 0 {
		t.Fatalf("reset: %d %s", r.code, r.stderr)
	}
	st = openStore(t, env.StateDir)
	defer st.Close()
	if _, err := st.VerifyOAuthAccess(ctx, "a"); !errors.Is(err, store.ErrAccessInvalid) {
		t.Fatalf("access token alive after reset: %v", err)
	}
}
