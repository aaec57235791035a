package search

import (
	"slices"
	"strings"
)

// Known-item ranking: someone who types a note's title wants that note
// first, and a note whose title holds every word asked for before one that
// only mentions them. Three parts of a score serve this, in Match and in
// the index alike:
//   - the title boost of each item is normalised by the title's length in
//     words, as BM25F normalises a field (titleNorm), so that of two
//     titles holding a word the shorter one counts more;
//   - a note whose title holds every item gets coverBoost times that
//     normalisation on top, not weighed by the items' rarity: a title of
//     common words ("Señal Idea") would otherwise count for almost
//     nothing beside a short note that mentions one of them in passing;
//   - a title, alias or file name whose words are exactly the query's
//     (folded, in any order) gets exactBoost, more than any score words
//     alone reach, so that it comes first; a title with them in the
//     query's order gets orderBoost more ("Plan Ropi" before "Ropi Plan").
//
// Someone who remembers a few words of a note's text, unquoted, is helped
// by boostAdjacent for each word followed by the next word of the query:
// the index knows it only from the successor bits (see nextBit), so it can
// be wrong one time in sixteen, and for a common word almost always set.
const (
	boostCover    = 4.0
	exactBoost    = 1e6
	orderBoost    = 1.0
	boostAdjacent = 3.0
	titleB        = 0.75 // the weight of a title's length in titleNorm
	avgTitleWords = 3    // Match's assumed average title length
)

// titleNorm is BM25's term-frequency factor for one occurrence in a title
// of words words, where titles have avg words on average: 1 at the
// average, more for a shorter title, less for a longer one.
func titleNorm(words int, avg float64) float64 {
	if avg < 1 {
		avg = 1
	}
	return (bm25K1 + 1) / (1 + bm25K1*(1-titleB+titleB*float64(words)/avg))
}

// keyOf is the exact-match key of folded tokens: a hash of the distinct
// tokens in order, so that "Señal Idea" and "idea señal" have one key. 0
// stands for no tokens.
func keyOf(toks []string) uint64 {
	if len(toks) == 0 {
		return 0
	}
	toks = slices.Clone(toks)
	slices.Sort(toks)
	return hashWords(slices.Compact(toks))
}

// orderOf is the key of tokens in their order, each once where it last
// occurs, as ParseQuery keeps a repeated word: two titles with the same
// keyOf have the same orderOf when their words come in the same order.
func orderOf(toks []string) uint64 {
	var seq []string
	for i, t := range toks {
		if !slices.Contains(toks[i+1:], t) {
			seq = append(seq, t)
		}
	}
	return hashWords(seq)
}

// hashWords hashes tokens in order (FNV-1a, each token closed by a byte
// no UTF-8 text holds); never 0 for tokens, 0 for none.
func hashWords(toks []string) uint64 {
	if len(toks) == 0 {
		return 0
	}
	h := uint64(14695981039346656037)
	for _, t := range toks {
		for i := 0; i < len(t); i++ {
			h = (h ^ uint64(t[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	}
	return h | 1
}

// textKey is the exact-match key of unfolded text.
func textKey(s string) uint64 { return keyOf(Tokens(Fold(s))) }

// queryWords are a clause's words and then the tokens of its phrases.
func queryWords(terms, phrases []string) []string {
	toks := slices.Clone(terms)
	for _, p := range phrases {
		toks = append(toks, strings.Split(p, " ")...)
	}
	return toks
}
