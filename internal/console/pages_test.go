package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit/notekit"
)

func TestAppsAndTokens(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	secret, _, err := h.Store.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Store.RegisterOAuthClient(ctx, store.OAuthClient{ID: "client-1", Kind: "dcr", Name: "Claude",
		RedirectURIs: []string{"https://claude.ai/api/mcp/auth_callback"}, AuthMethod: "none"}, 100, time.Time{}); err != nil {
		t.Fatal(err)
	}
	// A use of the token records where it came from; the page shows it.
	if _, err := h.Store.VerifyToken(store.WithUseAddr(ctx, "192.0.2.7"), secret); err != nil {
		t.Fatal(err)
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/apps")
	want(t, resp, body, http.StatusOK, `data-token="laptop"`, `data-app="client-1"`, "Claude", "from 192.0.2.7")

	// Revoking asks first (the button is inside a closed confirmation).
	if !strings.Contains(body, `<summary class="danger revoke-token">Revoke…</summary>`) || !strings.Contains(body, `class="danger confirm-revoke-token">Revoke laptop</button>`) {
		t.Errorf("the token's revoke does not ask first:\n%s", body)
	}
	resp, body = b.act("/console/tokens/revoke", url.Values{"token": {"laptop"}})
	want(t, resp, body, http.StatusOK, `id="result-title">Token revoked`, "Revoked the token laptop")
	if _, err := h.Store.VerifyToken(ctx, secret); err == nil {
		t.Fatal("the revoked token still works")
	}
	resp, body = b.post("/console/apps/revoke", url.Values{"app": {"client-1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke app: %d %s", resp.StatusCode, body)
	}
	if cs, _ := h.Store.ListOAuthClients(ctx); len(cs) != 0 {
		t.Fatalf("the revoked app is still there: %+v", cs)
	}
	b.get("/console/apps")
	resp, body = b.post("/console/apps/revoke", url.Values{"app": {"client-1"}})
	want(t, resp, body, http.StatusNotFound, `data-code="unknown_app"`)
	resp, body = b.post("/console/tokens/revoke", url.Values{"token": {"laptop"}})
	want(t, resp, body, http.StatusNotFound, `data-code="unknown_token"`)

	// Both revocations show in Activity, and only once each (the refused
	// repeats did nothing); they are not journal entries, so `recent` and
	// undo never act on them.
	// A revocation from the CLI shows as such.
	if err := h.Store.RecordOwnerAction(ctx, store.OwnerAction{Action: "revoked token", Target: "tablet", Writer: history.OwnerCLI}); err != nil {
		t.Fatal(err)
	}
	resp, body = b.get("/console/activity")
	want(t, resp, body, http.StatusOK, `id="owner-actions"`, "owner (console) revoked app <strong>client-1</strong>",
		"owner (console) revoked token <strong>laptop</strong>", "owner (cli) revoked token <strong>tablet</strong>")
	if n := strings.Count(body, `class="owner-action"`); n != 3 {
		t.Errorf("activity lists %d owner actions, want 3:\n%s", n, body)
	}
	if j, err := h.Store.Journal(ctx, time.Time{}, 0); err != nil || len(j) != 0 {
		t.Errorf("journal = %+v, %v; want no entries", j, err)
	}
}

func TestTokenCreationNeedsRecentSignIn(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser()
	b.signIn()
	b.get("/console/apps")
	resp, body := b.act("/console/tokens", url.Values{"name": {"phone"}})
	want(t, resp, body, http.StatusOK, `id="token-secret">ctx_`)
	secret := body[strings.Index(body, "ctx_"):]
	secret = secret[:strings.Index(secret, "<")]
	if _, err := h.Store.VerifyToken(context.Background(), secret); err != nil {
		t.Fatalf("the token shown does not work: %v", err)
	}
	resp, body = b.post("/console/tokens", url.Values{"name": {"bad name!"}})
	want(t, resp, body, http.StatusBadRequest, `data-code="invalid_token_name"`)

	h.Clock.Advance(RecentSignIn)
	resp, body = b.get("/console/apps")
	want(t, resp, body, http.StatusOK, `id="token-needs-sign-in"`)
	resp, body = b.post("/console/tokens", url.Values{"name": {"tablet"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`)
	toks, _ := h.Store.ListTokens(context.Background())
	if len(toks) != 1 {
		t.Fatalf("tokens %+v, want only phone", toks)
	}
}

func TestPurgeNeedsRecentSignInAndConfirmation(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	b := h.browser()
	b.signIn()
	b.get("/notes/Plan.md")
	resp, body := b.post("/console/purge", url.Values{"path": {"Plan.md"}, "confirm": {"Plan"}})
	want(t, resp, body, http.StatusBadRequest, `data-code="not_confirmed"`)
	h.Clock.Advance(RecentSignIn)
	resp, body = b.post("/console/purge", url.Values{"path": {"Plan.md"}, "confirm": {"Plan.md"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`)
	if vs, _ := h.c.o.History.Versions(context.Background(), "Plan.md"); len(vs) == 0 {
		t.Fatal("a refused purge removed versions")
	}
	b.signIn()
	b.get("/notes/Plan.md")
	resp, body = b.post("/console/purge", url.Values{"path": {"Plan.md"}, "confirm": {"Plan.md"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("purge: %d %s", resp.StatusCode, body)
	}
	if _, err := h.c.o.History.Versions(context.Background(), "Plan.md"); err == nil {
		t.Fatal("versions remain after the purge")
	}
	if got := h.Read("Plan.md"); !strings.Contains(got, "ship it later") {
		t.Fatalf("the purge changed the note: %q", got)
	}
	// A second purge has nothing to forget.
	resp, body = b.post("/console/purge", url.Values{"path": {"Plan.md"}, "confirm": {"Plan.md"}})
	want(t, resp, body, http.StatusNotFound, `data-code="`+history.CodeNoHistory+`"`)
}

func TestTrashListAndRestore(t *testing.T) {
	h := newHarness(t, map[string]string{"Ideas/Garden.md": before})
	// An app's delete names the trashed note after its version; the
	// console restores it to where it was all the same.
	trashed, _ := h.Call("claude", "delete_note", map[string]any{"id": "Ideas/Garden.md", "version": h.Version("Ideas/Garden.md")})["trashed_to"].(string)
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/trash")
	want(t, resp, body, http.StatusOK, `data-path="`+trashed+`"`, "claude")
	resp, body = b.post("/console/trash/restore", url.Values{"path": {trashed}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/console/result/") {
		t.Fatalf("restore: %d %q %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = b.get(resp.Header.Get("Location"))
	want(t, resp, body, http.StatusOK, "Restored Ideas/Garden.md from the trash", `href="/notes/Ideas/Garden.md"`)
	if got := h.Read("Ideas/Garden.md"); got != before {
		t.Fatalf("restored note %q", got)
	}
	if e := h.journal()[0]; e.App != history.OwnerConsole || e.Path != "Ideas/Garden.md" {
		t.Fatalf("restore journaled as %+v", e)
	}
	resp, body = b.get("/console/trash")
	want(t, resp, body, http.StatusOK, `id="trash-empty"`)
	for _, p := range []string{"Ideas/Garden.md", ".trash/Nothing.md", ".trash/../../etc/passwd"} {
		resp, body = b.post("/console/trash/restore", url.Values{"path": {p}})
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("restore %q: %d %s", p, resp.StatusCode, body)
		}
	}
	if got := h.Read("Ideas/Garden.md"); got != before {
		t.Fatalf("bad restores changed the note: %q", got)
	}
}

func TestStatus(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before, "Other.md": "x\n"})
	appEdit(h)
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/status")
	want(t, resp, body, http.StatusOK, "v-test", `id="st-notes">2<`, "writes stop below 1024.0 MiB", "kept 30 days", "(recent: destructive actions allowed)")
}

// Status says when the history made room at its cap, whose texts went,
// and what each writer's past texts take against its share.
func TestStatusShowsHistoryRoom(t *testing.T) {
	h := newHarnessWith(t, notekit.Options{Files: map[string]string{"Plan.md": before}, HistoryMaxBytes: 64 << 10})
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/status")
	want(t, resp, body, http.StatusOK, `id="st-history-room">no room needed since the server started`)

	appEdit(h) // claude and the text it replaced (external): each a share
	random := make([]byte, 12_000)
	for i := range 8 { // about 12 KB stored each: 96 KB through a 64 KiB cap
		rand.Read(random)
		p := fmt.Sprintf("flood/%d.md", i)
		h.Call("flood", "create_note", map[string]any{"path": p, "content": base64.StdEncoding.EncodeToString(random)})
		h.Call("flood", "delete_note", map[string]any{"id": p, "version": h.Version(p)})
	}
	resp, body = b.get("/console/status")
	want(t, resp, body, http.StatusOK, "of writers over their share (flood)", "0 of deleted notes", `id="st-history-writers">flood 0.`, "MiB (over its share), external")
	if strings.Contains(body, "above the cap") {
		t.Fatalf("status says the history is above its cap:\n%s", body)
	}
}

func TestStatusShowsBackups(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/status")
	want(t, resp, body, http.StatusOK, `id="st-backup">none yet`)

	ctx := context.Background()
	at := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	if err := h.Store.RecordBackup(ctx, store.BackupRun{Time: at, Result: store.BackupOK, Detail: "/backups/cortex-1.tar.gz", Size: 3 << 20}); err != nil {
		t.Fatal(err)
	}
	resp, body = b.get("/console/status")
	want(t, resp, body, http.StatusOK, "2026-03-01 04:00 UTC</time> ok: /backups/cortex-1.tar.gz (3.0 MiB)")
	if strings.Contains(body, `id="st-backup-good"`) {
		t.Error("a good last backup also shows a last good one")
	}

	if err := h.Store.RecordBackup(ctx, store.BackupRun{Time: at.Add(24 * time.Hour), Result: store.BackupFailed, Detail: "disk full"}); err != nil {
		t.Fatal(err)
	}
	resp, body = b.get("/console/status")
	want(t, resp, body, http.StatusOK, "2026-03-02 04:00 UTC</time> failed: disk full", `id="st-backup-good"><time datetime="2026-03-01T04:00:00Z" title="2026-03-01 04:00:00 UTC">2026-03-01 04:00 UTC</time>: /backups/cortex-1.tar.gz`)
	if strings.Contains(body, `id="st-backup-command"`) {
		t.Error("a backup command shown though none ran")
	}

	// The owner's --backup-command failed on the latest archive.
	if err := h.Store.RecordBackup(ctx, store.BackupRun{Time: at.Add(48 * time.Hour), Result: store.BackupOK, Detail: "/backups/cortex-3.tar.gz",
		Command: store.CommandFailed, CommandDetail: "rclone exited 1: bucket not found"}); err != nil {
		t.Fatal(err)
	}
	resp, body = b.get("/console/status")
	want(t, resp, body, http.StatusOK, `id="st-backup-command" class="error">failed: rclone exited 1: bucket not found`)
}

func TestPagesAreSmallAndSignedIn(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	if _, _, err := h.Store.CreateToken(context.Background(), "claude"); err != nil {
		t.Fatal(err)
	}
	b := h.browser()
	stranger := h.browser()
	b.signIn()
	for _, p := range []string{"/console/activity", "/console/apps", "/console/app?token=claude", "/console/trash", "/console/status", "/notes/Plan.md", "/console/assets/console.css"} {
		resp, body := b.get(p)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
		if len(body) > 50<<10 {
			t.Errorf("%s is %d bytes", p, len(body))
		}
		if p == "/console/assets/console.css" {
			continue
		}
		if resp, _ := stranger.get(p); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?return=") {
			t.Errorf("signed out %s: %d %q", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

func TestDeleteForGood(t *testing.T) {
	h := newHarness(t, map[string]string{"Old.md": "secret\n", "Keep.md": "keep\n"})
	trashed, _ := h.Call("claude", "delete_note", map[string]any{"id": "Old.md", "version": h.Version("Old.md")})["trashed_to"].(string)
	b := h.browser()
	b.signIn()
	b.get("/console/trash")
	resp, body := b.post("/console/trash/delete", url.Values{"path": {trashed}})
	want(t, resp, body, http.StatusBadRequest, `data-code="not_confirmed"`)
	for _, p := range []string{"Keep.md", "../Keep.md", ".trash/Nothing.md"} {
		resp, body = b.post("/console/trash/delete", url.Values{"path": {p}, "confirm": {"yes"}})
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("delete %q for good: %d %s", p, resp.StatusCode, body)
		}
	}
	if h.Read("Keep.md") != "keep\n" {
		t.Fatal("a note outside the trash was removed")
	}
	h.Clock.Advance(RecentSignIn)
	resp, body = b.post("/console/trash/delete", url.Values{"path": {trashed}, "confirm": {"yes"}})
	want(t, resp, body, http.StatusForbidden, `data-code="sign_in_again"`)
	if h.Read(trashed) != "secret\n" {
		t.Fatal("a refused delete removed the note")
	}
	b.signIn()
	b.get("/console/trash")
	resp, body = b.post("/console/trash/delete", url.Values{"path": {trashed}, "confirm": {"yes"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete for good: %d %s", resp.StatusCode, body)
	}
	if got := h.Read(trashed); got != "<absent>" {
		t.Fatalf("the note is still in the trash: %q", got)
	}
	if e := h.journal()[0]; e.App != history.OwnerConsole || e.Tool != "delete_for_good" || e.Path != trashed {
		t.Fatalf("journaled as %+v", e)
	}
	// Its text is still in the history.
	if _, data, err := h.c.o.History.Version(context.Background(), trashed, h.journal()[0].OldVersion); err != nil || string(data) != "secret\n" {
		t.Fatalf("history of the deleted note: %q %v", data, err)
	}
}
