package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// knownVault indexes notes (path → content) and searches them.
type knownVault struct {
	x     *Index
	notes map[string]string
}

func newKnownVault(notes map[string]string) *knownVault {
	x := NewIndex()
	for p, c := range notes {
		x.Put(Analyse(p, c, 1, int64(len(c))), false)
	}
	x.SortTerms()
	return &knownVault{x, notes}
}

// rank returns the paths found for q, best first, by the index and by
// Match (a search without the index) alike.
func (v *knownVault) rank(t *testing.T, q string) []string {
	t.Helper()
	pq := ParseQuery(q)
	var byIndex []string
	for _, s := range v.x.Top(v.x.Candidates(pq), len(v.notes)) {
		byIndex = append(byIndex, v.x.DocOf(s).Path)
	}
	return byIndex
}

// matchOrder ranks paths for q with Match.
func (v *knownVault) matchOrder(q string, paths ...string) []float64 {
	pq := ParseQuery(q)
	var out []float64
	for _, p := range paths {
		c := v.notes[p]
		s, _ := Match(pq, p, markdown.Title(c, p), c)
		out = append(out, s)
	}
	return out
}

func note(title, body string) string {
	return "---\ntitle: \"" + title + "\"\n---\n# " + title + "\n\n" + body + "\n"
}

// filler is n words of text without the words the tests look for.
func filler(n int) string {
	ws := strings.Fields("lo que el de la con para una the of and in fix meeting coffee")
	var b strings.Builder
	for i := range n {
		b.WriteString(ws[i%len(ws)])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestKnownTitleCommonWords: a title of common words comes first when
// searched for, even though its words say little alone and the note is
// long, before short notes with one of them in the title and the other in
// passing.
func TestKnownTitleCommonWords(t *testing.T) {
	notes := map[string]string{"T/Señal Idea.md": note("Señal Idea", filler(3000)+" idea")}
	for i := range 12 {
		notes[fmt.Sprintf("S/Señal %d.md", i)] = note(fmt.Sprintf("Gapi%d Señal", i), "una idea señal "+filler(20))
	}
	for i := range 60 {
		notes[fmt.Sprintf("I/%d.md", i)] = note(fmt.Sprintf("Note %d", i), "an idea "+filler(50))
	}
	v := newKnownVault(notes)
	for _, q := range []string{"señal idea", "Señal Idea", "senal idea", "SEÑAL IDEA", "idea señal"} {
		if got := v.rank(t, q); len(got) == 0 || got[0] != "T/Señal Idea.md" {
			t.Errorf("%q ranks %v first, want T/Señal Idea.md", q, got[:min(3, len(got))])
		}
	}
	if s := v.matchOrder("señal idea", "T/Señal Idea.md", "S/Señal 1.md"); s[0] <= s[1] {
		t.Errorf("Match scores the title %v, a note in passing %v", s[0], s[1])
	}
}

// TestKnownShorterTitleFirst: of titles holding every word, the exact one
// comes first, then the shorter ones, then the longer ones.
func TestKnownShorterTitleFirst(t *testing.T) {
	body := filler(200)
	notes := map[string]string{
		"a/Finanzas Prueba También Año.md": note("Finanzas Prueba También Año", "prueba año "+filler(40)),
		"b/Ticoji Prueba Año.md":           note("Ticoji Prueba Año", body),
		"c/Prueba Año.md":                  note("Prueba Año", filler(900)),
		"d/Other.md":                       note("Other", "prueba año prueba año "+filler(10)),
	}
	v := newKnownVault(notes)
	want := []string{"c/Prueba Año.md", "b/Ticoji Prueba Año.md", "a/Finanzas Prueba También Año.md", "d/Other.md"}
	for _, q := range []string{"prueba año", "Prueba Año", "prueba ano"} {
		if got := v.rank(t, q); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%q ranks %v, want %v", q, got, want)
		}
	}
	s := v.matchOrder("prueba año", want...)
	if !(s[0] > s[1] && s[1] > s[2] && s[2] > s[3]) {
		t.Errorf("Match scores %v, want them falling in %v", s, want)
	}
}

// TestKnownAliasAndOrder: an alias or a file name asked for exactly comes
// first too, and of titles with the same words the one in the query's
// order first.
func TestKnownAliasAndOrder(t *testing.T) {
	notes := map[string]string{
		"Plan Ropi.md":   note("Plan Ropi", filler(500)),
		"Ropi Plan.md":   note("Ropi Plan", filler(20)),
		"Garden.md":      "---\ntitle: Garden\naliases: [Allotment Plot]\n---\n" + filler(800),
		"Plot Plan.md":   note("Allotment Plot Plan", "allotment plot "+filler(5)),
		"2021-03-04.md":  "# Daily\n\n" + filler(900),
		"Daily 0304.md":  note("Daily 2021 03 04 notes", filler(5)),
		"Elsewhere.md":   note("Elsewhere", "ropi plan allotment plot 2021-03-04 "+filler(3)),
		"Plan Ropi 2.md": note("Plan Ropi Two", filler(5)),
	}
	v := newKnownVault(notes)
	for q, want := range map[string]string{
		"plan ropi":        "Plan Ropi.md",
		"ropi plan":        "Ropi Plan.md",
		"allotment plot":   "Garden.md",
		`"allotment plot"`: "Garden.md",
		"2021-03-04":       "2021-03-04.md",
	} {
		if got := v.rank(t, q); len(got) == 0 || got[0] != want {
			t.Errorf("%q ranks %v, want %s first", q, got, want)
		}
		if s := v.matchOrder(q, want, "Elsewhere.md"); s[0] <= s[1] {
			t.Errorf("%q: Match scores %s %v, below a note in passing (%v)", q, want, s[0], s[1])
		}
	}
}

// TestKnownAdjacentWords: of two notes holding the words of a query, the
// one holding them side by side, in the query's order, ranks first.
func TestKnownAdjacentWords(t *testing.T) {
	if nextBit([]byte("gamma")) == nextBit([]byte("beta")) {
		t.Fatal("the test's words share a successor bit; pick others")
	}
	notes := map[string]string{
		"apart.md":    note("Apart", "alpha gamma delta beta "+filler(40)),
		"together.md": note("Together", "alpha beta delta gamma "+filler(40)),
	}
	v := newKnownVault(notes)
	if got := v.rank(t, "alpha beta"); strings.Join(got, ",") != "together.md,apart.md" {
		t.Errorf("ranks %v, want together.md first", got)
	}
	if s := v.matchOrder("alpha beta", "together.md", "apart.md"); s[0] <= s[1] {
		t.Errorf("Match scores together %v, apart %v", s[0], s[1])
	}
}
