package owner

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
)

//go:embed assets
var assets embed.FS

type pages struct {
	tmpl   *template.Template
	static fs.FS
}

type loginData struct {
	CSRF     string
	Return   string
	Passkeys bool
	Error    string
	SignedIn bool
	Method   string
}

type enrolData struct {
	CSRF string
}

type problemData struct {
	Title   string
	Message string
}

func loadPages() (*pages, error) {
	t, err := template.ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	return &pages{tmpl: t, static: static}, nil
}

// render executes a template into a buffer first, so a template error never
// leaves a half-written page.
func (p *pages) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

var assetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
}

// asset serves the page scripts and style sheet; templates are not served.
func (o *Owner) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ctype, ok := assetTypes[path.Ext(name)]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(o.pages.static, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	setSecurityHeaders(w)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Type", ctype)
	w.Write(b) // #nosec G705 -- b is a .js or .css file embedded in the binary, sent as that type with nosniff; the request only picks which
}
