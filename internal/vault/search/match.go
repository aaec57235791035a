package search

import (
	"bytes"
	"cmp"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

// Scoring constants: BM25 saturation with an assumed average note length,
// and the boosts for hits outside the running text.
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	avgNoteWords = 400
	phraseWeight = 1.5
	boostTitle   = 2.0
	boostName    = 1.5
	boostHeading = 1.0
	boostTag     = 1.0
	boostAlias   = 1.5
	snippetRunes = 160
	maxHits      = 512
)

type hit struct{ pos, item int }

// Match scores a note for q; 0 means no match. The note must lie in
// q.Folder, carry every tag of q.Tags, and contain every term and phrase in
// its content, title or path (the last term may match a word prefix when
// q.PrefixLast). The score is a BM25-like term frequency within the note
// plus boosts for terms found in the title, the file name, headings, tags
// and aliases. The snippet is about 160 characters of the body around the
// densest cluster of hits, on one line with white space collapsed and "…"
// where it was cut; a note matched by filters only gets the start of its
// body.
func Match(q Query, notePath, title, content string) (score float64, snippet string) {
	score, snippet, _ = match(q, notePath, title, content, true, 0)
	return score, snippet
}

// Confirm reports whether a note matches q exactly as Match decides, with
// the same snippet, but without computing a score (which needs the
// frontmatter parsed): for confirming candidates that an index ranked.
func Confirm(q Query, notePath, title, content string) (ok bool, snippet string) {
	score, snippet, _ := match(q, notePath, title, content, false, 0)
	return score > 0, snippet
}

// Found is what matching a note found: its score (0 for no match), its
// snippet, and the lines the query's line filters matched.
type Found struct {
	Score   float64
	Snippet string
	Lines   []LineHit
}

// Find matches a note as Match does, or with scoring false as Confirm
// does (a match then scores 1), and names up to lines lines that the
// query's line filters matched (those of the first alternative with line
// filters that the note matches), from the same reading of the note that
// decides the match: nil for a query without line filters.
func Find(q Query, notePath, title, content string, scoring bool, lines int) Found {
	score, snippet, hits := match(q, notePath, title, content, scoring, lines)
	if score <= 0 {
		return Found{}
	}
	return Found{Score: score, Snippet: snippet, Lines: hits}
}

// match decides a note for q, with its score when scoring, and names up
// to lines lines its line filters matched.
func match(q Query, notePath, title, content string, scoring bool, lines int) (score float64, snippet string, found []LineHit) {
	if len(q.Or) > 0 {
		for _, alt := range q.Or {
			if score > 0 && !scoring && (lines == 0 || found != nil || len(alt.Lines) == 0) {
				// Decided; only the lines of an alternative with
				// line filters are still wanted.
				if lines == 0 || found != nil {
					break
				}
				continue
			}
			s, sn, ls := match(alt, notePath, title, content, scoring, lines)
			if s > 0 && found == nil && len(alt.Lines) > 0 {
				found = ls
			}
			if s > score {
				score, snippet = s, sn
			}
		}
		return score, snippet, found
	}
	if q.Extended() {
		return matchExt(q, notePath, title, content, scoring, lines)
	}
	if !inFolder(notePath, q.Folder) {
		return 0, "", nil
	}
	_, bodyStart, _ := markdown.Split(content)
	var fm markdown.Frontmatter
	fmDone := false
	frontmatter := func() markdown.Frontmatter {
		if !fmDone {
			fm, _ = markdown.ParseFrontmatter(content)
			fmDone = true
		}
		return fm
	}
	if len(q.Tags) > 0 {
		tags := append(slices.Clone(frontmatter().Tags), markdown.InlineTags(content)...)
		for _, t := range q.Tags {
			if !hasTag(tags, t) {
				return 0, "", nil
			}
		}
	}
	terms, phrases := q.Terms, q.Phrases
	if len(terms) > maxQueryItems {
		terms = terms[:maxQueryItems]
	}
	if len(terms)+len(phrases) > maxQueryItems {
		phrases = phrases[:maxQueryItems-len(terms)]
	}
	n := len(terms) + len(phrases)
	if n == 0 {
		return 1, makeSnippet(content, bodyStart, bodyStart), nil
	}

	var tf [maxQueryItems]int
	var hits []hit
	var adj uint64
	words := 0
	scanned := false
	if !scoring && len(phrases) == 0 {
		// Words alone are scanned only until the first window of the body
		// holding every one of them, which bestHit would pick from the
		// whole note too: the rest cannot change the answer.
		var at int
		if tf, hits, at = scanUntilAll(q, terms, content, bodyStart); at >= 0 {
			return 1, makeSnippet(content, bodyStart, at), nil
		}
		scanned = true
	}
	// Without scoring, a long note is scanned in growing prefixes: once a
	// prefix holds every item within one snippet window, the rest cannot
	// change the answer.
	for limit := confirmPrefix; !scanned; limit *= 4 {
		end := len(content)
		if !scoring && limit < len(content) {
			if k := strings.IndexByte(content[limit:], '\n'); k >= 0 {
				end = limit + k
			}
		}
		tf, hits, words, adj = scanItems(q, terms, phrases, content[:end])
		if end == len(content) {
			break
		}
		// hits are gathered again if the loop goes on.
		if pos, found := bestHit(hits, bodyStart); found == n && allFound(tf[:n]) {
			return 1, makeSnippet(content, bodyStart, pos), nil
		}
	}

	// Every item must appear somewhere: content, title or path.
	name := markdown.TrimMD(path.Base(notePath))
	titleText := field(title)
	pathText := field(markdown.TrimMD(notePath))
	for i := 0; i < n; i++ {
		if tf[i] == 0 && !titleText.has(q, terms, phrases, i) && !pathText.has(q, terms, phrases, i) {
			return 0, "", nil
		}
	}

	if !scoring {
		return 1, makeSnippet(content, bodyStart, bestPos(hits, bodyStart)), nil
	}
	f := frontmatter()
	nameText := field(name)
	headText := field(headingText(content))
	tagText := field(strings.Join(append(slices.Clone(f.Tags), markdown.InlineTags(content)...), " "))
	aliasText := field(strings.Join(f.Aliases, " "))
	lenNorm := bm25K1 * (1 - bm25B + bm25B*float64(words)/avgNoteWords)
	titleWords := titleText.words()
	score = 0.01
	var inTitle, inName, inAlias int // items found there
	for i := 0; i < n; i++ {
		w := 1.0
		if i >= len(terms) {
			w = phraseWeight
		}
		t := float64(tf[i])
		score += w * t * (bm25K1 + 1) / (t + lenNorm)
		if adj&(1<<i) != 0 {
			score += boostAdjacent
		}
		if titleText.has(q, terms, phrases, i) {
			score += w * boostTitle * titleNorm(titleWords, avgTitleWords)
			inTitle++
		}
		for _, b := range []struct {
			f     fieldText
			boost float64
			in    *int
		}{{nameText, boostName, &inName}, {headText, boostHeading, nil}, {tagText, boostTag, nil}, {aliasText, boostAlias, &inAlias}} {
			if b.f.has(q, terms, phrases, i) {
				score += w * b.boost
				if b.in != nil {
					*b.in++
				}
			}
		}
	}
	if inTitle == n {
		score += boostCover * titleNorm(titleWords, avgTitleWords)
	}
	if inTitle == n || inName == n || inAlias == n { // else none can be exact
		score += exactScore(queryWords(terms, phrases), title, name, f.Aliases)
	}
	return score, makeSnippet(content, bodyStart, bestPos(hits, bodyStart)), nil
}

// exactScore is Match's bonus for a title, file name or alias whose words
// are exactly words, as the index gives it.
func exactScore(words []string, title, name string, aliases []string) float64 {
	key := keyOf(words)
	if toks := Tokens(Fold(title)); keyOf(toks) == key {
		if orderOf(toks) == orderOf(words) {
			return exactBoost + orderBoost
		}
		return exactBoost
	}
	if textKey(name) == key || slices.ContainsFunc(aliases, func(a string) bool { return textKey(a) == key }) {
		return exactBoost
	}
	return 0
}

// confirmPrefix is the first prefix of a note Confirm scans.
const confirmPrefix = 16 << 10

func allFound(tf []int) bool {
	for _, n := range tf {
		if n == 0 {
			return false
		}
	}
	return true
}

// scanItems counts the items of q in content (terms, then phrases) and
// collects up to maxHits of their positions; words is the word count, and
// bit i of adj is set when term i+1 (the whole word) follows term i
// somewhere.
func scanItems(q Query, terms, phrases []string, content string) (tf [maxQueryItems]int, hits []hit, words int, adj uint64) {
	var norm []byte
	var wordNorm, wordPos []int32
	if len(phrases) > 0 {
		// The folded text and the words' offsets are scratch, needed only
		// until the phrases are found, and grown here for every note a
		// phrase search reads: taken from the pool, room for a word in
		// every few bytes made at once.
		norm = append(normScratch.get(len(content)+2), ' ')
		wordNorm = offScratch.get(len(content)/4 + 8)
		wordPos = offScratch.get(len(content)/4 + 8)
		defer func() {
			normScratch.put(norm)
			offScratch.put(wordNorm)
			offScratch.put(wordPos)
		}()
	}
	last := len(terms) - 1
	var prev uint64 // the terms the word before was
	scanWords(content, func(w []byte, start, _ int) {
		words++
		var now uint64
		for i, t := range terms {
			if string(w) == t || i == last && q.PrefixLast && bytes.HasPrefix(w, []byte(t)) && t != "" {
				tf[i]++
				if len(hits) < maxHits {
					hits = append(hits, hit{start, i})
				}
				if string(w) == t {
					now |= 1 << i
				}
			}
		}
		adj |= prev & (now >> 1)
		prev = now
		if norm != nil {
			// Offsets are int32 to halve this index on long notes. A note
			// is far below 2 GiB, but past that a phrase still counts; it
			// only gets no position for the snippet.
			if n := len(norm); n <= math.MaxInt32 && 0 <= start && start <= math.MaxInt32 {
				wordNorm = append(wordNorm, int32(n))
				wordPos = append(wordPos, int32(start))
			}
			norm = append(append(norm, w...), ' ')
		}
	})
	for j, p := range phrases {
		if p == "" {
			continue
		}
		pat := " " + p + " "
		for from := 0; ; {
			k := bytes.Index(norm[from:], []byte(pat))
			if k < 0 {
				break
			}
			at := from + k + 1
			tf[len(terms)+j]++
			if w := sort.Search(len(wordNorm), func(x int) bool { return int(wordNorm[x]) >= at }); w < len(wordPos) && len(hits) < maxHits {
				hits = append(hits, hit{int(wordPos[w]), len(terms) + j})
			}
			from = at
		}
	}
	return tf, hits, words, adj
}

// bestPos is bestHit's offset.
func bestPos(hits []hit, bodyStart int) int {
	pos, _ := bestHit(hits, bodyStart)
	return pos
}

// fieldText is folded text as " tok tok tok " for term and phrase tests.
type fieldText string

func field(s string) fieldText {
	toks := Tokens(Fold(s))
	if len(toks) == 0 {
		return ""
	}
	return fieldText(" " + strings.Join(toks, " ") + " ")
}

// words is the number of tokens in f.
func (f fieldText) words() int {
	if f == "" {
		return 0
	}
	return strings.Count(string(f), " ") - 1
}

// has reports whether item i (a term, then the phrases) occurs in f.
func (f fieldText) has(q Query, terms, phrases []string, i int) bool {
	if f == "" {
		return false
	}
	s := string(f)
	if i >= len(terms) {
		return strings.Contains(s, " "+phrases[i-len(terms)]+" ")
	}
	if i == len(terms)-1 && q.PrefixLast {
		return strings.Contains(s, " "+terms[i])
	}
	return strings.Contains(s, " "+terms[i]+" ")
}

func headingText(content string) string {
	var b strings.Builder
	for _, h := range markdown.Headings(content) {
		b.WriteString(h.Text)
		b.WriteByte(' ')
	}
	return b.String()
}

// bestHit returns the offset of the body hit that starts the window of
// about 100 bytes holding the most distinct query items (the earliest on a
// tie), or bodyStart when no hit lies in the body, and how many distinct
// items that window holds.
func bestHit(hits []hit, bodyStart int) (pos, distinct int) {
	hits = slices.DeleteFunc(hits, func(h hit) bool { return h.pos < bodyStart })
	if len(hits) == 0 {
		return bodyStart, 0
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.pos, b.pos) })
	var count [maxQueryItems]int
	distinct, best, bestN := 0, hits[0].pos, 0
	lo := 0
	for _, h := range hits {
		if count[h.item] == 0 {
			distinct++
		}
		count[h.item]++
		for hits[lo].pos < h.pos-100 {
			count[hits[lo].item]--
			if count[hits[lo].item] == 0 {
				distinct--
			}
			lo++
		}
		if distinct > bestN {
			bestN, best = distinct, hits[lo].pos
		}
	}
	return best, bestN
}

// makeSnippet renders about snippetRunes runes of content starting a little
// before at (never before lo) on one line.
func makeSnippet(content string, lo, at int) string {
	start := at
	if at > lo {
		start = max(lo, at-60)
		for start > lo && !utf8.RuneStart(content[start]) {
			start--
		}
		if start > lo {
			if k := strings.IndexAny(content[start:at], " \t\n"); k >= 0 {
				start += k + 1
			}
		}
	}
	// Written into room on the stack, enough for any snippet, and copied
	// out once: the snippet of every hit a search shows otherwise grew a
	// builder several times and was copied again for each "…".
	var room [snippetRunes*utf8.UTFMax + 2*len("…")]byte
	out := room[:0]
	if start > lo && strings.TrimSpace(content[lo:start]) != "" {
		out = append(out, "…"...)
	}
	body := len(out)
	runes, space, i := 0, false, start
	for i < len(content) && runes < snippetRunes {
		r, size := utf8.DecodeRuneInString(content[i:])
		i += size
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && len(out) > body {
			out = append(out, ' ')
			runes++
		}
		space = false
		out = utf8.AppendRune(out, r)
		runes++
	}
	if strings.TrimSpace(content[i:]) != "" {
		if k := bytes.LastIndexByte(out[body:], ' '); k > 0 && len(out)-body-k < 40 {
			out = out[:body+k]
		}
		out = append(out, "…"...)
	}
	return string(out)
}
