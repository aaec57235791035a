package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
)

const testPublicURL = "https://cortex.example"

// harness is a signed-up owner, a vault with history and a journal, the
// real tools for apps to write with, and the console, routed as
// internal/web routes it, on real SQLite files.
type harness struct {
	t     *testing.T
	dir   string
	clk   *testkit.Clock
	st    *store.Store
	hist  *store.History
	v     *vault.Vault
	own   *owner.Owner
	c     *Console
	mux   *http.ServeMux
	setup owner.SetupResult
	apps  map[string]*mcp.ClientSession
}

func newHarness(t *testing.T, files map[string]string) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, dir: t.TempDir(), clk: testkit.NewClock(time.Time{}), apps: map[string]*mcp.ClientSession{}}
	for p, c := range files {
		full := filepath.Join(h.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	var err error
	if h.st, err = store.Open(ctx, state, store.Options{Now: h.clk.Now}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.st.Close() })
	if h.hist, err = store.OpenHistory(ctx, state, store.HistoryOptions{Now: h.clk.Now}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.hist.Close() })
	h.v, err = vault.Open(vault.Options{Dir: h.dir, History: history.Keeper(h.hist), Now: h.clk.Now,
		FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.v.Close() })
	if h.setup, err = owner.Setup(ctx, h.st, config.MustParsePublicURL(testPublicURL), false, h.clk.Now); err != nil {
		t.Fatal(err)
	}
	if h.own, err = owner.New(owner.Options{Store: h.st, PublicURL: config.MustParsePublicURL(testPublicURL), Now: h.clk.Now}); err != nil {
		t.Fatal(err)
	}
	h.c, err = New(Options{Owner: h.own, Vault: h.v, Store: h.st, Now: h.clk.Now, HistoryDB: h.hist, MinFree: 1 << 30, Version: "v-test",
		History: history.New(history.Options{Vault: h.v, History: h.hist, Journal: h.st, Now: h.clk.Now})})
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
	h.mux.Handle("POST /console/undo", ch.Undo)
	h.mux.Handle("POST /console/restore", ch.Restore)
	h.mux.Handle("POST /console/purge", ch.Purge)
	h.mux.Handle("GET /console/undo-app", ch.BulkPage)
	h.mux.Handle("POST /console/undo-app", ch.BulkUndo)
	h.mux.Handle("GET /console/apps", ch.Apps)
	h.mux.Handle("POST /console/apps/revoke", ch.RevokeApp)
	h.mux.Handle("POST /console/tokens", ch.CreateToken)
	h.mux.Handle("POST /console/tokens/revoke", ch.RevokeToken)
	h.mux.Handle("GET /console/trash", ch.Trash)
	h.mux.Handle("POST /console/trash/restore", ch.RestoreTrash)
	h.mux.Handle("POST /console/trash/delete", ch.DeleteTrash)
	h.mux.Handle("GET /console/status", ch.Status)
	return h
}

// call runs a tool as app, as an assistant would, and returns its
// structured output.
func (h *harness) call(app, tool string, args map[string]any) map[string]any {
	h.t.Helper()
	ctx := context.Background()
	cs := h.apps[app]
	if cs == nil {
		srv := tools.NewServer(tools.Deps{Vault: h.v, Journal: h.st, App: app, Now: h.clk.Now, PublicURL: config.MustParsePublicURL(testPublicURL)}, "")
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			h.t.Fatal(err)
		}
		var err error
		if cs, err = mcp.NewClient(&mcp.Implementation{Name: app, Version: "1"}, nil).Connect(ctx, ct, nil); err != nil {
			h.t.Fatal(err)
		}
		h.t.Cleanup(func() { cs.Close() })
		h.apps[app] = cs
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	out := map[string]any{}
	json.Unmarshal(b, &out)
	if res.IsError {
		h.t.Fatalf("%s %s failed: %s", app, tool, b)
	}
	h.clk.Advance(time.Second)
	return out
}

func (h *harness) read(p string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(p)))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

func (h *harness) journal() []store.JournalEntry {
	h.t.Helper()
	es, err := h.st.Journal(context.Background(), time.Time{}, 0)
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

func (b *browser) post(path string, v url.Values) (*http.Response, string) {
	resp := b.PostForm(testPublicURL+path, v)
	return resp, testkit.Body(resp)
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
	b.h.clk.Advance(30 * time.Second)
	code := testkit.TOTP(b.h.t, b.h.setup.TOTPSecret, b.h.clk.Now())
	resp, body := b.post("/login/totp", url.Values{"code": {code}})
	if resp.StatusCode != http.StatusSeeOther {
		b.h.t.Fatalf("sign-in: %d %s", resp.StatusCode, body)
	}
}

func (h *harness) version(p string) string {
	h.t.Helper()
	n, err := h.v.Read(context.Background(), p)
	if err != nil {
		h.t.Fatal(err)
	}
	return n.Version
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
