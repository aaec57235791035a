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
// and folder:path as markdown.ParseQuery reads them), restricted to
// Folder and to notes carrying Tag when those are set. Hits are ordered by
// score, then newest first; a search by filters alone lists the matching
// notes newest first. Each hit's snippet comes from the note as it is on
// disk now. The trash is searched only when it is the folder asked for.
//
// With the index built, the candidates and their order come from it and
// only the notes shown are read; otherwise every note is scanned.
func (v *Vault) SearchPage(ctx context.Context, q Query) (Page, error) {
	pq := markdown.ParseQuery(q.Text)
	if pq.Unsupported != "" {
		return Page{}, newErr(CodeInvalidArgument, fmt.Sprintf("Search does not have Obsidian's %s; use words, \"phrases\", OR, -word, tag:#x, path:x, file:x, [property:value] or a folder.", pq.Unsupported), nil)
	}
	folder, e := checkFolder(q.Folder)
	if e != nil {
		return Page{}, e
	}
	tag := strings.TrimRight(markdown.Fold(strings.TrimPrefix(strings.TrimSpace(q.Tag), "#")), "/")
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
	offset, e := decodeCursor(q.Cursor, fp)
	if e != nil {
		return Page{}, e
	}

	var hits []Hit // from offset on
	more, used := false, false
	if !inTrash(folder) {
		hits, more, used, e = v.indexSearch(ctx, pq, offset, limit)
		if e != nil {
			return Page{}, e
		}
	}
	if !used {
		if hits, e = v.scanSearch(ctx, pq, folder); e != nil {
			return Page{}, e
		}
		hits = hits[min(offset, len(hits)):]
		more = len(hits) > limit
	}
	page := Page{Hits: []Hit{}}
	chars, next := 0, 0
	for _, h := range hits {
		h.Title = clipRunes(h.Title, maxTitleRunes)
		n := utf8.RuneCountInString(h.Path) + utf8.RuneCountInString(h.Title) + utf8.RuneCountInString(h.Snippet)
		if len(page.Hits) == limit || len(page.Hits) > 0 && chars+n > maxChars {
			more = true
			break
		}
		chars += n
		next++
		page.Hits = append(page.Hits, h)
	}
	if more && offset+next < maxSearchDepth {
		page.NextCursor = encodeCursor(offset+next, fp)
	}
	return page, nil
}

// scanSearch reads every note in the folder and returns all hits in order.
func (v *Vault) scanSearch(ctx context.Context, pq markdown.Query, folder string) ([]Hit, *Error) {
	hits := []Hit{}
	e := v.scanFolder(ctx, folder, func(w walkEntry, data []byte) *Error {
		content := string(data)
		title := markdown.Title(content, w.path)
		score, snippet := markdown.Match(pq, w.path, title, content)
		if score <= 0 {
			return nil
		}
		hits = append(hits, Hit{Path: w.path, Title: title, Snippet: snippet, Modified: w.info.ModTime(), Score: score})
		return nil
	})
	if e != nil {
		return nil, e
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), b.Modified.Compare(a.Modified), strings.Compare(a.Path, b.Path))
	})
	return hits, nil
}

// candidate is a ranked note as the index knew it.
type candidate struct {
	path, title string
	mod, size   int64
	score       float64
}

// indexSearch ranks the notes with the index and reads the ones shown,
// in order, from the offset-th on: it returns up to limit hits and whether
// more follow. Without phrases the index decides matches alone; a phrase
// is only known to be there once the note is read, so then every note up
// to the page is read and confirmed. It reports false when the index is
// not built yet.
func (v *Vault) indexSearch(ctx context.Context, pq markdown.Query, offset, limit int) ([]Hit, bool, bool, *Error) {
	// Extended queries (OR, exclusions, filters, literal text) are decided
	// on the note itself, like phrases.
	exact := len(pq.Phrases) == 0 && !pq.Extended()
	var hits []Hit
	seen := map[string]bool{}
	skip := offset // confirmed hits still to pass over
	done := 0      // ranked candidates already read
	for k := offset + limit + 1; ; k *= 4 {
		if !exact {
			k = max(k, 2*(offset+limit)+8)
		}
		x := v.ix.current()
		if x == nil {
			return nil, false, false, nil
		}
		cands := x.candidatesFor(pq)
		ranked := x.top(cands, k)
		from := min(done, len(ranked))
		if exact {
			from = min(offset, len(ranked))
			ranked = ranked[:min(len(ranked), offset+limit)]
			skip = 0
		}
		batch := make([]candidate, 0, len(ranked)-from)
		for _, s := range ranked[from:] {
			d := &x.docs[s.doc]
			batch = append(batch, candidate{d.path, d.title, d.mod, d.size, s.score})
		}
		total := len(cands)
		v.ix.mu.RUnlock()
		done = len(ranked)
		for _, c := range batch {
			if e := ctxErr(ctx); e != nil {
				return nil, false, true, e
			}
			if seen[c.path] {
				continue
			}
			seen[c.path] = true
			h, ok := v.confirm(pq, c)
			switch {
			case !ok:
			case skip > 0:
				skip--
			case len(hits) == limit:
				return hits, true, true, nil
			default:
				hits = append(hits, h)
			}
		}
		if exact {
			return hits, total > offset+limit, true, nil
		}
		if done >= total {
			return hits, false, true, nil
		}
	}
}

// confirm reads a candidate and matches it as it is on disk now.
func (v *Vault) confirm(pq markdown.Query, c candidate) (Hit, bool) {
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
	ok, snippet := markdown.Confirm(pq, c.path, title, content)
	if !ok {
		return Hit{}, false
	}
	return Hit{Path: c.path, Title: title, Snippet: snippet, Modified: fi.ModTime(), Score: c.score}, true
}

// fingerprint ties a cursor to its query.
func fingerprint(pq markdown.Query) string {
	h := sha256.New()
	writeQuery(h, pq)
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// writeQuery writes every part of q, each list closed by a separator byte
// no folded text holds.
func writeQuery(h hash.Hash, q markdown.Query) {
	var props []string
	for _, p := range q.Props {
		props = append(props, p.Name, p.Value, strconv.FormatBool(p.HasValue))
	}
	for _, s := range [][]string{q.Terms, q.Phrases, q.Tags, {q.Folder, strconv.FormatBool(q.PrefixLast)},
		q.NotTerms, q.NotPhrases, q.NotTags, q.Paths, q.Files, props, {q.Literal}} {
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

func encodeCursor(offset int, fp string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset) + "." + fp))
}

// decodeCursor returns the offset a cursor stands for; "" is 0.
func decodeCursor(c, fp string) (int, *Error) {
	if c == "" {
		return 0, nil
	}
	bad := newErr(CodeInvalidArgument, "The cursor does not belong to this search; repeat the search without a cursor.", nil)
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, bad
	}
	num, got, ok := strings.Cut(string(b), ".")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || got != fp || n <= 0 || n >= maxSearchDepth {
		return 0, bad
	}
	return n, nil
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
