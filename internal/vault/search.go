package vault

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
	"github.com/cortex-mcp/cortex/internal/vault/search"
)

const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
	// defaultMaxChars caps the text of one page of results; minMaxChars
	// is the least a caller may ask for.
	defaultMaxChars = 16000
	minMaxChars     = 2000
	// maxTitleRunes shortens titles in results (a frontmatter title can
	// be a paragraph).
	maxTitleRunes = 200
	// maxSearchDepth bounds how far cursors page into one result list.
	maxSearchDepth = 1000
	// defaultReadBudget bounds the bytes of notes one search call reads to
	// decide what the index cannot (text without words, exclusions,
	// properties, phrases): about 1,000 notes of a few kB, some 20 ms.
	// Each note counts noteReadCost on top of its size, for opening it.
	defaultReadBudget = 4 << 20
	noteReadCost      = 512
	// maxCursorPos bounds a cursor's position among the ranked notes.
	maxCursorPos = 1 << 30
)

// Search returns the first page of SearchPage.
func (v *Vault) Search(ctx context.Context, q Query) ([]Hit, error) {
	p, err := v.SearchPage(ctx, q)
	if err != nil {
		return nil, err
	}
	return p.Hits, nil
}

// SearchPage finds the notes matching q.Text (words, "phrases", tag:x, #x
// and folder:path as search.ParseQuery reads them), restricted to
// Folder and to notes carrying Tag when those are set. Hits are ordered by
// score, then newest first; a search by filters alone lists the matching
// notes newest first. Each hit's snippet comes from the note as it is on
// disk now. The trash is searched only when it is the folder asked for.
//
// With the index built, the candidates and their order come from it and
// only the notes shown are read; otherwise every note is scanned.
func (v *Vault) SearchPage(ctx context.Context, q Query) (Page, error) {
	if e := v.checkHome(); e != nil {
		return Page{}, e
	}
	pq := search.ParseQuery(q.Text)
	if pq.Unsupported != "" {
		return Page{}, newErr(CodeInvalidArgument, fmt.Sprintf("Search does not have Obsidian's %s; use words, \"phrases\", OR, -word, tag:#x, path:x, file:x, [property:value] or a folder.", pq.Unsupported), nil)
	}
	if pq.TooMany {
		return Page{}, newErr(CodeInvalidArgument, "The query has more than 32 alternatives (each OR counts, and each combination of property values such as [a:x OR y] [b:1 OR 2]); split it into several searches.", nil)
	}
	if pq.NoValue != "" {
		return Page{}, newErr(CodeInvalidArgument, fmt.Sprintf("%s needs its value right after it, as in tag:#project, path:Daily, file:budget or folder:Projects; add one or leave it out.", pq.NoValue), nil)
	}
	folder, e := checkFolder(q.Folder)
	if e != nil {
		return Page{}, e
	}
	tag := strings.TrimRight(search.Fold(strings.TrimPrefix(strings.TrimSpace(q.Tag), "#")), "/")
	pq.Restrict(folder, tag)
	for i, f := range pq.Folders() {
		if f == "" {
			continue
		}
		clean, e := checkFolder(f)
		if e != nil {
			return Page{}, e
		}
		if v.isProtected(clean) {
			return Page{}, newErr(CodeProtectedPath, "", nil)
		}
		if len(pq.Or) > 0 {
			pq.Or[i].Folder = clean
		} else {
			pq.Folder = clean
		}
	}
	if pq.Empty() {
		return Page{}, newErr(CodeInvalidArgument, "Give words to search for, a tag or a folder.", nil)
	}
	if len(pq.Or) == 0 {
		folder = pq.Folder
	}
	if folder != "" {
		if _, e := v.lstatDir(folder); e != nil {
			return Page{}, e
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	maxChars := q.MaxChars
	if maxChars <= 0 {
		maxChars = defaultMaxChars
	}
	maxChars = max(maxChars, minMaxChars)
	fp := fingerprint(pq)
	cur, e := decodeCursor(q.Cursor, fp)
	if e != nil {
		return Page{}, e
	}

	var f found // from the cursor on
	used := false
	if !inTrash(folder) && !cur.scan {
		if f, used, e = v.indexSearch(ctx, pq, cur, limit); e != nil {
			return Page{}, e
		}
	}
	if !used {
		if f, e = v.scanSearch(ctx, pq, folder, cur); e != nil {
			return Page{}, e
		}
	}
	page := Page{Hits: []Hit{}}
	chars, next := 0, 0
	for _, h := range f.hits {
		h.Title = clipRunes(h.Title, maxTitleRunes)
		n := utf8.RuneCountInString(h.Path) + utf8.RuneCountInString(h.Title) + utf8.RuneCountInString(h.Snippet)
		if len(page.Hits) == limit || len(page.Hits) > 0 && chars+n > maxChars {
			f.more, f.cut = true, false
			break
		}
		chars += n
		next++
		page.Hits = append(page.Hits, h)
	}
	after := cursor{hits: cur.hits + next, scan: f.scan}
	switch {
	case f.cut:
		after.pos = f.next
		// A full page is not cut short: the budget ran out looking for
		// one more match, which the cursor looks for.
		if len(page.Hits) < limit {
			page.Cut = &ScanCut{Checked: f.next, Candidates: f.total, Unindexed: f.scan && !inTrash(folder)}
		}
	case f.after != nil && next > 0:
		after.pos = f.after[next-1]
	case f.after != nil:
		after.pos = cur.pos
	}
	if f.ranked {
		// A count of hits to pass over in the order of this reading, not
		// the index's, which ranks the notes otherwise.
		after.pos, after.scan = 0, true
	} else if after.pos == 0 {
		after.scan = false // a count of hits to pass over in the index's order
	}
	if after.scan && after.pos > 0 && after.pos <= len(f.notes) {
		// Resume after the last note read, wherever it stands then: a
		// count of notes would pass over unread ones once read ones go.
		last := f.notes[after.pos-1]
		after.last = &scanKey{mod: last.mod, path: last.path}
	}
	if (f.more || f.cut) && after.hits < maxSearchDepth {
		page.NextCursor = encodeCursor(after, fp)
	} else {
		page.Cut = nil // at the depth limit there is no reading on
	}
	return page, nil
}

// scanSearch decides the search without the index (not built yet, or the
// trash): it reads the notes in the folder newest first, from the cursor's
// position on, until the read budget is spent, and returns the hits in that
// order, each with the position after it. When one call reads every note
// from the start, the hits are ranked instead, as the index ranks them.
func (v *Vault) scanSearch(ctx context.Context, pq search.Query, folder string, cur cursor) (found, *Error) {
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
		data, fi, _, e := v.readNote(c.path)
		if e != nil {
			continue // gone or changed into something else meanwhile
		}
		content := string(data)
		title := markdown.Title(content, c.path)
		score, snippet := search.Match(pq, c.path, title, content)
		if score > 0 {
			f.hits = append(f.hits, Hit{Path: c.path, Title: title, Snippet: snippet, Modified: fi.ModTime(), Score: score})
			f.after = append(f.after, i+1)
		}
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
func (v *Vault) indexSearch(ctx context.Context, pq search.Query, cur cursor, limit int) (found, bool, *Error) {
	// Extended queries (OR, exclusions, filters, literal text) are decided
	// on the note itself, like phrases.
	exact := len(pq.Phrases) == 0 && !pq.Extended()
	var f found
	seen := map[string]bool{}
	skip := cur.hits // confirmed hits still to pass over (a cursor without a position)
	if cur.pos > 0 {
		skip = 0
	}
	done := cur.pos // ranked candidates already read or passed over
	var spent int64
	for k := cur.hits + limit + 1; ; k *= 4 {
		if !exact {
			k = max(k, cur.pos+2*(skip+limit)+8)
		}
		x := v.ix.current()
		if x == nil {
			return found{}, false, nil
		}
		cands := x.Candidates(pq)
		ranked := x.Top(cands, k)
		from := min(done, len(ranked))
		if exact {
			from = min(cur.hits, len(ranked))
			ranked = ranked[:min(len(ranked), cur.hits+limit)]
			skip = 0
		}
		batch := make([]candidate, 0, len(ranked)-from)
		for _, s := range ranked[from:] {
			d := x.DocOf(s)
			batch = append(batch, candidate{d.Path, d.Title, d.Mod, d.Size, s.Score})
		}
		f.total = len(cands)
		v.ix.mu.RUnlock()
		done = len(ranked)
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
			seen[c.path] = true
			spent += min(c.size, v.maxNote) + noteReadCost
			h, ok := v.confirm(pq, c)
			switch {
			case !ok:
			case skip > 0:
				skip--
			case len(f.hits) == limit:
				f.more = true
				return f, true, nil
			default:
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
	}
}

// confirm reads a candidate and matches it as it is on disk now.
func (v *Vault) confirm(pq search.Query, c candidate) (Hit, bool) {
	data, fi, _, e := v.readNote(c.path)
	if e != nil {
		v.ix.queue(c.path)
		return Hit{}, false
	}
	content := string(data)
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
	ok, snippet := search.Confirm(pq, c.path, title, content)
	if !ok {
		return Hit{}, false
	}
	return Hit{Path: c.path, Title: title, Snippet: snippet, Modified: fi.ModTime(), Score: c.score}, true
}

// fingerprint ties a cursor to its query.
func fingerprint(pq search.Query) string {
	h := sha256.New()
	writeQuery(h, pq)
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// writeQuery writes every part of q, each list closed by a separator byte
// no folded text holds.
func writeQuery(h hash.Hash, q search.Query) {
	var props, notProps []string
	for _, p := range q.Props {
		props = append(props, p.Name, p.Value, strconv.FormatBool(p.HasValue))
	}
	for _, p := range q.NotProps {
		notProps = append(notProps, p.Name, p.Value, strconv.FormatBool(p.HasValue))
	}
	for _, s := range [][]string{q.Terms, q.Phrases, q.Tags, {q.Folder, strconv.FormatBool(q.PrefixLast)},
		q.NotTerms, q.NotPhrases, q.NotTags, q.Paths, q.Files, props, {q.Literal}, q.Symbols, notProps} {
		for _, x := range s {
			h.Write([]byte(x))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	for _, alt := range q.Or {
		h.Write([]byte{2})
		writeQuery(h, alt)
	}
}

// cursor is where the next page of a search starts: after hits results,
// and, for a search read note by note, at position pos of the ranked
// candidates (0: pass over hits results from the start instead), or with
// scan, of the notes newest first as a search without the index reads them
// (scan at 0: pass over hits results of every note read and ranked in one
// call, as the first page was).
type cursor struct {
	hits, pos int
	scan      bool
	// last is, with scan, the note read last (at pos-1 then): the next
	// page reads the notes after it in the same order.
	last *scanKey
}

// scanKey places a note in the order a search without the index reads
// the notes: newest first, then by path.
type scanKey struct {
	mod  int64
	path string
}

// compare orders k before o when a search without the index reads k first.
func (k scanKey) compare(o scanKey) int {
	return cmp.Or(cmp.Compare(o.mod, k.mod), strings.Compare(k.path, o.path))
}

// key places c in the order a search without the index reads the notes.
func (c candidate) key() scanKey { return scanKey{mod: c.mod, path: c.path} }

func encodeCursor(c cursor, fp string) string {
	s := strconv.Itoa(c.hits)
	if c.pos > 0 || c.scan {
		s += "."
		if c.scan {
			s += "s"
		}
		s += strconv.Itoa(c.pos)
		if c.scan && c.last != nil {
			s += "~" + strconv.FormatInt(c.last.mod, 10) + "~" + base64.RawURLEncoding.EncodeToString([]byte(c.last.path))
		}
	}
	return base64.RawURLEncoding.EncodeToString([]byte(s + "." + fp))
}

// decodeCursor returns the position a cursor stands for; "" is the start.
func decodeCursor(c, fp string) (cursor, *Error) {
	if c == "" {
		return cursor{}, nil
	}
	bad := newErr(CodeInvalidArgument, "The cursor does not belong to this search; repeat the search without a cursor.", nil)
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return cursor{}, bad
	}
	parts := strings.Split(string(b), ".")
	if len(parts) < 2 || len(parts) > 3 || parts[len(parts)-1] != fp {
		return cursor{}, bad
	}
	var cur cursor
	var err1, err2 error
	cur.hits, err1 = strconv.Atoi(parts[0])
	if len(parts) == 3 {
		pos, scan := strings.CutPrefix(parts[1], "s")
		cur.scan = scan
		if p, key, ok := strings.Cut(pos, "~"); ok && scan {
			pos = p
			cur.last, err2 = decodeScanKey(key)
		}
		if err2 == nil {
			cur.pos, err2 = strconv.Atoi(pos)
		}
		if err2 == nil && (cur.pos < 0 || cur.pos == 0 && !scan || cur.pos >= maxCursorPos) {
			err2 = strconv.ErrRange
		}
	}
	if err1 != nil || err2 != nil || cur.hits < 0 || cur.hits >= maxSearchDepth || cur.hits == 0 && cur.pos == 0 {
		return cursor{}, bad
	}
	return cur, nil
}

// decodeScanKey reads a cursor's "mod~path" (path in Base64).
func decodeScanKey(s string) (*scanKey, error) {
	mod, p, _ := strings.Cut(s, "~")
	m, err := strconv.ParseInt(mod, 10, 64)
	if err != nil {
		return nil, err
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return nil, err
	}
	return &scanKey{mod: m, path: string(b)}, nil
}

// clipRunes shortens s to at most n runes, marking the cut with "…".
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
