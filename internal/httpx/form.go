package httpx

import (
	"fmt"
	"net/http"
)

// MaxFormBody bounds the body of a form or of a page script's post, and of
// the OAuth endpoints' form-encoded requests: a WebAuthn response, the
// largest of them, is a few KiB.
const MaxFormBody = 64 << 10

// CodeMethodNotAllowed is the code of a request whose method the route does
// not take.
const CodeMethodNotAllowed = "method_not_allowed"

// FormGuard is the one guard of the routes a person's browser posts to (the
// sign-in forms and page scripts, the console's forms, the OAuth consent):
// only POST, only from this server's own pages, a bounded body, and then the
// page's CSRF token. Each package builds one with the refusal of a
// cross-origin post in the words of its own pages, and keeps the CSRF check
// (the owner's token, after the session where a signed-in owner is needed),
// since which check comes first is what its visitors are told.
type FormGuard struct {
	cop         *http.CrossOriginProtection
	crossOrigin *Error
}

// NewFormGuard returns the guard. origin, when set, is the server's public
// origin, trusted even when a proxy in front rewrites the Host header;
// crossOrigin is the refusal of a post from another site's page.
func NewFormGuard(origin string, crossOrigin *Error) (*FormGuard, error) {
	g := &FormGuard{cop: http.NewCrossOriginProtection(), crossOrigin: crossOrigin}
	if origin != "" {
		if err := g.cop.AddTrustedOrigin(origin); err != nil {
			return nil, fmt.Errorf("form guard: %w", err)
		}
	}
	return g, nil
}

// Guard returns h behind the guard, in this order: the method (POST), the
// origin (http.CrossOriginProtection: a browser's post from another site
// is refused before anything is read), the body capped at MaxFormBody, and
// csrf, which checks the page's token and returns the refusal. h runs only
// when all pass.
func (g *FormGuard) Guard(csrf func(*http.Request) error, h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.Method != http.MethodPost {
			return &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Allow: http.MethodPost,
				Message: "This address takes only forms sent from its page. Open the page and try again."}
		}
		if err := g.cop.Check(r); err != nil {
			return g.crossOrigin.With(err)
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxFormBody)
		if err := csrf(r); err != nil {
			return err
		}
		return h(w, r)
	}
}
