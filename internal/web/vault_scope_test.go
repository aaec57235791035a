package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// callScope calls the harness's "scope" tool with secret.
func callScope(t *testing.T, cs *mcp.ClientSession) seenScope {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "scope"})
	if err != nil {
		t.Fatalf("scope: %v", err)
	}
	var got seenScope
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestToolCallCarriesTokenScope checks, with the real state database, that
// every tool call carries the scope stored with its token, and that a
// changed scope holds from the token's next request on.
func TestToolCallCarriesTokenScope(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	work, err := scope.Parse("Work/**", "Work/Drafts", false)
	if err != nil {
		t.Fatal(err)
	}
	scoped, _, err := st.CreateScopedToken(ctx, "phone", work.Encode())
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := st.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(o *Options) { o.Verify = StoreVerifier(st) })
	ts := h.start(t)

	cs := mustConnect(t, ts, scoped)
	if got, want := callScope(t, cs), (seenScope{Carried: true, Describe: work.Describe()}); got != want {
		t.Errorf("scoped token: tool saw %+v, want %+v", got, want)
	}
	// A whole-vault token carries its (empty) scope too: the vault must
	// tell an app from the owner, who carries none.
	if got, want := callScope(t, mustConnect(t, ts, whole)), (seenScope{Carried: true, Describe: "the whole vault"}); got != want {
		t.Errorf("whole-vault token: tool saw %+v, want %+v", got, want)
	}

	journal := scope.Scope{Read: work.Read, Private: true}
	if err := st.SetTokenScope(ctx, "phone", journal.Encode()); err != nil {
		t.Fatal(err)
	}
	if got := callScope(t, cs); got.Describe != journal.Describe() {
		t.Errorf("after the scope changed: tool saw %+v, want %q", got, journal.Describe())
	}
}

// TestUndecodableScopeRefused checks that a credential whose stored scope
// cannot be read is refused with a server error, logged, and never served
// with the whole vault.
func TestUndecodableScopeRefused(t *testing.T) {
	h := newHarness(t, nil)
	h.tokens.m[secretA] = store.Token{ID: 1, Name: "app-a", VaultScope: `{"read":["[unclosed"]}`}
	h.tokens.m[secretB] = store.Token{ID: 2, Name: "app-b", VaultScope: `not json`}
	for _, secret := range []string{secretA, secretB} {
		w := h.do(mcpRequest(http.MethodPost, secret, "2025-11-25", initializeBody))
		if w.Code != http.StatusInternalServerError {
			t.Errorf("status %d, want 500: %s", w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "unclosed") || strings.Contains(w.Body.String(), "not json") {
			t.Errorf("the answer tells the stored scope: %s", w.Body)
		}
	}
	if log := h.log.String(); !strings.Contains(log, "stored scope is not readable") || !strings.Contains(log, `app-b`) {
		t.Errorf("log does not tell why:\n%s", log)
	}
}
