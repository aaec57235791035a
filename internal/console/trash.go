package console

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

const trashDir = ".trash"

type trashData struct {
	Nav, Title, CSRF string
	Zone             *time.Location
	Form             string // the page's form id
	Recent           bool
	Items            []trashItem
}

type trashItem struct {
	Path, Original string
	Size           int64
	Modified       time.Time
	By             string // who moved it there, when the journal knows
	When           time.Time
}

// trashPage lists what is in .trash/, who deleted it and when.
func (c *Console) trashPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	ctx := r.Context()
	d := trashData{Nav: "trash", Zone: c.zone(r.Context()), Title: "Trash", CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(), Recent: c.recent(s)}
	entries, err := c.o.Vault.List(ctx, trashDir, true)
	var ve *vault.Error
	if errors.As(err, &ve) && ve.Code == vault.CodeNotFound {
		entries, err = nil, nil
	}
	if err != nil {
		return refusal(err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir {
			paths = append(paths, e.Path)
		}
	}
	last, err := c.o.Store.LastWrites(ctx, paths)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		it := trashItem{Path: e.Path, Original: vault.TrashOrigin(e.Path), Size: e.Size, Modified: e.Modified}
		if j, ok := last[e.Path]; ok {
			it.By, it.When = j.App, j.Time
		}
		d.Items = append(d.Items, it)
	}
	c.pages.Render(w, http.StatusOK, "trash.html", d)
	return nil
}

// restoreTrash moves a note out of .trash/ back to where it was, journaled
// as the owner's.
func (c *Console) restoreTrash(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) (*outcome, error) {
	ctx := vault.WithWriter(r.Context(), history.OwnerConsole)
	from := r.PostFormValue("path")
	if !strings.HasPrefix(from, trashDir+"/") {
		return nil, &httpx.Error{Status: http.StatusBadRequest, Code: vault.CodeInvalidPath,
			Message: "Only notes in .trash/ can be restored from the trash; reload the trash page."}
	}
	n, err := c.o.Vault.Read(ctx, from)
	if err != nil {
		return nil, refusal(err)
	}
	to := vault.TrashOrigin(from)
	res, err := c.o.Vault.Move(ctx, from, to, n.Version, false)
	c.journal(r, store.JournalEntry{Tool: "restore", Path: from, OldVersion: n.Version}, err)
	if err != nil {
		return nil, refusal(err)
	}
	c.journal(r, store.JournalEntry{Tool: "restore", Path: res.To, NewVersion: res.Version}, nil)
	return &outcome{Nav: "trash", Title: "Restored", Message: "Restored " + res.To + " from the trash.",
		Link: render.NoteURL(res.To), LinkText: "Open " + res.To}, nil
}

// journal records a change the console made as written by the owner.
func (c *Console) journal(r *http.Request, e store.JournalEntry, err error) {
	e.App, e.Time, e.Result = history.OwnerConsole, c.now(), store.ResultOK
	if err != nil {
		e.Result = "error"
		var ve *vault.Error
		if errors.As(err, &ve) {
			e.Result = ve.Code
		}
	}
	if jerr := c.o.Store.RecordWrite(r.Context(), e); jerr != nil {
		c.log.Error("journal a console change", "err", jerr)
	}
}

// deleteForGood removes a note from .trash/ for good, after the owner
// ticked the confirmation, with a recent sign-in. Its last content stays
// in the history for the retention.
func (c *Console) deleteForGood(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	p := r.PostFormValue("path")
	if r.PostFormValue("confirm") != "yes" {
		return nil, &httpx.Error{Status: http.StatusBadRequest, Code: "not_confirmed",
			Message: "Tick the box to confirm that this note should be deleted for good."}
	}
	ctx := vault.WithWriter(r.Context(), history.OwnerConsole)
	n, err := c.o.Vault.Read(ctx, p)
	if err == nil {
		err = c.o.Vault.RemoveFromTrash(ctx, p, n.Version)
		c.journal(r, store.JournalEntry{Tool: "delete_for_good", Path: p, OldVersion: n.Version}, err)
	}
	if err != nil {
		return nil, refusal(err)
	}
	return &outcome{Nav: "trash", Title: "Deleted for good", Message: "Removed " + p + " from the vault; its text stays in the history for its retention.",
		Link: "/console/trash", LinkText: "Back to the trash"}, nil
}
