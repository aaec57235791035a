package console

import (
	"encoding/json"
	"strconv"
)

// connectName is the name cortex is given in each assistant's list of
// servers.
const connectName = "cortex"

// tokenEnv is the environment variable Codex reads the token from: Codex
// takes a bearer token only from the environment, never inline.
const tokenEnv = "CORTEX_TOKEN"

// Connect is what the console shows an owner to connect an assistant: the
// MCP endpoint for connectors that sign in with OAuth, and, right after a
// token is made, ready-to-paste setups that carry it.
type Connect struct {
	MCPURL string // this server's public URL of /mcp
	Setups []Setup
}

// Setup is one assistant's way to add cortex with a bearer token.
type Setup struct {
	ID, Name string
	Where    string // the file or place it goes, "" for a command
	Text     string
	Source   string // the documentation the format was checked against
}

// connectFor describes how to connect to mcpURL; with secret, the setups
// for the assistants that take a bearer token. The secret is written
// only into the page's text: never into a link, a query or the log.
//
// Each format was checked against the assistant's own documentation (the
// Source of each setup), in December 2026.
func connectFor(mcpURL, secret string) Connect {
	c := Connect{MCPURL: mcpURL}
	if secret == "" {
		return c
	}
	bearer := "Bearer " + secret
	headers := map[string]string{"Authorization": bearer}
	c.Setups = []Setup{
		{ID: "claude-code", Name: "Claude Code",
			Text:   "claude mcp add --transport http " + connectName + " " + mcpURL + " --header " + strconv.Quote("Authorization: "+bearer),
			Source: "https://code.claude.com/docs/en/mcp"},
		{ID: "codex", Name: "Codex CLI",
			Text: "export " + tokenEnv + "=" + strconv.Quote(secret) + "\n" +
				"codex mcp add " + connectName + " --url " + mcpURL + " --bearer-token-env-var " + tokenEnv,
			Where:  "In a shell. Codex reads the token from " + tokenEnv + " each time it starts: set it in your shell's profile too.",
			Source: "https://developers.openai.com/codex/mcp"},
		{ID: "gemini", Name: "Gemini CLI", Where: "In ~/.gemini/settings.json, under mcpServers.",
			Text:   jsonSnippet(map[string]any{"mcpServers": map[string]any{connectName: map[string]any{"httpUrl": mcpURL, "headers": headers}}}),
			Source: "https://geminicli.com/docs/tools/mcp-server/"},
		{ID: "cursor", Name: "Cursor", Where: "In ~/.cursor/mcp.json (or .cursor/mcp.json in a project), under mcpServers.",
			Text:   jsonSnippet(map[string]any{"mcpServers": map[string]any{connectName: map[string]any{"url": mcpURL, "headers": headers}}}),
			Source: "https://cursor.com/docs/mcp"},
		{ID: "vscode", Name: "VS Code", Where: "In the user mcp.json (command “MCP: Open User Configuration”) or .vscode/mcp.json, under servers.",
			Text:   jsonSnippet(map[string]any{"servers": map[string]any{connectName: map[string]any{"type": "http", "url": mcpURL, "headers": headers}}}),
			Source: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration"},
	}
	return c
}

// jsonSnippet is v as indented JSON; its maps hold only strings, which
// always marshal.
func jsonSnippet(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
