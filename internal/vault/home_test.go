package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A restore from backup swaps the folder under cortex: every write is
// refused, nothing lands in the old folder, and swapping back resumes.
func TestReplacedVaultRefusesWrites(t *testing.T) {
	ctx := context.Background()
	v, dir := newTestVault(t, map[string]string{"a.md": "alpha\n", "b.md": "beta\n"}, nil)
	a, err := v.Read(ctx, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(); err != nil {
		t.Fatalf("Check before the swap: %v", err)
	}
	old := dir + ".old"
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"a.md": "alpha\n", "b.md": "beta\n"})

	wantCode(t, v.Check(), CodeVaultReplaced)
	_, err = v.Create(ctx, "new.md", "lost?\n")
	wantCode(t, err, CodeVaultReplaced)
	_, err = v.Append(ctx, "a.md", "more\n", "")
	wantCode(t, err, CodeVaultReplaced)
	_, err = v.Edit(ctx, "a.md", a.Version, "alpha", "omega", false)
	wantCode(t, err, CodeVaultReplaced)
	_, err = v.Move(ctx, "a.md", "c.md", a.Version, false)
	wantCode(t, err, CodeVaultReplaced)
	_, err = v.Delete(ctx, "a.md", a.Version)
	wantCode(t, err, CodeVaultReplaced)
	for _, d := range []string{dir, old} {
		for _, p := range []string{"new.md", "c.md", ".trash/a.md"} {
			if _, err := os.Lstat(filepath.Join(d, p)); err == nil {
				t.Errorf("%s written into %s", p, d)
			}
		}
		if got := readFile(t, d, "a.md"); got != "alpha\n" {
			t.Errorf("a.md in %s = %q", d, got)
		}
	}

	// The folder deleted outright: the same answer, not not_found.
	if err := os.Rename(dir, dir+".new"); err != nil {
		t.Fatal(err)
	}
	_, err = v.Create(ctx, "new.md", "x\n")
	wantCode(t, err, CodeVaultReplaced)
	// A read that finds nothing says why, rather than not_found.
	_, err = v.Read(ctx, "missing.md")
	wantCode(t, err, CodeVaultReplaced)

	// The opened folder back at its path: writes resume.
	if err := os.Rename(old, dir); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(); err != nil {
		t.Fatalf("Check after swapping back: %v", err)
	}
	if _, err := v.Create(ctx, "new.md", "kept\n"); err != nil {
		t.Fatalf("Create after swapping back: %v", err)
	}
	if got := readFile(t, dir, "new.md"); got != "kept\n" {
		t.Errorf("new.md = %q", got)
	}
}

// After a swap, reads answer vault_replaced too: the old folder and its
// index are no longer what the owner sees, so an answer from them (a note
// the owner has since changed, a search missing a restored note) would
// mislead. Swapping back serves again.
func TestReplacedVaultRefusesReads(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(map[bool]string{false: "scanning", true: "indexed"}[indexed], func(t *testing.T) {
			open := newTestVault
			if indexed {
				open = newIndexedVault
			}
			v, dir := open(t, map[string]string{"a.md": "alpha [[b]]\n", "b.md": "beta\n", "pic.png": "png", "AGENTS.md": "be brief\n"}, nil)
			testReplacedVaultRefusesReads(t, v, dir)
		})
	}
}

func testReplacedVaultRefusesReads(t *testing.T, v *Vault, dir string) {
	ctx := context.Background()
	// The instructions go to every app that connects: after the swap the
	// old folder's are not given (every tool says what happened instead).
	instructions := func(when, want string) {
		t.Helper()
		if got, err := v.Instructions(ctx); got != want || err != nil {
			t.Errorf("instructions %s: %q, %v; want %q", when, got, err, want)
		}
	}
	instructions("before the swap", "be brief\n")
	defer instructions("after swapping back", "be brief\n")
	old := dir + ".old"
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"a.md": "alpha restored\n", "b.md": "beta\n"})

	reads := map[string]func() error{
		"Read":           func() error { _, err := v.Read(ctx, "a.md"); return err },
		"Lookup":         func() error { _, err := v.Lookup(ctx, "b"); return err },
		"Search":         func() error { _, err := v.Search(ctx, Query{Text: "alpha"}); return err },
		"SearchPage":     func() error { _, err := v.SearchPage(ctx, Query{Text: "alpha"}); return err },
		"List":           func() error { _, err := v.List(ctx, "", true); return err },
		"Changed":        func() error { _, err := v.Changed(ctx, time.Time{}); return err },
		"Links":          func() error { _, err := v.Links(ctx, "a.md"); return err },
		"Embeds":         func() error { _, err := v.Embeds(ctx, "a.md"); return err },
		"ReadAttachment": func() error { _, err := v.ReadAttachment(ctx, "pic.png", true, 1<<20); return err },
	}
	for name, read := range reads {
		if err := read(); code(t, err) != CodeVaultReplaced {
			t.Errorf("%s after the swap: %v, want vault_replaced", name, err)
		}
	}
	instructions("after the swap", "")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(old, dir); err != nil {
		t.Fatal(err)
	}
	for name, read := range reads {
		if err := read(); err != nil {
			t.Errorf("%s after swapping back: %v", name, err)
		}
	}
}
