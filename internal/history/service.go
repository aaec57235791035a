package history

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// Writers the owner's own changes are journaled as.
const (
	OwnerCLI     = "owner (cli)"
	OwnerConsole = "owner (console)"
)

// Error codes of the service. They are stable: the CLI and the console
// show them, and tests match them.
const (
	CodeUnknownVersion = "unknown_version"
	CodeNoHistory      = "no_history"
	CodeUnknownChange  = "unknown_change"
	CodeNothingToUndo  = "nothing_to_undo"
	CodeConflict       = "note_changed"
	CodeInvalid        = "invalid_argument"
)

// Error is a refusal the owner can act on: a stable code and one sentence
// saying what to do. A conflict carries the plan that was refused.
type Error struct {
	Code    string
	Message string
	Plan    *Plan
	Err     error // the cause, for logs
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Journal is what the service reads and writes in the write journal;
// *store.Store satisfies it.
type Journal interface {
	RecordWrite(ctx context.Context, e store.JournalEntry) error
	JournalEntry(ctx context.Context, id int64) (store.JournalEntry, error)
	JournalCall(ctx context.Context, e store.JournalEntry) ([]store.JournalEntry, error)
	JournalOfApp(ctx context.Context, app string, since time.Time) ([]store.JournalEntry, error)
}

// Options are the service's parts; all but Now are required.
type Options struct {
	Vault   *vault.Vault
	History *store.HistoryDB
	Journal Journal
	Now     func() time.Time
}

// Service answers the owner's questions about the notes' past and undoes
// changes. It is safe for concurrent use.
type Service struct {
	v   *vault.Vault
	h   *store.HistoryDB
	j   Journal
	now func() time.Time
}

// New builds the service.
func New(o Options) *Service {
	s := &Service{v: o.Vault, h: o.History, j: o.Journal, now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// maxMoves bounds how many moves Versions follows back.
const maxMoves = 32

// Versions lists the stored versions of the note at path, newest first,
// and, when it got there by a move, those it had at its earlier paths
// (each NoteVersion names its path).
func (s *Service) Versions(ctx context.Context, path string) ([]store.NoteVersion, error) {
	if err := s.v.CheckNotePath(path); err != nil {
		return nil, err
	}
	var out []store.NoteVersion
	below := int64(math.MaxInt64)
	for range maxMoves {
		vs, err := s.h.Versions(ctx, path, 0)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if v.ID < below {
				out = append(out, v)
			}
		}
		if len(out) == 0 {
			break
		}
		// A move stores the note's leaving its old path and its arrival
		// at the new one as two rows in a row, the leaving first.
		last := out[len(out)-1]
		if last.Path != path || last.Kind != store.KindMove || last.Gone {
			break
		}
		prev, _, err := s.h.Version(ctx, last.ID-1)
		if err != nil || prev.Kind != store.KindMove || !prev.Gone || prev.Version != last.Version {
			break
		}
		path, below = prev.Path, last.ID
	}
	if len(out) == 0 {
		return nil, &Error{Code: CodeNoHistory, Err: store.ErrNoHistory,
			Message: "No version of this note is stored; check the path (history keeps notes cortex has written or seen change)."}
	}
	return out, nil
}

// Version returns one stored version of the note at path and its content.
// ref is a version as the tools show it (12 hex digits) or a history id
// as Versions lists it (a number, optionally after '#').
func (s *Service) Version(ctx context.Context, path, ref string) (store.NoteVersion, []byte, error) {
	if err := s.v.CheckNotePath(path); err != nil {
		return store.NoteVersion{}, nil, err
	}
	ref = strings.TrimSpace(ref)
	var (
		nv   store.NoteVersion
		data []byte
		err  error
	)
	if id, perr := strconv.ParseInt(strings.TrimPrefix(ref, "#"), 10, 64); perr == nil && len(ref) != 12 {
		nv, data, err = s.h.Version(ctx, id)
		if err == nil && nv.Path != path && !s.inChain(ctx, path, func(v store.NoteVersion) bool { return v.ID == id }) {
			err = store.ErrNoHistory
		}
	} else {
		nv, data, err = s.h.Find(ctx, path, ref)
		if errors.Is(err, store.ErrNoHistory) {
			// A version from before the note was moved here.
			if vs, verr := s.Versions(ctx, path); verr == nil {
				for _, v := range vs {
					if v.Version == ref {
						nv, data, err = s.h.Version(ctx, v.ID)
						break
					}
				}
			}
		}
	}
	if errors.Is(err, store.ErrNoHistory) {
		return store.NoteVersion{}, nil, &Error{Code: CodeUnknownVersion, Err: err,
			Message: "This note has no stored version " + strconv.Quote(ref) + "; list its versions to pick one."}
	}
	return nv, data, err
}

// inChain reports whether one of the versions Versions lists for path
// satisfies ok.
func (s *Service) inChain(ctx context.Context, path string, ok func(store.NoteVersion) bool) bool {
	vs, err := s.Versions(ctx, path)
	if err != nil {
		return false
	}
	for _, v := range vs {
		if ok(v) {
			return true
		}
	}
	return false
}

// Purge forgets every stored version of the note at path, those it had at
// earlier paths before it was moved here too, and says how many there
// were. The note itself is not touched.
func (s *Service) Purge(ctx context.Context, path string) (int64, error) {
	if err := s.v.CheckNotePath(path); err != nil {
		return 0, err
	}
	vs, err := s.Versions(ctx, path)
	var he *Error
	if errors.As(err, &he) && he.Code == CodeNoHistory {
		return 0, &Error{Code: CodeNoHistory, Err: err, Message: "No version of this note is stored, so there is nothing to purge; check the path."}
	}
	if err != nil {
		return 0, err
	}
	ids := make([]int64, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	n, err := s.h.PurgeVersions(ctx, ids)
	if errors.Is(err, store.ErrNoHistory) {
		return 0, &Error{Code: CodeNoHistory, Err: err, Message: "No version of this note is stored, so there is nothing to purge; check the path."}
	}
	return n, err
}

// PurgeApp forgets what app wrote since a time: the versions the history
// records as written by it, and other versions that only repeat a text it
// added then (store.HistoryDB.PurgeWriter), and says how many versions
// went. The notes are not touched.
func (s *Service) PurgeApp(ctx context.Context, app string, since time.Time) (int64, error) {
	if strings.TrimSpace(app) == "" {
		return 0, &Error{Code: CodeInvalid, Message: "Name the app whose versions to forget, as the journal names it."}
	}
	n, err := s.h.PurgeWriter(ctx, app, since)
	if errors.Is(err, store.ErrNoHistory) {
		return 0, &Error{Code: CodeNoHistory, Err: err,
			Message: "No version written by " + strconv.Quote(app) + " since then is stored, so there is nothing to purge; check the app's name in the journal."}
	}
	return n, err
}

// current reads the note at p: its version and content, or "" and absent.
func (s *Service) current(ctx context.Context, p string) (version string, content string, present bool, err error) {
	n, err := s.v.Read(ctx, p)
	var ve *vault.Error
	if errors.As(err, &ve) && ve.Code == vault.CodeNotFound {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	return n.Version, n.Content, true, nil
}

// contentOf finds the text of version at path in the history, or under
// any path (a moved note's text is the same bytes).
func (s *Service) contentOf(ctx context.Context, path, version string) ([]byte, error) {
	_, data, err := s.h.Find(ctx, path, version)
	if errors.Is(err, store.ErrNoHistory) {
		_, data, err = s.h.FindAnywhere(ctx, version)
	}
	if errors.Is(err, store.ErrNoHistory) {
		return nil, &Error{Code: CodeUnknownVersion, Err: err,
			Message: "The text of version " + version + " is not in the history (it may have been pruned or purged), so it cannot be brought back."}
	}
	return data, err
}

// RestoreRequest asks for an earlier version of a note to be written back.
type RestoreRequest struct {
	Path    string
	Version string // a version or history id, as Version takes it
	Writer  string // OwnerCLI or OwnerConsole
	// Expect is the note's version the owner saw when choosing (""
	// accepts the note as it is now). When the note changed since, the
	// restore is refused with the plan and its diff, unless Force.
	Expect string
	Force  bool
	DryRun bool
}

// Restore writes an earlier version of a note back as a new version,
// guarded by the note's current version, and journals it as the owner's.
// A deleted note is recreated.
func (s *Service) Restore(ctx context.Context, r RestoreRequest) (*Plan, error) {
	nv, data, err := s.Version(ctx, r.Path, r.Version)
	if err != nil {
		return nil, err
	}
	cur, text, present, err := s.current(ctx, r.Path)
	if err != nil {
		return nil, err
	}
	c := Change{Path: r.Path, Current: cur, Target: nv.Version, Diff: diff.Lines(text, string(data))}
	switch {
	case !present:
		c.Action = ActionRecreate
	case cur == nv.Version:
		c.Action = ActionNone
	default:
		c.Action = ActionRestore
	}
	if r.Expect != "" && cur != r.Expect {
		c.Conflict = true
		c.Reason = "the note changed after you looked at it"
		if !present {
			c.Reason = "the note was deleted after you looked at it"
		}
	}
	plan := &Plan{Changes: []Change{c}}
	if r.DryRun {
		return plan, nil
	}
	if c.Conflict && !r.Force {
		return plan, &Error{Code: CodeConflict, Plan: plan,
			Message: "The note changed since you looked at it; review the difference and restore again with force to overwrite it."}
	}
	s.apply(ctx, plan, r.Writer, "restore")
	return plan, plan.err()
}
