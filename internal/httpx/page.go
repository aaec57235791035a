package httpx

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
)

// The layout ("head", "foot") and the problem page every set of pages shares.
//
//go:embed assets/*.html
var assets embed.FS

// Pages is a set of HTML pages drawn in the one layout. Safe for concurrent
// use.
type Pages struct {
	tmpl *template.Template
	// Problem pages are few and mostly fixed; each is rendered once, so a
	// flood of refusals costs no template work.
	problems *LRU[Problem, []byte]
}

// Problem is what a problem page says: a title, the client's sentence, the
// stable code, and where to go next (Link, a local path, and its LinkText)
// when there is somewhere.
type Problem struct {
	Title, Message, Code string
	Link, LinkText       string
}

// Document is what the layout's "document" template, the start of every
// page up to <body>, is given: the page's title and its style sheet.
type Document struct{ Title, Style string }

// NewPages parses the layout, the problem page and the templates of fsys
// that patterns name (which must not be called layout.html or problem.html).
// A page set with a frame of its own starts it with
// {{template "document" (document TITLE STYLESHEET)}} and ends it with
// {{template "foot"}}.
func NewPages(fsys fs.FS, patterns ...string) (*Pages, error) {
	return NewPagesWith(fsys, nil, patterns...)
}

// NewPagesWith is NewPages whose templates may also call funcs.
func NewPagesWith(fsys fs.FS, funcs template.FuncMap, patterns ...string) (*Pages, error) {
	document := func(title, style string) Document { return Document{title, style} }
	t, err := template.New("").Funcs(template.FuncMap{"document": document}).Funcs(funcs).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, err
	}
	if len(patterns) > 0 {
		if t, err = t.ParseFS(fsys, patterns...); err != nil {
			return nil, err
		}
	}
	return &Pages{tmpl: t, problems: NewLRU[Problem, []byte](64)}, nil
}

// Render executes the template name into a buffer first, so a template
// error never leaves a half-written page.
func (p *Pages) Render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	writeHTML(w, status, buf.Bytes())
}

// Problem writes the problem page pr with status.
func (p *Pages) Problem(w http.ResponseWriter, status int, pr Problem) {
	b, ok := p.problems.Get(pr)
	if !ok {
		var buf bytes.Buffer
		if err := p.tmpl.ExecuteTemplate(&buf, "problem.html", pr); err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		b = buf.Bytes()
		p.problems.Put(pr, b)
	}
	writeHTML(w, status, b)
}

// ProblemPage is a Renderer of refusals as the problem page, with the page
// headers; describe says what the page shows for e.
func (p *Pages) ProblemPage(describe func(r *http.Request, e *Error) Problem) Renderer {
	return func(w http.ResponseWriter, r *http.Request, e *Error) {
		PageHeaders(w, PagePolicy{})
		pr := describe(r, e)
		pr.Message, pr.Code = e.Message, e.Code
		p.Problem(w, e.Status, pr)
	}
}

func writeHTML(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// PagePolicy is what a page may do beyond showing this origin's styles and
// images.
type PagePolicy struct {
	// Scripts lets the page run this origin's scripts and call this origin.
	Scripts bool
	// FormAction, when set, is the one outside origin a form's answer may
	// redirect to (browsers apply form-action to that redirect).
	FormAction string
}

// PageHeaders sets the security headers of an HTML page: no inline script,
// no framing, no referrer, nothing cached.
func PageHeaders(w http.ResponseWriter, p PagePolicy) {
	csp := "default-src 'none'; "
	if p.Scripts {
		csp += "script-src 'self'; "
	}
	csp += "style-src 'self'; img-src 'self'; "
	if p.Scripts {
		csp += "connect-src 'self'; "
	}
	csp += "form-action 'self'"
	if p.FormAction != "" {
		csp += " " + p.FormAction
	}
	csp += "; frame-ancestors 'none'; base-uri 'none'"
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

// Assets serves the file that the route's {name} wildcard names from fsys
// (a page set's scripts and style sheets), with the page policy's headers
// and revalidated on every use. Only the extensions in types (extension to
// Content-Type) are served, so templates embedded beside them never are.
func Assets(fsys fs.FS, types map[string]string, policy PagePolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		ctype, ok := types[path.Ext(name)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		PageHeaders(w, policy)
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Content-Type", ctype)
		w.Write(b) // #nosec G705 -- b is a file embedded in the binary, sent as the type its extension names with nosniff; the request only picks which
	})
}
