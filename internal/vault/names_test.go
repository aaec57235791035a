package vault

import (
	"strings"
	"testing"
)

var namesVault = map[string]string{
	"Projects/Garden Redesign.md": "---\naliases: [Garten, \"Backyard Plan\"]\n---\n# Garden Redesign\n## Budget\n100\n",
	"Inbox.md":                    "root inbox\n",
	"Archive/Inbox.md":            "old inbox\n",
	"A/Meeting.md":                "a\n",
	"B/Meeting.md":                "b\n",
	"Café.md":                     "nfc\n",
	"Projects/Sub/":               "",
	"Notes/Deep/Idea.md":          "---\naliases: [Shared]\n---\n",
	"Notes/Other.md":              "---\naliases: [shared]\n---\n",
	"Garden Redesign/readme.md":   "folder of the same name\n",
	"Projects/Garden Redesign/":   "",
	"file.txt":                    "not a note",
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name, path, heading, code string
		candidates                []string
	}{
		{"Projects/Garden Redesign.md", "Projects/Garden Redesign.md", "", "", nil},
		{"Garden Redesign", "Projects/Garden Redesign.md", "", "", nil},
		{"garden redesign", "Projects/Garden Redesign.md", "", "", nil},
		{"Garden Redesign.md", "Projects/Garden Redesign.md", "", "", nil},
		{"Projects/Garden Redesign", "Projects/Garden Redesign.md", "", "", nil},
		{"Garden Redesign#Budget", "Projects/Garden Redesign.md", "Budget", "", nil},
		{"[[Garden Redesign#Budget|the budget]]", "Projects/Garden Redesign.md", "Budget", "", nil},
		{"![[Garden Redesign]]", "Projects/Garden Redesign.md", "", "", nil},
		{"Garden Redesign#^block1", "Projects/Garden Redesign.md", "", "", nil},
		{"Garten", "Projects/Garden Redesign.md", "", "", nil},
		{"backyard plan", "Projects/Garden Redesign.md", "", "", nil},
		{"Inbox", "Inbox.md", "", "", nil},
		{"Archive/Inbox", "Archive/Inbox.md", "", "", nil},
		{"Meeting", "", "", CodeAmbiguousName, []string{"A/Meeting.md", "B/Meeting.md"}},
		{"Shared", "", "", CodeAmbiguousName, []string{"Notes/Other.md", "Notes/Deep/Idea.md"}},
		{"Cafe\u0301", "Café.md", "", "", nil},
		{"Cafe\u0301.md", "Café.md", "", "", nil},
		{"Nothing here", "", "", CodeNotFound, nil},
		{"Projects", "Projects", "", "", nil},
		{"file.txt", "file.txt", "", "", nil},
		{"../outside.md", "", "", CodeInvalidPath, nil},
		{"  ", "", "", CodeInvalidArgument, nil},
	}
	for _, index := range []bool{false, true} {
		v, _ := newTestVault(t, namesVault, func(o *Options) { o.Index = index })
		if index {
			if err := v.WaitIndexed(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range tests {
			got, err := v.Lookup(ctx, tt.name)
			if tt.code != "" {
				e := errOf(t, err, tt.code)
				if tt.candidates != nil && strings.Join(e.Candidates, "|") != strings.Join(tt.candidates, "|") {
					// Alias matches come sorted by path.
					if !sameSet(e.Candidates, tt.candidates) {
						t.Errorf("index %v: Lookup(%q) candidates = %q, want %q", index, tt.name, e.Candidates, tt.candidates)
					}
				}
				continue
			}
			if err != nil || got.Path != tt.path || got.Heading != tt.heading {
				t.Errorf("index %v: Lookup(%q) = %+v, %v; want %q #%q", index, tt.name, got, err, tt.path, tt.heading)
			}
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestLookupCapsCandidates(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[strings.Repeat("d", 1+i%3)+"/"+string(rune('a'+i%26))+string(rune('a'+i/26))+"/Same.md"] = "x"
	}
	v, _ := newTestVault(t, files, nil)
	_, err := v.Lookup(ctx, "Same")
	e := errOf(t, err, CodeAmbiguousName)
	if len(e.Candidates) != 50 || e.More != 10 || !strings.Contains(e.Message, "60 notes") {
		t.Errorf("candidates %d, more %d: %s", len(e.Candidates), e.More, e.Message)
	}
}
