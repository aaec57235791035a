package vault

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
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
// names the trash path it went to. That name must be the one the app would
// get were the notes it may not see not there: a " (2)" would tell that
// the trash already holds a note of that name, private by its frontmatter
// or outside the app's patterns. The hidden note is left as it was.
func TestScopeDeleteTrashNameHidesPrivate(t *testing.T) {
	cases := []struct {
		name, read   string
		private      bool
		seen, hidden map[string]string
	}{
		{"private by its frontmatter", "Work/", false, nil,
			map[string]string{".trash/Work/Note.md": "---\nprivate: true\n---\nzebra\n"}},
		{"outside the patterns", "Work/Note.md", true, map[string]string{".trash/Work/Note.md": "# Seen\n"},
			map[string]string{".trash/Work/Note (2).md": "zebra\n"}},
	}
	for _, tc := range cases {
		names := map[bool]string{}
		for _, withHidden := range []bool{false, true} {
			files := map[string]string{"Work/Note.md": "# Note\n"}
			maps.Copy(files, tc.seen)
			if withHidden {
				maps.Copy(files, tc.hidden)
			}
			v, dir := newTestVault(t, files, nil)
			c := scopedCtx(t, tc.read, tc.read, tc.private)
			n, err := v.Read(c, "Work/Note.md")
			if err != nil {
				t.Fatal(err)
			}
			r, err := v.Delete(c, "Work/Note.md", n.Version)
			if err != nil {
				t.Fatal(err)
			}
			names[withHidden] = r.Path
			if got, err := v.Read(asOwner(c), r.Path); err != nil || got.Content != "# Note\n" {
				t.Errorf("%s: the trashed note at %s reads %+v, %v", tc.name, r.Path, got, err)
			}
			for p, want := range files {
				if p == "Work/Note.md" {
					continue
				}
				if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != want {
					t.Errorf("%s: %s became %q, %v", tc.name, p, b, err)
				}
			}
		}
		if names[true] != names[false] || !strings.HasPrefix(names[false], ".trash/Work/Note") {
			t.Errorf("%s: trashed to %s beside a hidden note, %s without it", tc.name, names[true], names[false])
		}
	}
}
