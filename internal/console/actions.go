package console

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
)

// actionFunc does one console action and says what it did; a nil outcome
// with a nil error means it answered the request itself and did nothing
// (a form shown again with its problem).
type actionFunc func(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error)

// action is a state-changing console form: what it does, whether it needs
// a sign-in within RecentSignIn, and what the owner is asking for, in
// words, while signing in again.
type action struct {
	path  string
	do    actionFunc
	fresh bool
	what  string
}

// act routes the form sent to path through post/redirect/get (see
// outcomes.go).
func (c *Console) act(path string, a action) http.Handler {
	a.path = path
	c.actions[path] = a
	return c.post(func(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
		return c.send(w, r, s, path, a)
	})
}

func (c *Console) send(w http.ResponseWriter, r *http.Request, s owner.SessionInfo, path string, a action) error {
	if !c.out.validForm(r.PostFormValue("form")) {
		return errForgedForm
	}
	key := formKey(path, r.PostForm)
	res, mine, err := c.out.claim(r.Context(), key, c.now())
	if err != nil {
		return err
	}
	if !mine {
		http.Redirect(w, r, resultURL(res, true), http.StatusSeeOther)
		return nil
	}
	if a.fresh && !c.recent(s) {
		c.out.finish(key, "")
		form := url.Values{}
		for k, v := range r.PostForm {
			if k != "csrf" {
				form[k] = append([]string(nil), v...)
			}
		}
		pid := c.out.keep(&pendingForm{path: path, form: form, key: key}, c.now())
		return c.signInPage(w, r, pid, a, form)
	}
	_, err = c.perform(w, r, s, key, a)
	return err
}

// perform does a with the form of r and sends the browser to its result.
func (c *Console) perform(w http.ResponseWriter, r *http.Request, s owner.SessionInfo, key string, a action) (string, error) {
	out, err := a.do(w, r, s)
	if err != nil || out == nil {
		c.out.finish(key, "")
		return "", err
	}
	id := c.out.put(out, c.sessionKey(w, r), c.now())
	if out.Failed {
		c.out.finish(key, "")
	} else {
		c.out.finish(key, id)
	}
	http.Redirect(w, r, resultURL(id, false), http.StatusSeeOther)
	return id, nil
}

func resultURL(id string, again bool) string {
	if again {
		return "/console/result/" + id + "?again=1"
	}
	return "/console/result/" + id
}

// sessionKey names the owner's session for binding outcomes to it; the
// CSRF token is the session's own MAC, so it changes with the session.
func (c *Console) sessionKey(w http.ResponseWriter, r *http.Request) string {
	h := sha256.Sum256([]byte(c.o.Owner.CSRFToken(w, r)))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

type resultData struct {
	outcome
	CSRF string
	Zone *time.Location
	Form string // the id of the page's one form (the conflicts' repeat)
	// Again: the form had been sent before; nothing was done this time.
	Again bool
	// Secret is a new token's secret on the page's first view; later
	// views have SecretGone instead.
	Secret     string
	SecretGone bool
	// Connect holds, beside a new token's secret, the setups that carry it.
	Connect Connect
}

// resultPage shows what an action did. It changes nothing, so a reload
// is harmless; a new token's secret is shown on its first view only.
func (c *Console) resultPage(w http.ResponseWriter, r *http.Request, _ owner.SessionInfo) error {
	out, ok := c.out.view(r.PathValue("id"), c.sessionKey(w, r), c.now())
	if !ok {
		return errResultGone
	}
	d := resultData{outcome: out, CSRF: c.o.Owner.CSRFToken(w, r), Zone: c.zone(r.Context()), Form: c.out.formID(), Again: r.URL.Query().Get("again") == "1",
		Secret: out.secret, SecretGone: out.TokenName != "" && out.secret == ""}
	if d.Secret != "" {
		d.Connect = connectFor(c.mcpURL(), d.Secret)
	}
	c.pages.Render(w, http.StatusOK, "result.html", d)
	return nil
}

type signInData struct {
	Nav, Title, CSRF string
	What             string
	Choices          []choice
	Return           string
	Passkeys         bool
}

type choice struct {
	Name   string
	Values []string
}

// signInPage asks for a fresh sign-in on the page of the form itself; the
// form waits here as pid and is done once the owner is back.
func (c *Console) signInPage(w http.ResponseWriter, r *http.Request, pid string, a action, form url.Values) error {
	httpx.PageHeaders(w, httpx.PagePolicy{Scripts: true})
	c.pages.Render(w, http.StatusForbidden, "signin.html", c.signInData(w, r, pid, a, form))
	return nil
}

// signInData describes the form waiting as pid, with the owner's choices.
func (c *Console) signInData(w http.ResponseWriter, r *http.Request, pid string, a action, form url.Values) signInData {
	d := signInData{Nav: navOf(a.path), Title: "Sign in again", CSRF: c.o.Owner.CSRFToken(w, r), What: a.what,
		Return: "/console/pending/" + pid, Passkeys: c.o.Owner.Passkeys()}
	names := make([]string, 0, len(form))
	for k := range form {
		if k != "form" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		d.Choices = append(d.Choices, choice{Name: choiceNames[k], Values: form[k]})
		if d.Choices[len(d.Choices)-1].Name == "" {
			d.Choices[len(d.Choices)-1].Name = k
		}
	}
	return d
}

// navOf is the console section an action's form belongs to.
func navOf(path string) string {
	switch {
	case strings.HasPrefix(path, "/console/trash/"):
		return "trash"
	case strings.HasPrefix(path, "/console/app"), path == "/console/tokens", strings.HasPrefix(path, "/console/tokens/"):
		return "apps"
	case path == "/console/purge", path == "/console/restore":
		return "notes"
	case path == "/console/time-zone":
		return "status"
	}
	return "activity"
}

// choiceNames are the form fields as the sign-in page names them.
var choiceNames = map[string]string{"include": "Conflicts ticked to undo anyway", "app": "App", "since": "Since",
	"name": "Name", "path": "Note", "confirm": "Confirmation", "id": "App", "token": "Token",
	"read": "Read patterns", "write": "Write patterns", "private": "Private notes"}

// pendingData is the page after the sign-in again: what waits, with the
// owner's choices, and the button that does it.
type pendingData struct {
	signInData
	Action string // where the button sends the form: this page's path
}

// pending finds the form kept as the request's {id}: done when it was
// done already (the browser has been sent to its result), else its action.
func (c *Console) pending(w http.ResponseWriter, r *http.Request) (pid string, p pendingForm, a action, done bool, err error) {
	pid = r.PathValue("id")
	p, done, ok := c.out.takePending(pid, c.now())
	if !ok {
		return "", p, a, false, errFormGone
	}
	if done {
		http.Redirect(w, r, resultURL(p.result, true), http.StatusSeeOther)
		return pid, p, a, true, nil
	}
	if a = c.actions[p.path]; a.do == nil {
		return "", p, a, false, errFormGone
	}
	return pid, p, a, false, nil
}

// pendingPage is where the sign-in again returns to: it shows the form
// that waits and a button that does it. Opening it does nothing, so a
// browser that reopens it (history, a preloading tab) changes nothing;
// once done it sends the browser to the result.
func (c *Console) pendingPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	pid, p, a, done, err := c.pending(w, r)
	if err != nil || done {
		return err
	}
	if !c.recent(s) {
		return c.signInPage(w, r, pid, a, p.form)
	}
	d := pendingData{signInData: c.signInData(w, r, pid, a, p.form), Action: "/console/pending/" + pid}
	d.Title = "Do it now"
	c.pages.Render(w, http.StatusOK, "pending.html", d)
	return nil
}

// doPending does a form kept while the owner signed in again, once, and
// sends the browser to its result; sent again, it sends the browser there
// without doing anything.
func (c *Console) doPending(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	pid, p, a, done, err := c.pending(w, r)
	if err != nil || done {
		return err
	}
	if !c.recent(s) {
		return c.signInPage(w, r, pid, a, p.form)
	}
	res, mine, err := c.out.claim(r.Context(), p.key, c.now())
	if err != nil {
		return err
	}
	if !mine {
		c.out.donePending(pid, res)
		http.Redirect(w, r, resultURL(res, true), http.StatusSeeOther)
		return nil
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawQuery = p.path, ""
	r2.Form, r2.PostForm = p.form, p.form
	id, err := c.perform(w, r2, s, p.key, a)
	if id != "" {
		c.out.donePending(pid, id)
	}
	return err
}

// Refusals of the post/redirect/get machinery.
var (
	errForgedForm = &httpx.Error{Status: http.StatusBadRequest, Code: "unknown_form",
		Message: "This form was not made by this console, so nothing was done. Open the page again and send the form from there."}
	errResultGone = &httpx.Error{Status: http.StatusNotFound, Code: "result_gone",
		Message: "This result is no longer kept (results are kept 15 minutes, in the browser that did the action). Opening it did nothing; Activity lists what was done."}
	errFormGone = &httpx.Error{Status: http.StatusNotFound, Code: "form_gone",
		Message: "The form waiting for your sign-in is no longer kept (forms wait 15 minutes), so nothing was done. Open the page again and send it from there."}
)
