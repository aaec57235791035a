package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault"
)

func TestSearch(t *testing.T) {
	e := newEnv(t)
	e.write("Projects/Garden plan.md", "---\ntags: [home]\n---\n# Garden\n\nPlant the tomatoes in May.\n")
	e.write("Elsewhere/Other.md", "# Other\n\nNothing about vegetables.\n")
	var out searchOut
	e.ok("search", map[string]any{"query": "tomatoes"}, &out)
	if len(out.Results) != 1 {
		t.Fatalf("results = %+v", out.Results)
	}
	r := out.Results[0]
	if r.ID != "Projects/Garden plan.md" || r.Title != "Garden" || r.URL != testURL+"/notes/Projects/Garden%20plan.md" {
		t.Errorf("result = %+v", r)
	}
	if _, err := time.Parse(time.RFC3339, r.Modified); err != nil {
		t.Errorf("modified %q: %v", r.Modified, err)
	}
	e.ok("search", map[string]any{"query": "tomatoes", "tag": "#home", "limit": 500}, &out)
	if len(out.Results) != 1 {
		t.Errorf("tag search = %+v", out.Results)
	}
	e.ok("search", map[string]any{"query": "tomatoes", "folder": "Elsewhere"}, &out)
	if len(out.Results) != 0 {
		t.Errorf("folder search = %+v", out.Results)
	}
	e.fail("search", map[string]any{"query": "  "}, "invalid_argument")
	e.fail("search", map[string]any{"query": "x", "limit": -1}, "invalid_argument")
}

func TestSearchPages(t *testing.T) {
	e := newEnv(t)
	for i := range 13 {
		e.write(fmt.Sprintf("n%02d.md", i), "# Note\n\nturnip soup\n")
	}
	seen := map[string]bool{}
	var out searchOut
	e.ok("search", map[string]any{"query": "turnip", "limit": 5}, &out)
	for page := 0; ; page++ {
		if len(out.Results) > 5 || page > 3 {
			t.Fatalf("page %d has %d results", page, len(out.Results))
		}
		for _, r := range out.Results {
			if seen[r.ID] {
				t.Errorf("%s appears twice", r.ID)
			}
			seen[r.ID] = true
		}
		if out.NextCursor == "" {
			break
		}
		cursor := out.NextCursor
		out = searchOut{}
		e.ok("search", map[string]any{"query": "turnip", "limit": 5, "cursor": cursor}, &out)
	}
	if len(seen) != 13 {
		t.Errorf("pages held %d notes, want 13", len(seen))
	}
	e.fail("search", map[string]any{"query": "turnip", "cursor": "!!not-a-cursor"}, "invalid_argument")
}

func TestFetch(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "---\ntitle: Alpha\ntags: [x]\nstatus: draft\n---\nBody with #inline tag.\n\n## Plan\n\nDig.\n\n## Log\n\nDone.\n")
	var out fetchOut
	e.ok("fetch", map[string]any{"id": "a.md"}, &out)
	m := out.Metadata
	if out.ID != "a.md" || out.Title != "Alpha" || !strings.HasPrefix(out.Text, "---\ntitle: Alpha") || out.URL != testURL+"/notes/a.md" {
		t.Errorf("fetch = %+v", out)
	}
	if m.Version == "" || m.LastWriter != "external" || m.Frontmatter["status"] != "draft" || m.Truncated || m.NextOffset != nil {
		t.Errorf("metadata = %+v", m)
	}
	if m.Size != utf8.RuneCountInString(e.read("a.md")) || m.Offset != 0 {
		t.Errorf("size %d offset %d", m.Size, m.Offset)
	}
	if !slices.Contains(m.Tags, "x") {
		t.Errorf("tags = %v", m.Tags)
	}

	e.ok("fetch", map[string]any{"id": "a.md", "section": "Plan"}, &out)
	if out.Text != "## Plan\n\nDig.\n\n" || out.Metadata.Size != len(out.Text) {
		t.Errorf("section text %q size %d", out.Text, out.Metadata.Size)
	}
	e.fail("fetch", map[string]any{"id": "a.md", "section": "Nope"}, "section_not_found")
	e.fail("fetch", map[string]any{"id": ""}, "invalid_argument")
	e.fail("fetch", map[string]any{"id": "a.md", "offset": -1}, "invalid_argument")
	e.fail("fetch", map[string]any{"id": "a.md", "max_chars": -5}, "invalid_argument")
	e.fail("fetch", map[string]any{"id": "a.md", "offset": 100000}, "invalid_argument")
}

func TestFetchFrontmatterErrorAndConflicts(t *testing.T) {
	e := newEnv(t)
	e.write("b.md", "---\ntags: [unclosed\n---\nText.\n")
	e.write("b.sync-conflict-20260101-120000-ABCDEFG.md", "---\n---\nOther text.\n")
	var out fetchOut
	e.ok("fetch", map[string]any{"id": "b.md"}, &out)
	if out.Metadata.FrontmatterError == "" || out.Metadata.Frontmatter != nil {
		t.Errorf("metadata = %+v", out.Metadata)
	}
	if len(out.Metadata.Conflict) != 1 {
		t.Errorf("conflict = %v", out.Metadata.Conflict)
	}
	// YAML values JSON has no literal for still make a valid result.
	e.write("c d.md", "---\nwhen: 2024-01-02\nx: .nan\nnested: {a: [1, 2], 3: yes}\n---\n# C\n")
	e.ok("fetch", map[string]any{"id": testURL + "/notes/c%20d.md"}, &out)
	if out.ID != "c d.md" || out.Metadata.Frontmatter["when"] != "2024-01-02" || out.Metadata.Frontmatter["x"] != ".nan" {
		t.Errorf("fetch by URL = %+v", out)
	}
}

func TestFetchPages(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "línea %04d — ünïcødé text ✓\n", i)
	}
	whole := b.String()
	e.write("long.md", whole)

	var got strings.Builder
	offset, pages := 0, 0
	for {
		var out fetchOut
		e.ok("fetch", map[string]any{"id": "long.md", "offset": offset, "max_chars": 7000}, &out)
		pages++
		m := out.Metadata
		if m.Offset != offset || m.Size != utf8.RuneCountInString(whole) || !utf8.ValidString(out.Text) {
			t.Fatalf("page %d: offset %d size %d", pages, m.Offset, m.Size)
		}
		if n := utf8.RuneCountInString(out.Text); n > 7000 {
			t.Fatalf("page %d has %d characters", pages, n)
		}
		got.WriteString(out.Text)
		if m.NextOffset == nil {
			if m.Truncated {
				t.Error("last page says truncated")
			}
			break
		}
		if !m.Truncated || !strings.HasSuffix(out.Text, "\n") {
			t.Errorf("page %d: truncated=%v, ends %q", pages, m.Truncated, out.Text[len(out.Text)-5:])
		}
		offset = *m.NextOffset
	}
	if got.String() != whole {
		t.Fatal("pages do not add up to the note")
	}
	if pages < 12 {
		t.Errorf("only %d pages", pages)
	}

	var out fetchOut
	e.ok("fetch", map[string]any{"id": "long.md"}, &out)
	if n := utf8.RuneCountInString(out.Text); n > defaultFetchChars || n < defaultFetchChars/2 || out.Metadata.NextOffset == nil {
		t.Errorf("default page has %d characters, next %v", n, out.Metadata.NextOffset)
	}
	e.ok("fetch", map[string]any{"id": "long.md", "max_chars": 10_000_000}, &out)
	if n := utf8.RuneCountInString(out.Text); n > maxFetchChars {
		t.Errorf("capped page has %d characters", n)
	}
}

func TestPage(t *testing.T) {
	tests := []struct {
		name          string
		text          string
		offset, limit int
		chunk         string
		next          int
	}{
		{"whole", "abc", 0, 10, "abc", 0},
		{"exact", "abc", 0, 3, "abc", 0},
		{"rune cut", "äöü", 0, 2, "äö", 2},
		{"from offset", "äöü", 1, 5, "öü", 0},
		{"at end", "äöü", 3, 5, "", 0},
		{"line preferred", "one\ntwo\nthree", 0, 10, "one\ntwo\n", 8},
		{"early newline ignored", "a\nbcdefghijk", 0, 10, "a\nbcdefghi", 10},
		{"empty", "", 0, 5, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunk, _, next, err := page(tt.text, tt.offset, tt.limit)
			if err != nil || chunk != tt.chunk || next != tt.next {
				t.Errorf("page = %q, %d, %v; want %q, %d", chunk, next, err, tt.chunk, tt.next)
			}
		})
	}
	if _, _, _, err := page("abc", 4, 1); err == nil {
		t.Error("offset past the end accepted")
	}
}

// FuzzPage checks that paging any text with any page size returns valid
// pages that add up to the text.
func FuzzPage(f *testing.F) {
	f.Add("hello\nworld\n", 3)
	f.Add("äöü\n\n✓✓✓", 1)
	f.Add("\xff\xfe broken utf-8 \n", 2)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit <= 0 || limit > 1000 {
			return
		}
		var got strings.Builder
		offset := 0
		for range utf8.RuneCountInString(text) + 2 {
			chunk, size, next, err := page(text, offset, limit)
			if err != nil {
				t.Fatal(err)
			}
			if utf8.RuneCountInString(chunk) > limit || size != utf8.RuneCountInString(text) {
				t.Fatalf("chunk %q too long for %d", chunk, limit)
			}
			got.WriteString(chunk)
			if next == 0 {
				if got.String() != text {
					t.Fatalf("pages %q != %q", got.String(), text)
				}
				return
			}
			if next <= offset {
				t.Fatalf("no progress at %d", offset)
			}
			offset = next
		}
		t.Fatal("paging did not end")
	})
}

func TestList(t *testing.T) {
	e := newEnv(t)
	e.write("top.md", "x")
	e.write("Sub/inner.md", "y")
	e.write("Sub/Deeper/deep.md", "z")
	var out listOut
	e.ok("list", nil, &out)
	got := map[string]string{}
	for _, en := range out.Entries {
		got[en.Path] = en.Type
	}
	if got["top.md"] != "note" || got["Sub"] != "folder" || len(got) != 2 || out.NextCursor != "" {
		t.Errorf("list = %+v", out)
	}
	e.ok("list", map[string]any{"folder": "Sub", "recursive": true}, &out)
	got = map[string]string{}
	for _, en := range out.Entries {
		got[en.Path] = en.Type
	}
	if got["Sub/inner.md"] != "note" || got["Sub/Deeper/deep.md"] != "note" {
		t.Errorf("recursive list = %+v", out)
	}
	e.fail("list", map[string]any{"folder": "Missing"}, "not_found")
	e.fail("list", map[string]any{"cursor": "!!not base64!!"}, "invalid_argument")
}

func TestListPages(t *testing.T) {
	e := newEnv(t)
	const n = 1203
	for i := range n {
		e.write(fmt.Sprintf("many/n%05d.md", i), "x")
	}
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		args := map[string]any{"folder": "many"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var out listOut
		e.ok("list", args, &out)
		pages++
		if len(out.Entries) > listPageSize {
			t.Fatalf("page of %d", len(out.Entries))
		}
		for _, en := range out.Entries {
			if seen[en.Path] {
				t.Fatalf("%s listed twice", en.Path)
			}
			seen[en.Path] = true
		}
		if out.NextCursor == "" {
			break
		}
		cursor = out.NextCursor
	}
	if len(seen) != n || pages != 3 {
		t.Errorf("saw %d entries in %d pages", len(seen), pages)
	}
}

func TestLinks(t *testing.T) {
	e := newEnv(t)
	e.write("Garden.md", "# Garden\n\nSee [[Ideas]] and [[Nowhere]].\n")
	e.write("Ideas.md", "Plan in [[Garden]].\n")
	var out linksOut
	e.ok("links", map[string]any{"id": "Garden.md"}, &out)
	if out.ID != "Garden.md" || len(out.Backlinks) != 1 || out.Backlinks[0].Path != "Ideas.md" || out.Backlinks[0].Line != 1 {
		t.Errorf("backlinks = %+v", out.Backlinks)
	}
	if len(out.Unresolved) != 1 || out.Unresolved[0].Raw != "Nowhere" || out.Unresolved[0].Line != 3 {
		t.Errorf("unresolved = %+v", out.Unresolved)
	}
	found := false
	for _, l := range out.Outgoing {
		if l.Path == "Ideas.md" && l.Raw == "Ideas" {
			found = true
		}
	}
	if !found {
		t.Errorf("outgoing = %+v", out.Outgoing)
	}
	e.fail("links", map[string]any{"id": "Missing.md"}, "not_found")
	e.fail("links", map[string]any{"id": ""}, "invalid_argument")
}

func TestRecent(t *testing.T) {
	e := newEnv(t)
	e.ok("create_note", map[string]any{"path": "mine.md", "content": "# Mine\n"}, nil)
	e.write("theirs.md", "# Theirs\n")
	e.write("old.md", "# Old\n")
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(e.dir, "old.md"), old, old); err != nil {
		t.Fatal(err)
	}
	var out recentOut
	e.ok("recent", nil, &out)
	by := map[string]string{}
	for _, n := range out.Notes {
		by[n.ID] = n.ChangedBy
	}
	if by["mine.md"] != "tester" || by["theirs.md"] != "external" || len(by) != 2 {
		t.Errorf("recent = %+v", out.Notes)
	}
	e.ok("recent", map[string]any{"days": 60, "limit": 1}, &out)
	if len(out.Notes) != 1 {
		t.Errorf("limit 1 = %+v", out.Notes)
	}
	e.ok("recent", map[string]any{"days": 60}, &out)
	if len(out.Notes) != 3 || out.Notes[2].ID != "old.md" || out.Notes[2].Title != "Old" {
		t.Errorf("60 days = %+v", out.Notes)
	}
	// Changed outside cortex after the journaled write: no longer ours.
	e.write("mine.md", "# Mine, edited elsewhere\n")
	e.ok("recent", nil, &out)
	for _, n := range out.Notes {
		if n.ID == "mine.md" && n.ChangedBy != "external" {
			t.Errorf("mine.md changed_by %q after an outside edit", n.ChangedBy)
		}
	}
	e.fail("recent", map[string]any{"days": -1}, "invalid_argument")
}

// TestSearchStopsEarly: a query without words that matches nothing stops
// after reading 4 MiB of notes and says so, and why, instead of an empty
// list a model would take for "nothing matches"; its cursor checks the
// rest. Before the index is built every query is read so.
func TestSearchStopsEarly(t *testing.T) {
	filler := strings.Repeat("plain text, nothing to find here\n", 1<<15) // 1 MiB
	files := map[string]string{"oldest.md": "- [ ] buy a 🚀\n"}
	for i := range 6 {
		files[fmt.Sprintf("n%02d.md", i)] = filler
	}
	for _, indexed := range []bool{true, false} {
		e := newEnv(t, func(o *vault.Options) {
			o.Index = indexed
			// The notes are there before the vault opens, newest first by name.
			for name, text := range files {
				p := filepath.Join(o.Dir, name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				age := 48 * time.Hour
				if name != "oldest.md" {
					age = time.Duration(name[2]-'0') * time.Hour
				}
				if err := os.Chtimes(p, time.Now().Add(-age), time.Now().Add(-age)); err != nil {
					t.Fatal(err)
				}
			}
		})
		if err := e.v.WaitIndexed(context.Background()); err != nil {
			t.Fatal(err)
		}
		why, next := "not through the index", "narrow the search with the folder or tag argument"
		if !indexed {
			why, next = "the search index was not built yet", "search again without a cursor in a few seconds"
		}
		var out searchOut
		e.ok("search", map[string]any{"query": "🚀"}, &out)
		if len(out.Results) != 0 || out.NextCursor == "" || !strings.HasPrefix(out.Incomplete, "Checked 4 of 7 notes, then stopped") ||
			!strings.Contains(out.Incomplete, "next_cursor") || !strings.Contains(out.Incomplete, why) || !strings.Contains(out.Incomplete, next) {
			t.Fatalf("indexed %v, first call: %+v", indexed, out)
		}
		cursor := out.NextCursor
		out = searchOut{}
		e.ok("search", map[string]any{"query": "🚀", "cursor": cursor}, &out)
		if len(out.Results) != 1 || out.Results[0].ID != "oldest.md" || out.Incomplete != "" || out.NextCursor != "" {
			t.Errorf("indexed %v, second call: %+v", indexed, out)
		}
	}
}
