package vault

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// scanSearch decides the search without the index (not built yet, or the
// trash): it reads the notes in the folder newest first, from the cursor's
// position on, until the read budget is spent, and returns the hits in that
// order, each with the position after it. When one call reads every note
// from the start, the hits are ranked instead, as the index ranks them.
func (v *Vault) scanSearch(ctx context.Context, s asked, folder string, cur cursor) (found, *Error) {
	var notes []candidate
	e := v.walk(ctx, folder, true, func(w walkEntry) *Error {
		if !w.info.IsDir() && w.info.Size() <= v.maxNote {
			notes = append(notes, candidate{path: w.path, mod: w.info.ModTime().UnixNano(), size: w.info.Size()})
		}
		return nil
	})
	if e != nil {
		return found{}, e
	}
	slices.SortFunc(notes, func(a, b candidate) int { return a.key().compare(b.key()) })
	start, skip := 0, cur.hits // a cursor without a position passes over hits
	resumed := cur.scan && cur.pos > 0
	if resumed {
		start, skip = min(cur.pos, len(notes)), 0
		if k := cur.last; k != nil {
			i, ok := slices.BinarySearchFunc(notes, *k, func(c candidate, k scanKey) int { return c.key().compare(k) })
			if ok {
				i++
			}
			start = i
		}
	}
	f := found{after: []int{}, total: len(notes), scan: true, notes: notes}
	var spent int64
	for i := start; i < len(notes); i++ {
		if e := ctxErr(ctx); e != nil {
			return found{}, e
		}
		if spent >= v.readBudget {
			f.cut, f.next = true, i
			break
		}
		c := notes[i]
		spent += c.size + noteReadCost
		data, fi, e := v.readPooled(c.path, c.size)
		if e != nil {
			continue // gone or changed into something else meanwhile
		}
		content := noteString(data)
		title := markdown.Title(content, c.path)
		m := s.find(s.pq, c.path, title, content, true)
		if m.Score > 0 {
			h := Hit{Path: c.path, Title: title, Snippet: m.Snippet, Modified: fi.ModTime(), Score: m.Score, Lines: m.Lines}
			h.detach(data)
			f.hits = append(f.hits, h)
			f.after = append(f.after, i+1)
		}
		v.bufs.put(data)
	}
	skip = min(skip, len(f.hits))
	if !resumed && !f.cut {
		slices.SortFunc(f.hits, func(a, b Hit) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), b.Modified.Compare(a.Modified), strings.Compare(a.Path, b.Path))
		})
		f.hits, f.after, f.scan, f.ranked = f.hits[skip:], nil, false, true
		return f, nil
	}
	f.hits, f.after = f.hits[skip:], f.after[skip:]
	return f, nil
}

// candidate is a ranked note as the index knew it.
type candidate struct {
	path, title string
	mod, size   int64
	score       float64
	// absent is set when the index knows the note lacks the query's
	// literal text or symbols: it is passed over without being read.
	absent bool
}

// found is what indexSearch found.
type found struct {
	hits []Hit
	// after holds, for each hit of a search read note by note, the
	// position in the ranked candidates just after it: where a cursor
	// resumes after showing it. Nil when the index decided alone.
	after []int
	more  bool // more hits follow
	// cut is set when the read budget ran out first: next is the position
	// to resume reading at, total the number of candidates.
	cut         bool
	next, total int
	// scan is set when the notes were read without the index, newest
	// first: a cursor then resumes in that order, after notes[pos-1].
	scan  bool
	notes []candidate
	// ranked is set when every note was read in one call and the hits
	// ranked by score: a cursor then passes over hits in that ranking.
	ranked bool
}

// indexSearch ranks the notes with the index and reads the ones shown,
// in order, from the cursor on: it returns up to limit hits and whether
// more follow. Without phrases the index decides matches alone; a phrase
// is only known to be there once the note is read, so then the candidates
// are read and confirmed in order from the cursor's position, until the
// page is full or the read budget is spent. It reports false when the
// index is not built yet.
func (v *Vault) indexSearch(ctx context.Context, s asked, cur cursor, limit int) (found, bool, *Error) {
	pq := s.pq
	// Extended queries (OR, exclusions, filters, literal text) are decided
	// on the note itself, like phrases.
	exact := len(pq.Phrases) == 0 && !pq.Extended()
	var f found
	// seen holds the notes of earlier rounds, which a round after the
	// index changed may rank again; one round, the most, needs none.
	var seen map[string]bool
	var batch []candidate
	skip := cur.hits // confirmed hits still to pass over (a cursor without a position)
	if cur.pos > 0 {
		skip = 0
	}
	done := cur.pos // ranked candidates already read or passed over
	var spent int64
	a := accessOf(ctx)
	need := search.NeedsOf(pq) // what the notes must hold that words do not say
	for k := cur.hits + limit + 1; ; k *= 4 {
		if !exact {
			k = max(k, cur.pos+2*(skip+limit)+8)
		}
		x := v.ix.current()
		if x == nil {
			return found{}, false, nil
		}
		cands := x.Candidates(pq)
		if none := v.nonePrivate(x); !a.all() && !(none && a.s.Whole() && v.private.Empty()) {
			// Notes the call may not see are neither shown nor counted.
			cands = v.visibleDocs(a, x, cands, none)
		}
		ranked := x.Top(cands, k)
		from := min(done, len(ranked))
		if exact {
			from = min(cur.hits, len(ranked))
			ranked = ranked[:min(len(ranked), cur.hits+limit)]
			skip = 0
		}
		batch = batch[:0]
		if n := len(ranked) - from; cap(batch) < n {
			batch = make([]candidate, 0, n)
		}
		for _, s := range ranked[from:] {
			d := x.DocOf(s)
			batch = append(batch, candidate{d.Path, d.Title, d.Mod, d.Size, s.Score, !x.MayHold(s, need)})
		}
		f.total = len(cands)
		v.ix.mu.RUnlock()
		done = len(ranked)
		// What is left to read is in batch; the lists are scratch again.
		search.ReleaseCandidates(cands)
		if !exact && f.after == nil {
			f.after = []int{}
		}
		for i, c := range batch {
			if e := ctxErr(ctx); e != nil {
				return found{}, true, e
			}
			if seen[c.path] {
				continue
			}
			if !exact && spent >= v.readBudget {
				f.cut, f.next = true, from+i
				return f, true, nil
			}
			// Counted as read even when the index tells without reading,
			// so that where a budget stops, and the cursors, stay as they
			// were.
			spent += min(c.size, v.maxNote) + noteReadCost
			var h Hit
			ok := false
			if !c.absent {
				h, ok = v.confirm(a, s, c)
			}
			switch {
			case !ok:
			case skip > 0:
				skip--
			case len(f.hits) == limit:
				f.more = true
				return f, true, nil
			default:
				if f.hits == nil {
					f.hits = make([]Hit, 0, limit) // never more
				}
				f.hits = append(f.hits, h)
				if !exact {
					f.after = append(f.after, from+i+1)
				}
			}
		}
		if exact {
			f.more = f.total > cur.hits+limit
			return f, true, nil
		}
		if done >= f.total {
			return f, true, nil
		}
		if seen == nil {
			seen = make(map[string]bool, len(batch))
		}
		for _, c := range batch {
			seen[c.path] = true
		}
	}
}

// confirm reads a candidate and matches it as it is on disk now. The note
// is read into a pooled buffer, given back on return: the hit keeps
// nothing that points into it.
func (v *Vault) confirm(a access, s asked, c candidate) (Hit, bool) {
	pq := s.pq
	data, fi, e := v.readPooled(c.path, c.size)
	if e != nil {
		v.ix.queue(c.path)
		return Hit{}, false
	}
	defer v.bufs.put(data)
	content := noteString(data)
	if !a.all() && !a.s.Private && privateText(content) {
		// Made private since it was indexed: the index learns it shortly.
		v.ix.queue(c.path)
		return Hit{}, false
	}
	title := c.title
	if fi.ModTime().UnixNano() != c.mod || fi.Size() != c.size {
		// Changed since it was indexed; a notification is on its way.
		title = markdown.Title(content, c.path)
		v.ix.queue(c.path)
	} else if len(pq.Phrases) == 0 && !pq.Extended() {
		// The index knows this very note: its tags and folder matched
		// already, and checking them again would parse the frontmatter.
		pq.Tags, pq.Folder = nil, ""
	}
	m := s.find(pq, c.path, title, content, false)
	if m.Score <= 0 {
		return Hit{}, false
	}
	h := Hit{Path: c.path, Title: title, Snippet: m.Snippet, Modified: fi.ModTime(), Score: c.score, Lines: m.Lines}
	h.detach(data)
	return h, true
}

// maxHitLines caps the lines a hit names.
const maxHitLines = 10

// find matches a note for pq (the search's query, or what is left of it
// to check), scored or only confirmed, and names the lines the hit shows:
// those its line filters matched, from the same reading, or, when every
// hit names its lines, those holding what the whole query matched the
// note by.
func (s asked) find(pq search.Query, p, title, content string, scoring bool) search.Found {
	n := 0
	if s.lines || pq.HasLines() {
		n = maxHitLines
	}
	m := search.Find(pq, p, title, content, scoring, n)
	if s.lines && m.Score > 0 && m.Lines == nil {
		m.Lines = search.HitLines(s.pq, p, title, content, maxHitLines)
	}
	return m
}
