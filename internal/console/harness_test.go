package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/testkit/notekit"
)

const testPublicURL = "https://cortex.example"

// harness is a signed-up owner, a vault with history and a journal, the
// real tools for apps to write with (notekit.World), and the console,
// routed as internal/web routes it, on real SQLite files.
type harness struct {
	*notekit.World
	t     *testing.T
	own   *owner.Owner
	c     *Console
	mux   *http.ServeMux
	setup owner.SetupResult
}

func newHarness(t *testing.T, files map[string]string) *harness {
	t.Helper()
	return newHarnessWith(t, notekit.Options{Files: files})
}

// newHarnessWith is newHarness with o's files and history cap.
func newHarnessWith(t *testing.T, o notekit.Options) *harness {
	t.Helper()
	ctx := context.Background()
	pub := config.MustParsePublicURL(testPublicURL)
	o.Keeper, o.PublicURL = history.Keeper, pub
	h := &harness{t: t, World: notekit.New(t, o)}
	var err error
	if h.setup, err = owner.Setup(ctx, h.Store, pub, false, h.Clock.Now); err != nil {
		t.Fatal(err)
	}
	if h.own, err = owner.New(owner.Options{Store: h.Store, PublicURL: pub, Now: h.Clock.Now}); err != nil {
		t.Fatal(err)
	}
	h.c, err = New(Options{Owner: h.own, Vault: h.Vault, Store: h.Store, Now: h.Clock.Now, HistoryDB: h.History, MinFree: 1 << 30, Version: "v-test", PublicURL: pub,
		History: history.New(history.Options{Vault: h.Vault, History: h.History, Journal: h.Store, Now: h.Clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	h.mux = http.NewServeMux()
	oh := h.own.Handlers()
	h.mux.Handle("GET /login", oh.LoginPage)
	h.mux.Handle("POST /login/totp", oh.LoginTOTP)
	h.mux.Handle("POST /logout", oh.Logout)
	ch := h.c.Handlers()
	h.mux.Handle("GET /notes/{path...}", ch.Note)
	h.mux.Handle("GET /console", ch.Home)
	h.mux.Handle("GET /console/assets/{name}", ch.Asset)
	h.mux.Handle("GET /console/activity", ch.Activity)
	h.mux.Handle("GET /console/search", ch.Search)
	h.mux.Handle("POST /console/undo", ch.Undo)
	h.mux.Handle("POST /console/restore", ch.Restore)
	h.mux.Handle("POST /console/purge", ch.Purge)
	h.mux.Handle("GET /console/undo-app", ch.BulkPage)
	h.mux.Handle("POST /console/undo-app", ch.BulkUndo)
	h.mux.Handle("GET /console/apps", ch.Apps)
	h.mux.Handle("GET /console/app", ch.App)
	h.mux.Handle("POST /console/app/scope", ch.AppScope)
	h.mux.Handle("POST /console/app/purge", ch.AppPurge)
	h.mux.Handle("POST /console/apps/revoke", ch.RevokeApp)
	h.mux.Handle("POST /console/tokens", ch.CreateToken)
	h.mux.Handle("POST /console/tokens/revoke", ch.RevokeToken)
	h.mux.Handle("GET /console/trash", ch.Trash)
	h.mux.Handle("POST /console/trash/restore", ch.RestoreTrash)
	h.mux.Handle("POST /console/trash/delete", ch.DeleteTrash)
	h.mux.Handle("GET /console/status", ch.Status)
	h.mux.Handle("POST /console/time-zone", ch.TimeZone)
	h.mux.Handle("GET /console/result/{id}", ch.Result)
	h.mux.Handle("GET /console/pending/{id}", ch.Pending)
	h.mux.Handle("POST /console/pending/{id}", ch.DoPending)
	h.mux.Handle("POST /login/recovery", oh.LoginRecovery)
	return h
}

func (h *harness) journal() []store.JournalEntry {
	h.t.Helper()
	es, err := h.Store.Journal(context.Background(), time.Time{}, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return es
}

// browser is a visitor of the harness's mux that hands back each answer's
// body with it.
type browser struct {
	*testkit.Visitor
	h *harness
}

func (h *harness) browser() *browser { return &browser{Visitor: testkit.NewVisitor(h.mux, ""), h: h} }

func (b *browser) do(r *http.Request) (*http.Response, string) {
	resp := b.Do(r)
	return resp, testkit.Body(resp)
}

func (b *browser) get(path string) (*http.Response, string) {
	return b.do(httptest.NewRequest(http.MethodGet, testPublicURL+path, nil))
}

// post sends form v to path, with a form id as the page's forms carry
// unless v has its own.
func (b *browser) post(path string, v url.Values) (*http.Response, string) {
	if _, ok := v["form"]; !ok && strings.HasPrefix(path, "/console/") {
		v.Set("form", b.h.c.out.formID())
	}
	resp := b.PostForm(testPublicURL+path, v)
	return resp, testkit.Body(resp)
}

// act sends form v to path as post does and, when the answer sends the
// browser to a result page, follows it there.
func (b *browser) act(path string, v url.Values) (*http.Response, string) {
	b.h.t.Helper()
	resp, body := b.post(path, v)
	if loc := resp.Header.Get("Location"); resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(loc, "/console/result/") {
		return b.get(loc)
	}
	return resp, body
}

// newPost is a form post as a browser sends it from a page of this site.
func newPost(_ *browser, path string, v url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, testPublicURL+path, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	return r
}

// signIn signs the browser in with a TOTP code.
func (b *browser) signIn() {
	b.h.t.Helper()
	b.get("/login")
	// A code is accepted once per 30-second step.
	b.h.Clock.Advance(30 * time.Second)
	code := testkit.TOTP(b.h.t, b.h.setup.TOTPSecret, b.h.Clock.Now())
	resp, body := b.post("/login/totp", url.Values{"code": {code}})
	if resp.StatusCode != http.StatusSeeOther {
		b.h.t.Fatalf("sign-in: %d %s", resp.StatusCode, body)
	}
}

// want fails the test unless resp has status and body contains every part.
func want(t *testing.T, resp *http.Response, body string, status int, parts ...string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode, status, body)
	}
	for _, p := range parts {
		if !strings.Contains(body, p) {
			t.Errorf("body lacks %q:\n%s", p, body)
		}
	}
}
