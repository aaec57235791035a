package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// The consent page lets the owner choose what an app may use (issue 19):
// the whole vault, the whole vault read-only, or chosen top folders and
// patterns; and whether it sees notes marked private. What the app asked
// for (its OAuth scope) is the default and the ceiling: an app that asked
// only for notes:read never gets notes to change.

// Access choices, the values of the form's "access" field.
const (
	accessWhole   = "whole"
	accessRead    = "read"
	accessFolders = "folders"
)

// maxFolders bounds the folders listed on the page and the boxes read back.
const maxFolders = 200

// scopeChoice is the part of the consent page that offers the choice.
type scopeChoice struct {
	// CanWrite is set when the app asked for notes:write: only then are
	// there write boxes and a read-only choice.
	CanWrite bool
	Folders  []string
	// FoldersMissing is set when the folders could not be listed.
	FoldersMissing bool
}

// topFolders lists the vault's top folders for the page; a failure leaves
// the patterns field, and is logged.
func (s *Server) topFolders(ctx context.Context) ([]string, bool) {
	if s.folders == nil {
		return nil, false
	}
	names, err := s.folders(ctx)
	if err != nil {
		s.log.Warn("could not list the vault's folders for the consent page", "err", err)
		return nil, true
	}
	if len(names) > maxFolders {
		names = names[:maxFolders]
	}
	return names, false
}

// errBadChoice is the consent form's answer to a choice that cannot be
// granted; the request is left waiting, so the owner can go back.
func errBadChoice(msg string, cause error) *httpx.Error {
	return &httpx.Error{Status: http.StatusBadRequest, Code: "bad_scope_choice", Message: msg + " Go back and choose again.", Err: cause}
}

// chooseScope reads the owner's choice from the consent form: the OAuth
// scope granted (within asked) and the part of the vault.
func chooseScope(form url.Values, asked string) (granted string, vs scope.Scope, err error) {
	canWrite := slices.Contains(strings.Fields(asked), ScopeWrite)
	vs.Private = form.Get("private") != ""
	access := form.Get("access")
	picked := len(form["read"])+len(form["write"]) > 0 ||
		strings.TrimSpace(form.Get("read_patterns")+form.Get("write_patterns")) != ""
	if picked && access != accessFolders {
		// Folders ticked under "the whole vault" are a slip, not a choice
		// to guess at in the app's favour.
		return "", scope.Scope{}, errBadChoice("You chose folders or patterns but also the whole vault; pick \"Only the folders and patterns below\" or clear them.", nil)
	}
	switch access {
	case "", accessWhole:
		return asked, vs, nil
	case accessRead:
		return readOnly(asked), vs, nil
	case accessFolders:
	default:
		return "", scope.Scope{}, errBadChoice("Choose the whole vault, read only, or folders.", nil)
	}
	readBoxes, writeBoxes := form["read"], form["write"]
	writeText := strings.TrimSpace(form.Get("write_patterns"))
	if !canWrite && (len(writeBoxes) > 0 || writeText != "") {
		return "", scope.Scope{}, errBadChoice("This app asked only to read notes; it cannot be given notes to change.", nil)
	}
	if len(readBoxes)+len(writeBoxes) > 2*maxFolders {
		return "", scope.Scope{}, errBadChoice("Too many folders were sent.", nil)
	}
	// Stored as JSON, which turns broken UTF-8 into something else.
	for _, v := range append(append([]string{form.Get("read_patterns"), writeText}, readBoxes...), writeBoxes...) {
		if !utf8.ValidString(v) {
			return "", scope.Scope{}, errBadChoice("A folder or pattern is not valid text.", nil)
		}
	}
	var readPats, writePats []string
	for _, f := range readBoxes {
		readPats = append(readPats, literal(f))
	}
	// A folder it may change it may read too, and so for patterns.
	for _, f := range writeBoxes {
		readPats = append(readPats, literal(f))
		writePats = append(writePats, literal(f))
	}
	typed := func(text string) []string {
		var out []string
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	readPats = append(readPats, typed(form.Get("read_patterns"))...)
	readPats = append(readPats, typed(writeText)...)
	writePats = append(writePats, typed(writeText)...)
	if vs.Read, err = scope.ParsePatterns(dedup(readPats)); err != nil {
		return "", scope.Scope{}, errBadChoice(patternMessage(err), err)
	}
	if vs.Write, err = scope.ParsePatterns(dedup(writePats)); err != nil {
		return "", scope.Scope{}, errBadChoice(patternMessage(err), err)
	}
	if vs.Read.Empty() {
		return "", scope.Scope{}, errBadChoice("Choose at least one folder or pattern, or the whole vault.", nil)
	}
	granted = asked
	if vs.Write.Empty() {
		// No write box and no write pattern: read only. (Empty write
		// patterns would mean every note it may see.)
		granted = readOnly(asked)
	}
	return granted, vs, nil
}

// patternMessage is the sentence for a pattern scope cannot read (it names
// the owner's own pattern and why).
func patternMessage(err error) string {
	if !errors.Is(err, scope.ErrPattern) {
		return "A pattern cannot be used."
	}
	return "The pattern " + strings.TrimPrefix(err.Error(), scope.ErrPattern.Error()+" ") + "."
}

// readOnly is the scope asked without notes:write, and with notes:read.
func readOnly(asked string) string {
	out := []string{ScopeRead}
	for _, sc := range strings.Fields(asked) {
		if sc != ScopeWrite && sc != ScopeRead {
			out = append(out, sc)
		}
	}
	return strings.Join(out, " ")
}

// literal is a pattern matching exactly the folder called name, with the
// characters patterns give a meaning escaped.
func literal(name string) string {
	var b strings.Builder
	for i, r := range name {
		if strings.ContainsRune(`\*?[`, r) || (i == 0 && r == '!') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func dedup(list []string) []string {
	var out []string
	for _, p := range list {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
