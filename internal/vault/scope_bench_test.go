//go:build unix

package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// scopeBenchNotes is the size of the vault the scope benchmarks use.
const scopeBenchNotes = 4000

// scopeBenchRead covers 23 of the 50 top folders of benchVault.
const scopeBenchRead = "f1*, f2*, f3"

// scopeBench opens benchVault with every 400th note private by its
// frontmatter, and returns the contexts to compare: the owner's (no
// scope), the whole vault without private notes (what every app and
// token has by default) and a token reading about half the folders; and
// the notes that token sees, which all three read.
func scopeBench(b *testing.B) (*Vault, map[string]context.Context, []string) {
	b.Helper()
	dir := benchVault(b, scopeBenchNotes)
	read, err := scope.ParseRules(scopeBenchRead)
	if err != nil {
		b.Fatal(err)
	}
	var seen []string
	for i := range scopeBenchNotes {
		p := "f" + fmt.Sprint(i%50) + "/Note " + fmt.Sprint(i) + ".md"
		if i%400 == 0 {
			full := filepath.Join(dir, filepath.FromSlash(p))
			data, err := os.ReadFile(full)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(strings.Replace(string(data), "---\n", "---\nprivate: true\n", 1)), 0o644); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if read.Match(p) {
			seen = append(seen, p)
		}
	}
	// Notes written within racyWindow are read again to check their
	// marks; a vault in use was written long before.
	old := time.Now().Add(-time.Hour)
	err = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		b.Fatal(err)
	}
	ctxs := map[string]context.Context{
		"owner":  ctx,
		"whole":  scope.NewContext(ctx, scope.Scope{}),
		"scoped": scope.NewContext(ctx, scope.Scope{Read: read}),
	}
	return openBench(b, dir), ctxs, seen
}

// forgetMeta empties the parsed-Markdown cache, so that every note is
// read cold, as a model reads a vault: each fetch a different note.
func (v *Vault) forgetMeta() {
	v.meta.mu.Lock()
	v.meta.m = nil
	v.meta.mu.Unlock()
}

// BenchmarkScopeRead measures Read of a different note each time, cold,
// as the owner, as an app seeing the whole vault without private notes,
// and as a token reading about half the folders; all three read the same
// notes, the ones the token sees.
func BenchmarkScopeRead(b *testing.B) {
	v, ctxs, notes := scopeBench(b)
	for _, name := range []string{"owner", "whole", "scoped"} {
		c := ctxs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			v.forgetMeta()
			defer reportCPU(b)()
			i := 0
			for b.Loop() {
				if i == len(notes) {
					b.StopTimer()
					v.forgetMeta()
					i = 0
					b.StartTimer()
				}
				if _, err := v.Read(c, notes[i]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkScopeSearch measures SearchPage through the index in the same
// three ways, each call another query of the search benchmark's.
func BenchmarkScopeSearch(b *testing.B) {
	v, ctxs, _ := scopeBench(b)
	queries := []string{"garden", "budget review", `"weekly goals"`, "cancion", "会議", "datab", "tag:music", "river mountain winter"}
	for _, name := range []string{"owner", "whole", "scoped"} {
		c := ctxs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			i := 0
			for b.Loop() {
				if _, err := v.SearchPage(c, Query{Text: queries[i%len(queries)]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// reportCPU reports the process's CPU time per operation (user and
// system), which a shared machine's load changes far less than the time
// on the clock; call the function it returns after the loop.
func reportCPU(b *testing.B) func() {
	var r0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	return func() {
		var r1 syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
		ns := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
		b.ReportMetric(float64(ns)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkPrivateText measures what the index pays, for each note it
// reads, to learn whether the note is private: a frontmatter that does not
// mention it, one that says so on the usual line, and one that names it
// without setting it (parsed, to agree with a read).
func BenchmarkPrivateText(b *testing.B) {
	for _, c := range []struct{ name, note string }{
		{"plain", "---\ntags: [garden, plan]\nstatus: active\n---\n# Plan\n\nDig two beds.\n"},
		{"private", "---\ntags: [garden, plan]\nprivate: true\n---\n# Plan\n\nDig two beds.\n"},
		{"public", "---\ntags: [garden, plan]\nprivate: false\n---\n# Plan\n\nDig two beds.\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				privateText(c.note)
			}
		})
	}
}
