package vault

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// A miss offers up to five close names, by title, file name, alias and
// path, closest first.
func TestLookupMissOffersCloseNames(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{
		"Projects/Garden Planning.md": "# Garden Planning\n",
		"Projects/Garden Redesign.md": "---\naliases: [backyard plan]\n---\n# Garden Redesign\n",
		"Kitchen.md":                  "---\ntitle: Cooking Log\n---\n# Kitchen\n",
		"Notes/n1.md":                 "# Meeting 1\n", "Notes/n2.md": "# Meeting 2\n", "Notes/n3.md": "# Meeting 3\n",
		"Notes/n4.md": "# Meeting 4\n", "Notes/n5.md": "# Meeting 5\n", "Notes/n6.md": "# Meeting 6\n",
	}, nil)
	for _, tt := range []struct {
		name  string
		first string
		n     int
	}{
		{"Garden Plann", "Projects/Garden Planning.md", 2},
		{"garden planing", "Projects/Garden Planning.md", 2},
		{"Planning Garden", "Projects/Garden Planning.md", 1},
		{"Projects/Garden Planing.md", "Projects/Garden Planning.md", 2},
		{"backyard plann", "Projects/Garden Redesign.md", 1},
		{"Cooking Lgo", "Kitchen.md", 1},
		{"Meeting", "Notes/n1.md", 5},
		{"Zzyzx", "", 0},
	} {
		_, err := v.Lookup(ctx, tt.name)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeNotFound {
			t.Fatalf("Lookup(%q) = %v, want not_found", tt.name, err)
		}
		if len(e.Candidates) != tt.n || tt.n > 0 && e.Candidates[0] != tt.first {
			t.Errorf("Lookup(%q) candidates %q; want %d, first %q", tt.name, e.Candidates, tt.n, tt.first)
		}
		if (tt.n > 0) != strings.Contains(e.Message, "candidates") {
			t.Errorf("Lookup(%q) message %q", tt.name, e.Message)
		}
	}
}

// No name the call may not see is ever offered: not one outside its
// folders, private by frontmatter or by pattern, denied, or known to it
// only by an alias of a hidden note.
func TestCloseNamesRespectScope(t *testing.T) {
	v, _ := newIndexedVault(t, scopedVault, func(o *Options) { o.Denied = []string{"Denied/**"}; o.Private = []string{"Work/Health/"} })
	c := scopedCtx(t, "Work/**, Shared.md", "Work/Drafts/**", false)
	for _, name := range []string{"Diary Zebr", "ZebraAlia", "Hidden Zebra Alia", "Work/secret-zebr", "Zebra secrt",
		"Work/Health/zebr", "zebra-deny", "zebra", "Work/Drafts/zebr", "Work/pla", "Shard"} {
		_, err := v.Lookup(c, name)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeNotFound {
			t.Fatalf("Lookup(%q) = %v, want not_found", name, err)
		}
		noCanary(t, "close names of "+name, e.Candidates, nil)
	}
	_, err := v.Lookup(c, "Shard")
	if e := err.(*Error); !slices.Equal(e.Candidates, []string{"Shared.md"}) {
		t.Errorf("Lookup(Shard) candidates %q, want Shared.md", e.Candidates)
	}
}

func TestMissingBlockListsBlocks(t *testing.T) {
	text := "---\nx: ^front\n---\n# Homelab\n\nRack it. ^rack\n\n- disks ^disks-2\n\n```\nnot ^code\n```\nA footnote[^1].\n\n[^1]: note\n\n| a |\n^table\n"
	_, err := Block(text, "rak")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeSectionNotFound || !slices.Equal(e.Candidates, []string{"^rack", "^disks-2", "^table"}) {
		t.Errorf("Block(rak) = %v %q; want section_not_found listing ^rack ^disks-2 ^table", err, e.Candidates)
	}
	_, err = Block("# No blocks\n", "x")
	if !errors.As(err, &e) || len(e.Candidates) != 0 || e.Message == "" {
		t.Errorf("Block in a note without blocks = %v %q", err, e.Candidates)
	}
	ids, more := markdown.BlockIDs("a ^a\n\nb ^b\n\nc ^c\n", 2)
	if !slices.Equal(ids, []string{"a", "b"}) || more != 1 {
		t.Errorf("BlockIDs capped at 2 = %q, %d more", ids, more)
	}
}
