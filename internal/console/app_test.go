package console

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// grantApp registers an OAuth app and gives it a live grant with the
// scope read Work, its access token hashed as "a".
func grantApp(t *testing.T, h *harness, id string) {
	t.Helper()
	ctx := context.Background()
	now := h.Clock.Now()
	if _, err := h.Store.RegisterOAuthClient(ctx, store.OAuthClient{ID: id, Kind: store.ClientDCR, Name: "Meta AI",
		RedirectURIs: []string{"https://agent.example/cb"}, AuthMethod: "none"}, 0, now); err != nil {
		t.Fatal(err)
	}
	p := store.OAuthPending{IDHash: "p", Source: "s", BrowserHash: "b", ClientID: id, RedirectURI: "x", Scope: "notes:read notes:write",
		Resource: "r", Expires: now.Add(time.Hour)}
	if err := h.Store.AddOAuthPending(ctx, p, store.PendingLimits{PerSource: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	chosen, _ := scope.Parse("Work", "", false)
	if _, err := h.Store.ApproveOAuthPending(ctx, "p", "b", store.OAuthApproval{CodeHash: "code", VaultScope: chosen.Encode(), TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Store.RedeemOAuthCode(ctx, "code", func(store.OAuthCode) error { return nil }, store.IssuedTokens{AccessHash: "a",
		AccessExpires: now.Add(time.Hour), RefreshHash: "r", RefreshExpires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

func TestAppPageScopeChange(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	secret, _, err := h.Store.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	grantApp(t, h, "cx_app")
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/apps")
	want(t, resp, body, http.StatusOK, `href="/console/app?token=laptop"`, `href="/console/app?id=cx_app"`)
	resp, body = b.get("/console/app?token=laptop")
	want(t, resp, body, http.StatusOK, `id="scope-form"`, "<li>the whole vault</li>", `id="no-reads"`, `id="no-writes"`)

	// A change is stored, recorded as the owner's, and the token's next
	// request carries it; the page then shows it and fills the form.
	resp, body = b.post("/console/app/scope", url.Values{"token": {"laptop"}, "read": {"Work/**, Journal/2026-*.md"}, "write": {"Work/Drafts"}, "private": {"1"}})
	want(t, resp, body, http.StatusSeeOther)
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, "/console/result/") {
		t.Fatalf("after the change: %q", loc)
	}
	resp, body = b.get(loc)
	want(t, resp, body, http.StatusOK, `id="result-title">Scope changed`)
	const described = "read Work/**, Journal/2026-*.md; write Work/Drafts, private notes included"
	tok, err := h.Store.VerifyToken(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := scope.Decode(tok.VaultScope); err != nil || sc.Describe() != described {
		t.Fatalf("the token's next request sees %q (%v)", tok.VaultScope, err)
	}
	resp, body = b.get("/console/app?token=laptop")
	want(t, resp, body, http.StatusOK, "<li>"+html.EscapeString(described)+"</li>",
		`value="Work/**,Journal/2026-*.md"`, `value="Work/Drafts"`, `id="scope-private" checked`)
	acts, err := h.Store.OwnerActions(ctx, time.Time{}, 10)
	if err != nil || len(acts) != 1 || acts[0].Action != "changed the scope of token" || acts[0].Target != "laptop" || acts[0].Writer != history.OwnerConsole {
		t.Fatalf("owner actions %+v, %v", acts, err)
	}

	// A pattern cortex cannot read is refused on the page, with what the
	// owner typed kept (escaped); nothing changes.
	resp, body = b.post("/console/app/scope", url.Values{"token": {"laptop"}, "read": {"Work/**, a//b<script>"}, "write": {"Work"}})
	want(t, resp, body, http.StatusBadRequest, `id="scope-error" data-code="bad_pattern"`, "Read patterns: bad pattern", "empty folder name",
		`value="Work/**, a//b&lt;script&gt;"`, `name="write" id="scope-write" value="Work"`)
	if strings.Contains(body, "<script>") {
		t.Error("the typed pattern is not escaped")
	}
	if strings.Contains(body, `id="scope-private" checked`) {
		t.Error("the refused form shows private notes ticked, which the owner unticked")
	}
	if tok, _ := h.Store.VerifyToken(ctx, secret); tok.VaultScope == "" || !strings.Contains(tok.VaultScope, "Drafts") {
		t.Fatalf("a refused change changed the scope to %q", tok.VaultScope)
	}
	resp, body = b.post("/console/app/scope", url.Values{"token": {"laptop"}, "write": {"**x"}})
	want(t, resp, body, http.StatusBadRequest, "Write patterns: bad pattern")

	// Without a recent sign-in nothing changes; the page asks to sign in
	// again and keeps what was typed.
	h.Clock.Advance(RecentSignIn)
	resp, body = b.post("/console/app/scope", url.Values{"token": {"laptop"}, "read": {"Keep/**"}, "private": {"1"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`, `id="totp-form"`, "Keep/**")
	if tok, _ := h.Store.VerifyToken(ctx, secret); !strings.Contains(tok.VaultScope, "Drafts") {
		t.Fatalf("a change without a recent sign-in changed the scope to %q", tok.VaultScope)
	}
	b.signIn()
	b.get("/console/app?id=cx_app")

	// An app's live grants all take the new scope; empty fields are the
	// whole vault again.
	resp, body = b.post("/console/app/scope", url.Values{"id": {"cx_app"}, "read": {"Inbox"}})
	want(t, resp, body, http.StatusSeeOther)
	if a, err := h.Store.VerifyOAuthAccess(ctx, "a"); err != nil {
		t.Fatal(err)
	} else if sc, _ := scope.Decode(a.VaultScope); sc.Describe() != "read Inbox; write nothing" {
		t.Fatalf("the app's grant: %q", a.VaultScope)
	}
	resp, body = b.post("/console/app/scope", url.Values{"token": {"laptop"}, "read": {""}, "write": {""}})
	want(t, resp, body, http.StatusSeeOther)
	if tok, _ := h.Store.VerifyToken(ctx, secret); tok.VaultScope != "" {
		t.Fatalf("emptied fields left the scope %q", tok.VaultScope)
	}

	// An app with no live grant has no scope to change.
	if _, err := h.Store.RegisterOAuthClient(ctx, store.OAuthClient{ID: "cx_none", Kind: store.ClientDCR, Name: "Idle",
		RedirectURIs: []string{"https://idle.example/cb"}, AuthMethod: "none"}, 0, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	resp, body = b.get("/console/app?id=cx_none")
	want(t, resp, body, http.StatusOK, "no live grant")
	if strings.Contains(body, `id="scope-form"`) {
		t.Error("an app without a grant is offered the scope form")
	}
	resp, body = b.post("/console/app/scope", url.Values{"id": {"cx_none"}, "read": {"Work"}})
	want(t, resp, body, http.StatusConflict, `data-code="no_live_grant"`)

	for _, q := range []string{"token=nobody", "id=nobody"} {
		resp, body = b.get("/console/app?" + q)
		want(t, resp, body, http.StatusNotFound, `data-code="unknown_app"`)
	}
	resp, body = b.get("/console/app")
	want(t, resp, body, http.StatusBadRequest)
	resp, body = b.post("/console/app/scope", url.Values{"token": {"nobody"}, "read": {"Work"}})
	want(t, resp, body, http.StatusNotFound, `data-code="unknown_app"`)
}

var sinceChangeRE = regexp.MustCompile(`name="since" value="([^"]+)">\s*<button type="submit" class="undo-since-change">`)

func TestAppPageReadsChangesAndUndoSince(t *testing.T) {
	h := newHarness(t, map[string]string{"A.md": "alpha\n", "B.md": "beta\n"})
	ctx := context.Background()
	if _, _, err := h.Store.CreateToken(ctx, "claude"); err != nil {
		t.Fatal(err)
	}
	h.Call("claude", "edit_note", map[string]any{"id": "A.md", "version": h.Version("A.md"), "old_text": "alpha", "new_text": "ALPHA"})
	h.Clock.Advance(time.Minute)
	h.Call("claude", "edit_note", map[string]any{"id": "B.md", "version": h.Version("B.md"), "old_text": "beta", "new_text": "BETA"})
	h.Clock.Advance(time.Minute)
	h.Call("chatgpt", "append", map[string]any{"id": "B.md", "text": "later\n"})
	h.Clock.Advance(time.Minute)
	h.Call("claude", "edit_note", map[string]any{"id": "A.md", "version": h.Version("A.md"), "old_text": "ALPHA", "new_text": "ALPHA 2"})
	reads := []store.Read{
		{App: "claude", Path: "A.md", Tool: "fetch", Count: 3},
		{App: "claude", Path: "A.md", Tool: "search"},
		{App: "claude", Path: "Odd/<b>.md", Tool: "list"},
		{App: "chatgpt", Path: "B.md", Tool: "fetch"},
	}
	for i := range rowsShown + 2 {
		reads = append(reads, store.Read{App: "claude", Path: fmt.Sprintf("Many/%03d.md", i), Tool: "list", Time: h.Clock.Now().Add(-time.Hour)})
	}
	if err := h.Store.RecordReads(ctx, reads); err != nil {
		t.Fatal(err)
	}

	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/app?token=claude")
	want(t, resp, body, http.StatusOK,
		`<tr data-path="A.md"><td><a href="/notes/A.md">A.md</a></td><td class="count">4</td>`, "fetch, search",
		"Odd/&lt;b&gt;.md", `id="reads-more">and 4 more notes`,
		`<tr data-path="A.md"><td><a href="/notes/A.md">A.md</a></td><td class="count">2</td>`,
		`<tr data-path="B.md"><td><a href="/notes/B.md">B.md</a></td><td class="count">1</td>`)
	if strings.Contains(body, "<b>.md") {
		t.Error("a note's path is not escaped")
	}
	if n := strings.Count(body, `<tr data-path="Many/`); n != rowsShown-2 {
		t.Errorf("%d of the many notes read listed, want %d (the page holds %d rows)", n, rowsShown-2, rowsShown)
	}
	if n := strings.Count(body, `class="undo-since-change"`); n != 3 {
		t.Fatalf("%d changes offered to undo since, want claude's 3:\n%s", n, body)
	}

	// "Since this change" on the newest change previews, through the bulk
	// undo, only that change; applying it takes A.md back one step.
	since := html.UnescapeString(sinceChangeRE.FindStringSubmatch(body)[1])
	resp, body = b.get("/console/undo-app?" + url.Values{"app": {"claude"}, "since": {since}}.Encode())
	want(t, resp, body, http.StatusOK, `data-path="A.md"`, `id="bulk-form"`)
	if strings.Contains(body, `data-path="B.md"`) {
		t.Error("the undo since the newest change would touch B.md, changed before it")
	}
	resp, body = b.act("/console/undo-app", url.Values{"app": {"claude"}, "since": {since}})
	want(t, resp, body, http.StatusOK, `id="result-title">Undone`)
	if a, bb := h.Read("A.md"), h.Read("B.md"); a != "ALPHA\n" || !strings.HasPrefix(bb, "BETA\n") {
		t.Fatalf("after undoing since the newest change: A.md %q, B.md %q", a, bb)
	}
	// The time picker sends a minute, or seconds when they are not 0.
	for _, s := range []string{h.Clock.Now().Add(-10 * time.Minute).UTC().Format("2006-01-02T15:04"), h.Clock.Now().Add(-10 * time.Minute).UTC().Format("2006-01-02T15:04:05")} {
		resp, body = b.get("/console/undo-app?" + url.Values{"app": {"claude"}, "since": {s}}.Encode())
		want(t, resp, body, http.StatusOK, `data-path="B.md"`)
	}
}

func TestAppPurgeNeedsConfirmationAndRecentSignIn(t *testing.T) {
	h := newHarness(t, map[string]string{"A.md": "alpha\n"})
	ctx := context.Background()
	if _, _, err := h.Store.CreateToken(ctx, "claude"); err != nil {
		t.Fatal(err)
	}
	h.Call("claude", "edit_note", map[string]any{"id": "A.md", "version": h.Version("A.md"), "old_text": "alpha", "new_text": "ALPHA"})
	h.Call("claude", "create_note", map[string]any{"path": "New.md", "content": "new\n"})
	wrote := func() int {
		n := 0
		for _, p := range []string{"A.md", "New.md"} {
			vs, _ := h.c.o.History.Versions(ctx, p)
			for _, v := range vs {
				if v.Writer == "claude" {
					n++
				}
			}
		}
		return n
	}
	if wrote() == 0 {
		t.Fatal("the history holds nothing claude wrote")
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/app?token=claude")
	want(t, resp, body, http.StatusOK, `id="app-purge"`)
	if strings.Contains(body, "purge-needs-sign-in") {
		t.Error("a fresh sign-in is told to sign in again")
	}
	resp, body = b.post("/console/app/purge", url.Values{"token": {"claude"}, "confirm": {"yes"}})
	want(t, resp, body, http.StatusBadRequest, `data-code="not_confirmed"`)
	resp, body = b.post("/console/app/purge", url.Values{"token": {"claude"}, "confirm": {"purge"}, "since": {"soon"}})
	want(t, resp, body, http.StatusBadRequest, `data-code="bad_time"`)

	h.Clock.Advance(RecentSignIn)
	resp, body = b.get("/console/app?token=claude")
	want(t, resp, body, http.StatusOK, `id="purge-needs-sign-in"`)
	resp, body = b.post("/console/app/purge", url.Values{"token": {"claude"}, "confirm": {"purge"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`, `name="return" value="/console/pending/`)
	if wrote() == 0 {
		t.Fatal("a refused purge forgot versions")
	}

	b.signIn()
	b.get("/console/app?token=claude")
	resp, body = b.post("/console/app/purge", url.Values{"token": {"claude"}, "confirm": {"purge"}})
	want(t, resp, body, http.StatusSeeOther)
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, "/console/result/") {
		t.Fatalf("after the purge: %q", loc)
	}
	if n := wrote(); n != 0 {
		t.Fatalf("%d versions claude wrote remain", n)
	}
	if got := h.Read("A.md"); got != "ALPHA\n" {
		t.Fatalf("the purge changed the note: %q", got)
	}
	// Reloading the result is a GET: it repeats nothing.
	resp, body = b.get(loc)
	want(t, resp, body, http.StatusOK, `id="result-message"`, "Forgot ")
	acts, _ := h.Store.OwnerActions(ctx, time.Time{}, 10)
	if len(acts) != 1 || acts[0].Action != "forgot the history written by" || acts[0].Target != "claude" {
		t.Errorf("owner actions %+v", acts)
	}
	// Nothing is left to forget.
	resp, body = b.post("/console/app/purge", url.Values{"token": {"claude"}, "confirm": {"purge"}})
	want(t, resp, body, http.StatusNotFound, `data-code="`+history.CodeNoHistory+`"`)
}
