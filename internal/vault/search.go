package vault

import (
	"context"
	"strings"

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
	s, e := v.checkQuery(accessOf(ctx), q)
	if e != nil {
		return Page{}, e
	}
	f, e := v.rank(ctx, s)
	if e != nil {
		return Page{}, e
	}
	return s.page(f), nil
}

// asked is a search checked and ready to run: the parsed query with its
// folders made safe, the folder to scan without the index, the page's
// bounds and where the cursor resumes.
type asked struct {
	pq              search.Query
	folder          string
	limit, maxChars int
	fp              string // the query's fingerprint, which cursors carry
	cur             cursor
	lines           bool // every hit names its matching lines
}

// checkQuery parses q.Text, refuses what search does not offer, restricts
// the query to Folder and Tag, checks every folder it names (none may be
// protected, and the one scanned must exist), bounds the page and reads
// the cursor.
func (v *Vault) checkQuery(a access, q Query) (asked, *Error) {
	pq := search.ParseQuery(q.Text)
	if pq.Unsupported != "" {
		return asked{}, fail(&Error{Code: CodeInvalidArgument, Reason: ReasonObsidianOperator, Subject: pq.Unsupported})
	}
	if pq.TooMany {
		return asked{}, newErr(CodeInvalidArgument, ReasonTooManyAlternatives, nil)
	}
	if strings.HasPrefix(pq.NoValue, "task") || pq.NoValue == "line:" {
		return asked{}, fail(&Error{Code: CodeInvalidArgument, Reason: ReasonLineNeedsWords, Subject: pq.NoValue})
	}
	if pq.NoValue != "" {
		return asked{}, fail(&Error{Code: CodeInvalidArgument, Reason: ReasonOperatorNeedsValue, Subject: pq.NoValue})
	}
	folder, e := checkFolder(q.Folder)
	if e != nil {
		return asked{}, e
	}
	tag := strings.TrimRight(search.Fold(strings.TrimPrefix(strings.TrimSpace(q.Tag), "#")), "/")
	pq.Restrict(folder, tag)
	for i, f := range pq.Folders() {
		if f == "" {
			continue
		}
		clean, e := checkFolder(f)
		if e != nil {
			return asked{}, e
		}
		if !v.folderVisible(a, clean) {
			return asked{}, errHidden()
		}
		if v.isProtected(clean) {
			return asked{}, newErr(CodeProtectedPath, reasonNone, nil)
		}
		if len(pq.Or) > 0 {
			pq.Or[i].Folder = clean
		} else {
			pq.Folder = clean
		}
	}
	if pq.Empty() {
		return asked{}, newErr(CodeInvalidArgument, ReasonEmptyQuery, nil)
	}
	if len(pq.Or) == 0 {
		folder = pq.Folder
	}
	if folder != "" {
		if _, e := v.lstatSeenDir(a, folder); e != nil {
			return asked{}, e
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	maxChars := q.MaxChars
	if maxChars <= 0 {
		maxChars = defaultMaxChars
	}
	fp := fingerprint(pq)
	cur, e := decodeCursor(q.Cursor, fp)
	if e != nil {
		return asked{}, e
	}
	return asked{pq: pq, folder: folder, limit: min(limit, maxSearchLimit), maxChars: max(maxChars, minMaxChars), fp: fp, cur: cur, lines: q.Lines}, nil
}

// rank finds the hits from the cursor on: with the index when it is built
// (and the trash is not searched), else by reading the notes.
func (v *Vault) rank(ctx context.Context, s asked) (found, *Error) {
	if !inTrash(s.folder) && !s.cur.scan {
		f, used, e := v.indexSearch(ctx, s, s.cur, s.limit)
		if e != nil || used {
			return f, e
		}
	}
	return v.scanSearch(ctx, s, s.folder, s.cur)
}
