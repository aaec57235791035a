package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// toolError is the structured error of a failed tool call. Message is one
// sentence telling the model what to do next.
type toolError struct {
	Code           string   `json:"code" jsonschema:"stable error code, e.g. note_changed"`
	Message        string   `json:"message" jsonschema:"what to do next"`
	CurrentVersion string   `json:"current_version,omitempty" jsonschema:"the note's current version (note_changed)"`
	Count          int      `json:"count,omitempty" jsonschema:"how many places old_text matched (multiple_matches)"`
	Candidates     []string `json:"candidates,omitempty" jsonschema:"what to choose from: matching headings, the note's headings, or notes; at most 50"`
	More           int      `json:"more,omitempty" jsonschema:"candidates left out"`
}

// errorOutput is the structured content of an error result.
type errorOutput struct {
	Error *toolError `json:"error"`
}

// text is the error as the model reads it in the text content:
// "code: sentence", plus the details it needs to retry.
func (e *toolError) text() string {
	var b strings.Builder
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.CurrentVersion != "" {
		fmt.Fprintf(&b, " (current_version: %s)", e.CurrentVersion)
	}
	if len(e.Candidates) > 0 {
		fmt.Fprintf(&b, " (candidates: %q", e.Candidates)
		if e.More > 0 {
			fmt.Fprintf(&b, " and %d more", e.More)
		}
		b.WriteByte(')')
	}
	return b.String()
}

// invalidArgument reports a bad argument; msg says how to fix it.
func invalidArgument(msg string) error {
	return &vault.Error{Code: vault.CodeInvalidArgument, Message: msg}
}

// toolMessages are the sentences a client is told, one per error code,
// phrased in terms of this server's tools and arguments: the one table of
// them. They stand in for the vault's general sentence of a code; a
// sentence the vault wrote for the very failure (naming the rule, the
// limit or the key, see vault.Error.Specific) is passed on instead, in the
// "code: sentence" form. multiple_matches takes how often old_text occurs.
var toolMessages = map[string]string{
	vault.CodeInvalidPath:      "the path is not valid; use a vault-relative path with '/' between folders, like projects/plan.md",
	vault.CodeProtectedPath:    "this path is protected and cannot be used through cortex; choose a note outside the protected folders",
	vault.CodeNotFound:         "nothing exists at this path; use search or list to find the right id",
	vault.CodeNoteExists:       "a note already exists at this path; fetch it and change it with an edit tool, or choose another path",
	vault.CodeNoteChanged:      "the note changed since you read it; fetch it again and retry with the new version",
	vault.CodeVersionRequired:  "this change needs the note's version; fetch the note and pass its metadata.version as version",
	vault.CodeWriteTooLarge:    "the text is too large for one write; send it in smaller parts, for example several append calls",
	vault.CodeNoteTooLarge:     "the note is too large to handle through cortex; ask the owner to split it",
	vault.CodeDiskLow:          "the server is low on disk space, so writes are paused; tell the owner and do not retry now",
	vault.CodeVaultReplaced:    "the vault folder was moved or replaced on the server, so notes can be neither read nor written; tell the owner to restart cortex and do not retry now",
	vault.CodeSectionNotFound:  "no heading matches this section; fetch the note to see its headings and pass one exactly",
	vault.CodeSectionAmbiguous: "several headings match this section; name it with its level as shown in candidates (like \"## Plan\"), or if two are identical, rename one with edit_note first",
	vault.CodeSectionHasSubsections: "this section holds the subsections listed in candidates, which replace_section would erase with it; " +
		"replace one of them, change exact text with edit_note, or set include_subsections to replace them all",
	vault.CodeNoMatch:         "old_text was not found in the note; fetch the note again and copy the exact text, including spaces and line breaks",
	vault.CodeMultipleMatches: "old_text occurs %s; include more surrounding text so it occurs once, or set replace_all to change every occurrence",
	vault.CodeBadFrontmatter:  "the note's frontmatter is not valid YAML; repair it with edit_note before using update_frontmatter",
	vault.CodeNotANote:        "only Markdown notes (paths ending in .md) can be used here",
	vault.CodeInvalidArgument: "check the arguments against the tool's input schema and try again",
	vault.CodeInternal:        "something went wrong on the server; try again later, and tell the owner if it keeps happening",
}

// toolError maps any error to what the client sees, and logs what the
// client must not see. Unknown errors become "internal".
func (s *server) toolError(c call, err error) *toolError {
	var ve *vault.Error
	if !errors.As(err, &ve) || ve.Code == vault.CodeInternal || ve.Code == "" {
		s.log.Error("tool failed", "tool", c.tool, "app", c.app, "err", err)
		return &toolError{Code: vault.CodeInternal, Message: toolMessages[vault.CodeInternal]}
	}
	msg, ok := toolMessages[ve.Code]
	switch {
	case ve.Code == vault.CodeMultipleMatches:
		// The tool's sentence names replace_all and says how often, all
		// that the vault's own sentence says.
		msg = fmt.Sprintf(msg, occurrences(ve.Count))
	case !ok || ve.Specific():
		msg = sentence(ve.Message)
	}
	if msg == "" {
		msg = toolMessages[vault.CodeInvalidArgument]
	}
	if ve.Err != nil {
		s.log.Debug("tool refused", "tool", c.tool, "app", c.app, "code", ve.Code, "err", ve.Err)
	}
	return &toolError{
		Code:           ve.Code,
		Message:        msg,
		CurrentVersion: ve.Version,
		Count:          ve.Count,
		Candidates:     ve.Candidates,
		More:           ve.More,
	}
}

// occurrences says how often old_text occurs: the count when the vault
// counted, else "more than once".
func occurrences(n int) string {
	if n > 1 {
		return strconv.Itoa(n) + " times"
	}
	return "more than once"
}

// sentence fits a vault message to the "code: sentence" form: first letter
// lowercased, final period dropped.
func sentence(m string) string {
	m = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m), "."))
	if m != "" && m[0] >= 'A' && m[0] <= 'Z' {
		m = strings.ToLower(m[:1]) + m[1:]
	}
	return m
}

// errorCode is the journal's result code for err ("ok" when nil).
func errorCode(err error) string {
	if err == nil {
		return "ok"
	}
	var ve *vault.Error
	if errors.As(err, &ve) && ve.Code != "" {
		return ve.Code
	}
	return vault.CodeInternal
}

// Schemas are derived from fixed Go types, so they are computed once per
// process and shared, read-only, by every session's server: building them
// anew for each session costs milliseconds and megabytes, which a small
// board serving clients that open many sessions should not pay. These two
// memos and writeTools are the package's only package-level values, and
// none ever changes what a caller observes.
var (
	schemaCache   = mcp.NewSchemaCache()
	outputSchemas sync.Map // reflect.Type -> *jsonschema.Schema
)

// outputSchema returns the memoised output schema of Out.
func outputSchema[Out any]() *jsonschema.Schema {
	rt := reflect.TypeFor[Out]()
	if s, ok := outputSchemas.Load(rt); ok {
		return s.(*jsonschema.Schema)
	}
	s, _ := outputSchemas.LoadOrStore(rt, buildOutputSchema[Out]())
	return s.(*jsonschema.Schema)
}

// buildOutputSchema infers the schema of Out and lets it also describe an
// error result: the "error" property is added, and the required success
// fields become one alternative of an anyOf whose other alternative
// requires "error".
func buildOutputSchema[Out any]() *jsonschema.Schema {
	sch, err := jsonschema.For[Out](nil)
	if err != nil {
		// Out types are fixed at compile time; a failure is a programming
		// error caught by every test.
		panic(fmt.Sprintf("tools: output schema: %v", err))
	}
	errSch, err := jsonschema.For[toolError](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: error schema: %v", err))
	}
	errSch.Description = "present instead of the other fields when the call failed"
	if sch.Properties == nil {
		sch.Properties = map[string]*jsonschema.Schema{}
	}
	sch.Properties["error"] = errSch
	singleTypes(sch)
	if len(sch.Required) > 0 {
		sch.AnyOf = []*jsonschema.Schema{
			{Required: sch.Required},
			{Required: []string{"error"}},
		}
		sch.Required = nil
	}
	return sch
}

// schemaErrors names the tools when a call asks for one cortex does not
// have, and turns the SDK's own refusals of a tool call (arguments that
// do not match the input schema, caught before any handler runs) into the
// same shape as every other tool error: "invalid_argument: ..." text and a
// structured error. A refused write is still a write attempt, so it is
// journaled like any other.
func (s *server) schemaErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if je := (*jsonrpc.Error)(nil); method == "tools/call" && errors.As(err, &je) &&
			je.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(je.Message, "unknown tool ") {
			// A guessed name (read_note for fetch): name the real ones, so
			// that the next call can be right without a tools/list.
			return nil, &jsonrpc.Error{Code: je.Code, Message: je.Message + "; cortex's tools are " +
				strings.Join(s.names, ", ") + " (tools/list gives their arguments)"}
		}
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || method != "tools/call" || !ok || !r.IsError || r.StructuredContent != nil {
			return res, err
		}
		detail := ""
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				detail += tc.Text
			}
		}
		detail = strings.TrimPrefix(detail, `validating "arguments": `)
		detail = strings.TrimPrefix(detail, "validating root: ")
		te := &toolError{
			Code:    vault.CodeInvalidArgument,
			Message: "the arguments do not match the tool's input schema (" + detail + "); fix them and call again",
		}
		if detail == `required: missing properties: ["version"]` {
			// Only the version is missing: say where one comes from.
			te = &toolError{Code: vault.CodeVersionRequired, Message: toolMessages[vault.CodeVersionRequired]}
		}
		r.Content = []mcp.Content{&mcp.TextContent{Text: te.text()}}
		r.StructuredContent = errorOutput{Error: te}
		if cr, ok := req.(*mcp.CallToolRequest); ok {
			s.recordRefused(ctx, cr, te.Code)
		}
		return r, nil
	}
}

// recordRefused journals a write call refused before its handler ran: a
// refused write is still a write attempt.
func (s *server) recordRefused(ctx context.Context, cr *mcp.CallToolRequest, code string) {
	if cr.Params == nil || !s.writes[cr.Params.Name] {
		return
	}
	var args struct {
		ID      any `json:"id"`
		Path    any `json:"path"`
		Version any `json:"version"`
	}
	_ = json.Unmarshal(cr.Params.Arguments, &args)
	p, _ := args.ID.(string)
	if p == "" {
		p, _ = args.Path.(string)
	}
	v, _ := args.Version.(string)
	if p == "" || !utf8.ValidString(p) {
		p = "(unknown)"
	}
	s.record(ctx, call{tool: cr.Params.Name, app: s.appFor(cr)}, p, v, "", &vault.Error{Code: code})
}

// notUTF8 returns the name of the first argument (in name order) whose
// value holds bytes that are not UTF-8 or an escaped lone surrogate
// ("\ud800"), or "" when all are valid. JSON decoding would silently turn
// either into U+FFFD, so that a note would be stored under another name or
// with other text than was sent.
func notUTF8(raw json.RawMessage) (string, bool) {
	if utf8.Valid(raw) && !loneSurrogate(raw) {
		return "", false
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return "", true
	}
	names := make([]string, 0, len(args))
	for k, v := range args {
		if !utf8.Valid(v) || loneSurrogate(v) {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return "", true // in a name, not a value
	}
	slices.Sort(names)
	return names[0], true
}

// loneSurrogate reports a \uD800-\uDFFF escape in JSON text that is not
// half of a surrogate pair.
func loneSurrogate(b []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 {
			return false
		}
		i += k
		if i+1 >= len(b) || b[i+1] != 'u' {
			i += 2
			continue
		}
		r, ok := hex4(b[i+2:])
		switch {
		case !ok:
			return false // not valid JSON; the decoder says so
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r < 0xDC00:
			if i+7 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
				return true
			}
			if lo, ok := hex4(b[i+8:]); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 12
		default:
			i += 6
		}
		if i >= len(b) {
			return false
		}
	}
}

// hex4 decodes four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// singleTypes rewrites every nullable type the schema inference gives a
// slice, map or pointer (type ["null", "array"]) into the one non-null type:
// a missing value is absent, never null, in what cortex sends and accepts,
// and single-type schema dialects (Gemini's) and strict checkers (the MCP
// Inspector's --strict) refuse or warn about type lists.
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		for _, t := range s.Types {
			if t != "null" {
				s.Type = t
			}
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range list {
			singleTypes(x)
		}
	}
	for _, d := range s.Defs {
		singleTypes(d)
	}
	singleTypes(s.Items)
	singleTypes(s.AdditionalProperties)
}
