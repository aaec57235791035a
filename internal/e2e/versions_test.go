package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolVersions are the MCP versions the go-sdk client is run with
// against the real binary: every one cortex lists as served (in
// server/discover and when it refuses a version), the stateless 2026-07-28
// first, then the session-era ones before it.
var protocolVersions = mcp.SupportedProtocolVersions()

// TestEveryProtocolVersion runs the go-sdk client at each protocol version
// against the real binary: the instructions file (and its edits), the same
// tool results and errors, the app name in the journal, the per-token rate
// limit, and a revoked token refused at its next request.
func TestEveryProtocolVersion(t *testing.T) {
	in := newInstance(t)
	token := in.token("laptop")
	if err := os.MkdirAll(in.Vault, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(in.Vault, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "Answer in French.\n")
	write("Garden.md", "# Garden\n\nTomatoes in May.\n")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	reads := map[string]string{}
	for _, v := range protocolVersions {
		cs := in.connectAs(ctx, token, v)
		if got := cs.InitializeResult().Instructions; !strings.Contains(got, "Answer in French.") {
			t.Errorf("%s: instructions = %q", v, got)
		}
		f := call(t, ctx, cs, "fetch", map[string]any{"id": "Garden.md"})
		missing := call(t, ctx, cs, "fetch", map[string]any{"id": "Nowhere.md"})
		if f.isError || !missing.isError {
			t.Fatalf("%s: fetch %+v, fetch of a missing note %+v", v, f, missing)
		}
		b, _ := json.Marshal([]any{f.text, f.data, missing.text, missing.data})
		reads[v] = string(b)
		if reads[v] != reads[protocolVersions[0]] {
			t.Errorf("%s answers differently from %s:\n%s\n%s", v, protocolVersions[0], reads[v], reads[protocolVersions[0]])
		}
		// A write is journaled under the token's name.
		path := "Inbox/" + v + ".md"
		must(t, call(t, ctx, cs, "create_note", map[string]any{"path": path, "content": "# " + v + "\n"}), "create_note")
		meta, _ := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": path}), "fetch")["metadata"].(map[string]any)
		if lw := str(meta, "last_writer"); lw != "laptop" {
			t.Errorf("%s: last_writer = %q, want laptop", v, lw)
		}
	}

	// The owner edits the instructions: every version sees the new text on
	// its next connection.
	write("AGENTS.md", "Answer in Spanish.\n")
	for _, v := range protocolVersions {
		if got := in.connectAs(ctx, token, v).InitializeResult().Instructions; !strings.Contains(got, "Answer in Spanish.") {
			t.Errorf("%s after the edit: instructions = %q", v, got)
		}
	}

	// Revocation ends a 2026-07-28 client at its next request.
	cs := in.connectAs(ctx, token, "2026-07-28")
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := in.admin("token", "revoke", "laptop"); err != nil {
		t.Fatalf("revoke: %v %s", err, errOut)
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "Garden.md"}})
	if err == nil {
		t.Fatalf("a revoked token still works under 2026-07-28: %+v", r)
	}
	if !strings.Contains(err.Error(), http.StatusText(http.StatusUnauthorized)) {
		t.Errorf("a revoked token under 2026-07-28: %v; want 401 Unauthorized", err)
	}
}

// TestRawRequestsOf20260728 checks what the SDK client cannot be made to do:
// a body that disagrees with its headers, a version cortex does not serve,
// the per-token rate limit and the Host check, on the wire of the real binary.
func TestRawRequestsOf20260728(t *testing.T) {
	in := newInstance(t)
	token := in.token("raw")
	in.start("--rate-limit", "5")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`
	post := func(version, method, name, body string, edit func(*http.Request)) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, in.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		if edit != nil {
			edit(req)
		}
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	st, m := post("2026-07-28", "server/discover", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`, nil)
	res, _ := m["result"].(map[string]any)
	if b, _ := json.Marshal(res["supportedVersions"]); st != 200 || !strings.Contains(string(b), `"2026-07-28","2025-11-25"`) {
		t.Errorf("server/discover: %d %v", st, m)
	}
	// The answer carries the owner's instructions: no cache may hand it to
	// another caller. The tool list is the same for everyone.
	if res["cacheScope"] != "private" {
		t.Errorf("server/discover cacheScope = %v; want private", res["cacheScope"])
	}
	st, m = post("2026-07-28", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`, nil)
	if res, _ := m["result"].(map[string]any); st != 200 || res["cacheScope"] != "public" {
		t.Errorf("tools/list: %d cacheScope %v; want 200 public", st, res["cacheScope"])
	}
	// subscriptions/listen ends at once: cortex offers nothing to listen
	// to, so no stream outlives its token.
	req, _ := http.NewRequest(http.MethodPost, in.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},`+meta+`}}`))
	for k, v := range map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	listen, err := io.ReadAll(resp.Body) // returns only when the stream ends
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(listen), `"id":9,"result"`) {
		t.Errorf("subscriptions/listen: %d %v %s", resp.StatusCode, err, listen)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list","arguments":{},` + meta + `}}`
	if st, m := post("2026-07-28", "tools/call", "search", call, nil); st != 400 || errCode(m) != -32020 {
		t.Errorf("Mcp-Name of another tool: %d %v; want 400 -32020", st, m)
	}
	// A client may send the name Base64-encoded; it is compared decoded.
	if st, m := post("2026-07-28", "tools/call", "=?base64?bGlzdA==?=", call, nil); st != 200 || m["result"] == nil {
		t.Errorf("Mcp-Name in Base64: %d %v; want 200 and a result", st, m)
	}
	// The server names itself in each result, its icon left to discovery.
	if st, m := post("2026-07-28", "tools/call", "list", call, nil); st != 200 || !strings.Contains(fmt.Sprint(m["result"]), "serverInfo") ||
		strings.Contains(fmt.Sprint(m["result"]), "data:image") {
		t.Errorf("tools/call: %d %v; want serverInfo without the icon", st, m)
	}
	// A header a proxy routes on, sent twice, and a batch are refused as
	// JSON-RPC errors.
	if st, m := post("2026-07-28", "tools/call", "list", call, func(r *http.Request) { r.Header.Add("Mcp-Method", "tools/list") }); st != 400 || errCode(m) != -32020 {
		t.Errorf("Mcp-Method twice: %d %v; want 400 -32020", st, m)
	}
	if st, m := post("2025-11-25", "", "", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, nil); st != 400 || errCode(m) != -32600 {
		t.Errorf("a batch at 2025-11-25: %d %v; want 400 -32600", st, m)
	}
	st, m = post("2027-01-01", "tools/call", "list", strings.Replace(call, "2026-07-28", "2027-01-01", 1), nil)
	e, _ := m["error"].(map[string]any)
	if b, _ := json.Marshal(e["data"]); st != 400 || errCode(m) != -32022 ||
		string(b) != `{"requested":"2027-01-01","supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}` {
		t.Errorf("unsupported version: %d %v", st, m)
	}
	if st, _ := post("2026-07-28", "tools/call", "list", call, func(r *http.Request) { r.Host = "evil.example" }); st != 403 {
		t.Errorf("foreign Host: %d, want 403", st)
	}
	got429 := false
	for i := 0; i < 200 && !got429; i++ {
		st, _ := post("2026-07-28", "tools/call", "list", call, nil)
		got429 = st == http.StatusTooManyRequests
	}
	if !got429 {
		t.Error("no 429 after 200 requests at --rate-limit 5")
	}
}

// TestEdgeChecksAtEveryVersion sends, in the form of each protocol version,
// a request from a foreign Host, one from a foreign web page (Origin) and
// more than the token's rate allows: each is refused whatever the version.
func TestEdgeChecksAtEveryVersion(t *testing.T) {
	in := newInstance(t)
	tokens := map[string]string{}
	for _, v := range protocolVersions {
		tokens[v] = in.token("edge-" + v)
	}
	in.start("--rate-limit", "5")
	for _, v := range protocolVersions {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
		if v >= "2026-07-28" {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v +
				`","io.modelcontextprotocol/clientCapabilities":{}}}}`
		}
		post := func(edit func(*http.Request)) int {
			req, _ := http.NewRequest(http.MethodPost, in.URL+"/mcp", strings.NewReader(body))
			for k, val := range map[string]string{"Authorization": "Bearer " + tokens[v], "Content-Type": "application/json",
				"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": v, "Mcp-Method": "tools/list"} {
				req.Header.Set(k, val)
			}
			if edit != nil {
				edit(req)
			}
			resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if st := post(nil); st != http.StatusOK {
			t.Fatalf("%s: tools/list %d, want 200", v, st)
		}
		if st := post(func(r *http.Request) { r.Host = "rebound.evil.example" }); st != http.StatusForbidden {
			t.Errorf("%s: foreign Host %d, want 403", v, st)
		}
		if st := post(func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }); st != http.StatusForbidden {
			t.Errorf("%s: foreign Origin %d, want 403", v, st)
		}
		got429 := false
		for i := 0; i < 200 && !got429; i++ {
			got429 = post(nil) == http.StatusTooManyRequests
		}
		if !got429 {
			t.Errorf("%s: no 429 after 200 requests at --rate-limit 5", v)
		}
	}
}
