package console

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/history"
)

// Every state-changing form answers 303 to a result page; reloading that
// page, or sending the form again (a double click, back and send), does
// nothing more and says the form was already done.
func TestPostRedirectGetUndo(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	id := appEdit(h)
	b := h.browser()
	b.signIn()
	b.get("/console/activity")
	form := url.Values{"entry": {strconv.FormatInt(id, 10)}, "form": {h.c.out.formID()}}
	resp, body := b.post("/console/undo", form)
	want(t, resp, body, http.StatusSeeOther)
	result := resp.Header.Get("Location")
	entries := len(h.journal())
	for range 2 {
		resp, body = b.get(result)
		want(t, resp, body, http.StatusOK, `id="result-title">Undone`)
		if strings.Contains(body, "already-done") {
			t.Error("a reload says already done; it is the same result")
		}
	}
	// The owner edits the note by hand afterwards: a repeat must not undo again.
	h.Call("claude", "append", map[string]any{"id": "Plan.md", "text": "again\n"})
	now := h.Read("Plan.md")
	entries++
	resp, body = b.post("/console/undo", form)
	want(t, resp, body, http.StatusSeeOther)
	if loc := resp.Header.Get("Location"); loc != result+"?again=1" {
		t.Fatalf("a repeat goes to %q, want the first result", loc)
	}
	resp, body = b.get(resp.Header.Get("Location"))
	want(t, resp, body, http.StatusOK, `id="already-done"`, "Already done")
	if got := h.Read("Plan.md"); got != now || len(h.journal()) != entries {
		t.Fatalf("a repeated undo changed something: %q, %d entries", got, len(h.journal()))
	}

	// Another browser of the owner cannot open this browser's result.
	other := h.browser()
	other.signIn()
	resp, body = other.get(result)
	want(t, resp, body, http.StatusNotFound, `data-code="result_gone"`)

	// After 15 minutes the result is gone: a clear page, nothing done.
	h.Clock.Advance(outcomeLife)
	resp, body = b.get(result)
	want(t, resp, body, http.StatusNotFound, `data-code="result_gone"`, `href="/console/activity"`)
	if got := h.Read("Plan.md"); got != now {
		t.Fatalf("an expired result changed the note: %q", got)
	}
}

// Two sendings of one form at once do the action once.
func TestDoubleSubmitAtOnce(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser()
	b.signIn()
	b.get("/console/apps")
	form := url.Values{"name": {"phone"}, "form": {h.c.out.formID()}, "csrf": {b.CSRF}}
	var wg sync.WaitGroup
	locs := make([]string, 2)
	for i := range locs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newPost(b, "/console/tokens", form)
			for k, v := range b.Cookies {
				r.AddCookie(&http.Cookie{Name: k, Value: v})
			}
			w := &recorder{header: http.Header{}}
			h.mux.ServeHTTP(w, r)
			locs[i] = w.header.Get("Location")
		}()
	}
	wg.Wait()
	if toks, _ := h.Store.ListTokens(context.Background()); len(toks) != 1 {
		t.Fatalf("tokens %+v, want one", toks)
	}
	a, c := strings.TrimSuffix(locs[0], "?again=1"), strings.TrimSuffix(locs[1], "?again=1")
	if a == "" || a != c || locs[0] == locs[1] {
		t.Fatalf("the two sendings went to %q and %q; want one result, once marked again", locs[0], locs[1])
	}
	// The secret is on the first view only; the repeat says it was shown.
	resp, body := b.get(a)
	want(t, resp, body, http.StatusOK, `id="token-secret">ctx_`)
	resp, body = b.get(a + "?again=1")
	want(t, resp, body, http.StatusOK, `id="already-done"`, `id="token-secret-gone"`)
}

// recorder is a minimal ResponseWriter for requests sent from goroutines.
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(s int)           { r.status = s }

// A form id the console did not make, or none, is refused with a clear
// page, and nothing is done.
func TestForgedFormID(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	id := appEdit(h)
	after := h.Read("Plan.md")
	b := h.browser()
	b.signIn()
	b.get("/console/activity")
	real := h.c.out.formID()
	nonce, _, _ := strings.Cut(real, ".")
	for _, forged := range []string{"", "x", nonce + ".AAAAAAAAAAAAAAAAAAAAAA", strings.Repeat("a", 200)} {
		resp, body := b.post("/console/undo", url.Values{"entry": {strconv.FormatInt(id, 10)}, "form": {forged}})
		want(t, resp, body, http.StatusBadRequest, `data-code="unknown_form"`, `href="/console/activity"`)
	}
	if got := h.Read("Plan.md"); got != after {
		t.Fatalf("a forged form changed the note: %q", got)
	}
}

// The memory of results is bounded: the oldest go first.
func TestOutcomesBounded(t *testing.T) {
	o, err := newOutcomes()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first := o.put(&outcome{Title: "first"}, "s", now)
	for i := range maxOutcomes {
		o.put(&outcome{Title: "n"}, "s", now.Add(time.Duration(i+1)*time.Millisecond))
	}
	if len(o.results) > maxOutcomes {
		t.Fatalf("%d results kept, want at most %d", len(o.results), maxOutcomes)
	}
	if _, ok := o.view(first, "s", now); ok {
		t.Fatal("the oldest result was kept past the bound")
	}
}

// A kept outcome holds the bounded views of its plan, not the plan's
// whole-note diffs.
func TestOutcomeDropsWholeDiffs(t *testing.T) {
	o, err := newOutcomes()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	plan := &history.Plan{Changes: []history.Change{{Path: "A.md", Diff: make([]diff.Line, 100000)}}}
	id := o.put(&outcome{Plan: plan}, "s", now)
	got, ok := o.view(id, "s", now)
	if !ok || len(got.Plan.Changes) != 1 || got.Plan.Changes[0].Diff != nil {
		t.Fatalf("kept plan %+v", got.Plan)
	}
	if len(plan.Changes[0].Diff) != 100000 {
		t.Fatal("keeping the outcome changed the caller's plan")
	}
}

// A refusal shows the console's navigation to the owner, and the plain
// problem page, with no console link, to a stranger.
func TestProblemPageFrame(t *testing.T) {
	h := newHarness(t, nil)
	stranger := h.browser()
	resp, body := stranger.post("/console/tokens", url.Values{"name": {"x"}})
	want(t, resp, body, http.StatusUnauthorized, `data-code="signed_out"`)
	if strings.Contains(body, `href="/console/apps"`) {
		t.Error("a stranger is shown the console's navigation")
	}
	b := h.browser()
	b.signIn()
	resp, body = b.get("/notes/Nothing/Here.md")
	want(t, resp, body, http.StatusNotFound, `id="problem"`, `href="/console/apps"`, `action="/logout"`)
}
