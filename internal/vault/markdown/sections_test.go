package markdown

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const sectionDoc = `---
title: "# not a heading"
---
# Top
intro
## Plan
step 1
` + "```" + `
## fenced, ignored
` + "```" + `
### Detail
more
## Plan B ##
b
# Other
## Plan
again
#hashtag line
    # indented four is code
`

func TestHeadings(t *testing.T) {
	got := Headings(sectionDoc)
	want := []Heading{
		{1, "Top", 4, 33},
		{2, "Plan", 6, 45},
		{3, "Detail", 11, 87},
		{2, "Plan B", 13, 103},
		{1, "Other", 15, 118},
		{2, "Plan", 16, 126},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, h := range got {
		if sectionDoc[h.Start] != '#' {
			t.Errorf("Start of %q does not point at '#'", h.Text)
		}
	}
}

func TestParseHeading(t *testing.T) {
	tests := []struct {
		in    string
		level int
		text  string
		ok    bool
	}{
		{"# A", 1, "A", true},
		{"###### Six", 6, "Six", true},
		{"####### Seven", 0, "", false},
		{"#NoSpace", 0, "", false},
		{"#", 1, "", true},
		{"## C# ##", 2, "C#", true},
		{"## Ends with#", 2, "Ends with#", true},
		{"   ### three spaces", 3, "three spaces", true},
		{"#\tTab", 1, "Tab", true},
		{"## ###", 2, "", true},
	}
	for _, tt := range tests {
		l, txt, ok := parseHeading(tt.in)
		if l != tt.level || txt != tt.text || ok != tt.ok {
			t.Errorf("parseHeading(%q) = %d, %q, %v; want %d, %q, %v", tt.in, l, txt, ok, tt.level, tt.text, tt.ok)
		}
	}
}

func TestFindSection(t *testing.T) {
	doc := "# Top\nintro\n## Plan\nstep\n### Sub\nx\n## Next\ny\n# Second\n## Last\nz"
	tests := []struct {
		heading               string
		start, bodyStart, end int
		err                   error
	}{
		{"Top", 0, 6, 45, nil},
		{"# Top", 0, 6, 45, nil},
		{"  Plan  ", 12, 20, 35, nil},
		{"## Plan", 12, 20, 35, nil},
		{"### Plan", 0, 0, 0, ErrSectionNotFound},
		{"Sub", 25, 33, 35, nil},
		{"Last", 54, 62, 63, nil},
		{"plan", 12, 20, 35, nil},
		{"## PLAN", 12, 20, 35, nil},
		{"# plan", 0, 0, 0, ErrSectionNotFound},
		{"", 0, 0, 0, ErrSectionNotFound},
		{"##", 0, 0, 0, ErrSectionNotFound},
		// A heading below another, as Obsidian's links write it.
		{"Plan#Sub", 25, 33, 35, nil},
		{"top#plan#SUB", 25, 33, 35, nil},
		{"Top#Last", 0, 0, 0, ErrSectionNotFound},
		{"Plan#", 0, 0, 0, ErrSectionNotFound},
	}
	for _, tt := range tests {
		s, b, e, err := FindSection(doc, tt.heading)
		if !errors.Is(err, tt.err) || s != tt.start || b != tt.bodyStart || e != tt.end {
			t.Errorf("FindSection(%q) = %d, %d, %d, %v; want %d, %d, %d, %v", tt.heading, s, b, e, err, tt.start, tt.bodyStart, tt.end, tt.err)
		}
	}
}

func TestFindSectionAmbiguous(t *testing.T) {
	_, _, _, err := FindSection(sectionDoc, "Plan")
	var ae *AmbiguousError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *AmbiguousError", err)
	}
	want := []string{"## Plan (line 6)", "## Plan (line 16)"}
	if !reflect.DeepEqual(ae.Candidates, want) {
		t.Errorf("candidates = %q, want %q", ae.Candidates, want)
	}
	// A heading inside a fence never matches.
	if _, _, _, err := FindSection(sectionDoc, "## fenced, ignored"); !errors.Is(err, ErrSectionNotFound) {
		t.Errorf("fenced heading: err = %v", err)
	}
	// The section under "## Plan" (line 6) ends at "## Plan B", not at the fenced line.
	s, _, e, err := FindSection(sectionDoc, "Plan B")
	if err != nil || sectionDoc[s:e] != "## Plan B ##\nb\n" {
		t.Errorf("Plan B section = %q, %v", sectionDoc[s:e], err)
	}
}

func TestFindSectionIgnoresCaseOnlyWhenUnambiguous(t *testing.T) {
	doc := "## Budget\na\n## budget\nb\n## Plan\nc\n## PLAN\nd\n## Notes\ne\n"
	// An exact match wins over case-insensitive ones.
	if s, _, e, err := FindSection(doc, "budget"); err != nil || doc[s:e] != "## budget\nb\n" {
		t.Errorf("budget = %q, %v", doc[s:e], err)
	}
	// Two headings that differ from the query only in case are ambiguous.
	_, _, _, err := FindSection(doc, "plan")
	var ae *AmbiguousError
	if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Candidates, []string{"## Plan (line 5)", "## PLAN (line 7)"}) {
		t.Errorf("plan: err = %v", err)
	}
	if s, _, e, err := FindSection(doc, "NOTES"); err != nil || doc[s:e] != "## Notes\ne\n" {
		t.Errorf("NOTES = %q, %v", doc[s:e], err)
	}
}

func TestSectionErrorsListHeadingsCapped(t *testing.T) {
	_, _, _, err := FindSection("# A\n## B\ntext\n### C\n", "Missing")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrSectionNotFound) {
		t.Fatalf("err = %v, want *NotFoundError", err)
	}
	if want := []string{"# A (line 1)", "## B (line 2)", "### C (line 4)"}; !reflect.DeepEqual(nf.Headings, want) || nf.More != 0 {
		t.Errorf("headings = %q, more %d", nf.Headings, nf.More)
	}

	var b strings.Builder
	for range 1000 {
		b.WriteString("## Same\nx\n")
	}
	_, _, _, err = FindSection(b.String(), "Same")
	var ae *AmbiguousError
	if !errors.As(err, &ae) || len(ae.Candidates) != MaxCandidates || ae.More != 1000-MaxCandidates {
		t.Fatalf("ambiguous: %d candidates, %d more (%v)", len(ae.Candidates), ae.More, err)
	}
	if ae.Candidates[49] != "## Same (line 99)" {
		t.Errorf("last candidate = %q", ae.Candidates[49])
	}
	_, _, _, err = FindSection(b.String(), "Other")
	if !errors.As(err, &nf) || len(nf.Headings) != MaxCandidates || nf.More != 1000-MaxCandidates {
		t.Fatalf("not found: %v", err)
	}
}

// TestFindSectionPath: a heading path names one of several headings of
// the same text by the heading above it; a heading whose text holds a '#'
// is still found as written.
func TestFindSectionPath(t *testing.T) {
	doc := "# Garden\n## Budget\n### Notes\na\n## Tasks\n### Notes\nb\n## C# tips\nc\n"
	var ae *AmbiguousError
	if _, _, _, err := FindSection(doc, "Notes"); !errors.As(err, &ae) {
		t.Errorf("Notes: err = %v, want ambiguous", err)
	}
	for heading, want := range map[string]string{
		"Tasks#Notes":         "### Notes\nb\n",
		"Garden#Budget#Notes": "### Notes\na\n",
		"C# tips":             "## C# tips\nc\n",
	} {
		if s, _, e, err := FindSection(doc, heading); err != nil || doc[s:e] != want {
			t.Errorf("%s = %q, %v; want %q", heading, doc[s:e], err, want)
		}
	}
	// Not found: the note's headings are listed, not the part's.
	_, _, _, err := FindSection(doc, "Budget#Costs")
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Headings) != 6 {
		t.Errorf("Budget#Costs: err = %v", err)
	}
}

// TestFindBlock: a paragraph or list item ending in " ^id", or the block
// above a line holding only "^id". A ^id inside fenced code or the
// frontmatter is text, not a block id; a line holding only ^id below a
// code block names the code block.
func TestFindBlock(t *testing.T) {
	for doc, want := range map[string]map[string]string{
		"# Homelab\n\nRack the server.\nBack up the photos. ^backup\n\n- buy disks ^disks\n- wire power\n\n| a | b |\n| 1 | 2 |\n^table\n\nA note on power ^power\n": {
			"backup": "Rack the server.\nBack up the photos. ^backup\n",
			"disks":  "- buy disks ^disks\n",
			"table":  "| a | b |\n| 1 | 2 |\n^table\n",
			"power":  "A note on power ^power\n",
			"Power":  "",
			"wire":   "",
			"":       "",
		},
		"---\nnote: x ^front\n---\n# Code\n\n```\nrun ^fake\n```\n\n```sh\nmake\n```\n^build\n\nLast ^fake\n": {
			"front": "",
			"fake":  "Last ^fake\n",
			"build": "```sh\nmake\n```\n^build\n",
		},
	} {
		for id, want := range want {
			s, e, ok := FindBlock(doc, id)
			if got := doc[s:e]; ok != (want != "") || got != want {
				t.Errorf("FindBlock(%q) = %q, %v; want %q", id, got, ok, want)
			}
		}
	}
}

// TestFindSectionPathAfterRule: a section whose body opens with a rule
// (---) is not a note with frontmatter; the headings below the rule are
// still within the heading path, and two of them are refused rather than
// the second taken for the only one.
func TestFindSectionPathAfterRule(t *testing.T) {
	doc := "# Plan\n---\n## Sub\none\n---\n## Sub\ntwo\n"
	if s, _, e, err := FindSection(doc, "Plan#Sub"); err == nil {
		t.Errorf("Plan#Sub = %q; want refused, two headings read Sub", doc[s:e])
	}
	doc = "# Plan\n---\n## Sub\none\n---\n"
	if s, _, e, err := FindSection(doc, "Plan#Sub"); err != nil || doc[s:e] != "## Sub\none\n---\n" {
		t.Errorf("Plan#Sub = %q, %v", doc[s:e], err)
	}
}
