package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errOf returns err as an *Error, failing the test when it is not one.
func errOf(t *testing.T, err error, code string) *Error {
	t.Helper()
	wantCode(t, err, code)
	var ve *Error
	errors.As(err, &ve)
	return ve
}

func TestSizeErrorsNameLimitAndSize(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "a\n", "big.md": strings.Repeat("x", 3000)},
		func(o *Options) { o.MaxWrite = 1 << 10; o.MaxNote = 2048 })
	_, err := v.Create(ctx, "n.md", strings.Repeat("y", 1536))
	e := errOf(t, err, CodeWriteTooLarge)
	if !strings.Contains(e.Message, "1.5 KiB (1536 bytes)") || !strings.Contains(e.Message, "1 KiB (1024 bytes)") {
		t.Errorf("message = %q", e.Message)
	}
	_, err = v.Read(ctx, "big.md")
	e = errOf(t, err, CodeNoteTooLarge)
	if !strings.Contains(e.Message, "2.9 KiB (3000 bytes)") || !strings.Contains(e.Message, "2 KiB (2048 bytes)") {
		t.Errorf("message = %q", e.Message)
	}
	for range 3 {
		_, err = v.Append(ctx, "a.md", strings.Repeat("z", 1000), "")
	}
	e = errOf(t, err, CodeNoteTooLarge)
	if !strings.Contains(e.Message, "would grow to 2.9 KiB (3005 bytes)") {
		t.Errorf("message = %q", e.Message)
	}
	if got := readFile(t, dir, "a.md"); len(got) != 2004 {
		t.Errorf("note is %d bytes", len(got))
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB (1024 bytes)", 1 << 20: "1 MiB (1048576 bytes)",
		1<<20 + 1<<19: "1.5 MiB (1572864 bytes)", 8 << 20: "8 MiB (8388608 bytes)",
	} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFrontmatterSetAndRemoveNamesTheKey(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{"a.md": "---\ntags: [a]\n---\nx\n"}, nil)
	_, err := v.UpdateFrontmatter(ctx, "a.md", ver("---\ntags: [a]\n---\nx\n"), map[string]any{"tags": []any{"b"}}, []string{"tags"})
	e := errOf(t, err, CodeInvalidArgument)
	if !strings.Contains(e.Message, `"tags" is both to be set and to be removed`) {
		t.Errorf("message = %q", e.Message)
	}
}

func TestSectionNotFoundListsHeadings(t *testing.T) {
	const doc = "# Garden\nintro\n## Budget\n100\n## Plants\n"
	v, _ := newTestVault(t, map[string]string{"a.md": doc, "flat.md": "no headings\n"}, nil)
	_, err := v.ReplaceSection(ctx, "a.md", ver(doc), "Costs", "x", false)
	e := errOf(t, err, CodeSectionNotFound)
	want := []string{"# Garden (line 1)", "## Budget (line 3)", "## Plants (line 5)"}
	if strings.Join(e.Candidates, "|") != strings.Join(want, "|") || e.More != 0 || e.Reason != ReasonNotAmong {
		t.Errorf("error = %+v", e)
	}
	_, err = v.Append(ctx, "flat.md", "x", "Budget")
	if e = errOf(t, err, CodeSectionNotFound); !strings.Contains(e.Message, "no headings") {
		t.Errorf("message = %q", e.Message)
	}
	// Case is ignored when only one heading matches that way.
	if _, err := v.Append(ctx, "a.md", "- seeds", "budget"); err != nil {
		t.Fatal(err)
	}
	got, _ := Section(readFile(t, v.dir, "a.md"), "BUDGET")
	if got != "## Budget\n100\n- seeds\n" {
		t.Errorf("section = %q", got)
	}
}

func TestAppendHeadingGetsBlankLine(t *testing.T) {
	tests := []struct{ cur, text, want string }{
		{"# T\nsome text\n", "## New\nbody", "# T\nsome text\n\n## New\nbody\n"},
		{"# T\nsome text", "## New", "# T\nsome text\n\n## New\n"},
		{"# T\nsome text\n\n", "## New", "# T\nsome text\n\n## New\n"},
		{"# T\r\nsome text\r\n", "## New", "# T\r\nsome text\r\n\r\n## New\r\n"},
		{"# T\nsome text\n", "not a heading", "# T\nsome text\nnot a heading\n"},
		{"# T\nsome text\n", "#tag only", "# T\nsome text\n#tag only\n"},
		{"", "## First", "## First\n"},
	}
	for _, tt := range tests {
		v, dir := newTestVault(t, map[string]string{"n.md": tt.cur}, nil)
		if _, err := v.Append(ctx, "n.md", tt.text, ""); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, dir, "n.md"); got != tt.want {
			t.Errorf("append %q to %q = %q, want %q", tt.text, tt.cur, got, tt.want)
		}
	}
}

func TestPathErrorsNameTheRule(t *testing.T) {
	v, _ := newTestVault(t, nil, nil)
	tests := []struct{ path, want string }{
		{"", "empty"},
		{"bad\xff.md", "not valid UTF-8"},
		{"/abs.md", "starts with '/'"},
		{"a//b.md", "empty part"},
		{"a/../b.md", "'..'"},
		{"a\\b.md", "backslash"},
		{"a\u200bb.md", "invisible"},
		{"a\x01.md", "control character"},
		{strings.Repeat("a", 300) + ".md", "303 bytes long"},
	}
	for _, tt := range tests {
		_, err := v.Create(ctx, tt.path, "x")
		if e := errOf(t, err, CodeInvalidPath); !strings.Contains(e.Message, tt.want) {
			t.Errorf("Create(%q): %q, want it to mention %q", tt.path, e.Message, tt.want)
		}
	}
}

func TestInvalidUTF8ContentRefused(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "a\n"}, nil)
	_, err := v.Create(ctx, "n.md", "bad \xff text")
	wantCode(t, err, CodeInvalidArgument)
	_, err = v.Append(ctx, "a.md", "\xc3", "")
	wantCode(t, err, CodeInvalidArgument)
	_, err = v.Edit(ctx, "a.md", ver("a\n"), "a", "\xfe", false)
	wantCode(t, err, CodeInvalidArgument)
	if exists(dir, "n.md") || readFile(t, dir, "a.md") != "a\n" {
		t.Error("invalid text was written")
	}
}

func TestSymlinkAndConflictWording(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"real.md": "r", "a.sync-conflict-20240101-000000-AAAAAAA.md": "c"}, nil)
	if err := os.Symlink("real.md", filepath.Join(dir, "link.md")); err != nil {
		t.Skip(err)
	}
	_, err := v.Read(ctx, "link.md")
	if e := errOf(t, err, CodeInvalidPath); !strings.Contains(e.Message, "symbolic link") {
		t.Errorf("symlink: %q", e.Message)
	}
	_, err = v.Create(ctx, "b.sync-conflict-20240101-000000-AAAAAAA.md", "x")
	if e := errOf(t, err, CodeNotANote); !strings.Contains(e.Message, "conflict copies") || strings.Contains(e.Message, "ending in .md") {
		t.Errorf("create conflict copy: %q", e.Message)
	}
	_, err = v.Append(ctx, "a.sync-conflict-20240101-000000-AAAAAAA.md", "x", "")
	if e := errOf(t, err, CodeNotANote); !strings.Contains(e.Message, "conflict copy") {
		t.Errorf("append to conflict copy: %q", e.Message)
	}
}

// sentenceOf is the table's sentence for code and reason, without values.
func sentenceOf(code, reason string) string { return newErr(code, reason, nil).Message }
