package vault

import (
	"testing"
)

// TestScopeBacklinksResolveAsSeen: a visible note's link that the app
// sees resolve to Work/Plan.md (its outgoing links resolve among the notes
// it may see) is a backlink of Work/Plan.md for it too, though a hidden
// note of the same name would win the resolution among every note.
func TestScopeBacklinksResolveAsSeen(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{
		"Work/Plan.md":   "# Plan\n",
		"Work/A.md":      "see [[Plan]]\n",
		"Plan.md":        "---\nprivate: true\n---\nzebra\n",
		"Secret/Plan.md": "zebra\n",
	}, nil)
	c := scopedCtx(t, "Work/", "", false)
	out, err := v.Links(c, "Work/A.md")
	if err != nil {
		t.Fatal(err)
	}
	back, err := v.Links(c, "Work/Plan.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Outgoing) != 1 || out.Outgoing[0].Target != "Work/Plan.md" || len(back.Backlinks) != 1 {
		t.Errorf("outgoing %+v, backlinks %+v: the two views disagree", out.Outgoing, back.Backlinks)
	}
}

// TestScopeDeleteTrashNameHidesPrivate: deleting a note the app may change
// names the trash path it went to; a " (2)" there tells that the trash
// already holds a note of that name, though the app may not see it
// (private by its frontmatter).
func TestScopeDeleteTrashNameHidesPrivate(t *testing.T) {
	t.Skip("finding: Delete's \" (n)\" trash name counts trashed notes the app may not see (trash.go Delete); not fixed")
	v, _ := newTestVault(t, map[string]string{
		"Work/Note.md":        "# Note\n",
		".trash/Work/Note.md": "---\nprivate: true\n---\nzebra\n",
	}, nil)
	c := scopedCtx(t, "Work/", "Work/", false)
	n, err := v.Read(c, "Work/Note.md")
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Delete(c, "Work/Note.md", n.Version)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != ".trash/Work/Note.md" {
		t.Logf("trashed to %s", r.Path)
		t.Errorf("the trash name tells of a hidden trashed note: %s", r.Path)
	}
}
