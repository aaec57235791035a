package vault

import (
	"strings"
	"testing"
	"time"
)

// TestScopeTrashKeepsRules: a note in the trash is judged by where it was,
// the " (2)" suffix of a second delete, the " (version)" suffix of a
// delete by an app and the deny rules included.
func TestScopeTrashKeepsRules(t *testing.T) {
	files := map[string]string{
		"Work/plan.md":                           "# Plan\n",
		".trash/Work/Secret (2).md":              "zebra second delete\n",
		".trash/Work/Secret.md":                  "zebra first delete\n",
		".trash/Work/Secret (0123456789ab).md":   "zebra deleted by an app\n",
		".trash/Work/Secret (0123456789ab 2).md": "zebra deleted by an app again\n",
		".trash/Diary (3).md":                    "zebra private by pattern\n",
		".trash/Denied/zebra-deny.md":            "zebra denied, deleted by hand\n",
		".trash/Work/Notes (draft).md":           "open, not a suffix\n",
	}
	mod := func(o *Options) { o.Denied = []string{"Denied/**"}; o.Private = []string{"Diary.md"} }
	v, _ := newTestVault(t, files, mod)
	c := scopedCtx(t, "Work/**, !Work/Secret.md, Diary.md", "", false)
	for _, p := range []string{".trash/Work/Secret.md", ".trash/Work/Secret (2).md", ".trash/Diary (3).md",
		".trash/Work/Secret (0123456789ab).md", ".trash/Work/Secret (0123456789ab 2).md"} {
		n, err := v.Read(c, p)
		if code(t, err) != CodeNotFound {
			t.Errorf("Read(%s) = %v, want not_found", p, err)
		}
		noCanary(t, "Read "+p, n, nil)
	}
	if _, err := v.Read(c, ".trash/Work/Notes (draft).md"); err != nil {
		t.Errorf("a visible trashed note: %v", err)
	}
	// --private Diary.md covers its trashed copies for every app without
	// private notes, the whole-vault scope included.
	whole := scopedCtx(t, "", "", false)
	if _, err := v.Read(whole, ".trash/Diary (3).md"); code(t, err) != CodeNotFound {
		t.Errorf("Read of a private note's second trashed copy = %v, want not_found", err)
	}
	// Denied is denied for everyone, in the trash too.
	all := scopedCtx(t, "", "", true)
	if n, err := v.Read(all, ".trash/Denied/zebra-deny.md"); err == nil {
		t.Errorf("a denied note in the trash was read: %q", n.Content)
	}
	entries, err := v.List(c, ".trash", true)
	noCanary(t, "List .trash", entries, err)
	entries, err = v.List(whole, ".trash", true)
	noCanary(t, "List .trash, whole scope", trashOnly(entries, "Work/Secret"), err)
	page, err := v.SearchPage(c, Query{Text: "zebra"})
	noCanary(t, "Search", page, err)
	page, err = v.SearchPage(all, Query{Text: "zebra denied"})
	noCanary(t, "Search, all notes", page, err)
	w := scopedCtx(t, "Work/**, !Work/Secret.md", "Work/**", false)
	if _, err := v.Move(w, "Work/plan.md", ".trash/Work/Secret (3).md", "x", false); code(t, err) != CodeOutsideScope {
		t.Errorf("a move to a hidden note's trash name = %v, want %s", err, CodeOutsideScope)
	}
}

// trashOnly drops the entries whose path holds skip (notes the scope may
// see).
func trashOnly(entries []Entry, skip string) []Entry {
	var out []Entry
	for _, e := range entries {
		if !strings.Contains(e.Path, skip) {
			out = append(out, e)
		}
	}
	return out
}

// TestScopeConflictCopyHidden: a conflict copy of a note the scope leaves
// out is left out too.
func TestScopeConflictCopyHidden(t *testing.T) {
	files := map[string]string{
		"Work/plan.md": "# Plan\n",
		"Work/Secret.sync-conflict-20260101-120000-ABCDEFG.md": "zebra conflict\n",
	}
	v, _ := newTestVault(t, files, nil)
	c := scopedCtx(t, "Work/**, !Work/Secret.md", "", false)
	n, err := v.Read(c, "Work/Secret.sync-conflict-20260101-120000-ABCDEFG.md")
	if code(t, err) != CodeNotFound {
		t.Errorf("Read of a hidden note's conflict copy = %v, want not_found", err)
	}
	noCanary(t, "Read", n, nil)
}

// TestScopeDailyPrivateAnswersAsMissing: a daily note private to the app
// is reported as not there yet, as a missing one is, not as existing (the
// fetch that followed answered not_found where a missing day's answer
// says that there is no daily note yet).
func TestScopeDailyPrivateAnswersAsMissing(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{
		"Daily/2026-12-02.md": "---\nprivate: true\n---\nzebra day\n",
	}, nil)
	day := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	hidden, err := v.Daily(scopedCtx(t, "", "", false), day)
	if err != nil {
		t.Fatal(err)
	}
	missing, err := v.Daily(scopedCtx(t, "", "", false), day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if hidden.Exists != missing.Exists || hidden.Template != missing.Template {
		t.Errorf("a private daily note: %+v; a missing one: %+v", hidden, missing)
	}
	if d, err := v.Daily(scopedCtx(t, "", "", true), day); err != nil || !d.Exists {
		t.Errorf("an app with private notes: %+v, %v", d, err)
	}
}

// TestScopeConflictsListPrivateCopy: a note's conflict copies are listed
// only when the app may see them, frontmatter included.
func TestScopeConflictsListPrivateCopy(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{
		"Work/plan.md": "# Plan\n",
		"Work/plan.sync-conflict-20260101-120000-ABCDEFG.md": "---\nprivate: true\n---\nzebra\n",
	}, nil)
	n, err := v.Read(scopedCtx(t, "Work/", "", false), "Work/plan.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Conflicts) != 0 {
		t.Errorf("a private conflict copy is listed: %v", n.Conflicts)
	}
	n, err = v.Read(scopedCtx(t, "Work/", "", true), "Work/plan.md")
	if err != nil || len(n.Conflicts) != 1 {
		t.Errorf("an app with private notes: %v, %v", n, err)
	}
}
