package vault

import "testing"

// BenchmarkLookupIndexedPath is the lookup every fetch by path makes: with
// the index built, a note's exact path is answered from the index.
func BenchmarkLookupIndexedPath(b *testing.B) {
	v, _ := newIndexedVault(b, map[string]string{"Projects/Deep/Folder/Plan.md": "# Plan\n"}, nil)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := v.Lookup(ctx, "Projects/Deep/Folder/Plan.md"); err != nil || n.Path != "Projects/Deep/Folder/Plan.md" {
			b.Fatal(n, err)
		}
	}
}
