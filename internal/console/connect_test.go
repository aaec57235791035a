package console

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestConnectSetupsCarryURLAndToken(t *testing.T) {
	const mcp, secret = "https://cortex.example/mcp", "ctx_abc-DEF_123"
	c := connectFor(mcp, secret)
	byID := map[string]Setup{}
	for _, s := range c.Setups {
		byID[s.ID] = s
		if !strings.Contains(s.Text, mcp) || !strings.Contains(s.Text, secret) {
			t.Errorf("%s lacks the URL or the token:\n%s", s.ID, s.Text)
		}
		if s.Source == "" {
			t.Errorf("%s does not say where its format comes from", s.ID)
		}
	}
	if got, want := byID["claude-code"].Text, `claude mcp add --transport http cortex `+mcp+` --header "Authorization: Bearer `+secret+`"`; got != want {
		t.Errorf("Claude Code:\n%s\nwant\n%s", got, want)
	}
	// The JSON setups parse, with the keys each assistant reads.
	for id, path := range map[string][]string{
		"gemini": {"mcpServers", "cortex", "httpUrl"},
		"cursor": {"mcpServers", "cortex", "url"},
		"vscode": {"servers", "cortex", "url"},
	} {
		var v map[string]any
		if err := json.Unmarshal([]byte(byID[id].Text), &v); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		m := v
		for _, k := range path[:2] {
			m, _ = m[k].(map[string]any)
		}
		if m[path[2]] != mcp {
			t.Errorf("%s: %s is %v", id, strings.Join(path, "."), m[path[2]])
		}
		if h, _ := m["headers"].(map[string]any); h["Authorization"] != "Bearer "+secret {
			t.Errorf("%s: headers %v", id, m["headers"])
		}
	}
	if len(connectFor(mcp, "").Setups) != 0 {
		t.Error("setups without a token")
	}
}

func TestAppsPageShowsHowToConnect(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/apps")
	want(t, resp, body, http.StatusOK, `<code>`+testPublicURL+`/mcp</code>`, "claude.ai", "ChatGPT", "consent page")
	if strings.Contains(body, `id="setup-claude-code"`) {
		t.Error("token setups shown without a token")
	}
	resp, _ = b.post("/console/tokens", url.Values{"name": {"laptop"}})
	result := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(result, "/console/result/") {
		t.Fatalf("creating a token: %d %q", resp.StatusCode, result)
	}
	resp, body = b.get(result)
	want(t, resp, body, http.StatusOK, `id="token-secret">ctx_`)
	secret := body[strings.Index(body, "ctx_"):]
	secret = secret[:strings.Index(secret, "<")]
	text := html.UnescapeString(body)
	for _, part := range []string{
		`claude mcp add --transport http cortex ` + testPublicURL + `/mcp --header "Authorization: Bearer ` + secret + `"`,
		`"httpUrl": "` + testPublicURL + `/mcp"`,
		`--bearer-token-env-var CORTEX_TOKEN`,
	} {
		if !strings.Contains(text, part) {
			t.Errorf("the page lacks %q", part)
		}
	}
	if strings.Contains(result, secret) {
		t.Error("the secret is in a URL")
	}
	// Like the secret, the setups that carry it are shown once.
	resp, body = b.get(result)
	want(t, resp, body, http.StatusOK, `id="token-secret-gone"`)
	if strings.Contains(body, `id="setup-claude-code"`) || strings.Contains(body, secret) {
		t.Error("a reload shows the token's setups again")
	}
}
