package vault

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// newIndexedVault opens a vault with the index on and waits until it is
// built.
func newIndexedVault(t testing.TB, files map[string]string, mod func(*Options)) (*Vault, string) {
	t.Helper()
	v, dir := newTestVault(t, files, func(o *Options) {
		o.Index = true
		if mod != nil {
			mod(o)
		}
	})
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	return v, dir
}

// waitFor waits, without polling on a timer, until cond holds: it checks
// again each time the index changes.
func waitFor(t testing.TB, v *Vault, what string, cond func() bool) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		changed := v.ix.changes()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-c.Done():
			t.Fatalf("index never showed: %s", what)
		}
	}
}

// searchVault is the fixed vault of the golden search test. Times are set
// so that ties break by recency in a known way.
var searchVault = map[string]string{
	"Cooking/Canción de cuna.md":                       "---\ntags: [music/lullaby]\naliases: [Cradle song]\n---\n# Canción de cuna\n\nUna canción para el niño. Corazón tranquilo.\n",
	"Cooking/Pesto.md":                                 "---\ntags: [food, recipe]\n---\n# Pesto\n\nBasil, garlic and pine nuts. Crème brûlée after.\n\n## Garden basil\n\nPick basil in the morning.\n",
	"Cooking/Tomato soup.md":                           "# Tomato soup\n\nTomatoes, onion, basil. A weekly goal: cook soup every weekly goals review.\n#food\n",
	"Garden/Plan 2026.md":                              "# Garden plan\n\nPlant tomatoes and basil in May. See [[Pesto]].\n\n## Weekly goals\n\n- water\n- weed\n",
	"Garden/Journal.md":                                "Garden journal. The weekly goals were met. Database of seeds kept elsewhere.\n",
	"Work/Meeting 会議.md":                               "# 会議の記録\n\n東京で打ち合わせ。项目预算の確認。\n",
	"Work/Budget.md":                                   "# Budget review\n\n项目 and 预算 appear apart here. Server backup costs.\n",
	"Work/Databases.md":                                "---\ntitle: Database notes\n---\nPostgres database and datastore tuning. #work/db\n",
	"Work/Deep/Server.md":                              "# Server\n\nThe backup server runs nightly. state-of-the-art backup.\n",
	"Reading/Strasse.md":                               "# Straße\n\nNotes on the Straße der Pariser Kommune. Cafe naïve.\n",
	"Reading/Naive.md":                                 "# Naive\n\nA naive cafe with coffee.\n",
	".trash/Old basil.md":                              "basil from the trash\n",
	"Private/Basil secret.md":                          "secret basil\n",
	"Notes/x.sync-conflict-20240101-000000-AAAAAAA.md": "basil conflict\n",
}

var searchQueries = []Query{
	{Text: "basil"},
	{Text: "BASIL garlic"},
	{Text: "cancion"},
	{Text: "corazón"},
	{Text: "creme brulee"},
	{Text: "strasse"},
	{Text: "naïve café"},
	{Text: `"weekly goals"`},
	{Text: `"pine nuts" basil`},
	{Text: "datab"},
	{Text: "data"},
	{Text: "tomato"},
	{Text: "tomatoes"},
	{Text: "tag:food"},
	{Text: "#music"},
	{Text: "basil", Tag: "recipe"},
	{Text: "basil Garden/"},
	{Text: "basil folder:Cooking"},
	{Text: "server", Folder: "Work"},
	{Text: "会議"},
	{Text: "项目预算"},
	{Text: "预算"},
	{Text: "東京"},
	{Text: "state-of-the-art"},
	{Text: "cradle"},
	{Text: "lullaby"},
	{Text: "tag:work"},
	{Text: "meeting"},
	{Text: "zucchini"},
	{Folder: "Reading"},
}

func setSearchTimes(t *testing.T, dir string) {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var paths []string
	for p := range searchVault {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for i, p := range paths {
		tm := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSearchGolden runs fixed queries on a fixed vault through the index
// and compares the ranked results with testdata/search.golden. It also
// checks that the index finds exactly the notes the full scan finds.
func TestSearchGolden(t *testing.T) {
	scan, dir := newTestVault(t, searchVault, func(o *Options) { o.Denied = []string{"Private"} })
	setSearchTimes(t, dir)
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Denied: []string{"Private"}, Index: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, q := range searchQueries {
		fmt.Fprintf(&b, "query %q folder=%q tag=%q\n", q.Text, q.Folder, q.Tag)
		hits, err := v.Search(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		want, err := scan.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got, exp := hitPaths(hits), hitPaths(want); !slices.Equal(sorted(got), sorted(exp)) {
			t.Errorf("%+v: index found %v, scan found %v", q, got, exp)
		}
		for _, h := range hits {
			fmt.Fprintf(&b, "  %s | %s | %s\n", h.Path, h.Title, h.Snippet)
		}
	}
	golden := filepath.Join("testdata", "search.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("results differ from %s (run with -update after checking):\n%s", golden, b.String())
	}
}

func hitPaths(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func searchPaths(t *testing.T, v *Vault, text string) []string {
	t.Helper()
	hits, err := v.Search(ctx, Query{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return hitPaths(hits)
}

// TestIndexFreshness changes notes behind cortex's back and waits for the
// index (through its change notifications, never a timer) to show them.
func TestIndexFreshness(t *testing.T) {
	v, dir := newIndexedVault(t, map[string]string{
		"a.md":     "alpha apple\n",
		"sub/b.md": "beta [[a]]\n",
	}, nil)
	write := func(p, content string) {
		t.Helper()
		writeFiles(t, dir, map[string]string{p: content})
	}
	has := func(q string, want ...string) func() bool {
		return func() bool { return slices.Equal(sorted(searchPaths(t, v, q)), sorted(want)) }
	}

	write("c.md", "gamma outside\n")
	waitFor(t, v, "created note", has("gamma", "c.md"))

	write("a.md", "alpha banana\n")
	waitFor(t, v, "edited note", has("banana", "a.md"))
	if got := searchPaths(t, v, "apple"); len(got) != 0 {
		t.Errorf("old words still found: %v", got)
	}

	if err := os.Rename(filepath.Join(dir, "c.md"), filepath.Join(dir, "sub", "d.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, v, "renamed note", has("gamma", "sub/d.md"))

	write("new/deeper/e.md", "epsilon in a new folder\n")
	waitFor(t, v, "note in new folders", has("epsilon", "new/deeper/e.md"))
	write("new/deeper/f.md", "phi later in that folder\n")
	waitFor(t, v, "note in a watched new folder", has("phi", "new/deeper/f.md"))

	if err := os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, v, "renamed folder", has("epsilon", "moved/deeper/e.md"))
	write("moved/deeper/g.md", "gimel after the folder moved\n")
	waitFor(t, v, "note in a renamed folder", has("gimel", "moved/deeper/g.md"))

	if err := os.Remove(filepath.Join(dir, "sub", "d.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, v, "deleted note", has("gamma"))
	if err := os.RemoveAll(filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, v, "deleted folder", has("epsilon"))

	// Links and recent changes come from the same index.
	write("h.md", "links to [[a]]\n")
	waitFor(t, v, "backlink", func() bool {
		l, err := v.Links(ctx, "a.md")
		return err == nil && len(l.Backlinks) == 2
	})
	waitFor(t, v, "recent", func() bool {
		ch, err := v.Changed(ctx, time.Now().Add(-time.Hour))
		return err == nil && slices.ContainsFunc(ch, func(e Entry) bool { return e.Path == "h.md" })
	})

	// Hidden, trash and temp files never enter the index.
	write(".trash/t.md", "gamma trash\n")
	write(".syncthing.x.md.tmp", "gamma temp\n")
	write("x.sync-conflict-20240101-000000-AAAAAAA.md", "gamma conflict\n")
	write("z.md", "zeta marker\n")
	waitFor(t, v, "marker", has("zeta", "z.md"))
	if got := searchPaths(t, v, "gamma"); len(got) != 0 {
		t.Errorf("ignored files indexed: %v", got)
	}
}

// TestIndexOwnWrites: cortex's own writes are searchable at once.
func TestIndexOwnWrites(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{"a.md": "alpha\n", "b.md": "see [[a]]\n"}, nil)
	wr, err := v.Create(ctx, "n/new.md", "kappa words\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, v, "kappa"); !slices.Equal(got, []string{"n/new.md"}) {
		t.Fatalf("created note: %v", got)
	}
	if _, err := v.Edit(ctx, "n/new.md", wr.Version, "kappa", "lambda", false); err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, v, "kappa"); len(got) != 0 {
		t.Errorf("old text: %v", got)
	}
	if got := searchPaths(t, v, "lambda"); !slices.Equal(got, []string{"n/new.md"}) {
		t.Errorf("edited: %v", got)
	}
	n, _ := v.Read(ctx, "a.md")
	mr, err := v.Move(ctx, "a.md", "moved/a2.md", n.Version, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(mr.Linking) != 0 || len(mr.Rewritten) != 1 || mr.Rewritten[0].Path != "b.md" {
		t.Errorf("move: %+v", mr)
	}
	if got := searchPaths(t, v, "alpha"); !slices.Equal(got, []string{"moved/a2.md"}) {
		t.Errorf("moved: %v", got)
	}
	l, err := v.Links(ctx, "moved/a2.md")
	if err != nil || len(l.Backlinks) != 1 || l.Backlinks[0].Source != "b.md" {
		t.Errorf("links after move: %+v %v", l, err)
	}
	n, _ = v.Read(ctx, "moved/a2.md")
	if _, err := v.Delete(ctx, "moved/a2.md", n.Version); err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, v, "alpha"); len(got) != 0 {
		t.Errorf("deleted: %v", got)
	}
}

// TestIndexRebuild drops the index: searches fall back to the scan, and a
// rebuild restores it, with the changes made meanwhile.
func TestIndexRebuild(t *testing.T) {
	v, _ := newIndexedVault(t, map[string]string{"a.md": "alpha\n"}, nil)
	v.ix.mu.Lock()
	v.ix.x = nil
	v.ix.mu.Unlock()
	if _, err := v.Create(ctx, "b.md", "alpha beta\n"); err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, v, "alpha"); len(got) != 2 {
		t.Errorf("scan while dropped: %v", got)
	}
	if e := v.ix.rebuild(); e != nil {
		t.Fatal(e)
	}
	if x := v.ix.current(); x == nil {
		t.Fatal("no index after rebuild")
	} else {
		n := x.Live()
		v.ix.mu.RUnlock()
		if n != 2 {
			t.Errorf("rebuilt index holds %d notes, want 2", n)
		}
	}
	if got := searchPaths(t, v, "beta"); !slices.Equal(got, []string{"b.md"}) {
		t.Errorf("after rebuild: %v", got)
	}
}

// TestIndexReconcile finds changes that no notification reported.
func TestIndexReconcile(t *testing.T) {
	v, dir := newIndexedVault(t, map[string]string{"a.md": "alpha\n", "b.md": "beta\n"}, nil)
	v.ix.w.Close() // no more notifications
	writeFiles(t, dir, map[string]string{"c.md": "gamma\n", "a.md": "alpha omega\n"})
	if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	v.ix.reconcile(ctx)
	for q, want := range map[string][]string{"gamma": {"c.md"}, "omega": {"a.md"}, "beta": {}} {
		if got := searchPaths(t, v, q); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}

func TestSearchPaging(t *testing.T) {
	files := map[string]string{}
	for i := range 25 {
		files[fmt.Sprintf("n%02d.md", i)] = "common word " + strings.Repeat("x", i) + "\n"
	}
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprint("index=", indexed), func(t *testing.T) {
			v, _ := newTestVault(t, files, func(o *Options) { o.Index = indexed })
			if err := v.WaitIndexed(ctx); err != nil {
				t.Fatal(err)
			}
			var all []string
			q := Query{Text: "common", Limit: 10}
			for range 5 {
				p, err := v.SearchPage(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, hitPaths(p.Hits)...)
				if p.NextCursor == "" {
					break
				}
				q.Cursor = p.NextCursor
			}
			if len(all) != 25 || len(slices.Compact(sorted(all))) != 25 {
				t.Errorf("paged through %d hits: %v", len(all), all)
			}
			_, err := v.SearchPage(ctx, Query{Text: "other", Cursor: q.Cursor})
			wantCode(t, err, CodeInvalidArgument)
			_, err = v.SearchPage(ctx, Query{Text: "common", Cursor: "%%%"})
			wantCode(t, err, CodeInvalidArgument)
		})
	}
}

func TestSearchCharCap(t *testing.T) {
	files := map[string]string{}
	long := strings.Repeat("titleword ", 60)
	for i := range 30 {
		files[fmt.Sprintf("n%02d.md", i)] = "---\ntitle: " + long + "\n---\ncommon " + strings.Repeat("word ", 100) + "\n"
	}
	v, _ := newIndexedVault(t, files, nil)
	p, err := v.SearchPage(ctx, Query{Text: "common", Limit: 50, MaxChars: 2000})
	if err != nil {
		t.Fatal(err)
	}
	chars := 0
	for _, h := range p.Hits {
		chars += len([]rune(h.Path)) + len([]rune(h.Title)) + len([]rune(h.Snippet))
		if n := len([]rune(h.Title)); n > maxTitleRunes {
			t.Errorf("title of %d runes", n)
		}
	}
	if chars > 2000 || len(p.Hits) == 0 || p.NextCursor == "" {
		t.Errorf("%d hits, %d chars, cursor %q", len(p.Hits), chars, p.NextCursor)
	}
}

func FuzzSearchCursor(f *testing.F) {
	f.Add("", "a b")
	f.Add(encodeCursor(cursor{hits: 10}, "abc"), "x")
	f.Add(encodeCursor(cursor{pos: 2000}, "abc"), "x")
	f.Add("MTAuYWJj", "x")
	f.Add("LTEuYWJj", "")
	f.Add(encodeCursor(cursor{hits: 1, pos: 3, scan: true, last: &scanKey{mod: -5, path: "a.b/c~d.md"}}, "abc"), "abc")
	f.Fuzz(func(t *testing.T, c, q string) {
		n, e := decodeCursor(c, q)
		if e == nil && (n.hits < 0 || n.hits >= maxSearchDepth || n.pos < 0 || n.pos >= maxCursorPos || c != "" && n == cursor{}) {
			t.Fatalf("cursor %+v accepted", n)
		}
		if e != nil && (e.Code != CodeInvalidArgument || e.Message == "") {
			t.Fatalf("error %+v", e)
		}
	})
}

// TestIndexRemovesStrayTempsInBackground: with the index, stray temp files
// are removed by the background walk, but never one a write of this
// process may be using.
func TestIndexRemovesStrayTempsInBackground(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/.cortex-tmp-old": "half", "a/.cortex-tmp-new": "in use", "a/n.md": "x"})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a", ".cortex-tmp-old"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "a", ".cortex-tmp-new"), time.Now().Add(time.Minute), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	v, err := Open(Options{Dir: dir, FreeSpace: plenty, Index: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	if exists(dir, "a/.cortex-tmp-old") || !exists(dir, "a/.cortex-tmp-new") || !exists(dir, "a/n.md") {
		t.Errorf("old %v new %v note %v", exists(dir, "a/.cortex-tmp-old"), exists(dir, "a/.cortex-tmp-new"), exists(dir, "a/n.md"))
	}
}
