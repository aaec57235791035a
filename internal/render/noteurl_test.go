package render

import (
	"net/url"
	"strings"
	"testing"
)

// oldNoteURL is NoteURL as first written, on url.PathEscape: the URL
// SiteNoteURL must make.
func oldNoteURL(site, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return site + "/notes/" + strings.Join(segs, "/")
}

// escapeInSegment escapes exactly the bytes url.PathEscape escapes.
func TestEscapeInSegmentIsPathEscapes(t *testing.T) {
	for c := range 256 {
		b := string([]byte{byte(c)})
		if got, want := escapeInSegment(byte(c)), url.PathEscape(b) != b; got != want {
			t.Errorf("escapeInSegment(%q) = %v, url.PathEscape escapes it: %v", b, got, want)
		}
	}
}

func FuzzSiteNoteURL(f *testing.F) {
	for _, p := range []string{"", "a.md", "Projects/Garden Plan.md", "Notas/Reunión semanal.md", "a/b/", "/", "100%;,?#&=+$@:~", "\xff\x00"} {
		f.Add("https://notes.example.com", p)
		f.Add("", p)
	}
	f.Fuzz(func(t *testing.T, site, p string) {
		if got, want := SiteNoteURL(site, p), oldNoteURL(site, p); got != want {
			t.Fatalf("SiteNoteURL(%q, %q) = %q, want %q", site, p, got, want)
		}
		if got, want := NoteURL(p), oldNoteURL("", p); got != want {
			t.Fatalf("NoteURL(%q) = %q, want %q", p, got, want)
		}
	})
}

func BenchmarkSiteNoteURL(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		SiteNoteURL("https://notes.example.com", "Projects/Garden Plan 2026/Reunión semanal.md")
	}
}
