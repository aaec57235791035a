package history

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"same", "a\nb\n", "a\nb\n", ""},
		{"added line", "a\nc\n", "a\nb\nc\n", "@@ line 1 @@\n a\n+b\n c\n"},
		{"removed line", "a\nb\nc\n", "a\nc\n", "@@ line 1 @@\n a\n-b\n c\n"},
		{"changed word", "the quick fox\n", "the slow fox\n", "@@ line 1 @@\n-the [-quick-] fox\n+the {+slow+} fox\n"},
		{"from nothing", "", "new\n", "@@ line 1 @@\n+new\n"},
		{"to nothing", "old\n", "", "@@ line 1 @@\n-old\n"},
		{"crlf", "a\r\nb\r\n", "a\r\nc\r\n", "@@ line 1 @@\n a\n-[-b-]\n+{+c+}\n"},
		{"distant hunks", "1\n2\n3\n4\n5\n6\n7\n8\n", "x\n2\n3\n4\n5\n6\n7\ny\n",
			"@@ line 1 @@\n-[-1-]\n+{+x+}\n 2\n@@ line 7 @@\n 7\n-[-8-]\n+{+y+}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diff(tt.a, tt.b)
			if got := Unified(d, 1); got != tt.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tt.want)
			}
			if Changed(d) != (tt.want != "") {
				t.Errorf("Changed = %v", Changed(d))
			}
		})
	}
}

func TestDiffRebuildsBothTexts(t *testing.T) {
	a := "# Plan\n\none two three\nkeep\nfour five\n"
	b := "# Plan\n\none 2 three\nkeep\nnew line\nfour five six\n"
	var old, nw []string
	for _, l := range Diff(a, b) {
		if l.Op != Insert {
			old = append(old, l.Text)
		}
		if l.Op != Delete {
			nw = append(nw, l.Text)
		}
		var joined strings.Builder
		for _, s := range l.Spans {
			joined.WriteString(s.Text)
		}
		if l.Spans != nil && joined.String() != l.Text {
			t.Errorf("spans %+v do not join into %q", l.Spans, l.Text)
		}
	}
	if got := strings.Join(old, "\n") + "\n"; got != a {
		t.Errorf("old side %q", got)
	}
	if got := strings.Join(nw, "\n") + "\n"; got != b {
		t.Errorf("new side %q", got)
	}
}

func TestDiffLargeFallsBackToWholeBlocks(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("y", i%5) + "\n")
	}
	d := Diff(a.String(), b.String())
	dels, ins := 0, 0
	for _, l := range d {
		switch l.Op {
		case Delete:
			dels++
		case Insert:
			ins++
		}
	}
	if dels != 3000 || ins != 3000 {
		t.Fatalf("%d removed, %d added", dels, ins)
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\n", "a\nc\n")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		var old, nw []string
		for _, l := range Diff(a, b) {
			if l.Op != Insert {
				old = append(old, l.Text)
			}
			if l.Op != Delete {
				nw = append(nw, l.Text)
			}
		}
		if got, want := strings.Join(old, "\n"), strings.Join(splitLines(a), "\n"); got != want {
			t.Fatalf("old side %q, want %q", got, want)
		}
		if got, want := strings.Join(nw, "\n"), strings.Join(splitLines(b), "\n"); got != want {
			t.Fatalf("new side %q, want %q", got, want)
		}
	})
}
