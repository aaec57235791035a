//go:build unix

package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// deepNotes writes n notes three folders deep ("a3/b1/c4/Note 17.md"),
// spread so that consecutive notes lie in different folders, and returns
// their paths. The folders are dated an hour back, as most folders of a
// vault are, so that Read's listing of conflict copies stays cached.
func deepNotes(b *testing.B, n int) (*Vault, []string) {
	b.Helper()
	body := "---\ntags: [bench]\n---\n# Bench\n" + strings.Repeat("Some words of a note with a [[link]] and #tag.\n", 70)
	files := make(map[string]string, n)
	paths := make([]string, n)
	for i := range n {
		paths[i] = fmt.Sprintf("a%d/b%d/c%d/Note %d.md", i%10, i/10%10, i/100%10, i)
		files[paths[i]] = body
	}
	v, dir := newTestVault(b, files, nil)
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return v, paths
}

// BenchmarkReadNoteDeep reads notes three folders deep, a different note
// each time, as search's confirmation and fetches across a vault do: what
// it measures is the cost of opening a note safely, not a cache.
func BenchmarkReadNoteDeep(b *testing.B) {
	v, paths := deepNotes(b, 2000)
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 0
	for b.Loop() {
		if _, _, _, e := v.readNote(paths[i%len(paths)]); e != nil {
			b.Fatal(e)
		}
		i++
	}
}

// BenchmarkReadNoteFileDeep is BenchmarkReadNoteDeep without the info of
// the note's folder, as search and writes read notes.
func BenchmarkReadNoteFileDeep(b *testing.B) {
	v, paths := deepNotes(b, 2000)
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 0
	for b.Loop() {
		if _, _, e := v.readNoteFile(paths[i%len(paths)]); e != nil {
			b.Fatal(e)
		}
		i++
	}
}

// BenchmarkReadDeep is BenchmarkReadNoteDeep through Read, the fetch of a
// note by its path, with the parsed Markdown of no note remembered (as in a
// vault larger than that cache) and each folder's conflict copies listed
// once beforehand (as in a vault read for a while).
func BenchmarkReadDeep(b *testing.B) {
	v, paths := deepNotes(b, 2000)
	for _, p := range paths {
		if _, err := v.Read(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 0
	for b.Loop() {
		if i%len(paths) == 0 {
			b.StopTimer()
			v.forgetMeta()
			b.StartTimer()
		}
		if _, err := v.Read(ctx, paths[i%len(paths)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
