package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"same", "a\nb\n", "a\nb\n", ""},
		{"added line", "a\nc\n", "a\nb\nc\n", "@@ line 1 @@\n a\n+b\n c\n"},
		{"removed line", "a\nb\nc\n", "a\nc\n", "@@ line 1 @@\n a\n-b\n c\n"},
		{"changed word", "the quick fox\n", "the slow fox\n", "@@ line 1 @@\n-the [-quick-] fox\n+the {+slow+} fox\n"},
		{"changed number", "- soil: 40\n", "- soil: 45\n", "@@ line 1 @@\n-- soil: [-40-]\n+- soil: {+45+}\n"},
		{"from nothing", "", "new\n", "@@ line 1 @@\n+new\n"},
		{"to nothing", "old\n", "", "@@ line 1 @@\n-old\n"},
		{"no final line end", "a\nb", "a\nb\n", ""},
		// Lines with nothing in common are a line removed and another
		// added, with no word marked.
		{"crlf", "a\r\nb\r\n", "a\r\nc\r\n", "@@ line 1 @@\n a\n-b\n+c\n"},
		{"unrelated lines", "keep\nPlant tomatoes in May.\n", "keep\nBuy 12 seeds\n",
			"@@ line 1 @@\n keep\n-Plant tomatoes in May.\n+Buy 12 seeds\n"},
		// A new line before a changed one: the changed line is paired with
		// its new version, not with the new line beside it.
		{"insert before change", "x\nthe quick brown fox\ny\n", "x\nA new line\nthe slow brown fox\ny\n",
			"@@ line 1 @@\n x\n-the [-quick-] brown fox\n+A new line\n+the {+slow+} brown fox\n y\n"},
		{"distant hunks", "1\n2\n3\n4\n5\n6\n7\n8\n", "x\n2\n3\n4\n5\n6\n7\ny\n",
			"@@ line 1 @@\n-1\n+x\n 2\n@@ line 7 @@\n 7\n-8\n+y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Lines(tt.a, tt.b)
			if got := Unified(d, 1); got != tt.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tt.want)
			}
			if Changed(d) != (tt.want != "") {
				t.Errorf("Changed = %v", Changed(d))
			}
			check(t, tt.a, tt.b, d)
		})
	}
}

// check fails t unless d turns a into b: its unchanged and removed lines
// are a's lines in order, its unchanged and added lines are b's, each
// numbered where it is, and every changed line's spans join into its text.
func check(t testing.TB, a, b string, d []Line) {
	t.Helper()
	al, bl := SplitLines(a), SplitLines(b)
	i, j := 0, 0
	for _, l := range d {
		if l.Op != Insert {
			if i >= len(al) || al[i] != l.Text || l.Old != i+1 {
				t.Fatalf("line %+v is not old line %d", l, i+1)
			}
			i++
		}
		if l.Op != Delete {
			if j >= len(bl) || bl[j] != l.Text || l.New != j+1 {
				t.Fatalf("line %+v is not new line %d", l, j+1)
			}
			j++
		}
		if l.Spans != nil {
			var joined strings.Builder
			for _, s := range l.Spans {
				joined.WriteString(s.Text)
			}
			if l.Op == Equal || joined.String() != l.Text {
				t.Fatalf("spans %+v of %+v", l.Spans, l)
			}
		}
	}
	if i != len(al) || j != len(bl) {
		t.Fatalf("the diff rebuilds %d of %d old lines and %d of %d new ones", i, len(al), j, len(bl))
	}
}

// lcs is the length of a longest common subsequence of a and b's lines,
// by the textbook table (for small inputs).
func lcs(a, b string) int {
	al, bl := SplitLines(a), SplitLines(b)
	prev, cur := make([]int, len(bl)+1), make([]int, len(bl)+1)
	for i := range al {
		for j := range bl {
			if al[i] == bl[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(bl)]
}

func equalLines(d []Line) int {
	n := 0
	for _, l := range d {
		if l.Op == Equal {
			n++
		}
	}
	return n
}

// TestLinesMinimal compares random small texts of few distinct lines (the
// hard case: many ways to pair them) with the textbook answer: the diff
// keeps as many lines unchanged as can be.
func TestLinesMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		a, b := randomText(r, r.IntN(40), 4), randomText(r, r.IntN(40), 4)
		d := Lines(a, b)
		check(t, a, b, d)
		if got, want := equalLines(d), lcs(a, b); got != want {
			t.Fatalf("%d unchanged lines, want %d:\n%q\n%q", got, want, a, b)
		}
	}
}

func randomText(r *rand.Rand, n, distinct int) string {
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "l%d\n", r.IntN(distinct))
	}
	return b.String()
}

// edited is a note of n lines (every few of them blank or repeated, as
// notes have) and a copy with k random edits: lines removed, added and
// changed in place. It returns the two texts and, for each old line,
// whether the edits left it as it was.
func edited(r *rand.Rand, n, k int) (a, b string, kept []bool) {
	old := make([]string, n)
	for i := range old {
		switch i % 7 {
		case 3:
			old[i] = ""
		case 5:
			old[i] = "---"
		default:
			old[i] = fmt.Sprintf("line %d says %d things", i, r.IntN(1000))
		}
	}
	kept = make([]bool, n)
	for i := range kept {
		kept[i] = true
	}
	edit := map[int]int{} // old line -> 0 remove, 1 add after, 2 change
	for range k {
		edit[r.IntN(n)] = r.IntN(3)
	}
	var nw []string
	for i, l := range old {
		switch e, ok := edit[i]; {
		case !ok:
			nw = append(nw, l)
		case e == 0:
			kept[i] = false
		case e == 1:
			nw = append(nw, l, fmt.Sprintf("added after %d", i))
		default:
			kept[i] = false
			nw = append(nw, l+" and more")
		}
	}
	return strings.Join(old, "\n") + "\n", strings.Join(nw, "\n") + "\n", kept
}

// TestLinesLargeFewChanges is the property the console relies on: for
// long notes with a few edits, the diff rebuilds both texts, keeps every
// line the edits left alone as unchanged (at least as many lines as they
// left: blank and repeated lines may pair with a twin), and marks words
// only in the lines changed in place.
func TestLinesLargeFewChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, size := range []struct{ n, k int }{{20000, 1}, {20000, 5}, {20000, 40}, {3000, 2}, {500, 200}} {
		t.Run(fmt.Sprintf("%d lines %d edits", size.n, size.k), func(t *testing.T) {
			a, b, kept := edited(r, size.n, size.k)
			d := Lines(a, b)
			check(t, a, b, d)
			want := 0
			for _, k := range kept {
				if k {
					want++
				}
			}
			if got := equalLines(d); got < want {
				t.Fatalf("%d lines shown unchanged; the edits left %d", got, want)
			}
			for _, l := range d {
				if l.Op == Delete && strings.HasPrefix(l.Text, "line ") && kept[l.Old-1] {
					t.Fatalf("old line %d %q was not edited but is shown as removed", l.Old, l.Text)
				}
				// (Dense edits may pair a removed line with a changed
				// neighbour; sparse ones pair each line with its own edit.)
				for _, s := range l.Spans {
					if size.k*20 < size.n && s.Changed && s.Text != " and more" {
						t.Fatalf("line %+v marks %q", l, s.Text)
					}
				}
			}
		})
	}
}

// TestLinesRewriteBetweenDistantEdits is the case a diff that gives up on
// large middles got wrong: two edits 3,000 lines apart showed every line
// between them as removed and added again.
func TestLinesRewriteBetweenDistantEdits(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&a, "%d\n", i)
		switch i {
		case 0, 2999:
			fmt.Fprintf(&b, "%d changed\n", i)
		default:
			fmt.Fprintf(&b, "%d\n", i)
		}
	}
	d := Lines(a.String(), b.String())
	if added, removed := Count(d); added != 2 || removed != 2 {
		t.Fatalf("%d added, %d removed; want 2 and 2", added, removed)
	}
}

func TestLinesLongLine(t *testing.T) {
	words := make([]string, 50000)
	for i := range words {
		words[i] = fmt.Sprint("w", i)
	}
	a := strings.Join(words, " ")
	words[25000] = "CHANGED"
	b := strings.Join(words, " ")
	d := Lines(a, b)
	check(t, a, b, d)
	var marked []string
	for _, s := range d[1].Spans {
		if s.Changed {
			marked = append(marked, s.Text)
		}
	}
	if len(d) != 2 || strings.Join(marked, "|") != "CHANGED" {
		t.Fatalf("%d lines, marked %q", len(d), marked)
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\n", "a\nc\n")
	f.Add("", "x")
	f.Add("the quick fox\r\n\n\n", "\nthe slow fox")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Lines(a, b)
		check(t, a, b, d)
		if len(a) < 2000 && len(b) < 2000 {
			if got, want := equalLines(d), lcs(a, b); got != want {
				t.Fatalf("%d unchanged lines, want %d", got, want)
			}
		}
	})
}

// TestLinesPathological is an input built to be slow (100,000 short lines
// of four values in random order on each side): the comparison runs out of
// its work budget and splits pieces early, and the diff must still rebuild
// both texts.
func TestLinesPathological(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a, b := randomText(r, 100000, 4), randomText(r, 100000, 4)
	check(t, a, b, Lines(a, b))
}
