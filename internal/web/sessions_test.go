package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

func TestSessionBoundToToken(t *testing.T) {
	h := newHarness(t, nil)
	ts := h.start(t)
	cs := mustConnect(t, ts, secretA)

	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		w := h.do(mcpRequest(method, secretB, cs.ID(), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		if w.Code != http.StatusNotFound {
			t.Fatalf("%s with another token: status %d, want 404; body %s", method, w.Code, w.Body)
		}
		if code, _ := rpcError(t, w.Body.Bytes()); code != CodeSessionNotFound {
			t.Errorf("%s with another token: code %q", method, code)
		}
	}
	// The session survived the attempts and still works for its owner.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"}); err != nil {
		t.Fatalf("owner after hijack attempts: %v", err)
	}

	// Behind cortex's own check, the SDK refuses a foreign UserID too.
	r := mcpRequest(http.MethodPost, secretB, cs.ID(), `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	r = r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, tokenInfo(Identity{Subject: UserIDPrefix + h.tokens.m[secretB].Name, App: h.tokens.m[secretB].Name})))
	w := httptest.NewRecorder()
	h.srv.mcp.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden {
		t.Errorf("SDK with a foreign UserID: status %d, want 403", w.Code)
	}
}

func TestSessionCapEvictsLeastRecentlyUsedIdle(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxSessionsPerToken = 2 })
	first := h.initialize(t, secretA)
	h.clock.advance(time.Second)
	second := h.initialize(t, secretA)
	h.clock.advance(time.Second)
	// Using the first session makes the second the least recently used.
	if w := h.do(mcpRequest(http.MethodPost, secretA, first, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)); w.Code != http.StatusAccepted {
		t.Fatalf("initialized notification: status %d", w.Code)
	}
	h.clock.advance(time.Second)
	h.initialize(t, secretB) // another token's sessions do not count
	third := h.initialize(t, secretA)

	if n := h.srv.sessions.count(UserIDPrefix + "app-a"); n != 2 {
		t.Errorf("app-a has %d sessions, want 2", n)
	}
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	if w := h.do(mcpRequest(http.MethodPost, secretA, second, ping)); w.Code != http.StatusNotFound {
		t.Errorf("evicted session: status %d, want 404", w.Code)
	}
	for _, id := range []string{first, third} {
		if w := h.do(mcpRequest(http.MethodPost, secretA, id, ping)); w.Code != http.StatusOK {
			t.Errorf("kept session %s: status %d, want 200; body %s", id, w.Code, w.Body)
		}
	}
}

func TestSessionCapRefusesWhenAllBusy(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxSessionsPerToken = 2 })
	ts := h.start(t)
	release := sync.OnceFunc(func() { close(h.release) })
	t.Cleanup(release) // also on failure, so that the blocked calls end
	var wg sync.WaitGroup
	for range 2 {
		cs := mustConnect(t, ts, secretA)
		wg.Go(func() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"}); err != nil {
				t.Errorf("block: %v", err)
			}
		})
	}
	<-h.entered
	<-h.entered

	w := h.do(mcpRequest(http.MethodPost, secretA, "", initializeBody))
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("third session while both busy: status %d, want 429", w.Code)
	}
	code, msg := rpcError(t, w.Body.Bytes())
	if code != CodeTooManySessions || !strings.Contains(msg, "close sessions") {
		t.Errorf("code %q message %q", code, msg)
	}
	// The SDK client gets the status.
	if _, err := connect(t, ts, secretA); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("client connect while full: %v", err)
	}
	// Another token is not affected.
	h.initialize(t, secretB)

	release()
	wg.Wait()
	// Idle again: the next session evicts one instead.
	mustConnect(t, ts, secretA)
	if n := h.srv.sessions.count(UserIDPrefix + "app-a"); n != 2 {
		t.Errorf("app-a has %d sessions, want 2", n)
	}
}

func TestSessionEndsOnDeleteAndIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(o *Options) {
			o.SessionIdle = 10 * time.Minute
			o.Now = time.Now // the bubble's clock
		})
		ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`

		deleted := h.initialize(t, secretA)
		idle := h.initialize(t, secretA)
		busy := h.initialize(t, secretA)
		if n := h.srv.sessions.count(UserIDPrefix + "app-a"); n != 3 {
			t.Fatalf("%d sessions, want 3", n)
		}

		if w := h.do(mcpRequest(http.MethodDelete, secretA, deleted, "")); w.Code != http.StatusNoContent {
			t.Fatalf("DELETE: status %d", w.Code)
		}
		synctest.Wait()
		if n := h.srv.sessions.count(UserIDPrefix + "app-a"); n != 2 {
			t.Errorf("after DELETE: %d sessions, want 2", n)
		}

		// Requests keep a session alive; silence ends it.
		for range 3 {
			time.Sleep(6 * time.Minute)
			if w := h.do(mcpRequest(http.MethodPost, secretA, busy, ping)); w.Code != http.StatusOK {
				t.Fatalf("ping of busy session: status %d", w.Code)
			}
		}
		synctest.Wait()
		if n := h.srv.sessions.count(UserIDPrefix + "app-a"); n != 1 {
			t.Errorf("after idling: %d sessions, want 1", n)
		}
		for id, want := range map[string]int{deleted: http.StatusNotFound, idle: http.StatusNotFound, busy: http.StatusOK} {
			if w := h.do(mcpRequest(http.MethodPost, secretA, id, ping)); w.Code != want {
				t.Errorf("session %s: status %d, want %d", id, w.Code, want)
			}
		}
		// Close what is left so that the bubble ends without goroutines.
		h.do(mcpRequest(http.MethodDelete, secretA, busy, ""))
		synctest.Wait()
	})
}

func TestSessionsReserve(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ss := newSessions(1, func() time.Time { return now })
	if _, err := ss.reserve("token:a"); err != nil {
		t.Fatal(err)
	}
	// A reservation in flight counts, with nothing to evict.
	var e *httpx.Error
	if _, err := ss.reserve("token:a"); !errors.As(err, &e) || e.Code != CodeTooManySessions {
		t.Fatalf("second reserve: %v", err)
	}
	ss.abandon("token:a")
	if _, err := ss.reserve("token:a"); err != nil {
		t.Fatalf("after abandon: %v", err)
	}
	if len(ss.pending) != 1 || len(ss.byID) != 0 {
		t.Errorf("pending %v byID %v", ss.pending, ss.byID)
	}
	ss.abandon("token:a")
	if len(ss.pending) != 0 {
		t.Errorf("pending left behind: %v", ss.pending)
	}
}
