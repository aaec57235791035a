package vault

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path string
		ok   bool
	}{
		{"a.md", true},
		{"folder/sub/note.md", true},
		{"with space/é ü.md", true},
		{".trash/a.md", true},
		{"", false},
		{"/abs.md", false},
		{"../up.md", false},
		{"a/../b.md", false},
		{"./a.md", false},
		{"a/./b.md", false},
		{"a//b.md", false},
		{"a/", false},
		{"a\\b.md", false},
		{"a\x00.md", false},
		{"a\nb.md", false},
		{"a\tb.md", false},
		{"a\x7f.md", false},
		{"a\u0085.md", false},
		{"bad\xff.md", false},
		{"\u202egnp.md", false},
		{"a\u2066b.md", false},
		{"a\u200eb.md", false},       // left-to-right mark
		{"No\u200btes/a.md", false},  // zero-width space
		{"a\u2028b.md", false},       // line separator
		{"a\u2029b.md", false},       // paragraph separator
		{"a\u00adb.md", false},       // soft hyphen
		{"\ufeffa.md", false},        // byte-order mark
		{"a\u2060b.md", false},       // word joiner
		{"flag\U000e0067.md", false}, // tag character
		{"emoji\u200d.md", false},    // joiner after a Latin letter
		{"No\u200dtes.md", false},
		{"No\u200ctes.md", false},
		{"\u200d\U0001f4bb.md", false},
		{"\U0001f468\u200d.md", false},
		{"\U0001f468\u200d\u200d\U0001f4bb.md", false},
		{"\U0001f468\u200d\U0001f4bb Work.md", true}, // 👨‍💻, an emoji sequence
		{"\u0645\u06cc\u200c\u062e\u0648\u0627\u0645.md", true}, // a Persian word with a non-joiner
		{"a\u00a0b.md", true},   // no-break space shows as a space
		{"Cafe\u0301.md", true}, // decomposed é
		{strings.Repeat("a", 256) + ".md", false},
		{strings.Repeat("a", 252) + ".md", true},
		{strings.Repeat("abcdefgh/", 113) + "x.md", true},
		{strings.Repeat("abcdefgh/", 114) + "x.md", false},
	}
	for _, tt := range tests {
		if got := checkPath(tt.path) == nil; got != tt.ok {
			t.Errorf("checkPath(%q) ok = %v, want %v", tt.path, got, tt.ok)
		}
	}
}

func TestCheckFolder(t *testing.T) {
	for in, want := range map[string]string{"": "", "/": "", "a": "a", "a/b/": "a/b"} {
		got, e := checkFolder(in)
		if e != nil || got != want {
			t.Errorf("checkFolder(%q) = %q, %v; want %q", in, got, e, want)
		}
	}
	for _, in := range []string{"a//", "../a", "/a", "a/./b"} {
		if _, e := checkFolder(in); e == nil {
			t.Errorf("checkFolder(%q) accepted", in)
		}
	}
}

func TestAccessRules(t *testing.T) {
	v, _ := newTestVault(t, nil, func(o *Options) {
		o.Denied = []string{"Private/", "secret.md"}
		o.Instructions = "AGENTS.md"
	})
	tests := []struct {
		path        string
		read, write string // expected codes, "" = allowed
	}{
		{"a.md", "", ""},
		{"sub/a.md", "", ""},
		{".git/config.md", CodeProtectedPath, CodeProtectedPath},
		{".GIT/x.md", CodeProtectedPath, CodeProtectedPath},
		{".Obsidian/workspace.md", CodeProtectedPath, CodeProtectedPath},
		{".cortex/state.md", CodeProtectedPath, CodeProtectedPath},
		{".cortex", CodeProtectedPath, CodeProtectedPath},
		{".git./x.md", CodeProtectedPath, CodeProtectedPath},
		{".gitignore.md", "", ""},
		{".cortexx/a.md", "", ""},
		{"private/plan.md", CodeProtectedPath, CodeProtectedPath},
		{"Private/deep/plan.md", CodeProtectedPath, CodeProtectedPath},
		{"Private.md", "", ""},
		{"SECRET.md", CodeProtectedPath, CodeProtectedPath},
		{"AGENTS.md", "", CodeProtectedPath},
		{"agents.md", "", CodeProtectedPath},
		{".trash/a.md", "", CodeProtectedPath},
		{".Trash/a.md", "", CodeProtectedPath},
		{"a.txt", CodeNotANote, CodeNotANote},
		{"a", CodeNotANote, CodeNotANote},
		{".md", CodeNotANote, CodeNotANote},
		{"A.MD", "", ""},
		{".cortex-tmp-xyz", CodeNotANote, CodeNotANote},
		{".syncthing.a.md.tmp", CodeNotANote, CodeNotANote},
		{"~syncthing~a.md.tmp", CodeNotANote, CodeNotANote},
		{"a.sync-conflict-20240102-030405-ABCDEFG.md", "", CodeNotANote},
		{"../a.md", CodeInvalidPath, CodeInvalidPath},
	}
	for _, tt := range tests {
		if got := codeOf(v.checkReadable(tt.path)); got != tt.read {
			t.Errorf("checkReadable(%q) = %q, want %q", tt.path, got, tt.read)
		}
		if got := codeOf(v.checkWritable(tt.path)); got != tt.write {
			t.Errorf("checkWritable(%q) = %q, want %q", tt.path, got, tt.write)
		}
	}
}

func codeOf(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Code
}

func TestConflictOf(t *testing.T) {
	tests := []struct {
		name, base string
		want       bool
	}{
		{"Foo.sync-conflict-20240102-030405-ABCDEFG.md", "Foo.md", true},
		{"foo.sync-conflict-20240102-030405-ABCDEFG.md", "Foo.md", false},
		{"Foo bar.sync-conflict-20240102-030405-ABCDEFG.md", "Foo.md", false},
		{"Foo.sync-conflict-20240102-030405-ABCDEFG.txt", "Foo.md", false},
		{"Foo.md", "Foo.md", false},
	}
	for _, tt := range tests {
		if got := conflictOf(tt.name, tt.base); got != tt.want {
			t.Errorf("conflictOf(%q, %q) = %v", tt.name, tt.base, got)
		}
	}
}

// FuzzCheckPath checks that every accepted path is one that cannot leave
// the vault or smuggle odd bytes to the file system.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a.md", "a/b.md", "../x", "a\\b", "", "/", "é.md", "a\x00b", "a\u200bb.md", "\U0001f468\u200d\U0001f4bb.md", "Prive\u0301/x.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if checkPath(p) != nil {
			return
		}
		if !utf8.ValidString(p) || len(p) > maxPathLen || strings.HasPrefix(p, "/") ||
			strings.ContainsAny(p, "\\\x00") {
			t.Fatalf("accepted %q", p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." || len(seg) > maxSegmentLen {
				t.Fatalf("accepted %q with segment %q", p, seg)
			}
		}
		runes := []rune(p)
		for i, r := range runes {
			if r < 0x20 || r == 0x7f || unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
				t.Fatalf("accepted control character or separator in %q", p)
			}
			if unicode.Is(unicode.Cf, r) && (r != zwj && r != zwnj || i == 0 || i == len(runes)-1 ||
				runes[i-1] < 0x80 || runes[i+1] < 0x80) {
				t.Fatalf("accepted invisible %U in %q", r, p)
			}
		}
		k := foldKey(p)
		if !norm.NFC.IsNormalString(k) || foldKey(norm.NFD.String(p)) != k || foldKey(k) != k {
			t.Fatalf("foldKey(%q) = %q is not stable under normalisation", p, k)
		}
		_, _ = checkFolder(p)
	})
}

// FuzzVaultPaths drives Create and Read with arbitrary paths on a real
// folder and checks that nothing is ever written outside the vault, into a
// protected or hidden folder, beside a note that differs only by Unicode
// normalisation, or anywhere but at the path given.
func FuzzVaultPaths(f *testing.F) {
	for _, s := range []string{"a.md", "sub/a.md", "../escape.md", "link/x.md", ".git/x.md", "AGENTS.md", ".trash/a.md", "a/./b.md", "C:\\x.md", ".stfolder/x.md", "sub/link/x.md", "Cafe\u0301.md", "Caf\u00e9.md"} {
		f.Add(s)
	}
	parent := f.TempDir()
	outside := filepath.Join(parent, "outside")
	vaultDir := filepath.Join(parent, "vault")
	for _, d := range []string{outside, filepath.Join(vaultDir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(vaultDir, "sub"), 0o755); err != nil {
		f.Fatal(err)
	}
	for _, l := range []string{"link", "sub/link"} {
		if err := os.Symlink(outside, filepath.Join(vaultDir, filepath.FromSlash(l))); err != nil {
			f.Fatal(err)
		}
	}
	v, err := Open(Options{Dir: vaultDir, FreeSpace: plenty})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { v.Close() })
	f.Fuzz(func(t *testing.T, p string) {
		_, rerr := v.Read(ctx, p)
		res, err := v.Create(ctx, p, "fuzz")
		if err == nil {
			if checkPath(p) != nil || v.isProtected(p) || res.Path != p || unportable(path.Base(p)) != nil || strings.HasPrefix(p, ".") || strings.Contains(p, "/.") {
				t.Fatalf("Create(%q) accepted", p)
			}
			if got, err := os.ReadFile(filepath.Join(vaultDir, filepath.FromSlash(p))); err != nil || string(got) != "fuzz" {
				t.Fatalf("Create(%q) wrote elsewhere: %v", p, err)
			}
			if tw := v.twin(p, "", true); tw != "" {
				t.Fatalf("Create(%q) made a twin of %q", p, tw)
			}
		} else if code(t, err) == "" || (rerr != nil && code(t, rerr) == "") {
			t.Fatalf("untyped error for %q", p)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("Create(%q) wrote outside the vault", p)
		}
		if entries, _ := os.ReadDir(filepath.Join(vaultDir, ".git")); len(entries) != 0 {
			t.Fatalf("Create(%q) wrote into .git", p)
		}
	})
}
