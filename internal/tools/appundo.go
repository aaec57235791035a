package tools

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// Codes of the undo tool's refusals.
const (
	// codeUndoConflict: the note changed after the change, so undoing it
	// here would also take back what came after.
	codeUndoConflict = "undo_conflict"
	// codeNotUndoable: the change is not this app's last change to the
	// note's text.
	codeNotUndoable = "not_undoable"
)

type undoIn struct {
	ID              string `json:"id" jsonschema:"the changed note's path, as the change view shows it"`
	Version         string `json:"version" jsonschema:"the version the change made"`
	PreviousVersion string `json:"previous_version,omitempty" jsonschema:"the version before the change; empty for a note the change created"`
}

// addAppTools adds the tools only an MCP App's view may call. They are
// listed, with visibility ["app"], only to clients that offered the UI
// extension; hosts keep them out of the model's list.
func (s *server) addAppTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{
		Name: undoTool,
		Description: "Undo one change this app made to a note's text, from the change view: the note goes back to the " +
			"version before, if nothing changed it since. Anything else is undone in the console.",
		Annotations: writes("Undo this change", true, false),
		Meta:        mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}},
	}, s.undoChange)
}

// appWriteTools is the set of app-only tools that write, for IsWriteTool.
var appWriteTools = sync.OnceValue(func() map[string]bool {
	s := &server{writes: map[string]bool{}, appOnly: map[string]bool{}, appWrites: map[string]bool{}}
	s.addAppTools(mcp.NewServer(&mcp.Implementation{Name: "cortex"}, nil))
	return s.appWrites
})

// undoChange takes back the change a change view shows. It is the app's
// own credential acting, through its scope: a note outside it does not
// exist here. It undoes only the app's own last change to the note, and
// only if the note is still as that change left it: an app may take back
// what it did itself, which the owner saw it do in the conversation,
// but not what another app or the owner did, nor its own change under
// someone else's later one; those the owner undoes in the console, which
// shows everything an undo will touch first. The undo is journaled as the
// app's write of kind restore, so the console can undo it in turn.
func (s *server) undoChange(ctx context.Context, c call, in undoIn) (writeOut, error) {
	c.tool = "undo" // journaled as the console journals an undo
	if s.history == nil || s.journal == nil {
		return writeOut{}, &vault.Error{Code: codeNoHistory, Reason: reasonUndo}
	}
	n, err := s.vault.Read(ctx, in.ID)
	if err != nil {
		return writeOut{}, err
	}
	link := s.noteURL(n.Path)
	if n.Version != in.Version {
		return writeOut{}, &vault.Error{Code: codeUndoConflict, Version: n.Version, Subject: link}
	}
	last, err := s.journal.LastWrites(ctx, []string{n.Path})
	if err != nil {
		return writeOut{}, err
	}
	e, ok := last[n.Path]
	if !ok || e.App != c.app || e.NewVersion != in.Version || e.OldVersion != in.PreviousVersion || !undoableKinds[changeKind(e)] {
		return writeOut{}, &vault.Error{Code: codeNotUndoable, Subject: link}
	}
	if in.PreviousVersion == "" {
		// The change created the note: it goes to the trash.
		d, err := s.deleteNote(ctx, c, deleteIn{guarded{ID: n.Path, Version: in.Version}})
		return writeOut{ID: n.Path, PreviousVersion: d.PreviousVersion}, err
	}
	text, ok := s.versionText(ctx, n.Path, in.PreviousVersion)
	if !ok {
		return writeOut{}, unknownVersion(in.PreviousVersion)
	}
	r, err := s.vault.Restore(ctx, n.Path, in.Version, text)
	return s.written(ctx, c, n.Path, in.Version, r, err)
}
