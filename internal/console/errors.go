package console

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// What the owner is told when a request fails: a stable code and one
// sentence; the detail goes to the request's log line.
var (
	errCrossOrigin = &httpx.Error{Status: http.StatusForbidden, Code: "cross_origin",
		Message: "This form was sent from another site. Open the console on this server and try again."}
	errNotRecent = &httpx.Error{Status: http.StatusForbidden, Code: "sign_in_again",
		Message: "This action needs a sign-in within the last 5 minutes. Sign in again and repeat it."}
)

// describeProblem titles the console's problem page and offers the way
// back.
func describeProblem(r *http.Request, e *httpx.Error) httpx.Problem {
	switch e.Code {
	case "signed_out":
		return httpx.Problem{Title: "Sign in", Link: "/login", LinkText: "Sign in"}
	case "sign_in_again":
		return httpx.Problem{Title: "Sign in again", Link: owner.ReauthURL(formPage(r)), LinkText: "Sign in again"}
	}
	return httpx.Problem{Title: "Not done", Link: "/console/activity", LinkText: "Back to the activity"}
}

// formPage is the console page whose form sent r, for coming back to it
// after signing in again. It reads only the form already parsed.
func formPage(r *http.Request) string {
	f := r.PostForm
	switch r.URL.Path {
	case "/console/tokens":
		return "/console/apps"
	case "/console/trash/delete":
		return "/console/trash"
	case "/console/purge":
		if p := f.Get("path"); p != "" {
			return NoteURL(p)
		}
	case "/console/app/purge", "/console/app/scope":
		if id := f.Get("id"); id != "" {
			return "/console/app?" + url.Values{"id": {id}}.Encode()
		}
		if tok := f.Get("token"); tok != "" {
			return "/console/app?" + url.Values{"token": {tok}}.Encode()
		}
	case "/console/undo-app":
		if app := f.Get("app"); app != "" {
			return "/console/undo-app?" + url.Values{"app": {app}, "since": {f.Get("since")}}.Encode()
		}
	}
	return "/console/activity"
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
