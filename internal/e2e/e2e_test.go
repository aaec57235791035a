package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// result is a tool result decoded from its structured content.
type result struct {
	isError bool
	text    string
	data    map[string]any
}

func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) result {
	t.Helper()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var res result
	res.isError = r.IsError
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			res.text += tc.Text
		}
	}
	if r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		_ = json.Unmarshal(b, &res.data)
	}
	return res
}

func must(t *testing.T, r result, tool string) map[string]any {
	t.Helper()
	if r.isError {
		t.Fatalf("%s failed: %s", tool, r.text)
	}
	return r.data
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func TestAllTwelveToolsOverStreamableHTTP(t *testing.T) {
	in := newInstance(t)
	token := in.token("laptop")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)

	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("tool %s lacks a schema or annotations", tool.Name)
		}
	}
	want := "append,create_note,delete_note,edit_note,fetch,links,list,move_note,recent,replace_section,search,update_frontmatter"
	if got := sortedJoin(names); got != want {
		t.Fatalf("tools = %s\nwant    %s", got, want)
	}

	// create, fetch, search
	must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "Projects/Garden.md",
		"content": "---\ntags: [home]\n---\n# Garden\n\nPlant the tomatoes in May.\n\n## Plan\n\nDig beds.\n\n## Log\n\nStarted.\n"}), "create_note")
	must(t, call(t, ctx, cs, "create_note", map[string]any{"path": "Ideas.md", "content": "See [[Garden]] for the canción plan.\n"}), "create_note")
	if r := call(t, ctx, cs, "create_note", map[string]any{"path": "Ideas.md", "content": "again"}); !r.isError || !strings.HasPrefix(r.text, "note_exists") {
		t.Errorf("second create: %+v", r)
	}
	f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Projects/Garden.md"}), "fetch")
	meta, _ := f["metadata"].(map[string]any)
	version := str(meta, "version")
	if version == "" || !strings.Contains(str(f, "text"), "tomatoes") || str(f, "title") != "Garden" {
		t.Fatalf("fetch = %v", f)
	}
	if lw := str(meta, "last_writer"); lw != "laptop" {
		t.Errorf("last_writer = %q, want laptop", lw)
	}
	s := must(t, call(t, ctx, cs, "search", map[string]any{"query": "Tomatoes"}), "search")
	if res, _ := s["results"].([]any); len(res) != 1 || str(res[0].(map[string]any), "id") != "Projects/Garden.md" ||
		!strings.HasPrefix(str(res[0].(map[string]any), "url"), in.URL+"/notes/") {
		t.Errorf("search = %v", s)
	}
	s = must(t, call(t, ctx, cs, "search", map[string]any{"query": "cancion"}), "search")
	if res, _ := s["results"].([]any); len(res) != 1 {
		t.Errorf("accent-insensitive search = %v", s)
	}

	// list, links, recent
	l := must(t, call(t, ctx, cs, "list", map[string]any{"recursive": true}), "list")
	if b, _ := json.Marshal(l); !strings.Contains(string(b), "Projects/Garden.md") {
		t.Errorf("list = %s", b)
	}
	lk := must(t, call(t, ctx, cs, "links", map[string]any{"id": "Projects/Garden.md"}), "links")
	if b, _ := json.Marshal(lk["backlinks"]); !strings.Contains(string(b), "Ideas.md") {
		t.Errorf("links = %v", lk)
	}
	rc := must(t, call(t, ctx, cs, "recent", map[string]any{"days": 1}), "recent")
	if b, _ := json.Marshal(rc); !strings.Contains(string(b), `"changed_by":"laptop"`) {
		t.Errorf("recent = %s", b)
	}

	// edits, each with the version read
	e := must(t, call(t, ctx, cs, "edit_note", map[string]any{"id": "Projects/Garden.md", "version": version,
		"old_text": "in May", "new_text": "in early May"}), "edit_note")
	if str(e, "version") == version || str(e, "previous_version") != version {
		t.Errorf("edit_note = %v; want a new version and the previous one", e)
	}
	if r := call(t, ctx, cs, "edit_note", map[string]any{"id": "Projects/Garden.md", "version": str(meta, "version"),
		"old_text": "early", "new_text": "late"}); !r.isError || !strings.HasPrefix(r.text, "note_changed") {
		t.Errorf("stale edit: %+v", r)
	}
	a := must(t, call(t, ctx, cs, "append", map[string]any{"id": "Projects/Garden.md", "text": "Watered.", "section": "Log"}), "append")
	version = str(a, "version")
	rs := must(t, call(t, ctx, cs, "replace_section", map[string]any{"id": "Projects/Garden.md", "version": version,
		"heading": "Plan", "content": "Dig two beds.\n"}), "replace_section")
	version = str(rs, "version")
	uf := must(t, call(t, ctx, cs, "update_frontmatter", map[string]any{"id": "Projects/Garden.md", "version": version,
		"set": map[string]any{"status": "active"}}), "update_frontmatter")
	version = str(uf, "version")
	if version == "" {
		t.Fatalf("update_frontmatter returned no version: %v", uf)
	}
	raw, err := os.ReadFile(filepath.Join(in.Vault, "Projects", "Garden.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"status: active", "in early May", "Dig two beds.", "Watered."} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("note on disk lacks %q:\n%s", want, raw)
		}
	}

	// move with link rewriting, then delete and restore
	mv := must(t, call(t, ctx, cs, "move_note", map[string]any{"id": "Projects/Garden.md", "to": "Home/Garden plan.md",
		"version": version, "update_links": true}), "move_note")
	if b, _ := json.Marshal(mv); !strings.Contains(string(b), "Ideas.md") {
		t.Errorf("move_note did not report Ideas.md: %s", b)
	}
	ideas, _ := os.ReadFile(filepath.Join(in.Vault, "Ideas.md"))
	if !strings.Contains(string(ideas), "Garden plan") {
		t.Errorf("link not rewritten: %s", ideas)
	}
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Home/Garden plan.md"}), "fetch")
	meta, _ = f["metadata"].(map[string]any)
	d := must(t, call(t, ctx, cs, "delete_note", map[string]any{"id": "Home/Garden plan.md", "version": str(meta, "version")}), "delete_note")
	trashed := str(d, "trashed_to")
	if !strings.HasPrefix(trashed, ".trash/") {
		t.Fatalf("delete_note = %v", d)
	}
	if _, err := os.Stat(filepath.Join(in.Vault, filepath.FromSlash(trashed))); err != nil {
		t.Errorf("trashed note missing: %v", err)
	}
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": trashed}), "fetch trashed")
	meta, _ = f["metadata"].(map[string]any)
	must(t, call(t, ctx, cs, "move_note", map[string]any{"id": trashed, "to": "Home/Garden plan.md", "version": str(meta, "version")}), "restore")

	// nothing outside the vault, nothing protected
	for _, p := range []string{"../state/cortex.db", "/etc/passwd", ".git/config", ".cortex/x.md"} {
		if r := call(t, ctx, cs, "fetch", map[string]any{"id": p}); !r.isError || strings.Contains(r.text, in.Vault) {
			t.Errorf("fetch %q: %+v", p, r)
		}
	}
}

func sortedJoin(s []string) string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return strings.Join(c, ",")
}

func TestTwoClientsRaceOnOneNote(t *testing.T) {
	in := newInstance(t)
	tokA, tokB := in.token("alpha"), in.token("beta")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := in.connect(ctx, tokA), in.connect(ctx, tokB)
	must(t, call(t, ctx, a, "create_note", map[string]any{"path": "Shared.md", "content": "count: 1\n"}), "create")
	f := must(t, call(t, ctx, a, "fetch", map[string]any{"id": "Shared.md"}), "fetch")
	version := str(f["metadata"].(map[string]any), "version")

	var wg sync.WaitGroup
	results := make([]result, 2)
	for i, cs := range []*mcp.ClientSession{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_note", Arguments: map[string]any{
				"id": "Shared.md", "version": version, "old_text": "count: 1", "new_text": fmt.Sprintf("count: 2 by %d", i)}})
			if err != nil {
				t.Error(err)
				return
			}
			results[i].isError = r.IsError
			for _, c := range r.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					results[i].text += tc.Text
				}
			}
		}()
	}
	wg.Wait()
	wins, changed := 0, 0
	for _, r := range results {
		if !r.isError {
			wins++
		} else if strings.HasPrefix(r.text, "note_changed") {
			changed++
		}
	}
	if wins != 1 || changed != 1 {
		t.Fatalf("want exactly one win and one note_changed, got %+v", results)
	}
	raw, _ := os.ReadFile(filepath.Join(in.Vault, "Shared.md"))
	if !strings.HasPrefix(string(raw), "count: 2 by ") {
		t.Errorf("note = %q", raw)
	}
}

func TestRevokedTokenIsRefusedMidSession(t *testing.T) {
	in := newInstance(t)
	token := in.token("phone")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)
	// Several calls, so that the server answers the token check from
	// memory (store/verified.go) when the other process revokes it.
	for range 3 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, err := in.admin("token", "revoke", "phone"); err != nil {
		t.Fatalf("revoke: %v %s", err, errOut)
	}
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Fatal("a revoked token still works in its open session")
	}
	req, _ := http.NewRequest(http.MethodPost, in.URL+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("revoked token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestRateLimitAnswers429(t *testing.T) {
	in := newInstance(t)
	token := in.token("busy")
	in.start("--rate-limit", "5")
	var got429 *http.Response
	for i := 0; i < 200 && got429 == nil; i++ {
		resp := in.postMCP(token, mcpInitialize)
		if resp.StatusCode == http.StatusTooManyRequests {
			got429 = resp
		}
	}
	if got429 == nil {
		t.Fatal("no 429 after 200 requests at --rate-limit 5")
	}
	if got429.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

func TestHealthzAndUnauthenticated(t *testing.T) {
	in := newInstance(t)
	in.start()
	resp, err := http.Get(in.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz = %d", resp.StatusCode)
	}
	resp, err = http.Post(in.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// the empty vault was seeded with a welcome note
	if entries, _ := os.ReadDir(in.Vault); len(entries) == 0 {
		t.Error("the empty vault was not seeded")
	}
	if err := in.stop(); err != nil {
		t.Errorf("cortex exited with %v on SIGINT:\n%s", err, in.logs.String())
	}
}

func TestInstructionsFileReachesNewSessions(t *testing.T) {
	in := newInstance(t)
	token := in.token("laptop")
	if err := os.MkdirAll(in.Vault, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in.Vault, "AGENTS.md"), []byte("Answer in French.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "Answer in French.") {
		t.Errorf("instructions = %q", got)
	}
	// Tools may read the instructions file but never change it.
	if r := call(t, ctx, cs, "edit_note", map[string]any{"id": "AGENTS.md", "version": "x", "old_text": "French", "new_text": "Dutch"}); !r.isError {
		t.Errorf("the instructions file was writable: %+v", r)
	}
	// The owner edits it; the next session sees the new text.
	if err := os.WriteFile(filepath.Join(in.Vault, "AGENTS.md"), []byte("Answer in Spanish.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs2 := in.connect(ctx, token)
	if got := cs2.InitializeResult().Instructions; !strings.Contains(got, "Answer in Spanish.") {
		t.Errorf("instructions after the edit = %q", got)
	}
}

func TestHealthcheckAndOAuthDiscovery(t *testing.T) {
	in := newInstance(t)
	in.start()
	addr := strings.TrimPrefix(in.URL, "http://")
	cmd := exec.Command(in.bin, "healthcheck")
	cmd.Env = append(os.Environ(), "CORTEX_LISTEN="+addr)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("healthcheck: %v %s", err, out)
	}
	cmd = exec.Command(in.bin, "healthcheck")
	cmd.Env = append(os.Environ(), "CORTEX_LISTEN=127.0.0.1:1")
	if err := cmd.Run(); err == nil {
		t.Error("healthcheck passed with nothing listening")
	}

	// A 401 from /mcp leads an OAuth client to the metadata.
	resp, err := http.Post(in.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	wantMeta := in.URL + "/.well-known/oauth-protected-resource/mcp"
	if !strings.Contains(challenge, `resource_metadata="`+wantMeta+`"`) || !strings.Contains(challenge, `scope="`) {
		t.Fatalf("challenge = %q", challenge)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, wantMeta, &prm)
	if prm.Resource != in.URL+"/mcp" || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != in.URL {
		t.Errorf("protected resource metadata = %+v", prm)
	}
	var asm struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		TokenEndpoint         string `json:"token_endpoint"`
		RegistrationEndpoint  string `json:"registration_endpoint"`
	}
	getJSON(t, in.URL+"/.well-known/oauth-authorization-server", &asm)
	if asm.Issuer != in.URL || asm.AuthorizationEndpoint != in.URL+"/authorize" || asm.TokenEndpoint != in.URL+"/token" ||
		asm.RegistrationEndpoint != in.URL+"/register" {
		t.Errorf("authorization server metadata = %+v", asm)
	}
	// The login page is served, with its security headers.
	resp, err = http.Get(in.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("/login: %d %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
