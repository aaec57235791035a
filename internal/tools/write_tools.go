package tools

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

type createIn struct {
	Path    string `json:"path" jsonschema:"vault-relative path, ending in .md, e.g. projects/plan.md; missing folders are created"`
	Content string `json:"content" jsonschema:"the whole Markdown text of the note, frontmatter included if any"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"show the change, write nothing"`
}

type appendIn struct {
	ID      string `json:"id" jsonschema:"the note's path or name"`
	Text    string `json:"text" jsonschema:"Markdown to add"`
	Section string `json:"section,omitempty" jsonschema:"add at the end of the section under this heading instead of the end of the note"`
	At      string `json:"at,omitempty" jsonschema:"end (default); start (after the frontmatter, or the heading of section); or ^blockid to add after that block"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"show the change, write nothing"`
}

// guarded names the note a change is made to and the version it is made
// against; every tool that changes what is written takes both.
type guarded struct {
	ID      string `json:"id" jsonschema:"the note's path or name"`
	Version string `json:"version" jsonschema:"metadata.version from your latest fetch"`
}

type editIn struct {
	guarded
	OldText    string `json:"old_text" jsonschema:"exact text to replace, copied from the note; must occur once unless replace_all"`
	NewText    string `json:"new_text" jsonschema:"replacement text; empty to delete old_text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence of old_text"`
	DryRun     bool   `json:"dry_run,omitempty" jsonschema:"show the change, write nothing"`
}

type replaceSectionIn struct {
	guarded
	Heading string `json:"heading" jsonschema:"the section's heading, e.g. Plan or ## Plan"`
	Content string `json:"content" jsonschema:"new text of the section below its heading line"`
	// Without it a section with subsections is refused: replacing a note's
	// top heading would otherwise erase every section below it.
	IncludeSubsections bool `json:"include_subsections,omitempty" jsonschema:"also replace the subsections below the heading"`
	DryRun             bool `json:"dry_run,omitempty" jsonschema:"show the change, write nothing"`
}

type frontmatterIn struct {
	guarded
	Set    map[string]any `json:"set,omitempty" jsonschema:"keys to add or overwrite, with their values"`
	Remove []string       `json:"remove,omitempty" jsonschema:"keys to remove"`
	DryRun bool           `json:"dry_run,omitempty" jsonschema:"show the change, write nothing"`
}

type moveIn struct {
	guarded
	To          string `json:"to" jsonschema:"the new vault-relative path, ending in .md; must not exist yet"`
	UpdateLinks bool   `json:"update_links,omitempty" jsonschema:"also rewrite links in other notes to point to the new path; each rewrite is its own journaled edit"`
}

type deleteIn struct {
	guarded
}

type writeOut struct {
	ID              string         `json:"id" jsonschema:"the note's path"`
	Version         string         `json:"version" jsonschema:"the note's new version; pass it to the next change (with dry_run: its version now, unchanged)"`
	PreviousVersion string         `json:"previous_version,omitempty" jsonschema:"the version before this change"`
	Change          *changeSummary `json:"change,omitempty" jsonschema:"what the write changed (or, with dry_run, would change)"`
	DryRun          bool           `json:"dry_run,omitempty" jsonschema:"true: nothing was written; call again without dry_run to make the change"`

	texts *vault.WriteResult // the texts before and after, for the change view
}

type moveOut struct {
	ID              string     `json:"id" jsonschema:"the note's new path"`
	From            string     `json:"from" jsonschema:"the note's old path"`
	Version         string     `json:"version"`
	PreviousVersion string     `json:"previous_version,omitempty"`
	StillLinking    []string   `json:"still_linking" jsonschema:"notes with links that no longer find the note"`
	Rewritten       []writeOut `json:"rewritten" jsonschema:"notes whose links were rewritten to the new path"`
	// Notes outside the app's scope are kept consistent but only counted.
	RewrittenElsewhere    int `json:"rewritten_elsewhere,omitempty" jsonschema:"notes outside your scope whose links were rewritten too"`
	StillLinkingElsewhere int `json:"still_linking_elsewhere,omitempty" jsonschema:"notes outside your scope still linking to the old path"`
}

type deleteOut struct {
	ID              string `json:"id"`
	TrashedTo       string `json:"trashed_to" jsonschema:"where the note now lies in the vault's trash; moving it back restores it"`
	PreviousVersion string `json:"previous_version,omitempty"`
}

// IsWriteTool reports whether the tool called name changes notes, so that the
// HTTP layer can refuse it to a credential that may only read. A tool
// writes unless its annotations say it is read-only (ReadOnlyHint): the
// same answer a client reads in tools/list.
func IsWriteTool(name string) bool { return writeTools()[name] || appWriteTools()[name] }

// writeTools is the set behind IsWriteTool, taken from the tools as they
// are added, once: no vault is needed, as no tool is called.
var writeTools = sync.OnceValue(func() map[string]bool {
	s := &server{writes: map[string]bool{}, appOnly: map[string]bool{}, appWrites: map[string]bool{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "cortex"}, nil)
	s.addReadTools(srv)
	s.addWriteTools(srv)
	return s.writes
})

func (s *server) addWriteTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{
		Name: "create_note",
		Description: "Create a new note. Never overwrites: fails with note_exists if the path is taken. " +
			"Returns the new version.",
		Annotations: writes("Create note", false, true),
	}, s.createNote)
	addTool(s, srv, &mcp.Tool{
		Name: "append",
		Description: "Add text at the end of a note or section, or (at) at the start or after a block. Needs no version; nothing written is changed. " +
			"id may be a day (today, yesterday, 2026-12-01): a missing daily note is created from its template.",
		Annotations: writes("Append to note", false, false),
	}, s.appendNote)
	addTool(s, srv, &mcp.Tool{
		Name: "edit_note",
		Description: "Replace exact text in a note. old_text must occur exactly once unless replace_all is set. " +
			"Fails with note_changed if the note changed since your fetch.",
		Annotations: writes("Edit note", true, true),
	}, s.editNote)
	addTool(s, srv, &mcp.Tool{
		Name: "replace_section",
		Description: "Replace the text under a heading, up to the next heading of the same or higher level (its " +
			"subsections too, only with include_subsections: true); the heading line stays.",
		Annotations: writes("Replace section", true, true),
	}, s.replaceSection)
	addTool(s, srv, &mcp.Tool{
		Name:        "update_frontmatter",
		Description: "Set or remove keys of a note's YAML frontmatter without touching its body.",
		Annotations: writes("Update frontmatter", true, true),
	}, s.updateFrontmatter)
	addTool(s, srv, &mcp.Tool{
		Name: "move_note",
		Description: "Move or rename a note, or restore one from .trash/. still_linking lists notes whose links no longer " +
			"find it; update_links: true rewrites them.",
		Annotations: writes("Move note", true, true),
	}, s.moveNote)
	addTool(s, srv, &mcp.Tool{
		Name: "delete_note",
		Description: "Delete a note by moving it to the vault's trash; it can be restored from trashed_to, " +
			"nothing is erased.",
		Annotations: writes("Delete note", true, true),
	}, s.deleteNote)
}

// record journals one write attempt, done or refused. A failing journal is
// logged but does not fail the call: the note itself is already written
// (or untouched), and the caller must learn that truthfully.
func (s *server) record(ctx context.Context, c call, path, oldVersion, newVersion string, err error) {
	if s.journal == nil || path == "" {
		return
	}
	e := store.JournalEntry{
		Time:       c.at,
		App:        c.app,
		Tool:       c.tool,
		Path:       path,
		OldVersion: oldVersion,
		NewVersion: newVersion,
		Result:     errorCode(err),
	}
	// Record even when the client has gone away meanwhile.
	if jerr := s.journal.RecordWrite(context.WithoutCancel(ctx), e); jerr != nil {
		s.log.Error("journal write failed", "tool", c.tool, "app", c.app, "result", e.Result, "err", jerr)
	}
}

// written journals a single-note write and shapes its output.
func (s *server) written(ctx context.Context, c call, id, version string, r vault.WriteResult, err error) (writeOut, error) {
	if err != nil {
		s.record(ctx, c, id, version, "", err)
		return writeOut{}, err
	}
	if r.DryRun {
		// Nothing was written, so nothing is journaled.
		return writeOut{ID: r.Path, Version: r.OldVersion, Change: summarize(r.Before, r.After), DryRun: true}, nil
	}
	s.record(ctx, c, r.Path, r.OldVersion, r.Version, nil)
	out := writeOut{ID: r.Path, Version: r.Version, PreviousVersion: r.OldVersion, texts: &r}
	if r.Before != "" || r.After != "" {
		out.Change = summarize(r.Before, r.After)
	}
	return out, nil
}

// dryRun is ctx for a write that, asked as a dry run, makes every check and
// writes nothing.
func dryRun(ctx context.Context, dry bool) context.Context {
	if dry {
		return vault.WithDryRun(ctx)
	}
	return ctx
}

// checkTarget validates the arguments every guarded write shares and
// turns the id into the path of the note it names.
func (s *server) checkTarget(ctx context.Context, tool string, g *guarded) error {
	if strings.TrimSpace(g.ID) == "" {
		return &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoID}
	}
	if g.Version == "" {
		return &vault.Error{Code: vault.CodeVersionRequired}
	}
	named, err := s.target(ctx, g.ID)
	if err != nil {
		return err
	}
	// These tools change a whole note (replace_section the section its
	// heading names): a name that points into one (Plan#Sub, Plan#^id)
	// taken for the note would change more than was asked.
	if named.Heading != "" || named.Block != "" {
		e := &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonIDIntoPart, Subject: named.Path, Detail: tool}
		if tool == "replace_section" {
			e.Reason = reasonIDIntoSection
		}
		return e
	}
	g.ID = named.Path
	return nil
}

// guardedWrite makes a change to one note against its version: the target
// is checked, then the tool's own argument check (bad, nil when they are
// fine), then write changes the note at its path; the attempt is journaled
// either way.
func (s *server) guardedWrite(ctx context.Context, c call, g guarded, bad error, write func(path string) (vault.WriteResult, error)) (writeOut, error) {
	err := s.checkTarget(ctx, c.tool, &g)
	if err == nil {
		err = bad
	}
	var r vault.WriteResult
	if err == nil {
		r, err = write(g.ID)
	}
	return s.written(ctx, c, g.ID, g.Version, r, err)
}

func (s *server) createNote(ctx context.Context, c call, in createIn) (writeOut, error) {
	if strings.TrimSpace(in.Path) == "" {
		return writeOut{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoPath}
	}
	r, err := s.vault.Create(dryRun(ctx, in.DryRun), in.Path, in.Content)
	return s.written(ctx, c, in.Path, "", r, err)
}

func (s *server) appendNote(ctx context.Context, c call, in appendIn) (writeOut, error) {
	var err error
	switch {
	case strings.TrimSpace(in.ID) == "":
		err = &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoID}
	case in.Text == "":
		err = vaultRefusal(vault.CodeInvalidArgument, vault.ReasonNoText)
	}
	var r vault.WriteResult
	if err == nil {
		if d, isDay, derr := s.daily(ctx, in.ID); derr != nil {
			err = derr
		} else if isDay && !d.Exists {
			at, perr := place(in.At, in.Section)
			if perr != nil {
				return s.written(ctx, c, d.Path, "", vault.WriteResult{}, perr)
			}
			if in.DryRun && (at != vault.Place{}) {
				return s.written(ctx, c, d.Path, "", vault.WriteResult{},
					&vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonDryRunDaily})
			}
			return s.createDaily(dryRun(ctx, in.DryRun), c, d, in.Text, at)
		} else if isDay {
			in.ID = d.Path
		}
	}
	var named vault.Named
	if err == nil {
		named, err = s.target(ctx, in.ID)
	}
	if err == nil {
		in.ID = named.Path
		if in.Section == "" {
			in.Section = named.Heading
		}
		// A block (Note#^id) is where to add, after it, as at = ^id says.
		if named.Block != "" && in.At == "" {
			in.At = "^" + named.Block
		}
	}
	var at vault.Place
	if err == nil {
		at, err = place(in.At, in.Section)
	}
	if err == nil {
		r, err = s.vault.AppendAt(dryRun(ctx, in.DryRun), in.ID, in.Text, at)
	}
	return s.written(ctx, c, in.ID, "", r, err)
}

// createDaily creates a day's daily note from its template with text
// added (under section, which the template must then hold), or appends to
// it if it appeared meanwhile.
func (s *server) createDaily(ctx context.Context, c call, d vault.DailyNote, text string, at vault.Place) (writeOut, error) {
	content := d.Template
	section := at.Section
	atEnd := !at.Start && at.Block == ""
	if section == "" && atEnd {
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		content += text
	}
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	// A section the template lacks would be refused only after the note
	// was created: refuse it first, so that a refused call changes nothing.
	if section != "" {
		if _, err := vault.Section(content, section); err != nil {
			return s.written(ctx, c, d.Path, "", vault.WriteResult{}, err)
		}
	}
	r, err := s.vault.Create(ctx, d.Path, content)
	var ve *vault.Error
	switch {
	case errors.As(err, &ve) && ve.Code == vault.CodeNoteExists:
	case err != nil || section == "" && atEnd:
		return s.written(ctx, c, d.Path, "", r, err)
	default:
		s.record(ctx, c, r.Path, "", r.Version, nil)
	}
	r, err = s.vault.AppendAt(ctx, d.Path, text, at)
	return s.written(ctx, c, d.Path, "", r, err)
}

// place reads append's at: end, start, or ^blockid.
func place(at, section string) (vault.Place, error) {
	p := vault.Place{Section: section}
	switch a := strings.TrimSpace(at); {
	case a == "" || strings.EqualFold(a, "end"):
	case strings.EqualFold(a, "start"):
		p.Start = true
	case strings.HasPrefix(a, "^") && len(a) > 1:
		p.Block = a[1:]
	default:
		return p, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonBadAt}
	}
	return p, nil
}

func (s *server) editNote(ctx context.Context, c call, in editIn) (writeOut, error) {
	var bad error
	if in.OldText == "" {
		bad = vaultRefusal(vault.CodeInvalidArgument, vault.ReasonNoOldText)
	}
	return s.guardedWrite(ctx, c, in.guarded, bad, func(p string) (vault.WriteResult, error) {
		return s.vault.Edit(dryRun(ctx, in.DryRun), p, in.Version, in.OldText, in.NewText, in.ReplaceAll)
	})
}

func (s *server) replaceSection(ctx context.Context, c call, in replaceSectionIn) (writeOut, error) {
	var bad error
	if strings.TrimSpace(in.Heading) == "" {
		bad = vaultRefusal(vault.CodeInvalidArgument, vault.ReasonNoHeading)
	}
	return s.guardedWrite(ctx, c, in.guarded, bad, func(p string) (vault.WriteResult, error) {
		return s.vault.ReplaceSection(dryRun(ctx, in.DryRun), p, in.Version, in.Heading, in.Content, in.IncludeSubsections)
	})
}

func (s *server) updateFrontmatter(ctx context.Context, c call, in frontmatterIn) (writeOut, error) {
	var bad error
	if len(in.Set) == 0 && len(in.Remove) == 0 {
		bad = vaultRefusal(vault.CodeInvalidArgument, vault.ReasonNoKeys)
	}
	return s.guardedWrite(ctx, c, in.guarded, bad, func(p string) (vault.WriteResult, error) {
		return s.vault.UpdateFrontmatter(dryRun(ctx, in.DryRun), p, in.Version, in.Set, in.Remove)
	})
}

func (s *server) moveNote(ctx context.Context, c call, in moveIn) (moveOut, error) {
	err := s.checkTarget(ctx, c.tool, &in.guarded)
	if err == nil && strings.TrimSpace(in.To) == "" {
		err = &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoTo}
	}
	var r vault.MoveResult
	if err == nil {
		r, err = s.vault.Move(ctx, in.ID, in.To, in.Version, in.UpdateLinks)
	}
	if err != nil {
		s.record(ctx, c, in.ID, in.Version, "", err)
		return moveOut{}, err
	}
	// The note leaves its old path and appears at the new one with the same
	// text; both are journaled so that either path's history is complete.
	s.record(ctx, c, r.From, in.Version, "", nil)
	s.record(ctx, c, r.To, in.Version, r.Version, nil)
	out := moveOut{
		ID:           r.To,
		From:         r.From,
		Version:      r.Version,
		StillLinking: []string{},
		Rewritten:    make([]writeOut, 0, len(r.Rewritten)),
	}
	if in.Version != r.Version {
		out.PreviousVersion = in.Version
	}
	for _, w := range r.Rewritten {
		s.record(ctx, c, w.Path, w.OldVersion, w.Version, nil)
		out.Rewritten = append(out.Rewritten, writeOut{ID: w.Path, Version: w.Version, PreviousVersion: w.OldVersion})
	}
	for _, w := range r.HiddenRewritten {
		s.record(ctx, c, w.Path, w.OldVersion, w.Version, nil)
	}
	out.StillLinking = append(out.StillLinking, r.Linking...)
	out.RewrittenElsewhere, out.StillLinkingElsewhere = len(r.HiddenRewritten), r.HiddenLinking
	return out, nil
}

func (s *server) deleteNote(ctx context.Context, c call, in deleteIn) (deleteOut, error) {
	err := s.checkTarget(ctx, c.tool, &in.guarded)
	var r vault.WriteResult
	if err == nil {
		r, err = s.vault.Delete(ctx, in.ID, in.Version)
	}
	if err != nil {
		s.record(ctx, c, in.ID, in.Version, "", err)
		return deleteOut{}, err
	}
	prev := r.OldVersion
	if prev == "" {
		prev = in.Version
	}
	s.record(ctx, c, in.ID, prev, "", nil)
	// The trashed copy is the same text: name its writer too, so fetch and
	// recent do not call it an outside change.
	s.record(ctx, c, r.Path, "", prev, nil)
	return deleteOut{ID: in.ID, TrashedTo: r.Path, PreviousVersion: prev}, nil
}
