package search

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

func FuzzQuery(f *testing.F) {
	f.Add(`hello "big world" tag:x #y folder:a/b c/ 日本語 pre`, "---\ntags: [x, y/z]\n---\n# Hello\nbig world c pref 日本語")
	f.Add(`"unterminated`, "text")
	f.Add("Crème ß", "creme strasse \xff")
	f.Fuzz(func(t *testing.T, q, content string) {
		pq := ParseQuery(q)
		if len(pq.Terms)+len(pq.Phrases) > maxQueryItems || len(pq.Tags) > maxQueryItems {
			t.Fatalf("query not capped: %+v", pq)
		}
		for _, term := range pq.Terms {
			if term == "" || Fold(term) != term {
				t.Fatalf("term %q not folded", term)
			}
		}
		if pq.PrefixLast && len(pq.Terms) == 0 {
			t.Fatalf("PrefixLast without terms")
		}
		score, snip := Match(pq, "dir/note.md", markdown.Title(content, "dir/note.md"), content)
		if score < 0 || score == 0 && snip != "" {
			t.Fatalf("score %v snippet %q", score, snip)
		}
		if ok, s := Confirm(pq, "dir/note.md", markdown.Title(content, "dir/note.md"), content); ok != (score > 0) || s != snip {
			t.Fatalf("Confirm = %v %q, Match = %v %q", ok, s, score, snip)
		}
		if score > 0 {
			// Every line named is a line of the note, in order, within
			// the cap, clipped.
			lines := strings.Split(content, "\n")
			last := 0
			for _, h := range HitLines(pq, "dir/note.md", "", content, 10) {
				if h.N <= last || h.N > len(lines) || len(h.Text) > maxLineText+len("…") ||
					!strings.HasPrefix(strings.TrimSpace(strings.TrimSuffix(lines[h.N-1], "\r")), strings.TrimSuffix(h.Text, "…")) {
					t.Fatalf("line %+v of %q", h, content)
				}
				last = h.N
			}
		}
		if strings.ContainsAny(snip, "\n\r\t") || utf8.RuneCountInString(snip) > snippetRunes+2 {
			t.Fatalf("bad snippet %q", snip)
		}
		if utf8.ValidString(content) && !utf8.ValidString(snip) {
			t.Fatalf("snippet not valid UTF-8: %q", snip)
		}
		// Tokens of folded text agree with the word scanner used by Match.
		var scanned []string
		scanWords(content, func(w []byte, _, _ int) { scanned = append(scanned, string(w)) })
		if toks := Tokens(Fold(content)); !slices.Equal(toks, scanned) {
			t.Fatalf("Tokens(Fold) = %q, scanWords = %q", toks, scanned)
		}
	})
}
