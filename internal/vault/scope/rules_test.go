package scope

import (
	"errors"
	"strings"
	"testing"
)

func TestRulesMatch(t *testing.T) {
	tests := []struct {
		rules string
		yes   []string
		no    []string
	}{
		{"private/**", []string{"private", "private/a.md", "Private/x/y.md", "PRIVATE/a.md"}, []string{"privateer.md", "x/private/a.md", "a.md"}},
		{"private/*", []string{"private/a.md", "private/x/y.md"}, []string{"private", "a.md"}},
		{"private", []string{"private", "private/a.md", "private/b/c.md"}, []string{"x/private", "privates/a.md"}},
		{"Work/", []string{"Work", "work/plan.md", "Work/a/b/c.md"}, []string{"Workshop/a.md"}},
		{"/Work", []string{"Work/a.md"}, []string{"Other/Work/a.md"}},
		{"Journal/2026-*.md", []string{"Journal/2026-01-02.md"}, []string{"Journal/2025-01-02.md", "Journal/sub/2026-01.md", "Journal"}},
		{"**/secret.md", []string{"secret.md", "a/secret.md", "a/b/secret.md"}, []string{"a/secret.md.bak", "a/b/c.md"}},
		{"Work/**/*.md", []string{"Work/a.md", "Work/x/y/a.md"}, []string{"Work/a.png", "Other/a.md"}},
		{"**", []string{"a.md", "x/y/z.md"}, nil},
		{"Work/**, !Work/HR/**", []string{"Work/a.md", "Work/HRs.md"}, []string{"Work/HR/pay.md", "Work/HR", "Other.md"}},
		{"Work/**, !Work/HR, Work/HR/public.md", []string{"Work/HR/public.md"}, []string{"Work/HR/pay.md"}},
		{"Notes/?.md, Notes/[ab]*.md", []string{"Notes/x.md", "Notes/apple.md", "notes/Banana.md"}, []string{"Notes/xy.md", "Notes/cherry.md"}},
		{"Privé/**", []string{"Prive\u0301/a.md", "PRIVÉ/b.md"}, []string{"Prive/a.md"}},
		{"Diary./**", []string{"Diary/a.md", "Diary. /a.md"}, nil},
		{`Notes/\*.md`, []string{"Notes/*.md"}, []string{"Notes/a.md"}},
		{"", nil, []string{"a.md", ""}},
	}
	for _, tt := range tests {
		r, err := ParseRules(tt.rules)
		if err != nil {
			t.Fatalf("ParseRules(%q): %v", tt.rules, err)
		}
		for _, p := range tt.yes {
			if !r.Match(p) {
				t.Errorf("%q should match %q", tt.rules, p)
			}
		}
		for _, p := range tt.no {
			if r.Match(p) {
				t.Errorf("%q should not match %q", tt.rules, p)
			}
		}
	}
}

func TestRulesMayCover(t *testing.T) {
	tests := []struct {
		rules string
		yes   []string
		no    []string
	}{
		{"Work/**", []string{"", "Work", "work/sub"}, []string{"Other", "Workshop"}},
		{"Journal/2026-*.md", []string{"", "Journal"}, []string{"Journal/2026-01", "Other"}},
		{"**/public/*.md", []string{"", "a", "a/b/public"}, nil},
		{"Work/**, !Work/HR", []string{"", "Work", "Work/x"}, []string{"Work/HR", "Work/HR/sub", "Other"}},
		{"a/b/c.md", []string{"", "a", "a/b"}, []string{"a/b/c", "b"}},
	}
	for _, tt := range tests {
		r, err := ParseRules(tt.rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tt.yes {
			if !r.MayCover(d) {
				t.Errorf("%q should reach into %q", tt.rules, d)
			}
		}
		for _, d := range tt.no {
			if r.MayCover(d) {
				t.Errorf("%q should not reach into %q", tt.rules, d)
			}
		}
	}
}

func TestParseRulesRefuses(t *testing.T) {
	for _, bad := range []string{"Work/\xff", "../x", "a/../b", "./a", "a/[b", `a\`, "a**b", "**.md", "/", "!", "a//b", strings.Repeat("a,", 65)} {
		_, err := ParseRules(bad)
		if !errors.Is(err, ErrPattern) {
			t.Errorf("ParseRules(%q) = %v, want ErrPattern", bad, err)
		}
	}
	_, err := ParseRules("Work/**, a/[b")
	if err == nil || !strings.Contains(err.Error(), `"a/[b"`) {
		t.Errorf("the error should name the pattern: %v", err)
	}
}

func TestScopeReadWrite(t *testing.T) {
	s, err := Parse("Work/**, Journal/**", "Work/Drafts/**, Other/**", false)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string][2]bool{
		"Work/a.md":        {true, false},
		"Work/Drafts/b.md": {true, true},
		"Other/c.md":       {false, false}, // write never reaches past read
		"Diary/d.md":       {false, false},
	} {
		if got := [2]bool{s.CanRead(p), s.CanWrite(p)}; got != want {
			t.Errorf("%s: read/write = %v, want %v", p, got, want)
		}
	}
	var whole Scope
	if !whole.CanRead("x/y.md") || !whole.CanWrite("x/y.md") || !whole.MayHold("x") {
		t.Error("the zero scope is the whole vault")
	}
	// Read patterns alone are read-only: a token created with --read Work
	// must not change Work.
	ro, err := Parse("Work/**", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !ro.CanRead("Work/a.md") || ro.CanWrite("Work/a.md") || !ro.ReadOnly() || !strings.Contains(ro.Describe(), "write nothing") {
		t.Errorf("read patterns alone: read %v, write %v, %q", ro.CanRead("Work/a.md"), ro.CanWrite("Work/a.md"), ro.Describe())
	}
}

func TestScopeEncodeDecode(t *testing.T) {
	for _, s := range []Scope{{}, All, mustParse(t, "Work/**", "", false), mustParse(t, "Work/**, !Work/HR", "Work/Drafts", true)} {
		got, err := Decode(s.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if got.Describe() != s.Describe() || got.Encode() != s.Encode() {
			t.Errorf("round trip of %q gave %q", s.Encode(), got.Encode())
		}
	}
	if (Scope{}).Encode() != "" {
		t.Error("the whole vault without private notes is stored as empty, as before scopes")
	}
	if _, err := Decode(`{"read":["../x"]}`); !errors.Is(err, ErrStored) {
		t.Errorf("Decode of a bad pattern: %v", err)
	}
	if _, err := Decode(`not json`); !errors.Is(err, ErrStored) {
		t.Errorf("Decode of junk: %v", err)
	}
}

func mustParse(t *testing.T, r, w string, private bool) Scope {
	t.Helper()
	s, err := Parse(r, w, private)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func FuzzRules(f *testing.F) {
	f.Add("Work/**, !Work/HR", "Work/HR/a.md")
	f.Add("**/x/**/*.md", "a/x/b/c.md")
	f.Add("[", "a")
	f.Fuzz(func(t *testing.T, list, p string) {
		r, err := ParseRules(list)
		if err != nil {
			return
		}
		m := r.Match(p)
		// A folder that holds a match is one the rules may cover.
		if i := strings.LastIndexByte(p, '/'); m && i > 0 && !r.MayCover(p[:i]) {
			t.Errorf("%q matches %q but says nothing below %q can", list, p, p[:i])
		}
		// Stored and read back, the rules decide the same.
		r2, err := ParseRules(r.String())
		if err != nil {
			t.Fatalf("re-reading %q: %v", r.String(), err)
		}
		if r2.Match(p) != m {
			t.Errorf("%q re-read decides %q otherwise", list, p)
		}
	})
}
