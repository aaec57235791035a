package search

import "bytes"

// scanUntilAll is scanItems for terms alone that stops at the first word
// closing a window of the body that holds every term, as bestHit finds it
// (the same hits, kept up to maxHits, in the same order): at is then the
// offset bestHit returns for the whole note, else -1 once the whole note
// was scanned, with tf and hits as scanItems gives them.
func scanUntilAll(q Query, terms []string, content string, bodyStart int) (tf [maxQueryItems]int, hits []hit, at int) {
	at = -1
	last := len(terms) - 1
	var w window
	scanWordsUntil(content, func(word []byte, start, _ int) bool {
		for i, t := range terms {
			if string(word) == t || i == last && q.PrefixLast && bytes.HasPrefix(word, []byte(t)) && t != "" {
				tf[i]++
				if len(hits) < maxHits {
					hits = append(hits, hit{start, i})
					if start >= bodyStart && w.add(hit{start, i}) == len(terms) {
						at = w.start()
					}
				}
			}
		}
		return at < 0
	})
	return tf, hits, at
}

// window is bestHit's sliding window over body hits in offset order, fed
// one hit at a time.
type window struct {
	hits     []hit
	lo       int
	count    [maxQueryItems]int
	distinct int
}

// add puts h in the window, drops the hits more than 100 bytes before it
// and returns how many distinct items the window then holds.
func (w *window) add(h hit) int {
	w.hits = append(w.hits, h)
	if w.count[h.item] == 0 {
		w.distinct++
	}
	w.count[h.item]++
	for w.hits[w.lo].pos < h.pos-100 {
		it := w.hits[w.lo].item
		w.count[it]--
		if w.count[it] == 0 {
			w.distinct--
		}
		w.lo++
	}
	return w.distinct
}

// start is the offset of the window's first hit.
func (w *window) start() int { return w.hits[w.lo].pos }
