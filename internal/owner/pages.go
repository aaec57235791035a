package owner

import (
	"embed"
	"io/fs"
	"net/http"
	"path"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

//go:embed assets
var assets embed.FS

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
	b, err := fs.ReadFile(o.static, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	httpx.PageHeaders(w, httpx.PagePolicy{Scripts: true})
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Type", ctype)
	w.Write(b) // #nosec G705 -- b is a .js or .css file embedded in the binary, sent as that type with nosniff; the request only picks which
}
