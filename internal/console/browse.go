package console

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// codeNoFolder refuses a folder that does not exist.
const codeNoFolder = "no_folder"

// folderPageSize is how many entries one page of a folder lists: enough
// to scan at a glance, small enough that a folder of 50,000 notes still
// answers a page of a few kilobytes.
const folderPageSize = 100

type folderData struct {
	Nav, Title, CSRF string
	Zone             *time.Location
	Folder           string // "" for the vault's root
	Crumbs           []crumb
	Entries          []folderEntry
	Sort, Order      string // "name" or "modified"; "asc" or "desc"
	NameSort         string // the link that sorts by name (toggling order)
	ModSort          string
	First, Last, All int
	Prev, Next       string
}

type crumb struct {
	Name, URL string
	Current   bool // the folder shown
}

type folderEntry struct {
	Name, URL  string
	IsDir      bool
	Attachment bool
	Size       int64
	Modified   time.Time
}

// notes answers GET /notes/{path...}: a path ending in "/" (or the bare
// /notes/) lists a folder, anything else shows a note.
func (c *Console) notes(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	p := r.PathValue("path")
	if p == "" || strings.HasSuffix(p, "/") {
		return c.folderPage(w, r, strings.TrimSuffix(p, "/"))
	}
	return c.notePage(w, r, s)
}

// folderPage lists one folder: its subfolders first, then its notes and
// attachments, sorted by name or by modification time, a page at a time.
func (c *Console) folderPage(w http.ResponseWriter, r *http.Request, folder string) error {
	q := r.URL.Query()
	d := folderData{Nav: "notes", Zone: c.zone(r.Context()), CSRF: c.o.Owner.CSRFToken(w, r), Folder: folder,
		Sort: q.Get("sort"), Order: q.Get("order")}
	if d.Sort != "modified" {
		d.Sort = "name"
	}
	if d.Order != "desc" {
		d.Order = "asc"
	}
	page := 1
	if s := q.Get("page"); s != "" {
		var err error
		if page, err = strconv.Atoi(s); err != nil || page < 1 {
			return errBadPage
		}
	}
	entries, err := c.o.Vault.List(r.Context(), folder, false)
	var ve *vault.Error
	if errors.As(err, &ve) && ve.Code == vault.CodeNotFound {
		return &httpx.Error{Status: http.StatusNotFound, Code: codeNoFolder, Err: err,
			Message: "There is no folder at this path; open the list of notes and pick one from there."}
	}
	if err != nil {
		return refusal(err)
	}
	// The trash has its own page; listing it here would offer notes that
	// are deleted as if they were not.
	entries = slices.DeleteFunc(entries, func(e vault.Entry) bool { return folder == "" && e.Path == trashDir })
	slices.SortFunc(entries, func(a, b vault.Entry) int {
		if a.IsDir != b.IsDir { // folders first, whatever the order
			if a.IsDir {
				return -1
			}
			return 1
		}
		var n int
		if d.Sort == "modified" {
			n = a.Modified.Compare(b.Modified)
		}
		if n == 0 {
			n = cmp.Compare(strings.ToLower(a.Path), strings.ToLower(b.Path))
		}
		if d.Order == "desc" {
			n = -n
		}
		return n
	})
	d.All = len(entries)
	start := (page - 1) * folderPageSize
	if start > 0 && start >= d.All {
		return errBadPage
	}
	end := min(start+folderPageSize, d.All)
	for _, e := range entries[start:end] {
		fe := folderEntry{Name: path.Base(e.Path), IsDir: e.IsDir, Attachment: e.Attachment, Size: e.Size, Modified: e.Modified}
		switch {
		case e.IsDir:
			fe.URL = FolderURL(e.Path)
		case !e.Attachment:
			fe.URL = render.NoteURL(e.Path)
		}
		d.Entries = append(d.Entries, fe)
	}
	d.First, d.Last = start+1, end
	self := FolderURL(folder)
	link := func(sort, order string, page int) string {
		v := url.Values{}
		if sort != "name" {
			v.Set("sort", sort)
		}
		if order != "asc" {
			v.Set("order", order)
		}
		if page > 1 {
			v.Set("page", strconv.Itoa(page))
		}
		if len(v) == 0 {
			return self
		}
		return self + "?" + v.Encode()
	}
	flip := map[string]string{"asc": "desc", "desc": "asc"}
	d.NameSort, d.ModSort = link("name", "asc", 1), link("modified", "desc", 1)
	if d.Sort == "name" {
		d.NameSort = link("name", flip[d.Order], 1)
	} else {
		d.ModSort = link("modified", flip[d.Order], 1)
	}
	if page > 1 {
		d.Prev = link(d.Sort, d.Order, page-1)
	}
	if end < d.All {
		d.Next = link(d.Sort, d.Order, page+1)
	}
	d.Title, d.Crumbs = "Notes", []crumb{{Name: "Notes", URL: "/notes/"}}
	if folder != "" {
		d.Title = folder
		parts := strings.Split(folder, "/")
		for i := range parts {
			d.Crumbs = append(d.Crumbs, crumb{Name: parts[i], URL: FolderURL(strings.Join(parts[:i+1], "/"))})
		}
	}
	d.Crumbs[len(d.Crumbs)-1].Current = true
	c.pages.Render(w, http.StatusOK, "folder.html", d)
	return nil
}

var errBadPage = &httpx.Error{Status: http.StatusBadRequest, Code: "bad_page",
	Message: "That is not a page of this list; follow the list's own links."}

// FolderURL is the console page that lists folder ("" for the root).
func FolderURL(folder string) string {
	if folder == "" {
		return "/notes/"
	}
	return render.NoteURL(folder) + "/"
}
