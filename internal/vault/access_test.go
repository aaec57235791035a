package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// scopedVault is a vault where an app scoped to Work/** and Shared.md
// (writing only in Work/Drafts/**) must never learn of the notes marked
// with "zebra" canaries: outside its folders, private by frontmatter or by
// --private, or denied.
var scopedVault = map[string]string{
	"Work/plan.md":          "# Plan\nSee [[Diary Zebra]] and [[Shared]] and [[Work/secret-zebra]].\n![[zebra-photo.png]]\n",
	"Work/Drafts/draft.md":  "# Draft\nopen draft\n",
	"Work/Drafts/zebra.md":  "---\nprivate: yes\n---\nzebra private draft\n",
	"Work/secret-zebra.md":  "---\nprivate: true\naliases: [Hidden Zebra Alias]\n---\n# Zebra secret\nzebra text\n",
	"Work/broken-zebra.md":  "---\nprivate: true\ntags: [a\n---\nzebra broken yaml\n",
	"Work/Health/zebra.md":  "zebra health (private by pattern)\n",
	"Shared.md":             "# Shared\nopen to all\n",
	"Diary Zebra.md":        "---\naliases: [ZebraAlias]\n---\n# Diary Zebra\nzebra diary links to [[Work/plan]]\n",
	"ZebraFolder/note.md":   "zebra in a hidden folder, links [[plan]]\n",
	"zebra-photo.png":       "\x89PNG\r\n\x1a\nzebra",
	"Denied/zebra-deny.md":  "zebra denied\n",
	".trash/Diary Zebra.md": "zebra trashed\n",
	"Daily/2026-12-02.md":   "zebra daily\n",
}

func scopedCtx(t testing.TB, read, write string, private bool) context.Context {
	t.Helper()
	s, err := scope.Parse(read, write, private)
	if err != nil {
		t.Fatal(err)
	}
	return scope.NewContext(context.Background(), s)
}

// noCanary fails when anything the app was given names a hidden note.
func noCanary(t *testing.T, what string, v any, err error) {
	t.Helper()
	b, _ := json.Marshal(v)
	s := strings.ToLower(string(b))
	if err != nil {
		s += " " + strings.ToLower(err.Error())
	}
	// The visible note's own text names hidden notes in its links; it is
	// the app's to see.
	for _, own := range []string{"[[diary zebra]]", "[[work/secret-zebra]]", "![[zebra-photo.png]]"} {
		s = strings.ReplaceAll(s, own, "")
	}
	if strings.Contains(s, "zebra") || strings.Contains(s, "health") {
		t.Errorf("%s leaks a hidden note: %s", what, s)
	}
}

func TestScopeHidesNotes(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		name := "scan"
		if indexed {
			name = "index"
		}
		t.Run(name, func(t *testing.T) {
			var v *Vault
			mod := func(o *Options) { o.Denied = []string{"Denied/**"}; o.Private = []string{"Work/Health/"} }
			if indexed {
				v, _ = newIndexedVault(t, scopedVault, mod)
			} else {
				v, _ = newTestVault(t, scopedVault, mod)
			}
			c := scopedCtx(t, "Work/**, Shared.md", "Work/Drafts/**", false)

			for _, p := range []string{"Work/secret-zebra.md", "Work/broken-zebra.md", "Work/Health/zebra.md", "Diary Zebra.md", "ZebraFolder/note.md", ".trash/Diary Zebra.md", "ZebraFolder", "Work/Health", "nothere.md"} {
				n, err := v.Read(c, p)
				if code(t, err) != CodeNotFound {
					t.Errorf("Read(%s) = %v, want not_found", p, err)
				}
				if err.Error() != newErr(CodeNotFound, reasonNone, nil).Error() {
					t.Errorf("Read(%s) says %q, not what a missing note says", p, err)
				}
				noCanary(t, "Read", n, nil)
			}
			if _, err := v.Read(c, "Work/plan.md"); err != nil {
				t.Fatalf("a visible note: %v", err)
			}
			entries, err := v.List(c, "", true)
			noCanary(t, "List", entries, err)
			if len(entries) < 3 {
				t.Errorf("List shows too little: %v", entries)
			}
			for _, f := range []string{"ZebraFolder", "Work/Health", ".trash"} {
				entries, err := v.List(c, f, true)
				noCanary(t, "List "+f, entries, err)
			}
			changed, err := v.Changed(c, time.Time{})
			noCanary(t, "Changed", changed, err)
			if len(changed) != 3 {
				t.Errorf("Changed = %v, want the three visible notes", changed)
			}
			links, err := v.Links(c, "Work/plan.md")
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range append(links.Outgoing, links.Backlinks...) {
				noCanary(t, "Links", []string{l.Source, l.Target}, nil)
			}
			if len(links.Unresolved) != 2 {
				t.Errorf("links to hidden notes should read as unresolved: %+v", links.Unresolved)
			}
			embeds, err := v.Embeds(c, "Work/plan.md")
			noCanary(t, "Embeds.Target", func() []string {
				var out []string
				for _, e := range embeds {
					out = append(out, e.Target)
				}
				return out
			}(), err)
			for _, name := range []string{"Diary Zebra", "ZebraAlias", "Hidden Zebra Alias", "zebra-photo.png", "secret-zebra", "Work/Health/zebra"} {
				got, err := v.Lookup(c, name)
				if err == nil {
					_, err = v.Read(c, got.Path)
				}
				if code(t, err) != CodeNotFound {
					t.Errorf("Lookup(%s) then Read = %v, want not_found", name, err)
				}
			}
			att, err := v.ReadAttachment(c, "zebra-photo.png", true, 1<<20)
			if code(t, err) != CodeNotFound {
				t.Errorf("ReadAttachment = %v", err)
			}
			noCanary(t, "ReadAttachment", att, nil)
			for _, q := range []Query{
				{Text: "zebra"}, {Text: "zebra diary"}, {Text: "Diary Zebra"}, {Text: "\"zebra text\""}, {Text: "zebra -open"},
				{Text: "health"}, {Text: "ZebraAlias"}, {Text: "[private:true]"}, {Text: "[private]"}, {Text: "[aliases:zebra]"},
				{Text: "file:zebra"}, {Text: "path:zebra"}, {Text: "zebra OR open"}, {Text: "- [ ]"},
				{Text: "zebra", Folder: "ZebraFolder"}, {Text: "zebra", Folder: "Work/Health"}, {Text: "x folder:ZebraFolder"},
				{Folder: "Work"}, {Text: "open", Folder: ".trash"}, {Text: "zebra", Limit: 1}, {Text: "zebra", Folder: ".trash"},
			} {
				page, err := v.SearchPage(c, q)
				noCanary(t, "Search "+q.Text+" in "+q.Folder, page, err)
				for page.NextCursor != "" && err == nil {
					q.Cursor = page.NextCursor
					page, err = v.SearchPage(c, q)
					noCanary(t, "Search next page "+q.Text, page, err)
				}
			}
			if hits := hitPaths(mustSearchIn(t, v, c, "open")); len(hits) != 2 {
				t.Errorf("search open = %v, want the two visible notes", hits)
			}
			d, err := v.Daily(c, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
			if code(t, err) != CodeOutsideScope {
				t.Errorf("Daily outside the scope = %v", err)
			}
			noCanary(t, "Daily", d, err)
		})
	}
}

func TestScopeRefusesWrites(t *testing.T) {
	v, dir := newIndexedVault(t, scopedVault, func(o *Options) { o.Denied = []string{"Denied/**"} })
	c := scopedCtx(t, "Work/**, Shared.md", "Work/Drafts/**", false)
	plan, err := v.Read(c, "Work/plan.md")
	if err != nil {
		t.Fatal(err)
	}
	draft, err := v.Read(c, "Work/Drafts/draft.md")
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	tests := []struct {
		name string
		do   func() error
		want string
	}{
		{"edit a readable note", func() error { _, err := v.Edit(c, "Work/plan.md", plan.Version, "Plan", "X", false); return err }, CodeOutsideScope},
		{"append to a readable note", func() error { _, err := v.Append(c, "Shared.md", "x", ""); return err }, CodeOutsideScope},
		{"edit a hidden note", func() error { _, err := v.Edit(c, "Diary Zebra.md", "v", "a", "b", false); return err }, CodeNotFound},
		{"append to a private note", func() error { _, err := v.Append(c, "Work/Drafts/zebra.md", "x", ""); return err }, CodeNotFound},
		{"create over a private note", func() error { _, err := v.Create(c, "Work/Drafts/zebra.md", "x"); return err }, CodeOutsideScope},
		{"create outside", func() error { _, err := v.Create(c, "ZebraFolder/new.md", "x"); return err }, CodeOutsideScope},
		{"create in a denied folder outside", func() error { _, err := v.Create(c, "Denied/new.md", "x"); return err }, CodeOutsideScope},
		{"create over a hidden note", func() error { _, err := v.Create(c, "Diary Zebra.md", "x"); return err }, CodeOutsideScope},
		{"create a case twin of a private note", func() error { _, err := v.Create(c, "Work/Drafts/ZEBRA.md", "x"); return err }, CodeOutsideScope},
		{"move onto a case twin of a private note", func() error {
			_, err := v.Move(c, "Work/Drafts/draft.md", "Work/Drafts/Zebra.md", draft.Version, false)
			return err
		}, CodeOutsideScope},
		{"create in read-only folder", func() error { _, err := v.Create(c, "Work/new.md", "x"); return err }, CodeOutsideScope},
		{"delete a readable note", func() error { _, err := v.Delete(c, "Work/plan.md", plan.Version); return err }, CodeOutsideScope},
		{"move out of the write scope", func() error {
			_, err := v.Move(c, "Work/Drafts/draft.md", "Shared2.md", draft.Version, false)
			return err
		}, CodeOutsideScope},
		{"move a hidden note", func() error { _, err := v.Move(c, "Diary Zebra.md", "Work/Drafts/d.md", "v", false); return err }, CodeNotFound},
	}
	for _, tt := range tests {
		err := tt.do()
		if code(t, err) != tt.want {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.want)
		}
		noCanary(t, tt.name, nil, err)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("a refused write changed the vault")
	}
	// Inside the write scope everything works, and the scope is named only
	// by the app's own patterns.
	if _, err := v.Create(c, "Work/Drafts/new.md", "fine"); err != nil {
		t.Errorf("create inside the write scope: %v", err)
	}
	_, err = v.Append(c, "Shared.md", "x", "")
	if err == nil || !strings.Contains(err.Error(), "read Work/**, Shared.md; write Work/Drafts/**") {
		t.Errorf("outside_scope should name the app's scope: %v", err)
	}
}

// TestScopeMoveKeepsHiddenLinks: moving a visible note rewrites the links
// of notes the app cannot see, and tells the app only how many.
func TestScopeMoveKeepsHiddenLinks(t *testing.T) {
	v, dir := newIndexedVault(t, scopedVault, nil)
	c := scopedCtx(t, "Work/**", "Work/**", false)
	plan, err := v.Read(c, "Work/plan.md")
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Move(c, "Work/plan.md", "Work/Drafts/plan.md", plan.Version, true)
	if err != nil {
		t.Fatal(err)
	}
	noCanary(t, "Move", res.Rewritten, nil)
	noCanary(t, "Move", res.Linking, nil)
	if len(res.HiddenRewritten) != 1 {
		t.Errorf("hidden rewrites = %+v, want Diary Zebra's", res.HiddenRewritten)
	}
	if got := readFile(t, dir, "Diary Zebra.md"); !strings.Contains(got, "[[Work/Drafts/plan]]") {
		t.Errorf("the hidden note's link was not rewritten: %q", got)
	}
}

// TestScopeOwnerSeesAll: a call without a scope (the console, the admin)
// sees every note, private ones included; a scope with private notes sees
// them, the whole-vault scope without does not.
func TestScopeOwnerSeesAll(t *testing.T) {
	v, _ := newTestVault(t, scopedVault, func(o *Options) { o.Private = []string{"Work/Health/"} })
	for _, p := range []string{"Work/secret-zebra.md", "Work/Health/zebra.md", "Diary Zebra.md"} {
		if _, err := v.Read(context.Background(), p); err != nil {
			t.Errorf("owner Read(%s): %v", p, err)
		}
		if _, err := v.Read(scopedCtx(t, "", "", true), p); err != nil {
			t.Errorf("private scope Read(%s): %v", p, err)
		}
	}
	whole := scopedCtx(t, "", "", false)
	for p, want := range map[string]string{"Work/secret-zebra.md": CodeNotFound, "Work/Health/zebra.md": CodeNotFound, "Diary Zebra.md": ""} {
		_, err := v.Read(whole, p)
		if code(t, err) != want {
			t.Errorf("whole-vault Read(%s) = %v, want %q", p, err, want)
		}
	}
}

// snapshot is every file under dir with its content, as one string.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s\n%s\n", p, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustSearchIn(t *testing.T, v *Vault, c context.Context, q string) []Hit {
	t.Helper()
	hits, err := v.Search(c, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// TestScopeNoteTurnsPrivate: a vault with no private note lets searches
// skip looking at each candidate; once a note is made private (by cortex
// or by another program) it is hidden at once.
func TestScopeNoteTurnsPrivate(t *testing.T) {
	v, dir := newIndexedVault(t, map[string]string{"a.md": "# A\nquokka one\n", "b.md": "# B\nquokka two\n"}, nil)
	app := scopedCtx(t, "", "", false)
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); len(got) != 2 {
		t.Fatalf("before: %v", got)
	}
	n, err := v.Read(context.Background(), "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.UpdateFrontmatter(context.Background(), "a.md", n.Version, map[string]any{"private": true}, nil); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); len(got) != 1 || got[0] != "b.md" {
		t.Errorf("after cortex made a.md private: %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("---\nprivate: on\n---\n# B\nquokka two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, v, "the index to see b.md's change", func() bool { return len(mustSearchIn(t, v, context.Background(), "[private]")) == 2 })
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); len(got) != 0 {
		t.Errorf("after another program made b.md private: %v", got)
	}
	if got := hitPaths(mustSearchIn(t, v, context.Background(), "quokka")); len(got) != 2 {
		t.Errorf("the owner sees both: %v", got)
	}
	// And back: a note no longer private is found again.
	n, err = v.Read(context.Background(), "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.UpdateFrontmatter(context.Background(), "a.md", n.Version, nil, []string{"private"}); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); len(got) != 1 || got[0] != "a.md" {
		t.Errorf("after a.md is private no more: %v", got)
	}
}

// TestScopeHiddenAnswersAsMissing: a note or folder the call may not see
// gets, word for word, the answer of one that is not there (issue 19's
// leak test found each of these through the binary).
func TestScopeHiddenAnswersAsMissing(t *testing.T) {
	v, dir := newIndexedVault(t, scopedVault, nil)
	c := scopedCtx(t, "Work/**, Shared.md", "Work/Drafts/**", false)
	errOf := func(_ any, err error) string {
		var e *Error
		if !errors.As(err, &e) {
			return fmt.Sprintf("no error: %v", err)
		}
		return e.Code + ": " + e.Message
	}
	before := snapshot(t, dir)
	tests := []struct {
		name           string
		hidden, absent func() string
	}{
		// A private note: its version is not compared before it is found.
		{"edit a private note", func() string { return errOf(v.Edit(c, "Work/Drafts/zebra.md", "v", "a", "b", false)) },
			func() string { return errOf(v.Edit(c, "Work/Drafts/zebrx.md", "v", "a", "b", false)) }},
		{"delete a private note", func() string { return errOf(v.Delete(c, "Work/Drafts/zebra.md", "v")) },
			func() string { return errOf(v.Delete(c, "Work/Drafts/zebrx.md", "v")) }},
		// A private note in a folder the call may read but not change.
		{"look up a private note's path", func() string { return errOf(v.Lookup(c, "Work/secret-zebra.md")) },
			func() string { return errOf(v.Lookup(c, "Work/secret-zebrx.md")) }},
		// A folder outside the scope.
		{"look up a hidden folder", func() string { return errOf(v.Lookup(c, "ZebraFolder")) },
			func() string { return errOf(v.Lookup(c, "ZebraFoldex")) }},
		// A private note taken for a folder.
		{"list a private note", func() string { return errOf(v.List(c, "Work/secret-zebra.md", false)) },
			func() string { return errOf(v.List(c, "Work/secret-zebrx.md", false)) }},
		{"search in a private note", func() string { return errOf(v.SearchPage(c, Query{Folder: "Work/secret-zebra.md"})) },
			func() string { return errOf(v.SearchPage(c, Query{Folder: "Work/secret-zebrx.md"})) }},
	}
	for _, tt := range tests {
		hidden, absent := tt.hidden(), strings.ReplaceAll(tt.absent(), "zebrx", "zebra")
		if hidden != strings.ReplaceAll(absent, "ZebraFoldex", "ZebraFolder") {
			t.Errorf("%s: %q; a missing one answers %q", tt.name, hidden, absent)
		}
	}
	// A new note below a private note is refused as one over it is.
	if _, err := v.Create(c, "Work/Drafts/zebra.md/new.md", "x"); code(t, err) != CodeOutsideScope {
		t.Errorf("create below a private note: %v; want %s", err, CodeOutsideScope)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("a refused write changed the vault")
	}
}

// TestScopeDailyTemplatePrivate: a daily-note template private to the app
// is not copied into the note it creates (the app could not see it, and
// the new note would inherit private: true and vanish from its view).
func TestScopeDailyTemplatePrivate(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{
		".obsidian/daily-notes.json": `{"folder":"Daily","template":"Templates/Day"}`,
		"Templates/Day.md":           "---\nprivate: true\n---\n# {{title}}\nsecret plan\n",
	}, nil)
	day := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	d, err := v.Daily(scopedCtx(t, "", "", false), day)
	if err != nil || d.Template != "" {
		t.Errorf("an app without private notes: template %q, %v", d.Template, err)
	}
	d, err = v.Daily(scopedCtx(t, "", "", true), day)
	if err != nil || !strings.Contains(d.Template, "secret plan") {
		t.Errorf("an app with private notes: template %q, %v", d.Template, err)
	}
}

// TestScopePrivacyFromIndex: the index answers whether a note it holds is
// private, so listing, reading and searching every note for an app keeps
// no mark of its own for them; and a mark of a reading since never hides
// a note once the index holds a newer one.
func TestScopePrivacyFromIndex(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{
		"a.md":   "# A\nquokka one\n",
		"b.md":   "---\nprivate: true\n---\n# B\nquokka two\n",
		"c/d.md": "# D\nquokka three\n",
	}, nil)
	app := scopedCtx(t, "", "", false)
	entries, err := v.List(app, "", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Path == "b.md" {
			t.Errorf("the app lists the private note")
		}
		if !e.IsDir {
			if _, err := v.Read(app, e.Path); err != nil {
				t.Errorf("read %s: %v", e.Path, err)
			}
		}
	}
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); len(got) != 2 || slices.Contains(got, "b.md") {
		t.Errorf("the app finds %v", got)
	}
	v.privs.mu.Lock()
	marks := len(v.privs.m)
	v.privs.mu.Unlock()
	if marks != 0 {
		t.Errorf("%d privacy marks kept beside the index", marks)
	}

	// A reading of a.md that said private (as one after an outside edit
	// the index has not seen yet), then cortex writes it public.
	n, err := v.Read(context.Background(), "a.md")
	if err != nil {
		t.Fatal(err)
	}
	v.markPrivate("a.md", n.Size+1, n.Modified.UnixNano()+1, true)
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); slices.Contains(got, "a.md") {
		t.Errorf("a note a reading says is private is found: %v", got)
	}
	if _, err := v.Edit(context.Background(), "a.md", n.Version, "one", "four", false); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); !slices.Contains(got, "a.md") {
		t.Errorf("after cortex wrote a.md public it is not found: %v", got)
	}
}

// TestScopeLookupSeesOutsideChange: a note the index holds as public but
// made private on disk since is looked up for an app that may not see
// private notes as a missing one, whether or not the index has caught up.
func TestScopeLookupSeesOutsideChange(t *testing.T) {
	v, dir := newIndexedVault(t, map[string]string{"a.md": "# A\nquokka\n", "b.md": "# B\n"}, func(o *Options) {
		o.Now = func() time.Time { return time.Now().Add(time.Hour) }
	})
	app := scopedCtx(t, "", "", false)
	if n, err := v.Lookup(app, "a.md"); err != nil || n.Path != "a.md" {
		t.Fatalf("before: %v, %v", n, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("---\nprivate: true\n---\n# A\nquokka\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, hidden := v.Lookup(app, "a.md")
	_, missing := v.Lookup(app, "c.md")
	if code(t, hidden) != code(t, missing) || code(t, hidden) == "" {
		t.Errorf("a note made private looks up as %v; a missing one as %v", hidden, missing)
	}
	if n, err := v.Lookup(context.Background(), "a.md"); err != nil || n.Path != "a.md" {
		t.Errorf("the owner: %v, %v", n, err)
	}
}

// TestScopePrivateCRLF: a note saved with Windows line endings, or by an
// editor that starts the file with a byte order mark, that says private:
// true is as hidden as one saved with Unix ones; the index decides it from
// the raw text, where each line ends in "\r".
func TestScopePrivateCRLF(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{
		"a.md":      "# A\r\nquokka one\r\n",
		"lf.md":     "---\nprivate: true\n---\n# LF\nquokka two\n",
		"crlf.md":   "---\r\nprivate: true\r\n---\r\n# CRLF\r\nquokka three\r\n",
		"broken.md": "---\r\nprivate: yes # mine\r\ntags: [a\r\n---\r\nquokka four\r\n",
		"bom.md":    "\ufeff---\nprivate: true\n---\n# BOM\nquokka five\n",
	}, nil)
	app := scopedCtx(t, "", "", false)
	if got := hitPaths(mustSearchIn(t, v, app, "quokka")); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("an app without private notes finds %v, want only a.md", got)
	}
	for _, p := range []string{"crlf.md", "bom.md"} {
		if _, err := v.Read(app, p); code(t, err) != CodeNotFound {
			t.Errorf("an app without private notes reads %s: %v, want not_found", p, err)
		}
	}
	if got := hitPaths(mustSearchIn(t, v, context.Background(), "quokka")); len(got) != 5 {
		t.Errorf("the owner finds %v, want all five", got)
	}
}

// TestScopePrivateYAMLForms: however the YAML says private: true, the
// index (which decides from the raw text) agrees with a read (which
// parses it), so that search hides what fetch and list hide.
func TestScopePrivateYAMLForms(t *testing.T) {
	forms := map[string]string{
		"indented.md": "---\n  private: true\n  tags: [a]\n---\nquokka\n",
		"tagged.md":   "---\nprivate: !!bool true\n---\nquokka\n",
		"flow.md":     "---\n{private: true, tags: [a]}\n---\nquokka\n",
		"nextline.md": "---\nprivate:\n  true\n---\nquokka\n",
		"anchor.md":   "---\nprivate: &p true\n---\nquokka\n",
		"false.md":    "---\nprivate: false\n---\nquokka\n",
		"prose.md":    "---\nsummary: not private at all\n---\nquokka\n",
		"escaped.md":  "---\n\"\\x70rivate\": true\n---\nquokka\n",
		"joined.md":   "---\n? \"pri\\\n  vate\"\n: yes\n---\nquokka\n",
	}
	for name, c := range forms {
		fm, _ := markdown.ParseFrontmatter(c)
		if got, want := privateText(c), isPrivate(fm.Map, c); got != want {
			t.Errorf("%s: the index says private %v, a read %v", name, got, want)
		}
	}
	v, _ := newIndexedVault(t, forms, nil)
	app := scopedCtx(t, "", "", false)
	if got := sorted(hitPaths(mustSearchIn(t, v, app, "quokka"))); !slices.Equal(got, []string{"false.md", "prose.md"}) {
		t.Errorf("an app without private notes finds %v, want false.md and prose.md", got)
	}
}

// FuzzPrivateAgrees: for any note text, the index and a read agree on
// whether it is private.
func FuzzPrivateAgrees(f *testing.F) {
	for _, s := range []string{
		"---\nprivate: true\n---\nx\n", "---\r\nprivate: yes\r\n---\r\n", "---\n  private: on\n---\n",
		"---\nprivate: !!bool true\n---\n", "---\n{private: true}\n---\n", "---\nprivate:\n  true\n---\n",
		"---\n\"\\x70rivate\": true\n---\n", "---\n? \"pri\\\n  vate\"\n: yes\n---\n", "---\nprivate: false\n---\n",
		"---\nprivate: \"TRUE \"\n---\n", "---\nprivate: [true]\n---\n", "---\na: &p true\nprivate: *p\n---\n",
		"---\nprivate: true\nprivate: false\n---\n", "# no frontmatter\n", "---\nprivate: true\n",
		"\ufeff---\nprivate: true\n---\n", "\ufeff---\r\nprivate: yes\r\n---\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		fm, _ := markdown.ParseFrontmatter(content)
		if got, want := privateText(content), isPrivate(fm.Map, content); got != want {
			t.Errorf("%q: the index says private %v, a read %v", content, got, want)
		}
	})
}

// TestScopeCreateOverHiddenLink: a symbolic link whose note cortex cannot
// check (it points out of its folder) is hidden from an app without
// private notes, as a private note is; creating a note there answers
// outside_scope, as over a private note, not note_exists.
func TestScopeCreateOverHiddenLink(t *testing.T) {
	v, dir := newIndexedVault(t, map[string]string{"Out.md": "# Out\n", "Work/a.md": "# A\n"}, nil)
	if err := os.Symlink("../Out.md", filepath.Join(dir, "Work", "link.md")); err != nil {
		t.Fatal(err)
	}
	c := scopedCtx(t, "", "", false)
	if _, err := v.Lookup(c, "Work/link.md"); code(t, err) != CodeNotFound {
		t.Fatalf("Lookup of the link = %v, want not_found", err)
	}
	if _, err := v.Create(c, "Work/link.md", "x"); code(t, err) != CodeOutsideScope {
		t.Errorf("Create over the link = %v, want outside_scope", err)
	}
	if _, err := v.Create(context.Background(), "Work/link.md", "x"); code(t, err) != CodeNoteExists {
		t.Errorf("the owner's Create over the link = %v, want note_exists", err)
	}
}
