package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
	"github.com/cortex-mcp/cortex/internal/web"
)

const quickSecret = "ctx_quick-test-secret-0123456789"

type quickTokens struct{}

func (quickTokens) VerifyToken(_ context.Context, secret string) (store.Token, error) {
	if secret != quickSecret {
		return store.Token{}, store.ErrTokenNotFound
	}
	return store.Token{ID: 1, Name: "reader"}, nil
}

// quickPair serves one vault twice through the whole HTTP edge: with
// Servers.Quick and without it, so that every answer comes from the SDK.
type quickPair struct {
	quick, sdk *httptest.Server
	answered   *atomic.Int64 // requests Quick answered
}

func newQuickPair(t testing.TB) quickPair {
	t.Helper()
	dir := t.TempDir()
	notes := maps.Clone(answerNotes)
	// Characters the JSON encoders escape, each its own way.
	notes["Odd/Escapes.md"] = "# Escapes <b>&amp;</b>\n\nA line\u2028separator, a\u2029paragraph one, a tab\there, a quote \" and a \\ backslash; bell \x07.\n"
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, rel := range slices.Sorted(maps.Keys(notes)) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(notes[rel]), 0o644); err != nil {
			t.Fatal(err)
		}
		mod := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	// An image, answered with content beyond the text block.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(dir, "pic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	v := indexedVault(t, dir)
	j := &memJournal{}
	if err := j.RecordWrite(context.Background(), store.JournalEntry{Time: base, App: "planner", Tool: "edit_note",
		Path: "Projects/Garden Plan.md", Result: store.ResultOK}); err != nil {
		t.Fatal(err)
	}
	servers := NewServers(Deps{Vault: v, Journal: j, PublicURL: config.MustParsePublicURL(testURL + "/"),
		Now: func() time.Time { return base.Add(100 * 24 * time.Hour) }, Version: "test"})
	answered := new(atomic.Int64)
	serve := func(quick bool) *httptest.Server {
		o := web.Options{
			PublicURL:    config.MustParsePublicURL(testURL),
			Verify:       web.StoreVerifier(quickTokens{}),
			NewMCPServer: func(*http.Request) *mcp.Server { return servers.For("Keep notes short.") },
			Logger:       slog.New(slog.DiscardHandler),
			// The edge's own defaults, but room for the fuzzer's calls.
			RatePerMinute: 1 << 30, RateBurst: 1 << 30,
		}
		if quick {
			o.Quick = func(ctx context.Context, ti *auth.TokenInfo, h http.Header, body []byte, answer *bytes.Buffer) bool {
				ok := servers.Quick(ctx, ti, h, body, answer)
				if ok {
					answered.Add(1)
				}
				return ok
			}
		}
		s, err := web.New(o)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		t.Cleanup(ts.Close)
		return ts
	}
	servers.For("Keep notes short.") // as the first request of a client does
	return quickPair{quick: serve(true), sdk: serve(false), answered: answered}
}

// answer is what a client sees of one HTTP answer.
type answer struct {
	status  int
	headers string
	body    string
}

func quickPost(t testing.TB, ts *httptest.Server, h map[string]string, body string) answer {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Host = strings.TrimPrefix(testURL, "http://")
	for k, v := range h {
		r.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Header.Del("Date")
	var hs bytes.Buffer
	resp.Header.Write(&hs)
	return answer{resp.StatusCode, hs.String(), string(b)}
}

func quickHeadersFor(version string) map[string]string {
	h := map[string]string{
		"Authorization": "Bearer " + quickSecret,
		"Content-Type":  "application/json",
		"Accept":        "application/json, text/event-stream",
	}
	if version != "" {
		h["Mcp-Protocol-Version"] = version
	}
	return h
}

// TestQuickMatchesSDK: for every read-only tool, on notes with every
// shape fetch and search answer about, at every version before
// 2026-07-28, the quick answer is the SDK's, byte for byte, headers too;
// and the requests Quick must leave to the SDK get the SDK's answer.
func TestQuickMatchesSDK(t *testing.T) {
	p := newQuickPair(t)
	var calls []string
	for _, rel := range slices.Sorted(maps.Keys(answerNotes)) {
		calls = append(calls, fmt.Sprintf(`{"name":"fetch","arguments":{"id":%q}}`, rel))
	}
	calls = append(calls,
		`{"name":"fetch","arguments":{"id":"Odd/Escapes.md"}}`,
		`{"name":"fetch","arguments":{"id":"pic.png"}}`,
		`{"name":"fetch","arguments":{"id":"Backyard","max_chars":40}}`,
		`{"name":"fetch","arguments":{"id":"Projects/Garden Plan.md","section":"Budget"}}`,
		`{"name":"fetch","arguments":{"ids":["Budget","Backyard","Nope"]}}`,
		`{"name":"fetch","arguments":{"id":"Garden Plann"}}`,
		`{"name":"fetch","arguments":{"id":"Private/Diary.md"}}`,
		`{"name":"fetch","arguments":{"id":"Budget","version":"nothex"}}`,
		`{"name":"fetch","arguments":{}}`,
		`{"name":"fetch","arguments":{"id":7}}`,
		`{"name":"fetch","arguments":{"id":"Budget","extra":true}}`,
		`{"name":"fetch"}`,
		`{"name":"fetch","arguments":{"id":"Bud\u0067et"}}`,
		`{"name":"search","arguments":{"query":"garden"}}`,
		`{"name":"search","arguments":{"query":"garden","limit":2}}`,
		`{"name":"search","arguments":{"query":"- [ ]"}}`,
		`{"name":"search","arguments":{"query":"task-todo:"}}`,
		`{"name":"search","arguments":{"query":"[[Budget]]"}}`,
		`{"name":"list","arguments":{"folder":"Projects"}}`,
		`{"name":"list","arguments":{}}`,
		`{"name":"links","arguments":{"id":"Budget"}}`,
		`{"name":"recent","arguments":{}}`,
		`{"name":"recent","arguments":{"id":"Budget"}}`,
		`{"name":"read_note","arguments":{"id":"Budget"}}`,
		`{"name":"undo_change","arguments":{}}`,
		`{"name":"create_note","arguments":{"path":"X.md","content":"x","dry_run":true}}`,
	)
	var bodies []string
	for i, c := range calls {
		bodies = append(bodies, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, c))
	}
	bodies = append(bodies,
		`{"jsonrpc":"2.0","id":"a-b","method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":"\u00e9","method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		` { "jsonrpc" : "2.0" , "id" : 9 , "method" : "tools/call" , "params" : { "name" : "fetch" , "arguments" : { "id" : "Budget" } } } `,
		`{"jsonrpc":"2.0","id":9,"id":10,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"},"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":["Budget"]}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":null}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}},"extra":1}`,
		`{"jsonrpc":"2.0","id":9,"Method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"1.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}x`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}{}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}} ]`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}},}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"} , "_x" : 1 }}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Bud\"get}"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget","x":[1,{"y":"]}"}]}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`+"\n\t ",
		`[{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}]`,
		``,
	)
	for _, v := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		for _, b := range bodies {
			h := quickHeadersFor(v)
			p.same(t, h, b, "version %q, body %s:", v, b)
		}
	}
	// A client of 2025-11-25 that offered the UI extension when it
	// initialized: its fetches carry the view's data, both ways.
	h := quickHeadersFor("2025-11-25")
	initUI := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},"clientInfo":{"name":"host","version":"1"}}}`
	if a := quickPost(t, p.sdk, h, initUI); a.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	for _, c := range calls[:3] {
		b := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + c + `}`
		got := p.same(t, h, b, "UI client, body %s:", b)
		if strings.HasPrefix(c, `{"name":"fetch"`) && !strings.Contains(got.body, `"view":`) {
			t.Errorf("UI client, body %s: no view data in %s", b, clip(got.body))
		}
	}
	if n := p.answered.Load(); n < int64(4*len(calls)) {
		t.Errorf("Quick answered %d requests, want at least %d: the test no longer tries the quick path", n, 4*len(calls))
	}
	// 2026-07-28: the same calls with the _meta each request carries, and
	// _meta of every shape.
	var bodies2026 []string
	for i, c := range calls {
		bodies2026 = append(bodies2026, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,%s}`, i+1, meta2026, c[1:]))
	}
	call := `"name":"fetch","arguments":{"id":"Budget"}`
	for _, m := range []string{
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":"yes"}}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":5}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","title":"X","version":"1","websiteUrl":"https://x.example"}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}`,
		`{}`, `null`, `[]`,
	} {
		bodies2026 = append(bodies2026, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":`+m+`,`+call+`}}`)
	}
	bodies2026 = append(bodies2026, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+call+`}}`)
	for _, b := range bodies2026 {
		h := headers2026(b)
		p.same(t, h, b, "2026-07-28, body %s:", b)
		h["Mcp-Name"] = "search" // not the body's
		p.same(t, h, b, "2026-07-28, other Mcp-Name, body %s:", b)
	}
	if n := p.answered.Load(); n < int64(5*len(calls)) {
		t.Errorf("Quick answered %d requests, want at least %d: the test no longer tries the quick path at 2026-07-28", n, 5*len(calls))
	}

	// Headers that send a request to the SDK.
	b := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`
	for name, h := range map[string]map[string]string{
		"json only":        {"Accept": "application/json"},
		"any":              {"Accept": "*/*"},
		"charset":          {"Content-Type": "application/json; charset=utf-8"},
		"text":             {"Content-Type": "text/plain"},
		"session":          {"Mcp-Session-Id": "abc"},
		"2026 no meta":     {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "fetch"},
		"2026 no method":   {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Name": "fetch"},
		"old with method":  {"Mcp-Method": "tools/call"},
		"unknown version":  {"Mcp-Protocol-Version": "2024-01-01"},
		"last event":       {"Last-Event-Id": "1"},
		"no authorization": {"Authorization": ""},
	} {
		hs := quickHeadersFor("2025-11-25")
		maps.Copy(hs, h)
		p.same(t, hs, b, "%s:", name)
	}
}

// meta2026 is the _meta every 2026-07-28 request carries.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`

// headers2026 are the headers a 2026-07-28 client sends with body: its
// method and the name of the tool the body calls.
func headers2026(body string) map[string]string {
	h := quickHeadersFor("2026-07-28")
	h["Mcp-Method"] = "tools/call"
	var m struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(body), &m)
	h["Mcp-Name"] = m.Params.Name
	return h
}

// same posts body with the headers h to both servers and fails the test,
// with what names the request, when the answers differ in any byte; it
// returns the quick server's answer.
func (p quickPair) same(t testing.TB, h map[string]string, body string, what string, args ...any) answer {
	t.Helper()
	got, want := quickPost(t, p.quick, h, body), quickPost(t, p.sdk, h, body)
	if got != want {
		t.Errorf(what+"\nquick: %d %s%s\nsdk:   %d %s%s", append(args, got.status, got.headers, clip(got.body), want.status, want.headers, clip(want.body))...)
	}
	return got
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// FuzzQuickMatchesSDK: whatever the body, at 2025-11-25 or 2026-07-28,
// the quick path answers as the SDK does (or leaves the request to it).
func FuzzQuickMatchesSDK(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"Budget"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"search","arguments":{"query":"garden","limit":2}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fetch","arguments":{"ids":["Budget","Backyard"]}}}`,
	} {
		f.Add(s, false)
		f.Add(strings.Replace(s, `"params":{`, `"params":{`+meta2026+`,`, 1), true)
	}
	p := newQuickPair(f)
	f.Fuzz(func(t *testing.T, body string, v2026 bool) {
		if !json.Valid([]byte(body)) {
			return // the SDK's parse errors name Go types; not Quick's concern
		}
		h := quickHeadersFor("2025-11-25")
		if v2026 {
			h = headers2026(body)
			if !plainString([]byte(`"` + h["Mcp-Name"] + `"`)) {
				h["Mcp-Name"] = "fetch"
			}
		}
		p.same(t, h, body, "body %s:", body)
	})
}

// TestExtraArgumentsListedSorted: arguments a tool does not have are
// named in one order, so that the same call is told the same thing each
// time (the schema library lists them in map order).
func TestExtraArgumentsListedSorted(t *testing.T) {
	e := newEnv(t)
	for range 20 {
		te := e.fail("fetch", map[string]any{"id": "x", "zeta": 1, "alpha": 2, "mid": 3, "beta": 4}, vault.CodeInvalidArgument)
		if !strings.Contains(te.Message, `unexpected additional properties ["alpha" "beta" "mid" "zeta"]`) {
			t.Fatalf("message %q does not list the extra arguments sorted", te.Message)
		}
	}
}

// FuzzQuoteEncoded: the text block quoteEncoded writes for an output is
// the one encodeInto writes, whatever the output holds (quotes,
// backslashes, control characters, HTML, U+2028, invalid UTF-8).
func FuzzQuoteEncoded(f *testing.F) {
	for _, s := range []string{"", `plain`, `"quoted" \back\slash`, "line\nbreak\ttab\x00nul\x7fdel", "<b>&amp;</b>",
		"\u2028\u2029", "caf\xe9 \xff\xfe bad", "ünïcödé 日本語 🎉", `\"\\`, "{\"k\":\"v\"}"} {
		f.Add(s, "key")
	}
	f.Fuzz(func(t *testing.T, text, key string) {
		for _, v := range []any{text, fetchOut{ID: key, Title: text, Text: text + key}, map[string]any{key: text, "n": 1}} {
			enc, err := encode(v)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			quoteEncoded(&got, enc)
			var want bytes.Buffer
			if err := encodeInto(json.NewEncoder(&want), &want, string(enc)); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("quoteEncoded(%q) =\n%s\nencodeInto gives\n%s", enc, got.String(), want.String())
			}
		}
	})
}
