package vault

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// NFC and NFD spellings of the same names: people type composed letters,
// macOS (and Syncthing from a Mac) writes them decomposed.
const (
	priveNFC = "Priv\u00e9"
	priveNFD = "Prive\u0301"
	cafeNFC  = "Caf\u00e9.md"
	cafeNFD  = "Cafe\u0301.md"
)

func TestFoldKeyNormalises(t *testing.T) {
	tests := []struct{ a, b string }{
		{priveNFC, priveNFD},
		{priveNFC + "/x.md", "PRIVE\u0301/x.md"},
		{"\u00c5ngstr\u00f6m.md", "\u212bngstro\u0308m.md"}, // Å as a letter and as the Ångström sign
		{"\u0130.md", "I\u0307.md"},                         // İ composed and decomposed
		{"Caf\u00e9. /x.md", cafeNFD[:len(cafeNFD)-3] + "/x.md"},
	}
	for _, tt := range tests {
		if foldKey(tt.a) != foldKey(tt.b) {
			t.Errorf("foldKey(%q) = %q, foldKey(%q) = %q; want equal", tt.a, foldKey(tt.a), tt.b, foldKey(tt.b))
		}
	}
	if foldKey("Prive.md") == foldKey(priveNFC+".md") {
		t.Error("foldKey drops accents; it must only normalise them")
	}
}

// TestDeniedUnderNormalisation checks that a denied path covers the same
// folder or note whatever normal form the caller, the configuration or the
// file on disk uses.
func TestDeniedUnderNormalisation(t *testing.T) {
	tests := []struct {
		name   string
		denied string
		path   string
	}{
		{"nfc denied, nfd path", priveNFC + "/", priveNFD + "/plan.md"},
		{"nfd denied, nfc path", priveNFD, priveNFC + "/plan.md"},
		{"nfc denied, nfd upper path", priveNFC, "PRIVE\u0301/deep/plan.md"},
		{"nfc denied note, nfd path", cafeNFC, cafeNFD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := newTestVault(t, nil, func(o *Options) { o.Denied = []string{tt.denied} })
			if got := codeOf(v.checkReadable(tt.path)); got != CodeProtectedPath {
				t.Errorf("checkReadable(%q) = %q, want protected", tt.path, got)
			}
			if got := codeOf(v.checkCreatable(tt.path)); got != CodeProtectedPath {
				t.Errorf("checkCreatable(%q) = %q, want protected", tt.path, got)
			}
		})
	}
}

// TestDeniedNFDFolderOnDisk stores a denied folder the way a Mac writes it
// and checks that no tool path shows its note, with and without the index.
func TestDeniedNFDFolderOnDisk(t *testing.T) {
	files := map[string]string{
		priveNFD + "/diary.md": "secret walnut\n",
		"open.md":              "public walnut\n",
	}
	deny := func(o *Options) { o.Denied = []string{priveNFC + "/"} }
	for _, indexed := range []bool{false, true} {
		name := "scan"
		if indexed {
			name = "index"
		}
		t.Run(name, func(t *testing.T) {
			var v *Vault
			if indexed {
				v, _ = newIndexedVault(t, files, deny)
			} else {
				v, _ = newTestVault(t, files, deny)
			}
			list, err := v.List(ctx, "", true)
			if err != nil {
				t.Fatal(err)
			}
			if got := entryPaths(list); !slices.Equal(got, []string{"open.md"}) {
				t.Errorf("List = %q, want only open.md", got)
			}
			hits, err := v.Search(ctx, Query{Text: "walnut"})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 1 || hits[0].Path != "open.md" {
				t.Errorf("Search = %+v, want only open.md", hits)
			}
			changed, err := v.Changed(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if got := entryPaths(changed); !slices.Equal(got, []string{"open.md"}) {
				t.Errorf("Changed = %q, want only open.md", got)
			}
			for _, p := range []string{priveNFD + "/diary.md", priveNFC + "/diary.md"} {
				_, err := v.Read(ctx, p)
				wantCode(t, err, CodeProtectedPath)
			}
			_, err = v.List(ctx, priveNFD, false)
			wantCode(t, err, CodeProtectedPath)
			_, err = v.Search(ctx, Query{Text: "walnut", Folder: priveNFD})
			wantCode(t, err, CodeProtectedPath)
		})
	}
}

func entryPaths(es []Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

// TestCreateRefusesNormalisationTwins: a note or folder that differs from
// an existing one only by normalisation looks identical and collides on a
// Mac peer, so it is refused; the existing one stays usable.
func TestCreateRefusesNormalisationTwins(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		path  string
		want  string
	}{
		{"nfc note beside nfd", map[string]string{cafeNFD: "x"}, cafeNFC, CodeNoteExists},
		{"nfd note beside nfc", map[string]string{cafeNFC: "x"}, cafeNFD, CodeNoteExists},
		{"in a subfolder", map[string]string{"a/" + cafeNFD: "x"}, "a/" + cafeNFC, CodeNoteExists},
		{"nfc folder beside nfd", map[string]string{priveNFD + "/a.md": "x"}, priveNFC + "/b.md", CodeInvalidPath},
		{"nfc folder deeper", map[string]string{"x/" + priveNFD + "/": ""}, "x/" + priveNFC + "/y/b.md", CodeInvalidPath},
		{"same form, other name", map[string]string{cafeNFD: "x"}, "Cafe.md", ""},
		{"same folder spelling", map[string]string{priveNFD + "/a.md": "x"}, priveNFD + "/b.md", ""},
		{"case differs only", map[string]string{cafeNFC: "x"}, "CAF\u00c9.md", CodeNoteExists}, // would be one file on macOS and Windows
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := newTestVault(t, tt.files, nil)
			_, err := v.Create(ctx, tt.path, "new")
			wantCode(t, err, tt.want)
			if err == nil {
				if got := readFile(t, dir, tt.path); got != "new" {
					t.Errorf("created note = %q", got)
				}
				return
			}
			if exists(dir, tt.path) {
				t.Error("a twin was created")
			}
			for p, c := range tt.files {
				if c != "" && readFile(t, dir, p) != c {
					t.Errorf("%s changed", p)
				}
			}
		})
	}
}

func TestMoveAndDeleteWithNormalisationTwins(t *testing.T) {
	t.Run("move onto a twin", func(t *testing.T) {
		v, dir := newTestVault(t, map[string]string{cafeNFD: "mac", "b.md": "b"}, nil)
		_, err := v.Move(ctx, "b.md", cafeNFC, ver("b"), false)
		wantCode(t, err, CodeNoteExists)
		if !exists(dir, "b.md") || exists(dir, cafeNFC) {
			t.Error("note moved onto a twin")
		}
	})
	t.Run("move into a twin folder", func(t *testing.T) {
		v, dir := newTestVault(t, map[string]string{priveNFD + "/a.md": "a", "b.md": "b"}, nil)
		_, err := v.Move(ctx, "b.md", priveNFC+"/b.md", ver("b"), false)
		wantCode(t, err, CodeInvalidPath)
		if !exists(dir, "b.md") {
			t.Error("note moved")
		}
	})
	t.Run("rename to the other form", func(t *testing.T) {
		v, dir := newTestVault(t, map[string]string{cafeNFD: "mac"}, nil)
		res, err := v.Move(ctx, cafeNFD, cafeNFC, ver("mac"), false)
		if err != nil {
			t.Fatal(err)
		}
		if res.To != cafeNFC || exists(dir, cafeNFD) || readFile(t, dir, cafeNFC) != "mac" {
			t.Errorf("rename to NFC: %+v", res)
		}
	})
	t.Run("case rename beside a twin", func(t *testing.T) {
		v, dir := newTestVault(t, map[string]string{"caf\u00e9.md": "lower", cafeNFD: "mac"}, nil)
		_, err := v.Move(ctx, "caf\u00e9.md", cafeNFC, ver("lower"), false)
		wantCode(t, err, CodeNoteExists)
		if exists(dir, cafeNFC) {
			t.Error("a twin was created by a move")
		}
	})
	t.Run("delete beside a trashed twin", func(t *testing.T) {
		v, dir := newTestVault(t, map[string]string{
			priveNFC + "/" + cafeNFC:             "nfc",
			".trash/" + priveNFD + "/" + cafeNFD: "old",
		}, nil)
		res, err := v.Delete(ctx, priveNFC+"/"+cafeNFC, ver("nfc"))
		if err != nil {
			t.Fatal(err)
		}
		// The trash folder keeps the spelling it has; the name clash gets
		// a suffix instead of a twin.
		want := ".trash/" + priveNFD + "/Caf\u00e9 (2).md"
		if res.Path != want || readFile(t, dir, want) != "nfc" {
			t.Errorf("trashed to %q, want %q", res.Path, want)
		}
	})
}

func TestCreateRefusesHiddenPaths(t *testing.T) {
	v, dir := newTestVault(t, map[string]string{".hidden/old.md": "old", "a.md": "a"}, nil)
	tests := []struct{ path, want string }{
		{".stfolder/x.md", CodeInvalidPath},
		{".hidden/x.md", CodeInvalidPath},
		{"a/.b/x.md", CodeInvalidPath},
		{".x.md", CodeInvalidPath},
		{"a/.x.md", CodeInvalidPath},
		{".cortexx/a.md", CodeInvalidPath},
		{".git/x.md", CodeProtectedPath},
		{".trash/x.md", CodeProtectedPath},
		{"ok/x.md", ""},
		{"dot.in/name.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := v.Create(ctx, tt.path, "x")
			wantCode(t, err, tt.want)
			if tt.want == CodeInvalidPath && err.(*Error).Message == sentences[CodeInvalidPath] {
				t.Errorf("hidden path got the generic sentence")
			}
			if tt.want != "" && exists(dir, tt.path) {
				t.Error("note written")
			}
			_, err = v.Move(ctx, "a.md", tt.path, ver("a"), false)
			if tt.want != "" {
				wantCode(t, err, tt.want)
			} else {
				wantCode(t, err, CodeNoteExists)
			}
		})
	}
	// A note already in a hidden folder stays readable, editable and can
	// be moved out to where it is seen.
	if _, err := v.Edit(ctx, ".hidden/old.md", ver("old"), "old", "older", false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Move(ctx, ".hidden/old.md", "found.md", ver("older"), false); err != nil {
		t.Fatal(err)
	}
	if readFile(t, dir, "found.md") != "older" {
		t.Error("note not moved out of the hidden folder")
	}
}

// TestWalkSkipsUnreadableNames: a name that no path may hold is not
// listed, so that everything listed can be read.
func TestWalkSkipsUnreadableNames(t *testing.T) {
	v, _ := newTestVault(t, map[string]string{
		"ok.md":                         "x",
		"zero\u200bwidth.md":            "x",
		"line\u2028sep/n.md":            "x",
		"\U0001f468\u200d\U0001f4bb.md": "x",
	}, nil)
	list, err := v.List(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ok.md", "\U0001f468\u200d\U0001f4bb.md"}
	slices.Sort(want)
	if got := entryPaths(list); !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	for _, e := range list {
		if _, err := v.Read(ctx, e.Path); err != nil {
			t.Errorf("listed %q cannot be read: %v", e.Path, err)
		}
	}
}

func TestNoteFoundUnderAnyNormalForm(t *testing.T) {
	for _, tt := range []struct{ onDisk, asked string }{
		{priveNFC + "/" + cafeNFC, priveNFD + "/" + cafeNFD},
		{priveNFD + "/" + cafeNFD, priveNFC + "/" + cafeNFC},
		{priveNFD + "/" + cafeNFC, priveNFC + "/" + cafeNFD},
	} {
		v, dir := newTestVault(t, map[string]string{tt.onDisk: "text\n", "links.md": "[[" + strings.TrimSuffix(tt.onDisk, ".md") + "]]\n"}, nil)
		n, err := v.Read(ctx, tt.asked)
		if err != nil {
			t.Fatalf("Read(%q): %v", tt.asked, err)
		}
		if n.Path != tt.onDisk || n.Content != "text\n" {
			t.Errorf("Read(%q) = %q", tt.asked, n.Path)
		}
		l, err := v.Links(ctx, tt.asked)
		if err != nil || len(l.Backlinks) != 1 {
			t.Errorf("Links(%q) = %+v, %v", tt.asked, l, err)
		}
		r, err := v.Append(ctx, tt.asked, "more", "")
		if err != nil || r.Path != tt.onDisk || readFile(t, dir, tt.onDisk) != "text\nmore\n" {
			t.Fatalf("Append(%q) = %+v, %v", tt.asked, r, err)
		}
		m, err := v.Move(ctx, tt.asked, "moved.md", ver("text\nmore\n"), false)
		if err != nil || m.From != tt.onDisk || readFile(t, dir, "moved.md") != "text\nmore\n" {
			t.Fatalf("Move(%q) = %+v, %v", tt.asked, m, err)
		}
		if _, err := v.Move(ctx, "moved.md", tt.onDisk, ver("text\nmore\n"), false); err != nil {
			t.Fatal(err)
		}
		d, err := v.Delete(ctx, tt.asked, ver("text\nmore\n"))
		if err != nil || exists(dir, tt.onDisk) || readFile(t, dir, d.Path) != "text\nmore\n" {
			t.Fatalf("Delete(%q) = %+v, %v", tt.asked, d, err)
		}
		// Nothing was created under the spelling asked for.
		if tt.asked != tt.onDisk && exists(dir, tt.asked) {
			t.Errorf("%q created", tt.asked)
		}
	}
}
