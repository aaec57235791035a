package oauth

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"sync"
)

//go:embed assets/*.html
var assets embed.FS

type pages struct {
	tmpl *template.Template

	// Error pages are few and fixed; each is rendered once, so a flood of
	// refusals costs no template work.
	mu     sync.Mutex
	errors map[errorData][]byte
}

func loadPages() (*pages, error) {
	t, err := template.ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, err
	}
	return &pages{tmpl: t, errors: make(map[errorData][]byte)}, nil
}

// renderError writes an error page from the cache, rendering it the first
// time.
func (p *pages) renderError(w http.ResponseWriter, status int, d errorData) {
	p.mu.Lock()
	b, ok := p.errors[d]
	p.mu.Unlock()
	if !ok {
		var buf bytes.Buffer
		if err := p.tmpl.ExecuteTemplate(&buf, "error.html", d); err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		b = buf.Bytes()
		p.mu.Lock()
		if len(p.errors) < 64 {
			p.errors[d] = b
		}
		p.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
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

// page adapts an HTML handler: failures render a page a person understands.
func (s *Server) page(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w, "")
		if err := h(w, r); err != nil {
			s.renderError(w, r, err)
		}
	})
}

type errorData struct {
	Title, Message, Code string
}

func (s *Server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	setSecurityHeaders(w, "")
	var pe *pageError
	if !errors.As(err, &pe) {
		s.log.Error("oauth page failed", "path", r.URL.Path, "err", err)
		pe = &pageError{status: http.StatusInternalServerError, code: "internal",
			msg: "Something went wrong on the server. Try again in a moment."}
	} else if pe.err != nil {
		s.log.Info("oauth page refused", "path", r.URL.Path, "code", pe.code, "err", pe.err)
	}
	if pe.retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(seconds(pe.retry)))
	}
	title := "Cannot connect the app"
	if pe.status == http.StatusTooManyRequests {
		title = "Slow down"
	}
	s.pages.renderError(w, pe.status, errorData{Title: title, Message: pe.msg, Code: pe.code})
}

// setSecurityHeaders: no script at all, no framing, no referrer, nothing
// cached. formAction, when set, is the one outside origin the consent form's
// answer may redirect to (browsers apply form-action to that redirect).
func setSecurityHeaders(w http.ResponseWriter, formAction string) {
	fa := "'self'"
	if formAction != "" {
		fa += " " + formAction
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action "+fa+
		"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}
