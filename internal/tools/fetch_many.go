package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// Reading several notes at once.
const (
	maxFetchIDs = 20
	// maxManyChars bounds the text of one call with ids, shared out
	// between the notes, so that 20 long notes do not make one answer
	// of two million characters.
	maxManyChars = 100000
)

// fetchedNote is one note of a fetch with ids: its text (a page of it, as
// fetch pages), or the error fetch would have given for it alone.
type fetchedNote struct {
	ID         string     `json:"id"`
	Title      string     `json:"title,omitempty"`
	Text       string     `json:"text,omitempty"`
	Version    string     `json:"version,omitempty" jsonschema:"pass this as version to any tool that changes the note"`
	Modified   string     `json:"modified,omitempty" jsonschema:"RFC 3339"`
	NextOffset *int       `json:"next_offset,omitempty" jsonschema:"more text follows: fetch this id alone with this offset"`
	Error      *toolError `json:"error,omitempty"`
}

// fetchMany reads each of in.IDs as fetch reads one, in order; a note
// that cannot be read gets its error and the others are still read.
func (s *server) fetchMany(ctx context.Context, c call, in fetchIn) (fetchOut, error) {
	switch {
	case in.ID != "" && len(in.IDs) > 0:
		return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonIDAndIDs}
	case len(in.IDs) == 0:
		return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoIDOrIDs}
	case len(in.IDs) > maxFetchIDs:
		return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonTooManyIDs, Count: len(in.IDs), Limit: maxFetchIDs}
	case in.Offset != 0:
		return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonOffsetWithIDs}
	case in.Version != "":
		return fetchOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonVersionWithIDs}
	}
	limit, err := clampLimit("max_chars", in.MaxChars, defaultFetchChars, maxFetchChars)
	if err != nil {
		return fetchOut{}, err
	}
	limit = min(limit, maxManyChars/len(in.IDs))
	out := fetchOut{Title: fmt.Sprintf("%d notes", len(in.IDs)), Metadata: fetchMeta{Tags: []string{}},
		Notes: make([]fetchedNote, 0, len(in.IDs))}
	for _, id := range in.IDs {
		if err := ctx.Err(); err != nil {
			return fetchOut{}, err
		}
		one := fetchIn{ID: id, Section: in.Section, MaxChars: limit}
		n := fetchedNote{ID: id}
		switch {
		case strings.TrimSpace(id) == "":
			n.Error = s.toolError(c, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonEmptyIDInIDs})
		default:
			f, err := s.fetch(ctx, c, one)
			if err != nil {
				n.Error = s.toolError(c, err)
				break
			}
			n = fetchedNote{ID: f.ID, Title: f.Title, Text: f.Text, Version: f.Metadata.Version,
				Modified: f.Metadata.Modified, NextOffset: f.Metadata.NextOffset}
			if len(f.media) > 0 {
				n.Text += "; fetch this id alone to see it"
			}
		}
		out.Notes = append(out.Notes, n)
	}
	return out, nil
}
