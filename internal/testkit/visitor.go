package testkit

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
)

// Visitor is a browser without a window, for tests that drive handlers
// without sockets: it comes from one address, keeps the cookies answers
// set (and drops those they clear), and remembers the CSRF token of the
// last page that showed one, as the pages' forms and scripts would send it.
type Visitor struct {
	Handler http.Handler
	Addr    string // RemoteAddr of every request; "" keeps httptest's
	Cookies map[string]string
	CSRF    string
	// Seen, when set, is shown every answer's body, for what else a test
	// reads off a page (a hidden field).
	Seen func(body []byte)
}

// NewVisitor returns a visitor of h from addr with no cookies.
func NewVisitor(h http.Handler, addr string) *Visitor {
	return &Visitor{Handler: h, Addr: addr, Cookies: map[string]string{}}
}

// csrfRE finds the CSRF token where the pages put it: a form's hidden
// field, or the data attribute or field the page scripts read it from.
var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"|data-csrf="([^"]+)"|id="csrf" value="([^"]+)"`)

// Do sends r with the visitor's cookies and returns the answer, its body
// read and ready to be read again.
func (v *Visitor) Do(r *http.Request) *http.Response {
	if v.Addr != "" {
		r.RemoteAddr = v.Addr
	}
	for k, c := range v.Cookies {
		r.AddCookie(&http.Cookie{Name: k, Value: c})
	}
	rec := httptest.NewRecorder()
	v.Handler.ServeHTTP(rec, r)
	resp := rec.Result()
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(v.Cookies, c.Name)
		} else {
			v.Cookies[c.Name] = c.Value
		}
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if m := csrfRE.FindSubmatch(body); m != nil {
		v.CSRF = string(bytes.Join(m[1:], nil))
	}
	if v.Seen != nil {
		v.Seen(body)
	}
	return resp
}

// Get asks for target (a path, or a URL naming the host).
func (v *Visitor) Get(target string) *http.Response {
	return v.Do(httptest.NewRequest(http.MethodGet, target, nil))
}

// PostForm submits form to target as a page of the same site does, with
// the remembered CSRF token unless form has its own.
func (v *Visitor) PostForm(target string, form url.Values) *http.Response {
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", v.CSRF)
	}
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	return v.Do(r)
}

// Body returns resp's body and leaves it readable again.
func Body(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}
