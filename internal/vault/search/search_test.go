package search

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in   string
		want Query
	}{
		{"", Query{}},
		{"Hello Wörld", Query{Terms: []string{"hello", "world"}, PrefixLast: true}},
		{"hello world ", Query{Terms: []string{"hello", "world"}}},
		{`"Exact Phrase" tail`, Query{Terms: []string{"tail"}, Phrases: []string{"exact phrase"}, PrefixLast: true}},
		{`a "unterminated phrase here`, Query{Terms: []string{"a"}, Phrases: []string{"unterminated phrase here"}}},
		{`"single"`, Query{Terms: []string{"single"}}},
		{"tag:Work #Café/Sub x", Query{Terms: []string{"x"}, Tags: []string{"work", "cafe/sub"}, PrefixLast: true}},
		{"folder:Projects/Alpha/ notes/ y", Query{Terms: []string{"y"}, Folder: "notes", PrefixLast: true}},
		{"folder:/a/b/", Query{Folder: "a/b"}},
		{"日本語 テスト", Query{Phrases: []string{"日 本 語", "テ ス ト"}}},
		{"漢 x", Query{Terms: []string{"漢", "x"}, PrefixLast: true}},
		{"state-of-the-art", Query{Phrases: []string{"state of the art"}}},
		{"dup other dup", Query{Terms: []string{"other", "dup"}, PrefixLast: true}},
		{"# ## !!! --", Query{Literal: "# ## !!! --"}},
		{"- [ ]", Query{Literal: "- [ ]"}},
		{"- [ ] folder:Daily", Query{Folder: "Daily", Literal: "- [ ]"}},
		{"call * [x] now", Query{Terms: []string{"call", "now"}, Literal: "* [x]", PrefixLast: true}},
		{"a- [ ] b", Query{Terms: []string{"a", "b"}, PrefixLast: true}},
		{"- [ ]  - [x]", Query{Literal: "- [ ]  - [x]"}},
		{" - [ ] !!! ", Query{Literal: "- [ ] !!!"}},
		{" 🚀 ", Query{Literal: "🚀"}},
		{"🚀 Launch", Query{Terms: []string{"launch"}, Symbols: []string{"🚀"}, PrefixLast: true}},
		{`folder:Notes ✅ "🚀"`, Query{Folder: "Notes", Symbols: []string{"✅", "🚀"}}},
		{"plan — draft!", Query{Terms: []string{"plan", "draft"}, PrefixLast: true}},
		{"garden OR homelab", Query{Or: []Query{{Terms: []string{"garden"}}, {Terms: []string{"homelab"}, PrefixLast: true}}}},
		{"a b OR c", Query{Or: []Query{{Terms: []string{"a", "b"}}, {Terms: []string{"c"}, PrefixLast: true}}}},
		{`"x OR y" ORx`, Query{Terms: []string{"orx"}, Phrases: []string{"x or y"}, PrefixLast: true}},
		{"OR", Query{Terms: []string{"or"}, PrefixLast: true}},
		{`plan -garden -"old stuff" -#draft -tag:x`, Query{Terms: []string{"plan"}, NotTerms: []string{"garden"}, NotPhrases: []string{"old stuff"}, NotTags: []string{"draft", "x"}}},
		{`path:"Daily Notes" file:Plan path:proj/`, Query{Paths: []string{"daily notes", "proj"}, Files: []string{"plan"}}},
		{`[status:active] [Due] [tags: "A b"]`, Query{Props: []Property{{"status", "active", true}, {"due", "", false}, {"tags", "a b", true}}}},
		// A property's values may be alternatives, as in Obsidian.
		{`[status:Draft OR "In review"]`, Query{Or: []Query{{Props: []Property{{"status", "draft", true}}}, {Props: []Property{{"status", "in review", true}}}}}},
		{`plan [status:a OR b] OR x`, Query{Or: []Query{
			{Terms: []string{"plan"}, Props: []Property{{"status", "a", true}}},
			{Terms: []string{"plan"}, Props: []Property{{"status", "b", true}}},
			{Terms: []string{"x"}, PrefixLast: true}}}},
		{`[a:x OR y] [b:1 OR 2] [c:OR]`, Query{Or: []Query{
			{Props: []Property{{"a", "x", true}, {"b", "1", true}, {"c", "", true}}},
			{Props: []Property{{"a", "x", true}, {"b", "2", true}, {"c", "", true}}},
			{Props: []Property{{"a", "y", true}, {"b", "1", true}, {"c", "", true}}},
			{Props: []Property{{"a", "y", true}, {"b", "2", true}, {"c", "", true}}}}}},
		{`plan -[status:done OR dropped] -[Due]`, Query{Terms: []string{"plan"}, NotProps: []Property{{"status", "done", true}, {"status", "dropped", true}, {"due", "", false}}}},
		{"content:hello", Query{Terms: []string{"hello"}}},
		{"line:(x y)", Query{Terms: []string{"x", "y"}, Lines: []LineFilter{{Kind: AnyLine, Terms: []string{"x", "y"}}}}},
		{`task-todo:(call "the roofer") garden`, Query{Terms: []string{"call", "garden"}, Phrases: []string{"the roofer"}, PrefixLast: true,
			Lines: []LineFilter{{Kind: TodoTask, Terms: []string{"call"}, Phrases: []string{"the roofer"}}}}},
		{"task-done:Paint", Query{Terms: []string{"paint"}, Lines: []LineFilter{{Kind: DoneTask, Terms: []string{"paint"}}}}},
		{"task:", Query{NoValue: "task:"}},
		{"block:x", Query{Unsupported: "block:"}},
		{"a /re.*x/", Query{Terms: []string{"a"}, Unsupported: "regular expressions"}},
		{"-path:x y", Query{Terms: []string{"y"}, PrefixLast: true, Unsupported: "excluding path: filters"}},
		{"(a OR b) c", Query{Or: []Query{{Terms: []string{"a"}}, {Terms: []string{"b", "c"}, PrefixLast: true}}, Unsupported: "parentheses"}},
		{"x tag:", Query{Terms: []string{"x"}, NoValue: "tag:"}},
		{"tag:", Query{NoValue: "tag:"}},
		{`path:"" x`, Query{Terms: []string{"x"}, PrefixLast: true, NoValue: "path:"}},
		{"a OR folder: b", Query{Or: []Query{{Terms: []string{"a"}}, {Terms: []string{"b"}, PrefixLast: true}}, NoValue: "folder:"}},
		{"-tag:# y", Query{Terms: []string{"y"}, PrefixLast: true, NoValue: "tag:"}},
		{"10:30 task", Query{Terms: []string{"task"}, Phrases: []string{"10 30"}, PrefixLast: true}},
	}
	for _, tt := range tests {
		if got := ParseQuery(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseQuery(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	var words []string
	for i := range 50 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	long := ParseQuery(strings.Join(words, " ") + " #t")
	if n := len(long.Terms) + len(long.Phrases); n != maxQueryItems || len(long.Tags) != 1 {
		t.Errorf("long query kept %d items, want %d", n, maxQueryItems)
	}
}

const matchNote = `---
title: Garden Plan
tags: [garden, home/outdoor]
aliases: [Allotment]
---
# Garden Plan

Plant tomatoes in spring. The tomato bed needs compost and straße dust.

## Watering
Water the beds every morning; the crème brûlée is unrelated. #weekly
`

func TestMatch(t *testing.T) {
	tests := []struct {
		name  string
		query string
		path  string
		match bool
	}{
		{"term", "compost", "g.md", true},
		{"all terms needed", "compost banana", "g.md", false},
		{"folded", "CREME Brulee strasse", "g.md", true},
		{"prefix last", "tomat", "g.md", true},
		{"no prefix with space", "tomat ", "g.md", false},
		{"phrase", `"tomato bed"`, "g.md", true},
		{"phrase order", `"bed tomato"`, "g.md", false},
		{"file name term", "zucchini", "zucchini.md", true},
		{"folder term", "projects compost", "projects/g.md", true},
		{"folder filter", "folder:home compost", "home/x/g.md", true},
		{"folder filter miss", "folder:home compost", "homework/g.md", false},
		{"frontmatter tag", "tag:garden", "g.md", true},
		{"nested tag", "#home", "g.md", true},
		{"inline tag", "#weekly water", "g.md", true},
		{"missing tag", "#work water", "g.md", false},
		{"alias term", "allotment", "g.md", true},
		{"property", "[title:garden] compost", "g.md", true},
		{"excluded property", "compost -[title:garden]", "g.md", false},
		{"excluded list property", "compost -[tags:garden]", "g.md", false},
		{"excluded absent property", "compost -[status]", "g.md", true},
		{"excluded other value", "compost -[tags:work OR play]", "g.md", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			score, snip := Match(ParseQuery(tt.query), tt.path, markdown.Title(matchNote, tt.path), matchNote)
			if (score > 0) != tt.match {
				t.Fatalf("score = %v, want match %v", score, tt.match)
			}
			if tt.match && (snip == "" || strings.ContainsAny(snip, "\n\t") || utf8.RuneCountInString(snip) > snippetRunes+2) {
				t.Errorf("bad snippet %q", snip)
			}
			if !tt.match && snip != "" {
				t.Errorf("snippet %q for a miss", snip)
			}
		})
	}
}

func TestMatchRanking(t *testing.T) {
	q := ParseQuery("tomato")
	inTitle, _ := Match(q, "a.md", "Tomato", "# Tomato\nsome text about tomato")
	inBody, _ := Match(q, "b.md", "B", "# B\nsome text about tomato")
	often, _ := Match(q, "c.md", "C", "# C\ntomato tomato tomato tomato")
	if !(inTitle > often && often > inBody && inBody > 0) {
		t.Errorf("scores title=%v often=%v body=%v", inTitle, often, inBody)
	}
}

func TestMatchSnippet(t *testing.T) {
	body := strings.Repeat("filler words here ", 30) + "the needle   sits\n\nin   this haystack " + strings.Repeat("more text after ", 30)
	_, snip := Match(ParseQuery("needle haystack"), "n.md", "N", "---\na: needle\n---\n"+body)
	if !strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") {
		t.Errorf("snippet not cut at both ends: %q", snip)
	}
	if !strings.Contains(snip, "the needle sits in this haystack") {
		t.Errorf("snippet misses the hit or keeps white space: %q", snip)
	}
	if n := utf8.RuneCountInString(snip); n > snippetRunes+2 || n < 100 {
		t.Errorf("snippet has %d runes", n)
	}
	// Filter-only queries give the start of the body.
	score, snip := Match(ParseQuery("folder:x"), "x/n.md", "", "---\na: 1\n---\nFirst line.\nSecond.")
	if score <= 0 || snip != "First line. Second." {
		t.Errorf("filter-only = %v, %q", score, snip)
	}
	// Multi-byte text is cut on rune boundaries.
	_, snip = Match(ParseQuery("語"), "j.md", "", strings.Repeat("日本語のテキスト", 60))
	if !utf8.ValidString(snip) {
		t.Errorf("invalid UTF-8 snippet %q", snip)
	}
}

// TestConfirmLongNotes checks that Confirm, which scans long notes in
// growing prefixes, decides and cuts snippets as Match does.
func TestConfirmLongNotes(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet\n", 2000) // about 54 kB
	notes := map[string]string{
		"early":      "alpha beta gamma\n" + filler,
		"late":       filler + "alpha beta gamma\n",
		"split":      "alpha\n" + filler + "beta gamma\n",
		"missing":    "alpha\n" + filler,
		"phrase cut": strings.Repeat("x", confirmPrefix-3) + "\nalpha\nbeta gamma\n" + filler,
		"tag":        "---\ntags: [t]\n---\nalpha beta\n" + filler,
	}
	for _, q := range []string{"alpha beta", `"alpha beta"`, "gamma", "alph", "alpha tag:t", `"beta gamma" alpha`, "lorem"} {
		pq := ParseQuery(q)
		for name, content := range notes {
			score, want := Match(pq, "n.md", "N", content)
			ok, got := Confirm(pq, "n.md", "N", content)
			if ok != (score > 0) || got != want {
				t.Errorf("%s / %q: Confirm = %v %q, Match = %v %q", name, q, ok, got, score, want)
			}
		}
	}
}

// TestConfirmStopsAsMatchDecides checks that Confirm, which stops reading
// a note at the first stretch of its body holding every word asked for,
// decides and cuts snippets as Match does after reading it all: words
// repeated past the hits kept, prefixes, words in the frontmatter or the
// title only, words far apart, on notes drawn at random from few words.
func TestConfirmStopsAsMatchDecides(t *testing.T) {
	words := strings.Fields("alpha beta gamma delta Alphabet béta ÉPSILON 会 议 x")
	seps := []string{" ", "  ", "\n", ", ", "\n\n## ", " #", strings.Repeat(" ", 90)}
	r := rand.New(rand.NewPCG(1, 2))
	queries := []string{"alpha", "alph", "alpha beta", "beta alpha", "gamma delta alpha", "beta epsilon", "alpha x",
		"alpha ", "bet", "alpha beta gamma delta epsilon", "zzz alpha", "alpha tag:t"}
	for i := range 200 {
		var b strings.Builder
		if i == 0 {
			// More hits than are kept before the words come together.
			b.WriteString(strings.Repeat("alpha gamma ", maxHits) + "beta alpha")
		}
		if i%3 == 0 {
			fmt.Fprintf(&b, "---\ntags: [t]\nnote: %s\n---\n", words[r.IntN(len(words))])
		}
		for range r.IntN(1000) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		content := b.String()
		for _, q := range queries {
			pq := ParseQuery(q)
			score, want := Match(pq, "dir/gamma note.md", "Delta", content)
			ok, got := Confirm(pq, "dir/gamma note.md", "Delta", content)
			if ok != (score > 0) || got != want {
				t.Fatalf("note %d / %q: Confirm = %v %q, Match = %v %q", i, q, ok, got, score, want)
			}
		}
	}
}
