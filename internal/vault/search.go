package vault

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
)

// Search scans the notes (outside the trash, unless Folder is the trash)
// for q.Text, optionally only in Folder and only notes carrying Tag. Hits
// are ordered by score, then newest first. Without Text, every note
// passing the filters is a hit, newest first.
func (v *Vault) Search(ctx context.Context, q Query) ([]Hit, error) {
	text := strings.TrimSpace(q.Text)
	tag := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(q.Tag), "#"))
	folder, e := checkFolder(q.Folder)
	if e != nil {
		return nil, e
	}
	if text == "" && tag == "" && folder == "" {
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
	m := newMatcher(text)

	hits := []Hit{}
	e = v.scanFolder(ctx, folder, func(w walkEntry, data []byte) *Error {
		content := string(data)
		if tag != "" && !hasTag(noteTags(content), tag) {
			return nil
		}
		title := noteTitle(w.path, content)
		score, snippet := m.match(w.path, title, content)
		if text != "" && score <= 0 {
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

// hasTag reports whether tags hold want, or a nested tag below it
// ("project" matches "project/cortex"), ignoring case.
func hasTag(tags []string, want string) bool {
	for _, t := range tags {
		t = strings.ToLower(t)
		if t == want || strings.HasPrefix(t, want+"/") {
			return true
		}
	}
	return false
}
