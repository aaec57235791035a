package vault

import (
	"slices"
	"testing"
)

func TestAppend(t *testing.T) {
	const doc = "# Title\nintro\n\n## Tasks\n- one\n\n## Notes\ntext"
	tests := []struct {
		name, content, text, section, want, code string
	}{
		{"end", "a\n", "b", "", "a\nb\n", ""},
		{"end without newline", "a", "b\n", "", "a\nb\n", ""},
		{"empty note", "", "b", "", "b\n", ""},
		{"section", doc, "- two", "Tasks", "# Title\nintro\n\n## Tasks\n- one\n- two\n\n## Notes\ntext", ""},
		{"section with level", doc, "- two", "## Tasks", "# Title\nintro\n\n## Tasks\n- one\n- two\n\n## Notes\ntext", ""},
		{"last section", doc, "more", "Notes", doc + "\nmore\n", ""},
		{"empty section", "## A\n## B\n", "x", "A", "## A\nx\n## B\n", ""},
		{"crlf", "# T\r\none\r\n", "two\nthree", "", "# T\r\none\r\ntwo\r\nthree\r\n", ""},
		{"after a block id", "a ^x\n", "b", "", "a ^x\n\nb\n", ""},
		{"after a block id without newline", "a ^x", "b", "", "a ^x\n\nb\n", ""},
		{"after a block id alone", "| t |\n^x\n", "b", "", "| t |\n^x\n\nb\n", ""},
		{"after a block id, crlf", "a ^x\r\n", "b", "", "a ^x\r\n\r\nb\r\n", ""},
		{"text after a list item with a block id", "- a ^x\n", "b", "", "- a ^x\n\nb\n", ""},
		{"list item after a list item with a block id", "- a ^x\n", "- b", "", "- a ^x\n- b\n", ""},
		{"section ending in a block id", "## A\nt ^x\n\n## B\n", "u", "A", "## A\nt ^x\n\nu\n\n## B\n", ""},
		{"blank line sent after a block id", "a ^x\n", "\nb", "", "a ^x\n\nb\n", ""},
		{"caret inside a word", "a^x\n", "b", "", "a^x\nb\n", ""},
		{"missing section", doc, "x", "Nope", doc, CodeSectionNotFound},
		{"ambiguous", "## A\n1\n## A\n2\n", "x", "A", "## A\n1\n## A\n2\n", CodeSectionAmbiguous},
		{"empty text", doc, "", "", doc, CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := newTestVault(t, map[string]string{"n.md": tt.content}, nil)
			res, err := v.Append(ctx, "n.md", tt.text, tt.section)
			wantCode(t, err, tt.code)
			if got := readFile(t, dir, "n.md"); got != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
			if err == nil && (res.OldVersion != ver(tt.content) || res.Version != ver(tt.want)) {
				t.Errorf("result = %+v", res)
			}
			if e, ok := err.(*Error); ok && e.Code == CodeSectionAmbiguous && len(e.Candidates) != 2 {
				t.Errorf("Candidates = %v", e.Candidates)
			}
		})
	}
	v, _ := newTestVault(t, nil, func(o *Options) { o.MaxWrite = 3 })
	_, err := v.Append(ctx, "missing.md", "x", "")
	wantCode(t, err, CodeNotFound)
	_, err = v.Append(ctx, "missing.md", "long", "")
	wantCode(t, err, CodeWriteTooLarge)
}

func TestReplaceSection(t *testing.T) {
	const doc = "# Title\nintro\n\n## Tasks\n- one\n- two\n\n## Notes\ntext\n"
	tests := []struct {
		name, content, heading, body, want, code string
		subsections                              bool
	}{
		{"middle", doc, "Tasks", "- done", "# Title\nintro\n\n## Tasks\n- done\n\n## Notes\ntext\n", "", false},
		{"keeps own blank line", doc, "Tasks", "- done\n\n", "# Title\nintro\n\n## Tasks\n- done\n\n## Notes\ntext\n", "", false},
		{"keeps the blank line before the next heading, crlf", "## A\r\nold\r\n\r\n## B\r\n", "A", "new", "## A\r\nnew\r\n\r\n## B\r\n", "", false},
		{"empty middle section keeps its blank line", "## A\nold\n\n## B\n", "A", "", "## A\n\n## B\n", "", false},
		{"keeps the blank line under the heading", "## A\n\nold\n\n## B\n", "A", "new", "## A\n\nnew\n\n## B\n", "", false},
		{"keeps both blank lines, crlf", "## A\r\n\r\nold\r\n\r\n## B\r\n", "A", "new", "## A\r\n\r\nnew\r\n\r\n## B\r\n", "", false},
		{"blank line under the heading sent too", "## A\n\nold\n", "A", "\nnew", "## A\n\nnew\n", "", false},
		{"empty body under a blank line", "## A\n\nold\n", "A", "", "## A\n", "", false},
		{"last", doc, "## Notes", "new", "# Title\nintro\n\n## Tasks\n- one\n- two\n\n## Notes\nnew\n", "", false},
		{"empty body", doc, "Notes", "", "# Title\nintro\n\n## Tasks\n- one\n- two\n\n## Notes\n", "", false},
		{"whole note under h1", doc, "Title", "only", "# Title\nonly\n", "", true},
		{"h1 over subsections refused", doc, "Title", "only", doc, CodeSectionHasSubsections, false},
		{"h1 without subsections", "# Title\nintro\n", "Title", "only", "# Title\nonly\n", "", false},
		{"h2 over an h3", "## A\nx\n### B\ny\n## C\n", "A", "z", "## A\nx\n### B\ny\n## C\n", CodeSectionHasSubsections, false},
		{"h2 with its h3", "## A\nx\n### B\ny\n## C\n", "A", "z", "## A\nz\n## C\n", "", true},
		{"h3 beside its h2", "## A\nx\n### B\ny\n## C\n", "B", "z", "## A\nx\n### B\nz\n## C\n", "", false},
		{"heading in a code block is no subsection", "## A\n```\n# not a heading\n```\n", "A", "z", "## A\nz\n", "", false},
		{"heading at end without newline", "## A", "A", "x", "## A\nx\n", "", false},
		{"missing", doc, "Nope", "x", doc, CodeSectionNotFound, false},
		{"blank heading", doc, " ", "x", doc, CodeInvalidArgument, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := newTestVault(t, map[string]string{"n.md": tt.content}, nil)
			_, err := v.ReplaceSection(ctx, "n.md", ver(tt.content), tt.heading, tt.body, tt.subsections)
			wantCode(t, err, tt.code)
			if got := readFile(t, dir, "n.md"); got != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
		})
	}
	v, _ := newTestVault(t, map[string]string{"n.md": doc}, nil)
	_, err := v.ReplaceSection(ctx, "n.md", "", "Tasks", "x", false)
	wantCode(t, err, CodeVersionRequired)
	_, err = v.ReplaceSection(ctx, "n.md", ver("x"), "Tasks", "x", false)
	wantCode(t, err, CodeNoteChanged)

	// The refusal names the subsections that would have gone.
	_, err = v.ReplaceSection(ctx, "n.md", ver(doc), "# Title", "x", false)
	e := errOf(t, err, CodeSectionHasSubsections)
	if want := []string{"## Tasks (line 4)", "## Notes (line 8)"}; !slices.Equal(e.Candidates, want) || e.More != 0 {
		t.Errorf("candidates %v (more %d), want %v", e.Candidates, e.More, want)
	}
}

func TestUpdateFrontmatter(t *testing.T) {
	tests := []struct {
		name, content string
		set           map[string]any
		remove        []string
		want, code    string
	}{
		{"add block", "body\n", map[string]any{"status": "done"}, nil, "---\nstatus: done\n---\nbody\n", ""},
		{"set and remove", "---\na: 1\nb: 2\n---\nbody\n", map[string]any{"a": 3.0}, []string{"b"}, "---\na: 3\n---\nbody\n", ""},
		{"malformed", "---\na: [\n---\nbody\n", map[string]any{"a": 1.0}, nil, "---\na: [\n---\nbody\n", CodeBadFrontmatter},
		{"empty key", "body\n", map[string]any{" ": 1.0}, nil, "body\n", CodeInvalidArgument},
		{"nothing", "body\n", nil, nil, "body\n", CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := newTestVault(t, map[string]string{"n.md": tt.content}, nil)
			_, err := v.UpdateFrontmatter(ctx, "n.md", ver(tt.content), tt.set, tt.remove)
			wantCode(t, err, tt.code)
			if got := readFile(t, dir, "n.md"); got != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
		})
	}
	v, _ := newTestVault(t, map[string]string{"n.md": "x"}, func(o *Options) { o.MaxWrite = 10 })
	_, err := v.UpdateFrontmatter(ctx, "n.md", ver("x"), map[string]any{"long": "a value longer than ten bytes"}, nil)
	wantCode(t, err, CodeWriteTooLarge)
}
