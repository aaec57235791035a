package tools

import (
	"context"
	"errors"
	"strconv"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// History reads the versions of a note that the history keeps;
// *history.Service satisfies it. Versions lists them newest first, those
// the note had at earlier paths included; Version finds one by the
// version string fetch shows.
type History interface {
	Versions(ctx context.Context, path string) ([]store.NoteVersion, error)
	Version(ctx context.Context, path, ref string) (store.NoteVersion, []byte, error)
}

// Codes of the history tools' own refusals.
const (
	codeUnknownVersion = "unknown_version"
	codeNoHistory      = "no_history"
)

// noteVersion is one stored version of a note, as recent lists it.
type noteVersion struct {
	Version    string `json:"version" jsonschema:"pass it to fetch as version to read the note as it was"`
	At         string `json:"at" jsonschema:"RFC 3339"`
	ChangedBy  string `json:"changed_by" jsonschema:"the app that made this version, or external"`
	Change     string `json:"change" jsonschema:"create, edit, append, move, delete, restore or external"`
	Size       int64  `json:"size" jsonschema:"bytes"`
	SizeChange int64  `json:"size_change" jsonschema:"bytes added (or removed, when negative) since the version before"`
	Path       string `json:"path,omitempty" jsonschema:"where the note was then, when not where it is now"`
	Current    bool   `json:"current,omitempty" jsonschema:"true for the version the note has now"`
	Removed    bool   `json:"removed,omitempty" jsonschema:"true when this change removed the note"`
}

// checkVersionRef refuses a version that cannot be one fetch showed: 12
// hexadecimal digits. Anything else is a mistake in the call, not a
// version the history lacks.
func checkVersionRef(v string) error {
	if !vault.IsVersion(v) {
		return &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonVersionRef}
	}
	return nil
}

// unknownVersion is the one answer for a version the caller cannot read:
// not kept, of another note, or hidden by the caller's scope (a version
// marked private), so that the answer says nothing of what is hidden.
func unknownVersion(v string) error {
	return &vault.Error{Code: codeUnknownVersion, Subject: v}
}

// earlier is the note at p as it was at version, read from the history
// and ruled by the caller's scope. current is the note today.
func (s *server) earlier(ctx context.Context, current *vault.Note, version string) (*vault.Note, store.NoteVersion, error) {
	if err := checkVersionRef(version); err != nil {
		return nil, store.NoteVersion{}, err
	}
	if s.history == nil {
		return nil, store.NoteVersion{}, &vault.Error{Code: codeNoHistory, Reason: reasonFetchVersion}
	}
	nv, data, err := s.history.Version(ctx, current.Path, version)
	if err != nil {
		if isHistoryRefusal(err) {
			return nil, store.NoteVersion{}, unknownVersion(version)
		}
		return nil, store.NoteVersion{}, err
	}
	if nv.Gone || !s.vault.SeesVersion(ctx, nv.Path, string(data)) {
		// The removal of the note keeps its last text; that text is
		// the version before, which the caller can ask for instead. A
		// version kept at a path the caller may not see is as unknown
		// as one marked private.
		return nil, store.NoteVersion{}, unknownVersion(version)
	}
	n, err := s.vault.EarlierNote(ctx, current.Path, string(data), nv.Time)
	if err != nil {
		var ve *vault.Error
		if errors.As(err, &ve) && ve.Code == vault.CodeNotFound {
			return nil, store.NoteVersion{}, unknownVersion(version)
		}
		return nil, store.NoteVersion{}, err
	}
	return n, nv, nil
}

// isHistoryRefusal tells the history's "no such version" and "no history"
// (both wrap store.ErrNoHistory) from a failure of the history itself.
func isHistoryRefusal(err error) bool { return errors.Is(err, store.ErrNoHistory) }

// versionsOf lists the stored versions of the note at p, newest first, at
// most limit, for a caller that can see the note now.
func (s *server) versionsOf(ctx context.Context, current *vault.Note, limit int) ([]noteVersion, error) {
	if s.history == nil {
		return nil, &vault.Error{Code: codeNoHistory, Reason: reasonListVersions}
	}
	vs, err := s.history.Versions(ctx, current.Path)
	if err != nil {
		if isHistoryRefusal(err) {
			return []noteVersion{}, nil
		}
		return nil, err
	}
	// One more than listed: the last one's size change is counted from it.
	vs, err = s.visibleVersions(ctx, current.Path, vs, limit+1)
	if err != nil {
		return nil, err
	}
	out := make([]noteVersion, 0, min(len(vs), limit))
	for i, v := range vs {
		if len(out) == limit {
			break
		}
		nv := noteVersion{Version: v.Version, At: timestamp(v.Time), ChangedBy: v.Writer, Change: v.Kind, Size: v.Size, Removed: v.Gone}
		if nv.ChangedBy == "" {
			nv.ChangedBy = externalWriter
		}
		if i+1 < len(vs) && !vs[i+1].Gone {
			nv.SizeChange = v.Size - vs[i+1].Size
		} else if i+1 == len(vs) {
			nv.SizeChange = v.Size
		}
		if v.Path != current.Path {
			nv.Path = v.Path
		}
		nv.Current = i == firstLive(vs) && v.Version == current.Version && v.Path == current.Path
		out = append(out, nv)
	}
	return out, nil
}

// firstLive is the index of the newest version that is not a removal.
func firstLive(vs []store.NoteVersion) int {
	for i, v := range vs {
		if !v.Gone {
			return i
		}
	}
	return -1
}

// visibleVersions is the first need versions of vs (newest first) that
// the caller may see, leaving out those marked private, for a scope
// without private notes, and those kept at a path outside its scope.
// Leaving them out of the list, sizes and all, keeps their when, who and
// how big from the caller, as fetch keeps their text. Only the versions
// up to the need-th visible one are read.
func (s *server) visibleVersions(ctx context.Context, p string, vs []store.NoteVersion, need int) ([]store.NoteVersion, error) {
	if s.vault.SeesEveryVersion(ctx) {
		return vs, nil
	}
	out := vs[:0:0]
	for _, v := range vs {
		if len(out) == need {
			break
		}
		_, data, err := s.history.Version(ctx, p, "#"+strconv.FormatInt(v.ID, 10))
		if isHistoryRefusal(err) {
			continue // gone since it was listed
		}
		if err != nil {
			return nil, err
		}
		if s.vault.SeesVersion(ctx, v.Path, string(data)) {
			out = append(out, v)
		}
	}
	return out, nil
}
