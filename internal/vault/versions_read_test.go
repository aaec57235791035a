package vault

import (
	"context"
	"testing"
	"time"
)

// An earlier version is ruled by the caller's scope as the note is: a
// hidden path and a version marked private (for a scope without private
// notes) are not found, exactly as a missing note; the owner sees all.
func TestEarlierNoteFollowsScope(t *testing.T) {
	v, _ := newTestVault(t, scopedVault, func(o *Options) { o.Private = []string{"Work/Health/"} })
	c := scopedCtx(t, "Work/**, Shared.md", "Work/Drafts/**", false)
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	n, err := v.EarlierNote(c, "Work/plan.md", "---\ntags: [a]\n---\n# Old plan\nwas here\n", at)
	if err != nil {
		t.Fatal(err)
	}
	if n.Title != "Old plan" || n.Version != versionOf([]byte(n.Content)) || !n.Modified.Equal(at) || len(n.Tags) != 1 {
		t.Errorf("earlier note = %+v", n)
	}
	cases := []struct{ path, content string }{
		{"Diary Zebra.md", "old diary\n"},                     // outside the scope
		{"Work/Health/zebra.md", "old health\n"},              // private by pattern
		{"Work/plan.md", "---\nprivate: true\n---\nold\n"},    // private then
		{"Work/plan.md", "---\nprivate: yes\ntags: [\n---\n"}, // private, broken YAML
	}
	for _, tc := range cases {
		_, err := v.EarlierNote(c, tc.path, tc.content, at)
		if code(t, err) != CodeNotFound || err.Error() != newErr(CodeNotFound, reasonNone, nil).Error() {
			t.Errorf("EarlierNote(%s, %q) = %v, want the missing note's not_found", tc.path, tc.content, err)
		}
	}
	if _, err := v.EarlierNote(context.Background(), "Work/plan.md", "---\nprivate: true\n---\nold\n", at); err != nil {
		t.Errorf("the owner is refused an earlier private version: %v", err)
	}
	pc := scopedCtx(t, "Work/**", "", true)
	if _, err := v.EarlierNote(pc, "Work/plan.md", "---\nprivate: true\n---\nold\n", at); err != nil {
		t.Errorf("a scope with private notes is refused an earlier private version: %v", err)
	}
}
