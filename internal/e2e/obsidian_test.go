package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestObsidianVaultAsAModelUsesIt serves a committed vault shaped like a
// real Obsidian vault (frontmatter properties, aliases, heading and block
// links, embeds, attachments, daily-notes settings of the core plugin and
// of Periodic Notes with a template, Spanish, Japanese and Chinese notes)
// from the real binary, and calls the
// tools through the go-sdk client the way a model does: by name, by day,
// in Obsidian's search syntax, with attachments and with names that do not
// travel.
func TestObsidianVaultAsAModelUsesIt(t *testing.T) {
	in := newInstance(t)
	if err := os.CopyFS(in.Vault, os.DirFS(filepath.Join("testdata", "vault"))); err != nil {
		t.Fatal(err)
	}
	token := in.token("model")
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := in.connect(ctx, token)

	// Names as a model sees them in [[links]].
	f := must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Garden Redesign"}), "fetch by name")
	if str(f, "id") != "Projects/Garden Redesign.md" {
		t.Errorf("fetch Garden Redesign = %s", str(f, "id"))
	}
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Garden Redesign#budget"}), "fetch name#heading")
	if text := str(f, "text"); !strings.HasPrefix(text, "## Budget") || strings.Contains(text, "Tasks") {
		t.Errorf("fetch Garden Redesign#budget = %q", text)
	}
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "backyard plan"}), "fetch by alias")
	if str(f, "id") != "Projects/Garden Redesign.md" {
		t.Errorf("fetch by alias = %s", str(f, "id"))
	}
	if r := call(t, ctx, cs, "fetch", map[string]any{"id": "Ideas"}); !r.isError || !strings.HasPrefix(r.text, "ambiguous_name") ||
		!strings.Contains(r.text, "Archive/Ideas.md") || !strings.Contains(r.text, "Projects/Ideas.md") {
		t.Errorf("ambiguous name: %s", r.text)
	}
	if r := call(t, ctx, cs, "fetch", map[string]any{"id": "Garden Redesign", "section": "Costs"}); !r.isError ||
		!strings.Contains(r.text, `"## Budget (line 11)"`) {
		t.Errorf("missing section: %s", r.text)
	}
	l := must(t, call(t, ctx, cs, "links", map[string]any{"id": "Inbox"}), "links")
	if out := l["outgoing"].([]any); len(out) != 2 || str(out[0].(map[string]any), "path") != "Projects/Garden Redesign.md" {
		t.Errorf("links outgoing = %v", out)
	}
	if em := l["embeds"].([]any); len(em) != 0 {
		t.Errorf("Inbox embeds = %v", em)
	}
	l = must(t, call(t, ctx, cs, "links", map[string]any{"id": "Garden Redesign"}), "links")
	if em := l["embeds"].([]any); len(em) != 1 || str(em[0].(map[string]any), "path") != "Attachments/diagram.png" {
		t.Errorf("embeds = %v", em)
	}

	// Search in Obsidian's syntax, each operator.
	search := func(args map[string]any) []string {
		t.Helper()
		s := must(t, call(t, ctx, cs, "search", args), "search")
		var ids []string
		for _, r := range s["results"].([]any) {
			ids = append(ids, str(r.(map[string]any), "id"))
		}
		slices.Sort(ids)
		return ids
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "raised beds"}, "Daily/2026-11-30.md,Projects/Garden Redesign.md"},
		{map[string]any{"query": `"south fence"`}, "Projects/Garden Redesign.md"},
		{map[string]any{"query": "rack OR cancion"}, "Notas/Canción de cuna.md,Projects/Homelab.md"},
		{map[string]any{"query": "raised -daily"}, "Projects/Garden Redesign.md"},
		{map[string]any{"query": `beds -"south fence"`}, "Daily/2026-11-30.md"},
		{map[string]any{"query": "tag:#project"}, "Projects/Garden Redesign.md,Projects/Homelab.md"},
		{map[string]any{"query": "#música"}, "Notas/Canción de cuna.md"},
		{map[string]any{"query": "path:archive"}, "Archive/Ideas.md,Archive/Inbox.md"},
		{map[string]any{"query": "folder:Notas"}, "Notas/Canción de cuna.md"},
		{map[string]any{"query": "tag:project -tag:garden"}, "Projects/Homelab.md"},
		{map[string]any{"query": "file:ideas"}, "Archive/Ideas.md,Projects/Ideas.md"},
		{map[string]any{"query": "[status:active]"}, "Projects/Garden Redesign.md"},
		{map[string]any{"query": "[owners]"}, "Projects/Homelab.md"},
		{map[string]any{"query": "[status:active OR paused]"}, "Projects/Garden Redesign.md,Projects/Homelab.md"},
		{map[string]any{"query": "tag:project -[status:paused]"}, "Projects/Garden Redesign.md"},
		{map[string]any{"query": "- [ ]"}, "Inbox.md,Projects/Garden Redesign.md"},
		{map[string]any{"query": "🚀"}, "Projects/Homelab.md"},
		{map[string]any{"query": "会議"}, "日本/会議の記録.md"},
		{map[string]any{"query": "预算"}, "中文/项目预算.md"},
		{map[string]any{"query": "", "tag": "project"}, "Projects/Garden Redesign.md,Projects/Homelab.md"},
		{map[string]any{"query": "", "folder": "Notas"}, "Notas/Canción de cuna.md"},
	} {
		if got := strings.Join(search(tt.args), ","); got != tt.want {
			t.Errorf("search %v = %s, want %s", tt.args, got, tt.want)
		}
	}
	if r := call(t, ctx, cs, "search", map[string]any{"query": "section:Budget"}); !r.isError || !strings.Contains(r.text, "section:") {
		t.Errorf("unsupported syntax: %s", r.text)
	}

	// Daily notes by day, where the Periodic Notes plugin puts them (its
	// settings win over the core plugin's stale ones), created from the
	// template; a day whose note predates the plugin is found by its name.
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "2026-11-30"}), "fetch by date")
	if str(f, "id") != "Daily/2026-11-30.md" {
		t.Errorf("fetch 2026-11-30 = %s", str(f, "id"))
	}
	today := time.Now().Format("2006-01-02")
	todayPath := "Journal/" + today[:4] + "/" + today + ".md"
	if r := call(t, ctx, cs, "fetch", map[string]any{"id": "today"}); !r.isError || !strings.Contains(r.text, todayPath) {
		t.Errorf("fetch today before it exists: %s", r.text)
	}
	w := must(t, call(t, ctx, cs, "append", map[string]any{"id": "today", "text": "- bought seeds", "section": "Log"}), "append today")
	if str(w, "id") != todayPath {
		t.Errorf("append today = %v, want %s", w, todayPath)
	}
	b, err := os.ReadFile(filepath.Join(in.Vault, filepath.FromSlash(todayPath)))
	if err != nil || !strings.HasPrefix(string(b), "# "+time.Now().Weekday().String()) || !strings.Contains(string(b), "## Log\n- bought seeds\n") {
		t.Errorf("today's note = %q, %v", b, err)
	}
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "today"}), "fetch today")
	if str(f, "id") != todayPath {
		t.Errorf("fetch today = %s", str(f, "id"))
	}

	// Attachments: listed, shown as an image, linked otherwise.
	ls := must(t, call(t, ctx, cs, "list", map[string]any{"folder": "Attachments"}), "list")
	if es := ls["entries"].([]any); len(es) != 2 || str(es[0].(map[string]any), "type") != "attachment" {
		t.Errorf("list Attachments = %v", es)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "diagram.png"}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("fetch diagram.png: %v %+v", err, res)
	}
	png, _ := os.ReadFile(filepath.Join("testdata", "vault", "Attachments", "diagram.png"))
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != string(png) {
		t.Errorf("image content = %+v", res.Content[1])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "Attachments/paper.pdf"}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("fetch paper.pdf: %v %+v", err, res)
	}
	if link, ok := res.Content[1].(*mcp.ResourceLink); !ok || link.MIMEType != "application/pdf" {
		t.Errorf("pdf content = %+v", res.Content[1])
	}

	// Names that do not travel, and bytes that are not UTF-8, are refused
	// with the rule they break.
	for path, want := range map[string]string{
		"a:b?.md":         "invalid_path",
		"Projects/CON.md": "invalid_path",
		"INBOX.md":        "note_exists",
		"trailing./x.md":  "invalid_path",
	} {
		r := call(t, ctx, cs, "create_note", map[string]any{"path": path, "content": "x"})
		if !r.isError || !strings.HasPrefix(r.text, want+": ") || !strings.Contains(r.text, "Windows") {
			t.Errorf("create %q: %s", path, r.text)
		}
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: json.RawMessage(`{"path":"bad` + "\xff" + `.md","content":"x"}`)})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "invalid_argument: path is not valid UTF-8") {
		t.Errorf("invalid UTF-8: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(in.Vault, "bad\uFFFD.md")); err == nil {
		t.Error("a note was stored under U+FFFD")
	}

	// Names Obsidian cannot link are refused, saying why. A near miss
	// offers the close names, a missing block the note's blocks, and a
	// search for a link the tool that follows links.
	if r := call(t, ctx, cs, "create_note", map[string]any{"path": "Plan #2.md", "content": "x"}); !r.isError ||
		!strings.HasPrefix(r.text, "invalid_path: ") || !strings.Contains(r.text, "Obsidian cannot link") {
		t.Errorf("create Plan #2.md: %s", r.text)
	}
	if r := call(t, ctx, cs, "fetch", map[string]any{"id": "Garden Redesgn"}); !r.isError || !strings.HasPrefix(r.text, "not_found: ") ||
		!strings.Contains(r.text, `"Projects/Garden Redesign.md"`) {
		t.Errorf("fetch of a near miss: %s", r.text)
	}
	if r := call(t, ctx, cs, "fetch", map[string]any{"id": "Homelab#^powr"}); !r.isError || !strings.Contains(r.text, `["^power"]`) {
		t.Errorf("fetch of a missing block: %s", r.text)
	}
	if r := call(t, ctx, cs, "search", map[string]any{"query": "[[Homelab]]"}); !r.isError || !strings.Contains(r.text, `call links with id "Homelab"`) {
		t.Errorf("search for a link: %s", r.text)
	}

	// A move to the same name elsewhere: links by name still find the note.
	f = must(t, call(t, ctx, cs, "fetch", map[string]any{"id": "Homelab"}), "fetch")
	version := str(f["metadata"].(map[string]any), "version")
	m := must(t, call(t, ctx, cs, "move_note", map[string]any{"id": "Homelab", "to": "Archive/Homelab.md", "version": version, "update_links": true}), "move")
	if sl := m["still_linking"].([]any); len(sl) != 0 {
		t.Errorf("still_linking = %v", sl)
	}
	if rw := m["rewritten"].([]any); len(rw) != 0 {
		t.Errorf("rewritten = %v", rw)
	}
}
