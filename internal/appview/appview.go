// Package appview holds cortex's MCP App views (the io.modelcontextprotocol/ui
// extension): the HTML pages a host shows beside a tool's result, one for a
// change to a note and one for a note that was read.
//
// The pages are self-contained: their style and script are embedded here and
// joined into each page once, and they load nothing from anywhere, so a host
// can frame them under a policy that allows no outside address. They show
// only what the tool result hands them and speak only to the window that
// framed them; every text from a note is put into the page as text, never
// as markup. This package must never read notes or know about tokens.
package appview

import (
	_ "embed"
	"strings"
)

// The views' addresses, as tools name them in _meta.ui.resourceUri.
const (
	ChangeURI = "ui://cortex/change"
	NoteURI   = "ui://cortex/note"
)

// MIMEType is the type of an MCP App page.
const MIMEType = "text/html;profile=mcp-app"

var (
	//go:embed style.css
	style string
	//go:embed bridge.js
	bridge string
	//go:embed change.html
	changePage string
	//go:embed note.html
	notePage string
)

// page joins the shared style and bridge into a page. The placeholders are
// in a <style> and a <script>, so the joined text stays one document.
func page(p string) string {
	return strings.NewReplacer("/*STYLE*/", style, "/*BRIDGE*/", bridge).Replace(p)
}

// View is one view as resources/read serves it.
type View struct {
	URI, Name, Title, Description string
	HTML                          string
}

var views = []View{
	{URI: ChangeURI, Name: "change", Title: "A change to a note",
		Description: "The note that was changed, who changed it, the diff of the change and a button to undo it.",
		HTML:        page(changePage)},
	{URI: NoteURI, Name: "note", Title: "A note",
		Description: "The note that was read, shown as text, with a link to it in the console.",
		HTML:        page(notePage)},
}

// Views lists the views.
func Views() []View { return append([]View(nil), views...) }

// Lookup finds the view at uri.
func Lookup(uri string) (View, bool) {
	for _, v := range views {
		if v.URI == uri {
			return v, true
		}
	}
	return View{}, false
}
