package vault

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestScopeBelowPrivateAnswersAsMissing: a path below a note the app may
// not see (private by its frontmatter) answers, for every call, what a path
// below nothing answers, not that a file is in the way; and so do the other
// spellings of a hidden note's path.
func TestScopeBelowPrivateAnswersAsMissing(t *testing.T) {
	v, _ := newIndexedVault(t, scopedVault, func(o *Options) { o.Private = []string{"Work/Health/"} })
	c := scopedCtx(t, "Work/**, Shared.md", "Work/Drafts/**", false)
	errOf := func(_ any, err error) string {
		var e *Error
		if !errors.As(err, &e) {
			return fmt.Sprintf("no error: %v", err)
		}
		return e.Code + ": " + e.Message
	}
	ops := map[string]func(p string) string{
		"read":   func(p string) string { return errOf(v.Read(c, p)) },
		"lookup": func(p string) string { return errOf(v.Lookup(c, p)) },
		"links":  func(p string) string { return errOf(v.Links(c, p)) },
		"embeds": func(p string) string { return errOf(v.Embeds(c, p)) },
		"att":    func(p string) string { return errOf(v.ReadAttachment(c, p, true, 1000)) },
		"append": func(p string) string { return errOf(v.Append(c, p, "x", "")) },
		"edit":   func(p string) string { return errOf(v.Edit(c, p, "v", "a", "b", false)) },
		"delete": func(p string) string { return errOf(v.Delete(c, p, "v")) },
		"movefr": func(p string) string { return errOf(v.Move(c, p, "Work/Drafts/n.md", "v", false)) },
		"moveto": func(p string) string { return errOf(v.Move(c, "Work/Drafts/draft.md", p, "v", false)) },
		"list":   func(p string) string { return errOf(v.List(c, p, false)) },
		"search": func(p string) string { return errOf(v.SearchPage(c, Query{Folder: p})) },
	}
	for _, pair := range [][2]string{
		{"Work/Drafts/zebra.md/x.md", "Work/Drafts/zebrx.md/x.md"},
		{"Work/secret-zebra.md/x.md", "Work/secret-zebrx.md/x.md"},
		{"Work/secret-zebra.md/x.png", "Work/secret-zebrx.md/x.png"},
		{"Work/Drafts/zebra.md", "Work/Drafts/zebrx.md"},
		{"Work/Health/zebra.md", "Work/Health/zebrx.md"},
		{"work/secret-zebra.md", "work/secret-zebrx.md"},
		{"Work/secret-zebra.md.", "Work/secret-zebrx.md."},
		{"Work/Drafts/ZEBRA.md", "Work/Drafts/ZEBRX.md"},
	} {
		for name, op := range ops {
			h := op(pair[0])
			a := op(pair[1])
			a = strings.NewReplacer("zebrx", "zebra", "ZEBRX", "ZEBRA", "Healtx", "Health").Replace(a)
			if h != a {
				t.Errorf("%s %s: %q; missing answers %q", name, pair[0], h, a)
			}
		}
	}
}
