package console

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestFolderPageListsFoldersAndNotes(t *testing.T) {
	h := newHarness(t, map[string]string{
		"Inbox.md":           "# Inbox\n",
		"Projects/Plan B.md": "# Plan\n",
		"Projects/Zeta.md":   "# Zeta\n",
		"Projects/Old/a.md":  "a\n",
		"Projects/pic.png":   "png",
	})
	b := h.browser()
	b.signIn()

	resp, _ := b.get("/notes")
	if resp.StatusCode/100 != 3 || resp.Header.Get("Location") != "/notes/" {
		t.Fatalf("/notes: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := b.get("/notes/")
	want(t, resp, body, http.StatusOK, `id="folder-title">Notes</h1>`,
		`<a href="/notes/Projects/">Projects/</a>`, `<a href="/notes/Inbox.md">Inbox.md</a>`)
	if strings.Contains(body, ".trash") {
		t.Error("the root listing offers the trash, which has its own page")
	}
	// One search box on every console page.
	if !strings.Contains(body, `action="/console/search"`) {
		t.Error("no search box on the folder page")
	}

	resp, body = b.get("/notes/Projects/")
	want(t, resp, body, http.StatusOK, `<a href="/notes/Projects/Old/">Old/</a>`,
		`<a href="/notes/Projects/Plan%20B.md">Plan B.md</a>`, "pic.png", "(attachment)",
		`<a href="/notes/" `, `aria-current="page">Projects</a>`)
	// Folders first, then the notes by name.
	if i, j, k := strings.Index(body, "Old/"), strings.Index(body, "Plan B.md"), strings.Index(body, "Zeta.md"); !(i < j && j < k) {
		t.Errorf("order: Old/ at %d, Plan B at %d, Zeta at %d", i, j, k)
	}
	resp, body = b.get("/notes/Projects/?order=desc")
	want(t, resp, body, http.StatusOK, `aria-sort="descending"`)
	if j, k := strings.Index(body, "Plan B.md"), strings.Index(body, "Zeta.md"); !(k < j) {
		t.Error("descending by name does not put Zeta first")
	}

	// A folder's path without its slash goes to the folder.
	resp, _ = b.get("/notes/Projects")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/notes/Projects/" {
		t.Fatalf("folder without slash: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A folder that does not exist is a clear page, not an empty list.
	resp, body = b.get("/notes/Nowhere/")
	want(t, resp, body, http.StatusNotFound, "no folder at this path", `href="/notes/" id="problem-link"`)
	resp, body = b.get("/notes/Projects/?page=x")
	want(t, resp, body, http.StatusBadRequest, "not a page of this list")
	resp, body = b.get("/notes/%2E%2E/")
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Fatalf("a path outside the vault: %d %s", resp.StatusCode, body)
	}
}

func TestFolderPageSortsByModifiedAndPages(t *testing.T) {
	files := map[string]string{}
	for i := range folderPageSize + 5 {
		files[fmt.Sprintf("Many/n%03d.md", i)] = "x\n"
	}
	h := newHarness(t, files)
	// The oldest note by name is the newest on disk.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(h.Dir, "Many", "n000.md"), later, later); err != nil {
		t.Fatal(err)
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/notes/Many/")
	want(t, resp, body, http.StatusOK, `id="folder-next"`, "105 entries, 1–100 shown")
	if strings.Contains(body, "n104.md") {
		t.Error("the first page lists the 105th note")
	}
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(body)
	resp, body = b.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	want(t, resp, body, http.StatusOK, "n104.md", `id="folder-prev"`)

	resp, body = b.get("/notes/Many/?sort=modified&order=desc")
	want(t, resp, body, http.StatusOK)
	// Files written one after another differ in their times too, so only
	// the newest is known: it comes first.
	if first := regexp.MustCompile(`<td><a href="/notes/Many/([^"]+)">`).FindStringSubmatch(body); first == nil || first[1] != "n000.md" {
		t.Errorf("newest first begins with %v, want n000.md", first)
	}
	resp, body = b.get("/notes/Many/?page=9")
	want(t, resp, body, http.StatusBadRequest, "not a page of this list")
}

func TestSearchPageFindsByBodyWord(t *testing.T) {
	h := newHarness(t, map[string]string{
		"Projects/Garden.md": "# Garden\n\nPlant the zucchini after the frost.\n",
		"Other.md":           "# Other\n\nNothing here.\n",
	})
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/search?q=zucchini")
	want(t, resp, body, http.StatusOK, `<a href="/notes/Projects/Garden.md">Garden</a>`, "zucchini after the frost")
	if strings.Contains(body, "Other.md") {
		t.Error("a note without the word was found")
	}
	// Obsidian's syntax, as the tools take it.
	resp, body = b.get("/console/search?q=" + "path%3AProjects+frost")
	want(t, resp, body, http.StatusOK, "Projects/Garden.md")
	resp, body = b.get("/console/search?q=nothingmatches")
	want(t, resp, body, http.StatusOK, `id="no-hits"`)
	resp, body = b.get("/console/search")
	want(t, resp, body, http.StatusOK, `id="search-page-q"`)

	resp, body = b.get("/console/search?q=" + strings.Repeat("a", maxQueryBytes+1))
	want(t, resp, body, http.StatusRequestURITooLong, "longer than 1,000 characters", `href="/console/search" id="problem-link"`)
	resp, body = b.get("/console/search?q=zucchini&cursor=forged")
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a forged cursor: %d %s", resp.StatusCode, body)
	}
}

func TestSearchPagePages(t *testing.T) {
	files := map[string]string{}
	for i := range searchPageSize + 3 {
		files[fmt.Sprintf("n%02d.md", i)] = "the word apricot\n"
	}
	h := newHarness(t, files)
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/search?q=apricot")
	want(t, resp, body, http.StatusOK, `id="search-next"`)
	if n := strings.Count(body, "<li><h2>"); n != searchPageSize {
		t.Fatalf("%d results on the first page, want %d", n, searchPageSize)
	}
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(body)
	resp, body = b.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	want(t, resp, body, http.StatusOK, `id="search-first"`)
	if n := strings.Count(body, "<li><h2>"); n != 3 {
		t.Fatalf("%d results on the second page, want 3", n)
	}
}
