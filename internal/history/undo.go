package history

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// Actions a Change takes to bring a note back.
const (
	ActionNone      = "none"       // already as wanted
	ActionRestore   = "restore"    // write the earlier text back
	ActionRecreate  = "recreate"   // a deleted or moved-away note comes back
	ActionFromTrash = "from trash" // a deleted note moves back out of .trash/
	ActionMoveBack  = "move back"  // a moved note goes back to its old path
	ActionTrash     = "trash"      // a note the change created goes to .trash/
)

// Change is one note's part of an undo or restore.
type Change struct {
	Path   string // the note as it will be
	Action string
	From   string // ActionMoveBack, ActionFromTrash: where the note is now
	// Current is the note's version now ("" when absent); Target the
	// version it gets back ("" when it goes away).
	Current, Target string
	// Conflict: the note changed after the change being undone (by
	// someone else, or outside cortex). Conflicts are skipped unless
	// chosen.
	Conflict bool
	Reason   string
	Diff     []diff.Line // from the note now to the note as it will be
	// After Apply: Done, or Error saying why not.
	Done  bool
	Error string
}

// Plan is what an undo will do, note by note.
type Plan struct {
	Changes []Change
}

// Conflicts counts the changes in conflict.
func (p *Plan) Conflicts() int {
	n := 0
	for _, c := range p.Changes {
		if c.Conflict {
			n++
		}
	}
	return n
}

// err reports the first change that failed when applied.
func (p *Plan) err() error {
	for _, c := range p.Changes {
		if c.Error != "" {
			return &Error{Code: CodeConflict, Plan: p, Message: c.Path + ": " + c.Error}
		}
	}
	return nil
}

// UndoRequest asks for journaled changes to be undone: one change (Entry,
// a journal id; a move or delete brings its other entries along), or
// everything App did since Since.
type UndoRequest struct {
	Entry  int64
	App    string
	Since  time.Time
	Writer string
	DryRun bool
	// Include lists the conflicting notes to undo anyway; All takes
	// every conflict.
	Include []string
	All     bool
}

// Undo plans the undo and, unless DryRun, applies its clean changes and
// the conflicts chosen. The plan says what happened to each note.
func (s *Service) Undo(ctx context.Context, r UndoRequest) (*Plan, error) {
	var entries []store.JournalEntry
	switch {
	case r.Entry != 0 && r.App == "":
		e, err := s.j.JournalEntry(ctx, r.Entry)
		if errors.Is(err, store.ErrJournalEntryNotFound) {
			return nil, &Error{Code: CodeUnknownChange, Err: err, Message: "No journaled change has this number; list the changes to find the right one."}
		}
		if err != nil {
			return nil, err
		}
		if e.Result != store.ResultOK {
			return nil, &Error{Code: CodeNothingToUndo, Message: "This change was refused when it was asked for, so nothing changed and there is nothing to undo."}
		}
		entries = []store.JournalEntry{e}
		if e.Tool == "move_note" || e.Tool == "delete_note" {
			if entries, err = s.j.JournalCall(ctx, e); err != nil {
				return nil, err
			}
		}
	case r.App != "" && r.Entry == 0:
		var err error
		if entries, err = s.j.JournalOfApp(ctx, r.App, r.Since); err != nil {
			return nil, err
		}
	default:
		return nil, &Error{Code: CodeInvalid, Message: "Name either one change or an app and a time to undo."}
	}
	plan, err := s.plan(ctx, entries)
	if err != nil {
		return nil, err
	}
	if len(plan.Changes) == 0 {
		return plan, &Error{Code: CodeNothingToUndo, Plan: plan, Message: "These changes left no note different from before, so there is nothing to undo."}
	}
	if r.DryRun {
		return plan, nil
	}
	chosen := map[string]bool{}
	for _, p := range r.Include {
		chosen[p] = true
	}
	for i := range plan.Changes {
		c := &plan.Changes[i]
		if c.Conflict && !r.All && !chosen[c.Path] && !chosen[c.From] {
			c.Error = "skipped: changed later by someone else"
		}
	}
	s.apply(ctx, plan, r.Writer, "undo")
	return plan, nil
}

// netChange is what the journal entries did to one path.
type netChange struct {
	path          string
	before, after string // versions; "" for absent
	order         int
}

// plan turns journal entries (oldest first) into the changes that bring
// every note they touched back to its state before the first of them.
func (s *Service) plan(ctx context.Context, entries []store.JournalEntry) (*Plan, error) {
	net := map[string]*netChange{}
	var order []string
	trashOf := map[string]string{} // note path -> its trashed copy
	movedFrom := map[string]string{}
	touch := func(p, before, after string) {
		n := net[p]
		if n == nil {
			n = &netChange{path: p, before: before, order: len(order)}
			net[p] = n
			order = append(order, p)
		}
		n.after = after
	}
	for _, call := range calls(entries) {
		for i, e := range call {
			switch {
			case e.Tool == "delete_note" && inTrash(e.Path):
				if i > 0 && !inTrash(call[0].Path) {
					trashOf[call[0].Path] = e.Path
				}
			case inTrash(e.Path):
				// Moves out of the trash touch it; the trash is not undone.
			case e.Tool == "move_note" && i == 1 && e.NewVersion != "":
				// The move's new path: absent before it.
				touch(e.Path, "", e.NewVersion)
				if !inTrash(call[0].Path) {
					movedFrom[e.Path] = call[0].Path
				}
			default:
				touch(e.Path, e.OldVersion, e.NewVersion)
			}
		}
	}
	plan := &Plan{}
	for _, p := range order {
		n := net[p]
		if n.before == n.after {
			continue
		}
		c, err := s.change(ctx, n, trashOf[p])
		if err != nil {
			return nil, err
		}
		plan.Changes = append(plan.Changes, c)
	}
	pairMoves(plan, movedFrom)
	return plan, nil
}

// calls groups entries by the call that journaled them (same tool and
// time, in a row).
func calls(entries []store.JournalEntry) [][]store.JournalEntry {
	var out [][]store.JournalEntry
	for i, e := range entries {
		if i > 0 {
			last := out[len(out)-1]
			if p := last[0]; p.Tool == e.Tool && p.Time.Equal(e.Time) && p.App == e.App && (e.Tool == "move_note" || e.Tool == "delete_note") {
				out[len(out)-1] = append(last, e)
				continue
			}
		}
		out = append(out, []store.JournalEntry{e})
	}
	return out
}

// change works out one path's change from where it is now.
func (s *Service) change(ctx context.Context, n *netChange, trashed string) (Change, error) {
	cur, text, present, err := s.current(ctx, n.path)
	if err != nil {
		return Change{}, err
	}
	c := Change{Path: n.path, Current: cur, Target: n.before}
	if cur != n.after {
		c.Conflict = true
		switch {
		case !present:
			c.Reason = "deleted since"
		case n.after == "":
			c.Reason = "created again since"
		default:
			c.Reason = "changed since"
		}
	}
	var target []byte
	if n.before != "" {
		if target, err = s.contentOf(ctx, n.path, n.before); err != nil {
			var he *Error
			if !errors.As(err, &he) {
				return Change{}, err
			}
			c.Conflict, c.Reason = true, "its earlier text is no longer stored"
		}
	}
	c.Diff = diff.Lines(text, string(target))
	switch {
	case n.before == "":
		c.Action = ActionTrash
	case present:
		c.Action = ActionRestore
	case trashed != "":
		if v, _, ok, err := s.current(ctx, trashed); err == nil && ok && v == n.before {
			c.Action, c.From = ActionFromTrash, trashed
			break
		}
		c.Action = ActionRecreate
	default:
		c.Action = ActionRecreate
	}
	if !present && n.before == "" {
		c.Action = ActionNone
	}
	return c, nil
}

// pairMoves merges a note to trash and a note to recreate into one move
// back when a move journaled the one as the other's new path and the text
// is the same.
func pairMoves(plan *Plan, movedFrom map[string]string) {
	idx := map[string]int{}
	for i, c := range plan.Changes {
		idx[c.Path] = i
	}
	drop := map[int]bool{}
	for to, from := range movedFrom {
		ti, ok1 := idx[to]
		// Follow a chain of moves (a to b, b to c) back to its start.
		for {
			if _, ok := idx[from]; ok {
				break
			}
			prev, ok := movedFrom[from]
			if !ok {
				break
			}
			from = prev
		}
		fi, ok2 := idx[from]
		if !ok1 || !ok2 {
			continue
		}
		t, f := &plan.Changes[ti], &plan.Changes[fi]
		if t.Action != ActionTrash || f.Action != ActionRecreate || t.Current != f.Target || t.Conflict || f.Conflict {
			continue
		}
		f.Action, f.From, f.Diff = ActionMoveBack, to, nil
		drop[ti] = true
	}
	if len(drop) == 0 {
		return
	}
	kept := plan.Changes[:0]
	for i, c := range plan.Changes {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	plan.Changes = kept
}

func inTrash(p string) bool { return p == ".trash" || strings.HasPrefix(p, ".trash/") }

// apply carries out the plan's changes that are not marked with an Error
// (Undo marks the conflicts not chosen), each guarded by the version it was
// planned against, and journals each as written by writer.
func (s *Service) apply(ctx context.Context, plan *Plan, writer, tool string) {
	if writer == "" {
		writer = OwnerCLI
	}
	wctx := vault.WithWriter(ctx, writer)
	at := s.now()
	record := func(path, old, nw string, err error) {
		res := store.ResultOK
		if err != nil {
			res = "error"
			var ve *vault.Error
			if errors.As(err, &ve) {
				res = ve.Code
			}
		}
		// The note is changed already; a journal failure only loses the
		// record, as for the tools.
		_ = s.j.RecordWrite(context.WithoutCancel(ctx), store.JournalEntry{
			Time: at, App: writer, Tool: tool, Path: path, OldVersion: old, NewVersion: nw, Result: res,
		})
	}
	for i := range plan.Changes {
		c := &plan.Changes[i]
		if c.Error != "" || c.Action == ActionNone {
			continue
		}
		err := s.applyOne(wctx, c, record)
		if err != nil {
			c.Error = message(err)
			continue
		}
		c.Done = true
	}
}

func (s *Service) applyOne(ctx context.Context, c *Change, record func(path, old, nw string, err error)) error {
	switch c.Action {
	case ActionRestore, ActionRecreate:
		data, err := s.contentOf(ctx, c.Path, c.Target)
		if err != nil {
			return err
		}
		r, err := s.v.Restore(ctx, c.Path, c.Current, string(data))
		record(c.Path, c.Current, r.Version, err)
		return err
	case ActionTrash:
		r, err := s.v.Delete(ctx, c.Path, c.Current)
		record(c.Path, c.Current, "", err)
		if err == nil {
			record(r.Path, "", c.Current, nil)
		}
		return err
	case ActionMoveBack, ActionFromTrash:
		// The note at From holds the target text: the plan checked it.
		v := c.Target
		r, err := s.v.Move(ctx, c.From, c.Path, v, false)
		record(c.From, v, "", err)
		if err == nil {
			record(c.Path, v, r.Version, nil)
		}
		return err
	}
	return nil
}

// message is the sentence of an error for the owner.
func message(err error) string {
	var ve *vault.Error
	if errors.As(err, &ve) {
		return ve.Code + ": " + ve.Message
	}
	var he *Error
	if errors.As(err, &he) {
		return he.Code + ": " + he.Message
	}
	return "internal: " + err.Error()
}
