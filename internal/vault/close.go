package vault

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// A name that names nothing is most often a near miss: a typo, a word left
// out, a name half remembered ("Garden Plann"). The index knows every
// note's title and file name, so a miss can offer the few closest, which
// saves a search and a second guess.

const (
	// maxCloseNames is how many close names a miss offers.
	maxCloseNames = 5
	// minCloseness is how close (0 to 1) a name must be to be offered.
	minCloseness = 0.5
	// maxCloseRunes clips the names compared, which bounds the work of
	// one comparison.
	maxCloseRunes = 80
	// maxCloseAliasReads bounds the notes read to compare their aliases.
	maxCloseAliasReads = 20
)

// closeNames lists, closest first, up to maxCloseNames notes the call may
// see whose title, file name, alias or (for a name with a folder in it)
// path is close to target. Without the index built it offers none. Notes
// the call may not see are dropped before any is counted, so what is
// offered never depends on them.
func (v *Vault) closeNames(ctx context.Context, target string) []string {
	folded := search.Fold(strings.TrimSuffix(target, path.Ext(target)))
	if strings.TrimSpace(folded) == "" {
		return nil
	}
	want := newNearName(folded)
	withFolder := strings.Contains(folded, "/")
	type cand struct {
		doc   search.Doc
		score float64
	}
	var cands []cand
	var aliased []string
	x := v.ix.current()
	if x == nil {
		return nil
	}
	for d := range x.Docs() {
		stem := strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))
		title, name := search.Fold(d.Title), search.Fold(stem)
		s := want.closeness(title)
		if name != title { // a note without a title of its own is titled by its name
			s = max(s, want.closeness(name))
		}
		if withFolder {
			s = max(s, want.closeness(search.Fold(strings.TrimSuffix(d.Path, path.Ext(d.Path)))))
		}
		if s >= minCloseness {
			cands = append(cands, cand{d, s})
		}
	}
	// Aliases are not kept in the index, only their words: the notes with
	// an alias holding one of the words are read, a few at most.
	for _, tok := range want.words {
		for _, p := range x.AliasPaths([]string{tok}) {
			if !slices.Contains(aliased, p) && len(aliased) < maxCloseAliasReads {
				aliased = append(aliased, p)
			}
		}
	}
	v.ix.mu.RUnlock()
	a := accessOf(ctx)
	for _, p := range aliased {
		n, err := v.Read(ctx, p) // the scope applies: a hidden note reads as missing
		if err != nil {
			continue
		}
		best := 0.0
		for _, al := range n.Aliases {
			best = max(best, want.closeness(search.Fold(al)))
		}
		if best < minCloseness {
			continue
		}
		if i := slices.IndexFunc(cands, func(c cand) bool { return c.doc.Path == p }); i >= 0 {
			cands[i].score = max(cands[i].score, best)
		} else {
			cands = append(cands, cand{search.Doc{Path: p, Size: -1}, best})
		}
	}
	cands = slices.DeleteFunc(cands, func(c cand) bool {
		if v.isProtected(c.doc.Path) {
			return true
		}
		if a.all() || c.doc.Size < 0 { // read above, through the scope
			return false
		}
		return !v.pathVisible(a, c.doc.Path) || !a.s.Private && v.privateAt(c.doc.Path, c.doc.Size, c.doc.Mod)
	})
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.doc.Path, b.doc.Path)
	})
	out := make([]string, 0, min(len(cands), maxCloseNames))
	for _, c := range cands[:min(len(cands), maxCloseNames)] {
		out = append(out, c.doc.Path)
	}
	return out
}

// nearName is a folded name that others are compared with, with the
// scratch space the comparisons reuse: a miss compares it with every note.
type nearName struct {
	r         []rune
	words     []string
	buf       []rune
	prev, cur []int
}

func newNearName(folded string) *nearName {
	r := []rune(folded)
	r = r[:min(len(r), maxCloseRunes)]
	return &nearName{r: r, words: search.Tokens(string(r))}
}

// closeness is how alike the folded name s is to q, from 0 to 1: 1 for the
// same name; 0.9 for a name that q begins (a name typed halfway); else
// the larger of the share of characters left in place (edit distance)
// and, a little below it, the share of q's words found in s (words in
// another order).
func (q *nearName) closeness(s string) float64 {
	r := q.buf[:0]
	for _, c := range s {
		if len(r) == maxCloseRunes {
			break
		}
		r = append(r, c)
	}
	q.buf = r
	if len(q.r) == 0 || len(r) == 0 {
		return 0
	}
	if slices.Equal(q.r, r) {
		return 1
	}
	if len(q.r) >= 3 && len(r) > len(q.r) && slices.Equal(r[:len(q.r)], q.r) {
		return 0.9
	}
	longer := max(len(q.r), len(r))
	// Beyond this many edits the edit score falls below minCloseness.
	budget := int(float64(longer) * (1 - minCloseness))
	score := 0.0
	if d, ok := q.editDistance(r, budget); ok {
		score = 1 - float64(d)/float64(longer)
	}
	if len(q.words) < 2 || score >= 0.8 || !slices.ContainsFunc(q.words, func(w string) bool { return strings.Contains(s, w) }) {
		return score // the words can add nothing
	}
	sw := search.Tokens(string(r))
	found := 0
	for _, w := range q.words {
		if slices.Contains(sw, w) {
			found++
		}
	}
	return max(score, 0.8*float64(found)/float64(len(q.words)))
}

// editDistance is the Levenshtein distance of q's name and b, or false
// once it is sure to exceed budget.
func (q *nearName) editDistance(b []rune, budget int) (int, bool) {
	a := q.r
	if d := len(a) - len(b); d > budget || -d > budget {
		return 0, false
	}
	if cap(q.prev) < len(b)+1 {
		q.prev, q.cur = make([]int, maxCloseRunes+1), make([]int, maxCloseRunes+1)
	}
	prev, cur := q.prev[:len(b)+1], q.cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		least := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(c, prev[j], cur[j-1])
			}
			cur[j] = c
			least = min(least, c)
		}
		if least > budget {
			return 0, false
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], prev[len(b)] <= budget
}
