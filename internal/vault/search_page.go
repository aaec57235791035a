package vault

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// page cuts what rank found to the page's bounds and writes the cursor
// for the next page.
func (s asked) page(f found) Page {
	cur, folder, limit := s.cur, s.folder, s.limit
	// The page is the first of the hits found, kept in their own array
	// rather than copied into a grown one.
	page := Page{Hits: f.hits[:0]}
	if page.Hits == nil {
		page.Hits = []Hit{}
	}
	chars, next := 0, 0
	for _, h := range f.hits {
		h.Title = clipRunes(h.Title, maxTitleRunes)
		n := utf8.RuneCountInString(h.Path) + utf8.RuneCountInString(h.Title) + utf8.RuneCountInString(h.Snippet)
		for _, l := range h.Lines {
			n += utf8.RuneCountInString(l.Text)
		}
		if len(page.Hits) == limit || len(page.Hits) > 0 && chars+n > s.maxChars {
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
		page.NextCursor = encodeCursor(after, s.fp)
	} else {
		page.Cut = nil // at the depth limit there is no reading on
	}
	return page
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
	bad := newErr(CodeInvalidArgument, ReasonForeignCursor, nil)
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
