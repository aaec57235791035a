package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/vault"
)

const (
	// maxQueryBytes bounds what the search box takes: a query is words
	// and filters, and a longer one is a paste gone wrong, refused before
	// the query parser spends time on it.
	maxQueryBytes = 1000
	// searchPageSize is how many results one page shows, the most the
	// vault gives one search call.
	searchPageSize = 20
)

// codeQueryTooLong refuses a query over maxQueryBytes.
const codeQueryTooLong = "query_too_long"

type searchData struct {
	Nav, Title, CSRF string
	Zone             *time.Location
	Query            string
	Hits             []searchHit
	Next             string // the link to the next results, "" on the last page
	Later            bool   // this page continues an earlier one
	Incomplete       string // why the results may miss notes
}

type searchHit struct {
	Path, Title, URL, Snippet string
	Modified                  time.Time
}

// searchPage runs cortex's own search (the words, "phrases", tag:, path:,
// folder: and [property:value] the tools' search takes) over the whole
// vault and shows a page of results with their snippets.
func (c *Console) searchPage(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) error {
	q := r.URL.Query()
	d := searchData{Nav: "search", Zone: c.zone(r.Context()), Title: "Search", CSRF: c.o.Owner.CSRFToken(w, r), Query: q.Get("q")}
	if len(d.Query) > maxQueryBytes {
		return &httpx.Error{Status: http.StatusRequestURITooLong, Code: codeQueryTooLong,
			Message: "That search is longer than 1,000 characters; search for a few words or a phrase."}
	}
	if d.Query == "" {
		c.pages.Render(w, http.StatusOK, "search.html", d)
		return nil
	}
	d.Title = "Search: " + d.Query
	cursor := q.Get("cursor")
	page, err := c.o.Vault.SearchPage(r.Context(), vault.Query{Text: d.Query, Limit: searchPageSize, Cursor: cursor})
	if err != nil {
		return refusal(err)
	}
	for _, h := range page.Hits {
		d.Hits = append(d.Hits, searchHit{Path: h.Path, Title: h.Title, URL: render.NoteURL(h.Path), Snippet: h.Snippet, Modified: h.Modified})
	}
	d.Later = cursor != ""
	if page.NextCursor != "" {
		d.Next = "/console/search?" + url.Values{"q": {d.Query}, "cursor": {page.NextCursor}}.Encode()
	}
	if page.Cut != nil {
		d.Incomplete = "This search stopped early to answer quickly; the next results may hold more matches."
	}
	c.pages.Render(w, http.StatusOK, "search.html", d)
	return nil
}
