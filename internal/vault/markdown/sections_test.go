package markdown

import (
	"errors"
	"reflect"
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
		{"plan", 0, 0, 0, ErrSectionNotFound},
		{"", 0, 0, 0, ErrSectionNotFound},
		{"##", 0, 0, 0, ErrSectionNotFound},
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
