package search

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
)

// Ranking: BM25 over the running text plus boosts, per query item, for the
// fields where it occurs, the title's normalised by its length; a bonus
// for a title holding every item and a larger one for an exact title,
// alias or file name (see known.go; the constants Match scores with);
// newer notes first on equal scores.
const maxPrefix = 128 // terms a last-word prefix expands to

var fieldBoosts = [...]struct {
	bit   uint8
	boost float64
}{{fName, boostName}, {fHeading, boostHeading}, {fTag, boostTag}, {fAlias, boostAlias}}

// matchFields are the places besides the running text where an item
// counts as present, as Match decides.
const matchFields = fTitle | fPath

// item is one thing every result must contain: a term (or the terms a
// prefix expands to), or one term of a phrase.
type item struct {
	terms  []uint32
	weight float64
	next   uint16 // successor bits the note's posting must have
	adj    uint16 // successor bit of the query's next word, for a bonus
}

// Scored is a candidate with its score; DocOf tells which note it is.
type Scored struct {
	doc     uint32
	inTitle uint16 // query items found in the title, while scoring
	Score   float64
}

// candidates evaluates q against the index and returns the matching live
// notes with scores, unordered. A term, phrase or tag the index does not
// know matches no note, so the result is then nil at once.
func (x *Index) candidates(q Query) []Scored {
	var items []item
	for i, t := range q.Terms {
		var ids []uint32
		if i == len(q.Terms)-1 && q.PrefixLast {
			ids = x.prefixTerms(t, maxPrefix)
		} else if id, ok := x.terms[t]; ok {
			ids = []uint32{id}
		}
		if len(ids) == 0 {
			return nil
		}
		it := item{terms: ids, weight: 1}
		if i+1 < len(q.Terms) {
			it.adj = nextBit([]byte(q.Terms[i+1]))
		}
		items = append(items, it)
	}
	for _, p := range q.Phrases {
		phrase := x.phraseItems(strings.Split(p, " "))
		if phrase == nil {
			return nil
		}
		items = append(items, phrase...)
	}
	// Tags restrict; they do not score.
	var allowed []uint32
	if len(q.Tags) > 0 {
		keys := make([]string, len(q.Tags))
		for i, t := range q.Tags {
			keys[i] = tagPrefix + t
		}
		if allowed = x.docsWithAll(keys, 0); allowed == nil {
			return nil
		}
		defer idScratch.put(allowed)
	}
	folderOK := func(doc uint32) bool {
		return inFolder(x.docs[doc].path, q.Folder)
	}

	if len(items) == 0 {
		// Every allowed note, or every note: scratch like the scored
		// lists below, sized for all of them at once.
		var out []Scored
		if q.Tags != nil {
			out = scoredScratch.get(len(allowed))
			for _, d := range allowed {
				if folderOK(d) {
					out = append(out, Scored{doc: d, Score: 1})
				}
			}
		} else {
			out = scoredScratch.get(x.live)
			for d := range x.docs {
				if x.docs[d].live && folderOK(uint32(d)) {
					out = append(out, Scored{doc: uint32(d), Score: 1})
				}
			}
		}
		return kept(out)
	}

	// Rarest item first, so the candidate set starts small. The decoded
	// postings are scratch, given back when the candidates are known.
	lists := make([][]entry, len(items))
	for i, it := range items {
		lists[i] = x.entriesInto(entryScratch.get(0), it.terms)
	}
	defer func() {
		for _, l := range lists {
			entryScratch.put(l)
		}
	}()
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(len(lists[a]), len(lists[b])) })

	n := float64(max(x.live, 1))
	avg := float64(x.words) / n
	if avg < 1 {
		avg = 1
	}
	avgTitle := float64(x.titles) / n
	var cur []Scored
	for k, i := range order {
		it, list := items[i], lists[i]
		idf := math.Log(1 + (n-float64(len(list))+0.5)/(float64(len(list))+0.5))
		score := func(e entry) float64 {
			s := 0.0
			d := &x.docs[e.doc]
			if e.tf > 0 {
				tf := float64(e.tf)
				norm := bm25K1 * (1 - bm25B + bm25B*float64(d.words)/avg)
				s = tf * (bm25K1 + 1) / (tf + norm)
			}
			if e.fields&fTitle != 0 {
				s += boostTitle * titleNorm(int(d.titleWords), avgTitle)
			}
			if e.next&it.adj != 0 {
				s += boostAdjacent
			}
			for _, b := range fieldBoosts {
				if e.fields&b.bit != 0 {
					s += b.boost
				}
			}
			return it.weight * idf * s
		}
		title := func(e entry) uint16 {
			if e.fields&fTitle != 0 {
				return 1
			}
			return 0
		}
		if k == 0 {
			cur = scoredScratch.get(len(list))
			for _, e := range list {
				if x.docs[e.doc].live && (e.tf > 0 || e.fields&matchFields != 0) && e.next&it.next == it.next && folderOK(e.doc) &&
					(allowed == nil || containsID(allowed, e.doc)) {
					cur = append(cur, Scored{doc: e.doc, inTitle: title(e), Score: score(e)})
				}
			}
			continue
		}
		// Intersect cur (sorted by doc) with list (sorted by doc).
		out := cur[:0]
		j := 0
		for _, c := range cur {
			for j < len(list) && list[j].doc < c.doc {
				j++
			}
			if j == len(list) {
				break
			}
			if e := list[j]; e.doc == c.doc && (e.tf > 0 || e.fields&matchFields != 0) && e.next&it.next == it.next {
				c.Score += score(e)
				c.inTitle += title(e)
				out = append(out, c)
			}
		}
		cur = out
		if len(cur) == 0 {
			scoredScratch.put(cur)
			return nil
		}
	}
	x.titleBonus(cur, len(items), queryWords(q.Terms, q.Phrases), avgTitle)
	return cur
}

// titleBonus adds to the candidates, holding all of items query items,
// the bonuses for a title holding every one of them and for an exact
// title or other name (of words).
func (x *Index) titleBonus(cur []Scored, items int, words []string, avgTitle float64) {
	key, order := keyOf(words), orderOf(words)
	alts := x.altKeys[key]
	for i := range cur {
		c := &cur[i]
		d := &x.docs[c.doc]
		if int(c.inTitle) == items {
			c.Score += boostCover * titleNorm(int(d.titleWords), avgTitle)
		}
		if d.key == key {
			c.Score += exactBoost
			if d.order == order {
				c.Score += orderBoost
			}
		} else if len(alts) > 0 && containsID(alts, c.doc) { // alts grow in id order
			c.Score += exactBoost
		}
		c.inTitle = 0
	}
}

// kept returns l, or nil (giving l back) when it is empty: a query that
// matches nothing has no candidates, not an empty list.
func kept(l []Scored) []Scored {
	if len(l) == 0 {
		scoredScratch.put(l)
		return nil
	}
	return l
}

// Candidates is candidates for any query: for one with alternatives,
// the notes any of them may match, each with its best score; for one
// with exclusions, filters or literal text, the notes its words, phrases,
// tags and folder allow (all notes when it has none), less those the index
// already knows it excludes. The rest is decided on the notes themselves.
// The list is scratch, which ReleaseCandidates gives back.
func (x *Index) Candidates(q Query) []Scored {
	if !q.Extended() {
		return x.candidates(q)
	}
	if len(q.Or) == 0 {
		return x.clauseCandidates(q)
	}
	var out []Scored
	for _, alt := range q.Or {
		out = unionBest(out, x.clauseCandidates(alt))
	}
	return out
}

// unionBest merges two candidate lists sorted by document, keeping the
// better score of a document in both. Both are given back to the scratch
// pool, unless one is returned.
func unionBest(a, b []Scored) []Scored {
	if len(a) == 0 {
		scoredScratch.put(a)
		return b
	}
	if len(b) == 0 {
		scoredScratch.put(b)
		return a
	}
	defer scoredScratch.put(a)
	defer scoredScratch.put(b)
	out := scoredScratch.get(len(a) + len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].doc < b[j].doc:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].doc < a[i].doc:
			out = append(out, b[j])
			j++
		default:
			c := a[i]
			c.Score = max(c.Score, b[j].Score)
			out = append(out, c)
			i++
			j++
		}
	}
	return out
}

// clauseCandidates is Candidates for one clause. Excluded words and tags
// are decided exactly as Match decides them (a word counts in the
// text, the title or the path); path: and file: need only the path; a
// property needs its key, and the words of its value, among the note's
// property terms.
func (x *Index) clauseCandidates(q Query) []Scored {
	cands := x.candidates(indexPart(q))
	if len(cands) == 0 {
		scoredScratch.put(cands)
		return nil
	}
	// The notes excluded, a bit each: a common excluded word is in most
	// notes, which a set by document made hundreds of kB of.
	var drop docSet
	if len(q.NotTerms)+len(q.NotTags) > 0 {
		drop = make(docSet, (len(x.docs)+63)/64)
	}
	for _, t := range q.NotTerms {
		if id, ok := x.terms[t]; ok {
			x.post[id].each(func(e entry) {
				if e.tf > 0 || e.fields&matchFields != 0 {
					drop.add(e.doc)
				}
			})
		}
	}
	for _, t := range q.NotTags {
		if id, ok := x.terms[tagPrefix+t]; ok {
			x.post[id].each(func(e entry) { drop.add(e.doc) })
		}
	}
	var need []uint32 // sorted; nil means no restriction
	restricted := false
	require := func(terms []uint32) {
		l := x.entriesInto(entryScratch.get(0), terms)
		ids := idScratch.get(len(l))
		for _, e := range l {
			ids = append(ids, e.doc)
		}
		entryScratch.put(l)
		if !restricted {
			need, restricted = ids, true
		} else {
			need = intersectIDs(need, ids)
			idScratch.put(ids)
		}
	}
	for _, p := range q.Props {
		key := propPrefix + p.Name + propPrefix
		id, ok := x.terms[key]
		if !ok {
			scoredScratch.put(cands)
			return nil
		}
		require([]uint32{id})
		// The value's words, the last one maybe only begun (Match
		// takes it as a prefix).
		vals := Tokens(p.Value)
		for i, t := range vals {
			if i < len(vals)-1 {
				id, ok := x.terms[key+t]
				if !ok {
					scoredScratch.put(cands)
					return nil
				}
				require([]uint32{id})
				continue
			}
			ids := x.prefixTerms(key+t, maxPrefix)
			if len(ids) == 0 {
				scoredScratch.put(cands)
				return nil
			}
			if len(ids) < maxPrefix { // else too many to be sure of; the notes decide
				require(ids)
			}
		}
	}
	// Filtered in place: the list stays the scratch candidates made.
	out := cands[:0]
	for _, c := range cands {
		if drop.has(c.doc) || restricted && !containsID(need, c.doc) {
			continue
		}
		if len(q.Paths)+len(q.Files) > 0 && !pathFilters(x.docs[c.doc].path, q) {
			continue
		}
		out = append(out, c)
	}
	idScratch.put(need)
	return kept(out)
}

// docSet is a set of documents, a bit each; the nil set is empty.
type docSet []uint64

func (s docSet) add(d uint32) { s[d/64] |= 1 << (d % 64) }

func (s docSet) has(d uint32) bool { return int(d/64) < len(s) && s[d/64]&(1<<(d%64)) != 0 }

// phraseItems are the items every note holding the phrase of toks has:
// each non-CJK token, with the successor bit of the token after it; each
// pair of CJK tokens in a row; each CJK token standing alone. It returns
// nil when one of them is not in the index.
func (x *Index) phraseItems(toks []string) []item {
	var out []item
	for i, t := range toks {
		var next uint16
		cjk := IsCJKToken(t)
		switch {
		case !cjk:
			if i+1 < len(toks) {
				next = nextBit([]byte(toks[i+1]))
			}
		case i+1 < len(toks) && IsCJKToken(toks[i+1]):
			t += toks[i+1]
		case i > 0 && IsCJKToken(toks[i-1]):
			continue // in the pair before
		}
		id, ok := x.terms[t]
		if !ok {
			return nil
		}
		out = append(out, item{terms: []uint32{id}, next: next})
	}
	for i := range out {
		out[i].weight = phraseWeight / float64(len(out))
	}
	return out
}

// entriesInto returns the postings of the terms merged by document, live
// ones only, decoded into buf's room when it is enough; several terms (a
// prefix) add up their counts and fields.
func (x *Index) entriesInto(buf []entry, terms []uint32) []entry {
	n := 0
	for _, t := range terms {
		n += int(x.post[t].n)
	}
	out := buf[:0]
	if cap(out) < n {
		out = make([]entry, 0, n)
	}
	for _, t := range terms {
		x.post[t].each(func(e entry) {
			if x.docs[e.doc].live {
				out = append(out, e)
			}
		})
	}
	if len(terms) > 1 {
		slices.SortFunc(out, func(a, b entry) int { return cmp.Compare(a.doc, b.doc) })
		merged := out[:0]
		for _, e := range out {
			if n := len(merged); n > 0 && merged[n-1].doc == e.doc {
				merged[n-1].tf += e.tf
				merged[n-1].fields |= e.fields
				continue
			}
			merged = append(merged, e)
		}
		out = merged
	}
	return out
}

func containsID(sorted []uint32, id uint32) bool {
	_, ok := slices.BinarySearch(sorted, id)
	return ok
}

// intersectIDs keeps in a, in its array, the ids also in b.
func intersectIDs(a, b []uint32) []uint32 {
	out := a[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// scratch keeps slices of T between searches, for the lists a search
// fills and drops: the decoded postings of every query word (thousands of
// entries for a common one), the candidate list (as long as the rarest
// word's postings, or every note for a search by filters), and a phrase
// search's folded copy of each note it reads. They made most of what a
// search allocated.
type scratch[T any] struct{ pool sync.Pool } // of *[]T

// maxScratch bounds the slices kept (at most 16 bytes an element, 1 MiB
// a slice): a rare search through a very common word, or of a very long
// note, does not pin its lists.
const maxScratch = 1 << 16

// get returns an empty slice with room for n, a kept one when it has it.
func (s *scratch[T]) get(n int) []T {
	if b, ok := s.pool.Get().(*[]T); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]T, 0, n)
}

// put keeps l for a later get; nothing may read l afterwards.
func (s *scratch[T]) put(l []T) {
	if cap(l) == 0 || cap(l) > maxScratch {
		return
	}
	l = l[:0]
	s.pool.Put(&l)
}

var (
	entryScratch  scratch[entry]
	scoredScratch scratch[Scored]
	idScratch     scratch[uint32] // notes with a tag or property
	normScratch   scratch[byte]   // scanItems' folded text
	offScratch    scratch[int32]  // scanItems' word offsets
)

// ReleaseCandidates gives back a list Candidates returned (or Top made of
// it) once nothing reads it any more, for the next search to fill. It is
// optional: a list not given back is collected as any other.
func ReleaseCandidates(c []Scored) { scoredScratch.put(c) }
