package history

import (
	"context"
	"errors"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/store"
)

// Compare returns the line diff from version a to version b of the note
// at path (refs as Version takes them; "" for b means the note as it is
// now, and for a note that is gone, nothing).
func (s *Service) Compare(ctx context.Context, path, a, b string) ([]diff.Line, error) {
	_, old, err := s.Version(ctx, path, a)
	if err != nil {
		return nil, err
	}
	var nw []byte
	if b == "" {
		_, text, _, err := s.current(ctx, path)
		if err != nil {
			return nil, err
		}
		nw = []byte(text)
	} else if _, nw, err = s.Version(ctx, path, b); err != nil {
		return nil, err
	}
	return diff.Lines(string(old), string(nw)), nil
}

// ChangeDiff returns a journal entry and what it changed: the diff from
// the note before it to the note after it, each text taken from the
// history (empty for a note created or deleted). Known is false when a
// text is no longer stored (pruned or purged); the diff is then nil.
func (s *Service) ChangeDiff(ctx context.Context, id int64) (e store.JournalEntry, d []diff.Line, known bool, err error) {
	e, err = s.j.JournalEntry(ctx, id)
	if errors.Is(err, store.ErrJournalEntryNotFound) {
		return e, nil, false, &Error{Code: CodeUnknownChange, Err: err, Message: "No journaled change has this number; list the changes to find the right one."}
	}
	if err != nil {
		return e, nil, false, err
	}
	text := func(v string) (string, bool, error) {
		if v == "" {
			return "", true, nil
		}
		data, err := s.contentOf(ctx, e.Path, v)
		var he *Error
		if errors.As(err, &he) {
			return "", false, nil
		}
		return string(data), err == nil, err
	}
	before, ok1, err := text(e.OldVersion)
	if err != nil {
		return e, nil, false, err
	}
	after, ok2, err := text(e.NewVersion)
	if err != nil {
		return e, nil, false, err
	}
	if !ok1 || !ok2 {
		return e, nil, false, nil
	}
	return e, diff.Lines(before, after), true, nil
}
