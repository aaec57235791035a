package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
)

// TestTokenUseRecordsAddress checks that a request with a bearer token
// leaves the client's address (unmapped, without port) on the token in the
// real state database.
func TestTokenUseRecordsAddress(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	secret, _, err := st.CreateToken(ctx, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(o *Options) { o.Verify = StoreVerifier(st) })
	r := mcpRequest("POST", secret, "", initializeBody)
	r.RemoteAddr = "[::ffff:203.0.113.9]:40000"
	if w := h.do(r); w.Code != http.StatusOK {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	toks, err := st.ListTokens(ctx)
	if err != nil || len(toks) != 1 || toks[0].LastAddr != "203.0.113.9" || toks[0].LastUsed.IsZero() {
		t.Errorf("ListTokens = %+v, %v; want last used from 203.0.113.9", toks, err)
	}
}
