package vault

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault/markdown"
)

const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
)

// Search scans the notes for q.Text (words, "phrases", tag:x, #x and
// folder:path as markdown.ParseQuery reads them), restricted to Folder and
// to notes carrying Tag when those are set. The trash is searched only
// when it is the folder asked for. Hits are ordered by score, then newest
// first; a search by filters alone lists the matching notes newest first.
func (v *Vault) Search(ctx context.Context, q Query) ([]Hit, error) {
	pq := markdown.ParseQuery(q.Text)
	if tag := strings.TrimPrefix(strings.TrimSpace(q.Tag), "#"); tag != "" {
		pq.Tags = append(pq.Tags, markdown.Fold(tag))
	}
	if q.Folder != "" {
		pq.Folder = q.Folder
	}
	folder, e := checkFolder(pq.Folder)
	if e != nil {
		return nil, e
	}
	pq.Folder = folder
	if len(pq.Terms)+len(pq.Phrases)+len(pq.Tags) == 0 && folder == "" {
		return nil, newErr(CodeInvalidArgument, "Give words to search for, a tag or a folder.", nil)
	}
	if folder != "" {
		if v.isProtected(folder) {
			return nil, newErr(CodeProtectedPath, "", nil)
		}
		if _, e := v.lstatDir(folder); e != nil {
			return nil, e
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)

	hits := []Hit{}
	e = v.scanFolder(ctx, folder, func(w walkEntry, data []byte) *Error {
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
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}
