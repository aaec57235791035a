package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{
		"plain.md":      "just text\n",
		"h1.md":         "intro\n# Heading One\nbody #inline\n",
		"fm.md":         "---\ntitle: From FM\ntags: [a, b]\naliases: [x]\n---\n# H\n",
		"bad-fm.md":     "---\ntitle: [unclosed\n---\nbody\n",
		"sub/deep/n.md": "deep\n",
	}, nil)
	tests := []struct {
		path, title string
		fmErr       bool
		tags        []string
		aliases     []string
	}{
		{"plain.md", "plain", false, nil, nil},
		{"h1.md", "Heading One", false, nil, nil},
		{"fm.md", "From FM", false, []string{"a", "b"}, []string{"x"}},
		{"bad-fm.md", "bad-fm", true, nil, nil},
		{"sub/deep/n.md", "n", false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			n, err := v.Read(ctx, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if n.Path != tt.path || n.Title != tt.title || n.Version != versionOf([]byte(n.Content)) ||
				n.Size != int64(len(n.Content)) || n.Modified.IsZero() || len(n.Version) != 12 {
				t.Errorf("note = %+v", n)
			}
			if (n.FrontmatterError != "") != tt.fmErr {
				t.Errorf("FrontmatterError = %q", n.FrontmatterError)
			}
			if tt.fmErr && n.Frontmatter != nil {
				t.Errorf("Frontmatter of a malformed block = %v", n.Frontmatter)
			}
			for _, tag := range tt.tags {
				if !slices.Contains(n.Tags, tag) {
					t.Errorf("Tags = %v, missing %q", n.Tags, tag)
				}
			}
			if !slices.Equal(n.Aliases, tt.aliases) {
				t.Errorf("Aliases = %v, want %v", n.Aliases, tt.aliases)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{
		"real/note.md":  "x",
		"big.md":        strings.Repeat("x", 2000),
		"folder.md/":    "",
		"AGENTS.md":     "be nice",
		".trash/old.md": "old",
		".git/x.md":     "git",
		"file.txt":      "text",
		"Private/p.md":  "private",
	}, func(o *Options) {
		o.MaxNote = 1000
		o.Denied = []string{"Private"}
	})
	for link, target := range map[string]string{"linkdir": "real", "link.md": "real/note.md", "real/up.md": "../big.md"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ path, want string }{
		{"real/note.md", ""},
		{"AGENTS.md", ""},
		{".trash/old.md", ""},
		{"missing.md", CodeNotFound},
		{"missing/n.md", CodeNotFound},
		{"real/note.md/x.md", CodeNotFound},
		{"big.md", CodeNoteTooLarge},
		{"folder.md", CodeNotANote},
		{".git/x.md", CodeProtectedPath},
		{"private/p.md", CodeProtectedPath},
		{"file.txt", CodeNotANote},
		{"linkdir/note.md", CodeInvalidPath},
		{"link.md", CodeInvalidPath},
		{"real/up.md", CodeInvalidPath},
		{"../x.md", CodeInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			n, err := v.Read(ctx, tt.path)
			wantCode(t, err, tt.want)
			if err != nil && (strings.Contains(err.Error(), dir) || n != nil) {
				t.Errorf("error %v reveals the host path or returns a note", err)
			}
		})
	}
}

func TestReadSeesExternalEdits(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{"a.md": "one"}, nil)
	n1, err := v.Read(ctx, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"a.md": "two"})
	n2, err := v.Read(ctx, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if n2.Content != "two" || n2.Version == n1.Version {
		t.Errorf("second read = %q %s, first %s", n2.Content, n2.Version, n1.Version)
	}
}

func TestReadConflicts(t *testing.T) {
	now := time.Now()
	v, dir := newTestVault(t, map[string]string{
		"Foo.md": "main",
		"Foo.sync-conflict-20240102-030405-ABCDEFG.md": "other",
		"Foobar.md":  "x",
		"sub/Foo.md": "sub",
	}, func(o *Options) { o.Now = func() time.Time { return now.Add(time.Hour) } })
	n, err := v.Read(ctx, "Foo.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Foo.sync-conflict-20240102-030405-ABCDEFG.md"}
	if !slices.Equal(n.Conflicts, want) {
		t.Errorf("Conflicts = %v, want %v", n.Conflicts, want)
	}
	if n, _ := v.Read(ctx, "Foobar.md"); len(n.Conflicts) != 0 {
		t.Errorf("Foobar conflicts = %v", n.Conflicts)
	}
	// A new conflict copy changes the folder, so the cache is not trusted.
	writeFiles(t, dir, map[string]string{"sub/Foo.sync-conflict-20240102-030406-XYZ.md": "c"})
	n, _ = v.Read(ctx, "sub/Foo.md")
	if !slices.Equal(n.Conflicts, []string{"sub/Foo.sync-conflict-20240102-030406-XYZ.md"}) {
		t.Errorf("sub conflicts = %v", n.Conflicts)
	}
	c, err := v.Read(ctx, want[0])
	if err != nil || c.Content != "other" {
		t.Errorf("reading the conflict copy: %v", err)
	}
}

func TestInstructions(t *testing.T) {
	v, _ := newTestVault(t, nil, nil)
	if s, err := v.Instructions(ctx); s != "" || err != nil {
		t.Errorf("absent instructions = %q, %v", s, err)
	}
	v, _ = newTestVault(t, map[string]string{"docs/ai.md": "Use tags."}, func(o *Options) { o.Instructions = "docs/ai.md" })
	if s, err := v.Instructions(ctx); s != "Use tags." || err != nil {
		t.Errorf("instructions = %q, %v", s, err)
	}
	_, err := v.Create(ctx, "docs/AI.md", "x")
	wantCode(t, err, CodeProtectedPath)
}

func BenchmarkRead(b *testing.B) {
	content := "---\ntitle: Bench\ntags: [a, b]\n---\n# Bench\n" + strings.Repeat("Some words of a note with a [[link]] and #tag.\n", 210)
	v, dir := newTestVault(b, map[string]string{"folder/note.md": content}, nil)
	// A folder not written to for a while, as most are: its conflict
	// listing is cached.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "folder"), old, old); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Read(ctx, "folder/note.md"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFileBaseline reads the same note with os.ReadFile alone, so
// that BenchmarkRead's overhead (link checks, hash, Markdown) is visible on
// the machine at hand.
func BenchmarkReadFileBaseline(b *testing.B) {
	content := "---\ntitle: Bench\ntags: [a, b]\n---\n# Bench\n" + strings.Repeat("Some words of a note with a [[link]] and #tag.\n", 210)
	_, dir := newTestVault(b, map[string]string{"folder/note.md": content}, nil)
	full := filepath.Join(dir, "folder", "note.md")
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := os.ReadFile(full); err != nil {
			b.Fatal(err)
		}
	}
}
