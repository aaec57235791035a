package tools

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// TestVaultErrorsReachTheModel drives every vault error code through a real
// tool call and checks the result a model sees.
func TestVaultErrorsReachTheModel(t *testing.T) {
	e := newEnv(t, func(o *vault.Options) {
		o.Denied = []string{"Private"}
		o.MaxWrite = 1000
		o.MaxNote = 2000
	})
	e.write("a.md", "# A\n\none two two\n\n## Dup\n\nx\n\n## Dup\n\ny\n")
	e.write("bad.md", "---\ntags: [unclosed\n---\nText.\n")
	e.write("big.md", strings.Repeat("word ", 1000))
	e.write("file.txt", "plain")
	e.write("Private/secret.md", "secret")
	v := e.version("a.md")

	tests := []struct {
		code string
		tool string
		args map[string]any
	}{
		{"invalid_path", "fetch", map[string]any{"id": "../outside.md"}},
		{"invalid_path", "fetch", map[string]any{"id": "/etc/passwd"}},
		{"protected_path", "fetch", map[string]any{"id": "Private/secret.md"}},
		{"protected_path", "create_note", map[string]any{"path": ".git/x.md", "content": "x"}},
		{"not_found", "fetch", map[string]any{"id": "missing.md"}},
		{"not_found", "delete_note", map[string]any{"id": "missing.md", "version": "abc"}},
		{"note_exists", "create_note", map[string]any{"path": "a.md", "content": "x"}},
		{"note_exists", "move_note", map[string]any{"id": "a.md", "to": "bad.md", "version": v}},
		{"note_changed", "edit_note", map[string]any{"id": "a.md", "version": "0123456789ab", "old_text": "one", "new_text": "1"}},
		{"version_required", "replace_section", map[string]any{"id": "a.md", "version": "", "heading": "A", "content": "x"}},
		{"write_too_large", "append", map[string]any{"id": "a.md", "text": strings.Repeat("x", 1001)}},
		{"note_too_large", "fetch", map[string]any{"id": "big.md"}},
		{"section_not_found", "append", map[string]any{"id": "a.md", "text": "x", "section": "Nope"}},
		{"section_ambiguous", "replace_section", map[string]any{"id": "a.md", "version": v, "heading": "Dup", "content": "z"}},
		{"section_has_subsections", "replace_section", map[string]any{"id": "a.md", "version": v, "heading": "# A", "content": "z"}},
		{"no_match", "edit_note", map[string]any{"id": "a.md", "version": v, "old_text": "three", "new_text": "3"}},
		{"multiple_matches", "edit_note", map[string]any{"id": "a.md", "version": v, "old_text": "two", "new_text": "2"}},
		{"invalid_frontmatter", "update_frontmatter", map[string]any{"id": "bad.md", "version": e.version("bad.md"), "set": map[string]any{"k": "v"}}},
		{"invalid_argument", "update_frontmatter", map[string]any{"id": "a.md", "version": v}},
		{"invalid_argument", "move_note", map[string]any{"id": "a.md", "to": "", "version": v}},
		{"not_a_note", "edit_note", map[string]any{"id": "file.txt", "version": v, "old_text": "plain", "new_text": "x"}},
		{"not_a_note", "delete_note", map[string]any{"id": "file.txt", "version": v}},
	}
	for _, tt := range tests {
		t.Run(tt.code+"/"+tt.tool, func(t *testing.T) {
			e.t = t
			te := e.fail(tt.tool, tt.args, tt.code)
			switch tt.code {
			case "note_changed":
				if te.CurrentVersion != v {
					t.Errorf("current_version = %q, want %q", te.CurrentVersion, v)
				}
				r := e.call(tt.tool, tt.args)
				if !strings.Contains(r.text, "fetch it again") || !strings.Contains(r.text, v) {
					t.Errorf("text = %q", r.text)
				}
			case "multiple_matches":
				if te.Count != 2 || te.Message != "old_text occurs 2 times; include more surrounding text so it occurs once, or set replace_all to change every occurrence" {
					t.Errorf("error = %+v", te)
				}
			case "section_ambiguous":
				if len(te.Candidates) != 2 {
					t.Errorf("candidates = %v", te.Candidates)
				}
			case "section_has_subsections":
				if strings.Join(te.Candidates, "|") != "## Dup (line 5)|## Dup (line 9)" || !strings.Contains(te.Message, "include_subsections") ||
					!strings.Contains(te.Message, "edit_note") {
					t.Errorf("error = %+v", te)
				}
			}
		})
	}
	e.t = t
	if body := e.read("a.md"); !strings.Contains(body, "one two two") {
		t.Errorf("a refused write changed a.md:\n%s", body)
	}
	low := newEnv(t, func(o *vault.Options) { o.MinFree, o.FreeSpace = 1, func(string) (uint64, error) { return 0, nil } })
	low.fail("create_note", map[string]any{"path": "x.md", "content": "x"}, "disk_low")
}

func TestSchemaValidationIsAToolError(t *testing.T) {
	e := newEnv(t)
	for _, args := range []map[string]any{
		{"id": 5},
		{"ids": "a.md"},
		{"id": "a.md", "bogus": true},
		{"id": "a.md", "offset": 1.5},
	} {
		te := e.fail("fetch", args, "invalid_argument")
		if !strings.Contains(te.Message, "input schema") {
			t.Errorf("fetch(%v): %q", args, te.Message)
		}
	}
}

func TestInternalErrorsAreGeneric(t *testing.T) {
	var logs strings.Builder
	s := &server{log: slog.New(slog.NewTextHandler(&logs, nil))}
	c := call{tool: "fetch", app: "phone"}
	for _, err := range []error{
		errors.New("open /srv/vault/diary.md: permission denied"),
		fmt.Errorf("wrapped: %w", &vault.Error{Code: vault.CodeInternal, Message: "The server may not access /srv/x", Err: errors.New("eacces")}),
	} {
		te := s.toolError(c, err)
		if te.Code != "internal" || te.Message != toolMessages[vault.CodeInternal] || strings.Contains(te.text(), "/srv") {
			t.Errorf("toolError(%v) = %+v", err, te)
		}
	}
	if !strings.Contains(logs.String(), "diary.md") || !strings.Contains(logs.String(), "tool=fetch") {
		t.Errorf("detail not logged: %s", logs.String())
	}
	if got := errorCode(errors.New("x")); got != "internal" {
		t.Errorf("errorCode = %q", got)
	}
}

func TestErrorText(t *testing.T) {
	s := &server{log: slog.New(slog.DiscardHandler)}
	tests := []struct {
		err  *vault.Error
		want string
	}{
		{&vault.Error{Code: vault.CodeNoteChanged, Version: "v2"},
			"note_changed: the note changed since you read it; fetch it again and retry with the new version (current_version: v2)"},
		{&vault.Error{Code: vault.CodeMultipleMatches, Count: 1}, "multiple_matches: old_text occurs more than once;"},
		{&vault.Error{Code: vault.CodeMultipleMatches, Count: 3}, "multiple_matches: old_text occurs 3 times;"},
		{&vault.Error{Code: vault.CodeSectionAmbiguous, Candidates: []string{"## A (line 1)"}}, `(candidates: ["## A (line 1)"])`},
		{&vault.Error{Code: vault.CodeSectionAmbiguous, Candidates: []string{"## A (line 1)"}, More: 7}, `(candidates: ["## A (line 1)"] and 7 more)`},
		// A reason has its own sentence, with the values of the failure;
		// the vault's sentence for people is never what the client reads.
		{&vault.Error{Code: vault.CodeInvalidPath, Reason: vault.ReasonLinkFile, Message: "For people."},
			"invalid_path: this file is a symbolic link, which cortex never follows"},
		{&vault.Error{Code: vault.CodeSectionNotFound, Reason: vault.ReasonNoAnchor, Subject: "ab12"},
			"section_not_found: the note has no block ^ab12; fetch the note to see its block ids"},
		{&vault.Error{Code: vault.CodeInvalidPath, Reason: vault.ReasonDailyPath, Subject: "Daily/.x.md",
			Why: &vault.Error{Code: vault.CodeInvalidPath, Reason: vault.ReasonHiddenPart}},
			`invalid_path: the daily-notes settings give the path "Daily/.x.md", which cortex cannot use: hidden folders and files`},
		{&vault.Error{Code: vault.CodeInvalidPath}, "invalid_path: the path is not valid; use a vault-relative path"},
	}
	for _, tt := range tests {
		got := s.toolError(call{}, tt.err).text()
		if !strings.HasPrefix(got, tt.want) && !strings.HasSuffix(got, tt.want) {
			t.Errorf("text(%+v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestAppName(t *testing.T) {
	s := &server{app: "fallback"}
	req := func(ti *auth.TokenInfo) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: ti}}
	}
	tests := []struct {
		req  *mcp.CallToolRequest
		want string
	}{
		{nil, "fallback"},
		{&mcp.CallToolRequest{}, "fallback"},
		{req(nil), "fallback"},
		{req(&auth.TokenInfo{UserID: "laptop"}), "laptop"},
		{req(&auth.TokenInfo{UserID: "u", Extra: map[string]any{"app": "phone"}}), "phone"},
		{req(&auth.TokenInfo{Extra: map[string]any{"app": 7}}), "fallback"},
	}
	for _, tt := range tests {
		if got := s.appFor(tt.req); got != tt.want {
			t.Errorf("appFor = %q, want %q", got, tt.want)
		}
	}
}

// TestNullIsAbsent: many clients send null for an argument they leave out;
// it is taken as absent, and a required one sent as null is named.
func TestNullIsAbsent(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "---\ntags: [x]\n---\nalpha\n")
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "a.md", "section": nil, "offset": nil, "max_chars": nil}, &f)
	var s searchOut
	e.ok("search", map[string]any{"query": "alpha", "folder": nil, "tag": nil, "limit": nil, "cursor": nil}, &s)
	if len(s.Results) != 1 {
		t.Errorf("search = %+v", s)
	}
	var w writeOut
	e.ok("update_frontmatter", map[string]any{"id": "a.md", "version": f.Metadata.Version, "set": map[string]any{"status": "done"}, "remove": nil}, &w)
	if got := e.read("a.md"); !strings.Contains(got, "status: done") {
		t.Errorf("a.md = %q", got)
	}
	te := e.fail("fetch", map[string]any{"id": nil}, "invalid_argument")
	if !strings.Contains(te.Message, "id") || strings.Contains(te.Message, "reflect") {
		t.Errorf("null id: %q", te.Message)
	}
}
