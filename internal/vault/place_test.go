package vault

import (
	"context"
	"testing"
)

// AppendAt puts text where it belongs without changing a byte of what was
// there: at the start (after the frontmatter), at the start of a section,
// after a block (kept a block of its own, so the block id stays at the
// end of its block), joining a list when both are list items.
func TestAppendAt(t *testing.T) {
	const note = "---\ntags: [a]\n---\n# Plan\nIntro line.\n\n## Tasks\n- [ ] dig ^dig\n- [ ] sow\n\n## Notes\nSoil is clay. ^soil\nMore text.\n"
	cases := []struct {
		name string
		text string
		at   Place
		want string
	}{
		{"start", "Summary first.", Place{Start: true},
			"---\ntags: [a]\n---\nSummary first.\n\n# Plan\nIntro line.\n\n## Tasks\n- [ ] dig ^dig\n- [ ] sow\n\n## Notes\nSoil is clay. ^soil\nMore text.\n"},
		{"section start", "- [ ] plan\n", Place{Section: "Tasks", Start: true},
			"---\ntags: [a]\n---\n# Plan\nIntro line.\n\n## Tasks\n- [ ] plan\n- [ ] dig ^dig\n- [ ] sow\n\n## Notes\nSoil is clay. ^soil\nMore text.\n"},
		{"after a list item", "- [ ] water", Place{Block: "^dig"},
			"---\ntags: [a]\n---\n# Plan\nIntro line.\n\n## Tasks\n- [ ] dig ^dig\n- [ ] water\n- [ ] sow\n\n## Notes\nSoil is clay. ^soil\nMore text.\n"},
		{"after a paragraph line", "Add compost.", Place{Block: "soil"},
			"---\ntags: [a]\n---\n# Plan\nIntro line.\n\n## Tasks\n- [ ] dig ^dig\n- [ ] sow\n\n## Notes\nSoil is clay. ^soil\n\nAdd compost.\n\nMore text.\n"},
		{"end is append", "The end.", Place{},
			"---\ntags: [a]\n---\n# Plan\nIntro line.\n\n## Tasks\n- [ ] dig ^dig\n- [ ] sow\n\n## Notes\nSoil is clay. ^soil\nMore text.\nThe end.\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := newTestVault(t, map[string]string{"Plan.md": note}, nil)
			if _, err := v.AppendAt(context.Background(), "Plan.md", tc.text, tc.at); err != nil {
				t.Fatal(err)
			}
			n, err := v.Read(context.Background(), "Plan.md")
			if err != nil {
				t.Fatal(err)
			}
			if n.Content != tc.want {
				t.Errorf("got\n%q\nwant\n%q", n.Content, tc.want)
			}
		})
	}
}

// A note with Windows line ends keeps them; a note without frontmatter
// takes text at its very start.
func TestAppendAtLineEnds(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{"W.md": "First.\r\nSecond. ^b\r\n", "N.md": "# N\nbody\n"}, nil)
	ctx := context.Background()
	if _, err := v.AppendAt(ctx, "W.md", "Third.\n", Place{Block: "b"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := v.Read(ctx, "W.md"); n.Content != "First.\r\nSecond. ^b\r\n\r\nThird.\r\n" {
		t.Errorf("W.md = %q", n.Content)
	}
	if _, err := v.AppendAt(ctx, "N.md", "Top.", Place{Start: true}); err != nil {
		t.Fatal(err)
	}
	if n, _ := v.Read(ctx, "N.md"); n.Content != "Top.\n\n# N\nbody\n" {
		t.Errorf("N.md = %q", n.Content)
	}
}

// A place that does not exist is refused and nothing is written.
func TestAppendAtRefusals(t *testing.T) {
	const note = "# N\ntext ^here\n"
	v, _ := newTestVault(t, map[string]string{"N.md": note}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		at   Place
		code string
	}{
		{Place{Block: "nope"}, CodeSectionNotFound},
		{Place{Section: "Missing", Start: true}, CodeSectionNotFound},
		{Place{Block: "here", Section: "N"}, CodeInvalidArgument},
		{Place{Block: "here", Start: true}, CodeInvalidArgument},
	} {
		if _, err := v.AppendAt(ctx, "N.md", "x", tc.at); code(t, err) != tc.code {
			t.Errorf("AppendAt(%+v) = %v, want %s", tc.at, err, tc.code)
		}
	}
	if _, err := v.AppendAt(ctx, "N.md", "", Place{Start: true}); code(t, err) != CodeInvalidArgument {
		t.Errorf("empty text: %v", err)
	}
	if n, _ := v.Read(ctx, "N.md"); n.Content != note {
		t.Errorf("a refused call changed the note: %q", n.Content)
	}
}
