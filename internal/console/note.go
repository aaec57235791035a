package console

import (
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/cortex-mcp/cortex/internal/diff"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// maxVersionsShown bounds the history column of a note page.
const maxVersionsShown = 200

type noteData struct {
	Nav      string
	Zone     *time.Location
	CSRF     string
	Form     string // the page's form id
	Recent   bool
	Path     string
	URL      string // the note page's own path
	Title    string
	Present  bool   // the note exists now
	Version  string // its version now
	Modified time.Time
	Raw      bool
	HTML     template.HTML
	Text     string // the raw view's text
	// Viewing is the stored version shown instead of the note now.
	Viewing *store.NoteVersion
	// Diff, when asked for, compares From with To (nil To: the note now).
	Diff diffView
	// The diff is shown a page at a time: rows First to Last of Total,
	// with links to the pages before and after.
	DiffPrev, DiffNext string
	First, Last, Total int
	DiffFrom           *store.NoteVersion
	DiffTo             *store.NoteVersion
	Diffing            bool
	Same               bool // the two versions are the same text
	Versions           []versionRow
	More               int
}

// versionRow is one stored version as the history column lists it.
type versionRow struct {
	store.NoteVersion
	// Current: the note now is this version (it has nothing to restore).
	Current bool
	// Delta is its size change from the version before it ("+120 B").
	Delta string
}

// versionRows marks the note's current version and each version's size
// change; versions are newest first, and the oldest listed has no
// version before it to compare with.
func versionRows(vs []store.NoteVersion, present bool, current string) []versionRow {
	out := make([]versionRow, len(vs))
	marked := false
	for i, v := range vs {
		out[i].NoteVersion = v
		if present && !marked && !v.Gone && v.Version == current {
			out[i].Current, marked = true, true
		}
		if i+1 < len(vs) {
			out[i].Delta = sizeDelta(v.Size - vs[i+1].Size)
		} else {
			out[i].Delta = "+" + strconv.FormatInt(v.Size, 10) + " B"
		}
	}
	return out
}

func sizeDelta(n int64) string {
	switch {
	case n > 0:
		return "+" + strconv.FormatInt(n, 10) + " B"
	case n < 0:
		return "−" + strconv.FormatInt(-n, 10) + " B"
	}
	return "±0 B"
}

// notePage shows a note: rendered or raw, now or as a stored version, with
// its history beside it and, when asked, the difference between two of
// its versions (?from=ID&to=ID; no to: the note now).
func (c *Console) notePage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	ctx := r.Context()
	p := r.PathValue("path")
	q := r.URL.Query()
	if err := c.o.Vault.CheckNotePath(p); err != nil {
		// A wikilink names a note the way people do: find the note it means.
		if named, lerr := c.o.Vault.Lookup(ctx, p); lerr == nil && named.Path != p {
			http.Redirect(w, r, render.NoteURL(named.Path), http.StatusSeeOther)
			return nil
		}
		// A folder's path typed or linked without its final slash.
		if _, lerr := c.o.Vault.List(ctx, p, false); lerr == nil {
			http.Redirect(w, r, FolderURL(p), http.StatusSeeOther)
			return nil
		}
		return refusal(err)
	}
	d := noteData{Nav: "notes", Zone: c.zone(r.Context()), CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(), Recent: c.recent(s), Path: p, URL: render.NoteURL(p), Raw: q.Get("raw") == "1"}
	n, err := c.o.Vault.Read(ctx, p)
	var ve *vault.Error
	switch {
	case err == nil:
		d.Present, d.Title, d.Version, d.Modified, d.Text = true, n.Title, n.Version, n.Modified, n.Content
	case errors.As(err, &ve) && ve.Code == vault.CodeNotFound:
		if named, lerr := c.o.Vault.Lookup(ctx, p); lerr == nil && named.Path != p {
			http.Redirect(w, r, render.NoteURL(named.Path), http.StatusSeeOther)
			return nil
		}
	default:
		return refusal(err)
	}
	versions, err := c.o.History.Versions(ctx, p)
	var he *history.Error
	if err != nil && !(errors.As(err, &he) && he.Code == history.CodeNoHistory) {
		return refusal(err)
	}
	if !d.Present && len(versions) == 0 {
		return &httpx.Error{Status: http.StatusNotFound, Code: vault.CodeNotFound,
			Message: "No note exists at this path and none was ever stored here; search for it or check the link."}
	}
	if len(versions) > maxVersionsShown {
		d.More = len(versions) - maxVersionsShown
		versions = versions[:maxVersionsShown]
	}
	d.Versions = versionRows(versions, d.Present, d.Version)

	if ref := q.Get("v"); ref != "" {
		nv, data, err := c.version(r, p, ref)
		if err != nil {
			return err
		}
		d.Viewing, d.Text = &nv, string(data)
	}
	if from := q.Get("from"); from != "" {
		a, adata, err := c.version(r, p, from)
		if err != nil {
			return err
		}
		bdata := []byte(d.Text)
		if to := q.Get("to"); to != "" {
			b, data, err := c.version(r, p, to)
			if err != nil {
				return err
			}
			d.DiffTo, bdata = &b, data
		} else if !d.Present {
			bdata = nil
		}
		page := 1
		if s := q.Get("page"); s != "" {
			if page, err = strconv.Atoi(s); err != nil || page < 1 {
				return &httpx.Error{Status: http.StatusBadRequest, Code: "bad_page",
					Message: "That is not a page of this diff; follow the diff's own links."}
			}
		}
		d.DiffFrom, d.Diffing = &a, true
		ld := diff.Lines(string(adata), string(bdata))
		d.Same = !diff.Changed(ld)
		d.Diff, d.DiffPrev, d.DiffNext, d.First, d.Last, d.Total = fullView(ld, page, d.URL, q)
	}
	if d.Title == "" {
		d.Title = p
	}
	if !d.Raw && !d.Diffing && (d.Present || d.Viewing != nil) {
		d.HTML = render.Note(d.Text)
	}
	c.pages.Render(w, http.StatusOK, "note.html", d)
	return nil
}

// version reads one stored version of the note at p; ref is a history id
// or a 12-digit version.
func (c *Console) version(r *http.Request, p, ref string) (store.NoteVersion, []byte, error) {
	if _, err := strconv.ParseInt(ref, 10, 64); err != nil && len(ref) != 12 {
		return store.NoteVersion{}, nil, &httpx.Error{Status: http.StatusBadRequest, Code: history.CodeUnknownVersion,
			Message: "That is not a version of this note; pick one from the note's history."}
	}
	nv, data, err := c.o.History.Version(r.Context(), p, ref)
	if err != nil {
		return nv, nil, refusal(err)
	}
	return nv, data, nil
}

// purge forgets every stored version of a note (the note itself stays),
// for a secret pasted by mistake. It needs a recent sign-in.
func (c *Console) purge(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	p := r.PostFormValue("path")
	if r.PostFormValue("confirm") != p {
		return nil, &httpx.Error{Status: http.StatusBadRequest, Code: "not_confirmed",
			Message: "Type the note's path into the box to confirm that its history should be forgotten."}
	}
	n, err := c.o.History.Purge(r.Context(), p)
	if err != nil {
		return nil, refusal(err)
	}
	c.journal(r, store.JournalEntry{Tool: "purge", Path: p}, nil)
	c.log.Info("owner purged a note's history from the console", "versions", n, "writer", history.OwnerConsole)
	return &outcome{Nav: "notes", Title: "History forgotten",
		Message: "Forgot " + strconv.FormatInt(n, 10) + " stored versions of " + p + "; the note itself is unchanged.",
		Link:    render.NoteURL(p), LinkText: "Open " + p}, nil
}
