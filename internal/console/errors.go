package console

import (
	"errors"
	"net/http"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// What the owner is told when a request fails: a stable code and one
// sentence; the detail goes to the request's log line.
var (
	errCrossOrigin = &httpx.Error{Status: http.StatusForbidden, Code: "cross_origin",
		Message: "This form was sent from another site. Open the console on this server and try again."}
)

type problemData struct {
	Nav, Title, CSRF string
	httpx.Problem
}

// problemPage shows a refusal inside the console's frame, so the owner
// keeps the navigation. A visitor who is not signed in gets the shared
// problem page instead, rendered once per problem: refusals of strangers
// cost no template work and set no cookie.
func (c *Console) problemPage(w http.ResponseWriter, r *http.Request, e *httpx.Error) {
	if _, ok := c.o.Owner.Session(r); !ok {
		c.plainProblem(w, r, e)
		return
	}
	httpx.PageHeaders(w, httpx.PagePolicy{})
	pr := describeProblem(r, e)
	pr.Message, pr.Code = e.Message, e.Code
	c.pages.Render(w, e.Status, "problem-console.html", problemData{Title: pr.Title, CSRF: c.o.Owner.CSRFToken(w, r), Problem: pr})
}

// describeProblem titles the console's problem page and offers the way
// back.
func describeProblem(r *http.Request, e *httpx.Error) httpx.Problem {
	switch e.Code {
	case "signed_out":
		return httpx.Problem{Title: "Sign in", Link: "/login", LinkText: "Sign in"}
	case codeNoFolder:
		return httpx.Problem{Title: "No such folder", Link: "/notes/", LinkText: "The list of notes"}
	case codeQueryTooLong:
		return httpx.Problem{Title: "Search too long", Link: "/console/search", LinkText: "Search again"}
	}
	return httpx.Problem{Title: "Not done", Link: "/console/activity", LinkText: "Back to the activity"}
}

// refusal turns the history service's and the vault's refusals into what
// the owner sees; anything else is internal.
func refusal(err error) error {
	var he *history.Error
	if errors.As(err, &he) {
		status := http.StatusConflict
		switch he.Code {
		case history.CodeUnknownVersion, history.CodeNoHistory, history.CodeUnknownChange:
			status = http.StatusNotFound
		case history.CodeInvalid:
			status = http.StatusBadRequest
		}
		return &httpx.Error{Status: status, Code: he.Code, Message: he.Message, Err: err}
	}
	var ve *vault.Error
	if errors.As(err, &ve) {
		status := http.StatusBadRequest
		switch ve.Code {
		case vault.CodeNotFound:
			status = http.StatusNotFound
		case vault.CodeNoteChanged:
			status = http.StatusConflict
		case vault.CodeInternal:
			return httpx.Internal(err)
		}
		return &httpx.Error{Status: status, Code: ve.Code, Message: ve.Message, Err: err}
	}
	return err
}
