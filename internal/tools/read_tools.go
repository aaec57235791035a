package tools

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// Limits of the read tools.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
	listPageSize       = 500
	defaultRecentDays  = 7
	maxRecentDays      = 365
	defaultRecentLimit = 20
	maxRecentLimit     = 200
)

type searchIn struct {
	Query  string `json:"query" jsonschema:"what to find; may be empty with folder or tag"`
	Folder string `json:"folder,omitempty" jsonschema:"only search notes in this folder (vault-relative), e.g. projects"`
	Tag    string `json:"tag,omitempty" jsonschema:"only search notes with this tag, without '#'"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most results to return: default 10, at most 50"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous page, to continue"`
	Lines  bool   `json:"lines,omitempty" jsonschema:"also list each note's matching lines, at most 10"`
}

type searchResult struct {
	ID       string      `json:"id" jsonschema:"the note's path; pass it to fetch"`
	Title    string      `json:"title"`
	URL      string      `json:"url" jsonschema:"link to the note for the user"`
	Snippet  string      `json:"snippet" jsonschema:"text around the match"`
	Modified string      `json:"modified" jsonschema:"last modification, RFC 3339"`
	Lines    []foundLine `json:"lines,omitempty" jsonschema:"with lines, or for task:, task-todo:, task-done: and line: queries: the lines that matched, at most 10"`
}

// foundLine is a line of a note a search matched.
type foundLine struct {
	Line int    `json:"line" jsonschema:"its number in the note, from 1"`
	Text string `json:"text"`
}

// foundLines are the lines a hit names, nil when it names none.
func foundLines(ls []vault.LineHit) []foundLine {
	if len(ls) == 0 {
		return nil
	}
	out := make([]foundLine, len(ls))
	for i, l := range ls {
		out[i] = foundLine{Line: l.N, Text: l.Text}
	}
	return out
}

type searchOut struct {
	Results    []searchResult `json:"results"`
	NextCursor string         `json:"next_cursor,omitempty" jsonschema:"pass as cursor for more results"`
	Incomplete string         `json:"incomplete,omitempty" jsonschema:"present when the search stopped before checking every note: how far it got and how to narrow it"`
}

type listIn struct {
	Folder    string `json:"folder,omitempty" jsonschema:"vault-relative folder to list; empty for the top of the vault"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"also list everything inside subfolders"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous page, to continue"`
}

type listEntry struct {
	Path      string `json:"path"`
	Type      string `json:"type" jsonschema:"note, folder or attachment (fetch shows images)"`
	MediaType string `json:"media_type,omitempty" jsonschema:"an attachment's type"`
	Size      int64  `json:"size" jsonschema:"bytes (0 for folders)"`
	Modified  string `json:"modified" jsonschema:"RFC 3339"`
}

type listOut struct {
	Entries    []listEntry `json:"entries"`
	NextCursor string      `json:"next_cursor,omitempty" jsonschema:"present when there are more entries; pass it as cursor"`
}

type linksIn struct {
	ID string `json:"id" jsonschema:"the note's path or name"`
}

type outgoingLink struct {
	Path string `json:"path,omitempty" jsonschema:"the linked note, absent when the link resolves to no note"`
	Raw  string `json:"raw" jsonschema:"the link target as written"`
	Line int    `json:"line"`
}

type backlink struct {
	Path string `json:"path" jsonschema:"the note that links here"`
	Line int    `json:"line" jsonschema:"line of the link in that note"`
}

type unresolvedLink struct {
	Raw  string `json:"raw"`
	Line int    `json:"line"`
}

type embed struct {
	Path string `json:"path,omitempty" jsonschema:"the note or attachment shown; absent when there is none"`
	Raw  string `json:"raw" jsonschema:"the target as written"`
	Line int    `json:"line"`
}

type linksOut struct {
	ID         string           `json:"id"`
	Outgoing   []outgoingLink   `json:"outgoing"`
	Backlinks  []backlink       `json:"backlinks"`
	Unresolved []unresolvedLink `json:"unresolved"`
	Embeds     []embed          `json:"embeds" jsonschema:"notes and attachments (images, PDFs) shown in the note; fetch one to see it"`
}

type recentIn struct {
	ID    string `json:"id,omitempty" jsonschema:"a note: list its stored versions instead"`
	Days  int    `json:"days,omitempty" jsonschema:"how many days back to look: default 7, at most 365"`
	Limit int    `json:"limit,omitempty" jsonschema:"most notes to return: default 20, at most 200"`
}

type recentNote struct {
	ID        string `json:"id"`
	Title     string `json:"title,omitempty"`
	Modified  string `json:"modified" jsonschema:"RFC 3339"`
	ChangedBy string `json:"changed_by" jsonschema:"the app that made the latest change through cortex, or external"`
	Change    string `json:"change,omitempty" jsonschema:"what that change was: create, edit, append, move, relink (a move rewrote its links) or restore; absent for an outside change"`
}

type recentOut struct {
	Notes    []recentNote  `json:"notes"`
	Versions []noteVersion `json:"versions,omitempty" jsonschema:"with id: the note's stored versions, newest first"`
}

func (s *server) addReadTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{
		Name: "search",
		Description: `Search notes in Obsidian's syntax: words (all must match, any case or accent), "phrases", OR, -word, ` +
			"tag:#x, path:x, file:x, [prop:value], [prop], task-todo:x, line:(a b); text without words (- [ ]) matches as written. " +
			"Returns ids with snippets, best then newest first.",
		Annotations: readOnly("Search notes"),
	}, s.search)
	addTool(s, srv, &mcp.Tool{
		Name: "fetch",
		Description: "Read a note by id: its path, its name as in a [[link]] (Plan, Plan#Budget, an alias), or a day " +
			"(today, 2026-12-01) for the daily note. metadata.version is needed by every edit. Long notes come in pages: " +
			"call again with offset = metadata.next_offset.",
		Annotations: readOnly("Read note"),
	}, s.fetch)
	addTool(s, srv, &mcp.Tool{
		Name: "list",
		Description: "List the notes, attachments (images, PDFs) and folders in a folder (the top of the vault by default). " +
			"Up to 500 entries a page; pass next_cursor as cursor for more.",
		Annotations: readOnly("List folder"),
	}, s.list)
	addTool(s, srv, &mcp.Tool{
		Name: "links",
		Description: "Show a note's links: notes it links to, notes that link to it (backlinks), " +
			"links that point to no existing note, and what it embeds (notes, images, files).",
		Annotations: readOnly("Note links"),
	}, s.links)
	addTool(s, srv, &mcp.Tool{
		Name: "recent",
		Description: "List notes changed in the last days, newest first, with the app that changed each " +
			`("external" for changes made outside cortex, e.g. by the owner in an editor). With id: that note's stored versions.`,
		Annotations: readOnly("Recent changes"),
	}, s.recent)
}

func (s *server) search(ctx context.Context, _ call, in searchIn) (searchOut, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" && in.Folder == "" && in.Tag == "" {
		return searchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoQuery}
	}
	if name, ok := linkQuery(q); ok {
		return searchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonLinkQuery, Subject: name}
	}
	limit, err := clampLimit("limit", in.Limit, defaultSearchLimit, maxSearchLimit)
	if err != nil {
		return searchOut{}, err
	}
	page, err := s.vault.SearchPage(ctx, vault.Query{Text: q, Folder: in.Folder, Tag: strings.TrimPrefix(in.Tag, "#"),
		Limit: limit, Cursor: in.Cursor, Lines: in.Lines})
	if err != nil {
		return searchOut{}, err
	}
	out := searchOut{Results: make([]searchResult, 0, len(page.Hits)), NextCursor: page.NextCursor}
	if c := page.Cut; c != nil && c.Unindexed {
		out.Incomplete = fmt.Sprintf("Checked %d of %d notes, then stopped to answer quickly: the search index was not built yet "+
			"when this search began (it is, seconds after the server starts), so the other notes may match too. Pass next_cursor "+
			"as cursor to check the next notes, or search again without a cursor in a few seconds.", c.Checked, c.Candidates)
	} else if c != nil {
		out.Incomplete = fmt.Sprintf("Checked %d of %d notes, then stopped to answer quickly: this query is matched note by note, "+
			"not through the index, so the other notes may match too. Pass next_cursor as cursor to check the next notes, "+
			"or narrow the search with the folder or tag argument.", c.Checked, c.Candidates)
	}
	for _, h := range page.Hits {
		out.Results = append(out.Results, searchResult{
			ID:       h.Path,
			Title:    h.Title,
			URL:      s.noteURL(h.Path),
			Snippet:  h.Snippet,
			Modified: timestamp(h.Modified),
			Lines:    foundLines(h.Lines),
		})
	}
	return out, nil
}

// linkQuery finds a wiki link ([[Name]], [[Name#Part|text]]) in a search
// query and returns the name it links to. Obsidian's search has no such
// operator, and the words of the name alone would find notes that mention
// it, not the ones that link to it.
func linkQuery(q string) (string, bool) {
	_, rest, ok := strings.Cut(q, "[[")
	if !ok {
		return "", false
	}
	inner, _, ok := strings.Cut(rest, "]]")
	name, _, _ := strings.Cut(inner, "|")
	name = strings.TrimSpace(name)
	return name, ok && name != ""
}

// clampLimit applies a default to 0, caps at most, and refuses negatives.
func clampLimit(name string, v, def, most int) (int, error) {
	switch {
	case v < 0:
		return 0, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNegative, Subject: name}
	case v == 0:
		return def, nil
	}
	return min(v, most), nil
}

func (s *server) list(ctx context.Context, _ call, in listIn) (listOut, error) {
	var after string
	if in.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err != nil || len(b) == 0 || !utf8.Valid(b) {
			return listOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonForeignListCursor}
		}
		after = string(b)
	}
	entries, err := s.vault.List(ctx, in.Folder, in.Recursive)
	if err != nil {
		return listOut{}, err
	}
	slices.SortFunc(entries, func(a, b vault.Entry) int { return strings.Compare(a.Path, b.Path) })
	start := 0
	if after != "" {
		start, _ = slices.BinarySearchFunc(entries, after, func(e vault.Entry, t string) int { return strings.Compare(e.Path, t) })
		if start < len(entries) && entries[start].Path == after {
			start++
		}
	}
	page := entries[start:]
	out := listOut{Entries: make([]listEntry, 0, min(len(page), listPageSize))}
	if len(page) > listPageSize {
		page = page[:listPageSize]
		out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].Path))
	}
	for _, e := range page {
		le := listEntry{Path: e.Path, Type: "note", Size: e.Size, Modified: timestamp(e.Modified)}
		switch {
		case e.IsDir:
			le.Type, le.Size = "folder", 0
		case e.Attachment:
			le.Type, le.MediaType = "attachment", vault.MediaType(e.Path)
		}
		out.Entries = append(out.Entries, le)
	}
	return out, nil
}

func (s *server) links(ctx context.Context, _ call, in linksIn) (linksOut, error) {
	named, err := s.target(ctx, in.ID)
	if err != nil {
		return linksOut{}, err
	}
	id := named.Path
	l, err := s.vault.Links(ctx, id)
	if err != nil {
		return linksOut{}, err
	}
	out := linksOut{
		ID:         id,
		Outgoing:   make([]outgoingLink, 0, len(l.Outgoing)),
		Backlinks:  make([]backlink, 0, len(l.Backlinks)),
		Unresolved: make([]unresolvedLink, 0, len(l.Unresolved)),
	}
	for _, k := range l.Outgoing {
		out.Outgoing = append(out.Outgoing, outgoingLink{Path: k.Target, Raw: k.Raw, Line: k.Line})
	}
	for _, k := range l.Backlinks {
		out.Backlinks = append(out.Backlinks, backlink{Path: k.Source, Line: k.Line})
	}
	for _, k := range l.Unresolved {
		out.Unresolved = append(out.Unresolved, unresolvedLink{Raw: k.Raw, Line: k.Line})
	}
	embeds, err := s.vault.Embeds(ctx, id)
	if err != nil {
		return linksOut{}, err
	}
	out.Embeds = make([]embed, 0, len(embeds))
	for _, e := range embeds {
		out.Embeds = append(out.Embeds, embed{Path: e.Target, Raw: e.Raw, Line: e.Line})
	}
	return out, nil
}

func (s *server) recent(ctx context.Context, _ call, in recentIn) (recentOut, error) {
	days, err := clampLimit("days", in.Days, defaultRecentDays, maxRecentDays)
	if err != nil {
		return recentOut{}, err
	}
	limit, err := clampLimit("limit", in.Limit, defaultRecentLimit, maxRecentLimit)
	if err != nil {
		return recentOut{}, err
	}
	if in.ID != "" {
		named, err := s.target(ctx, in.ID)
		if err != nil {
			return recentOut{}, err
		}
		n, err := s.vault.Read(ctx, named.Path)
		if err != nil {
			return recentOut{}, err
		}
		vs, err := s.versionsOf(ctx, n, limit)
		if err != nil {
			return recentOut{}, err
		}
		return recentOut{Notes: []recentNote{}, Versions: vs}, nil
	}
	changed, err := s.vault.Changed(ctx, s.now().Add(-time.Duration(days)*24*time.Hour))
	if err != nil {
		return recentOut{}, err
	}
	out := recentOut{Notes: make([]recentNote, 0, min(len(changed), limit))}
	versions := make(map[string]string, limit)
	for _, e := range changed {
		if len(out.Notes) == limit {
			break
		}
		if e.IsDir {
			continue
		}
		n, err := s.vault.Read(ctx, e.Path)
		if err != nil {
			var ve *vault.Error
			if errors.As(err, &ve) && ve.Code != vault.CodeInternal {
				continue // gone or unreadable since it was listed
			}
			return recentOut{}, err
		}
		versions[n.Path] = n.Version
		out.Notes = append(out.Notes, recentNote{ID: n.Path, Title: n.Title, Modified: timestamp(n.Modified)})
	}
	changes := s.lastChanges(ctx, versions)
	for i := range out.Notes {
		c := changes[out.Notes[i].ID]
		out.Notes[i].ChangedBy, out.Notes[i].Change = c.writer, c.kind
	}
	return out, nil
}
