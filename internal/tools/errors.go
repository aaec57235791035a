package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

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

// vaultRefusal is a refusal the vault would give, checked here first (so
// that it comes before the id is looked up); its sentence is the table's.
func vaultRefusal(code, reason string) error { return &vault.Error{Code: code, Reason: reason} }

// key is where a refusal's sentence stands in toolMessages: its code, or
// its code and reason (see vault.Error.Key).
func key(code, reason string) string { return (&vault.Error{Code: code, Reason: reason}).Key() }

// Reasons of the tools' own refusals: arguments checked before the vault
// is asked, and the tools' own codes. They are told from toolMessages like
// the vault's, and carried in a vault.Error like them.
const (
	reasonOffsetNegative    = "offset_negative"
	reasonOffsetPastEnd     = "offset_past_end" // Size: the text's length in characters
	reasonVersionOfFile     = "version_of_file"
	reasonIDAndIDs          = "id_and_ids"
	reasonNoIDOrIDs         = "no_id_or_ids"
	reasonTooManyIDs        = "too_many_ids" // Count, Limit
	reasonOffsetWithIDs     = "offset_with_ids"
	reasonVersionWithIDs    = "version_with_ids"
	reasonEmptyIDInIDs      = "empty_id_in_ids"
	reasonNoID              = "no_id"
	reasonNoQuery           = "no_query"
	reasonLinkQuery         = "link_query" // Subject: the note the link names
	reasonNegative          = "negative"   // Subject: the argument
	reasonForeignListCursor = "foreign_list_cursor"
	reasonVersionRef        = "version_ref"
	reasonIDIntoPart        = "id_into_part"    // Subject: the note, Detail: the tool
	reasonIDIntoSection     = "id_into_section" // Subject: the note, Detail: the tool
	reasonNoPath            = "no_path"
	reasonNoTo              = "no_to"
	reasonBadAt             = "bad_at"
	reasonDryRunDaily       = "dry_run_daily"
	reasonArgsNotUTF8       = "args_not_utf8"
	reasonArgNotUTF8        = "arg_not_utf8" // Subject: the argument
	reasonSchema            = "schema"       // Subject: what the SDK found wrong
	reasonNoDaily           = "no_daily"     // Subject: the day, Detail: the path
	reasonFetchVersion      = "fetch_version"
	reasonListVersions      = "list_versions"
	reasonUndo              = "undo"
)

// toolMessages are the sentences a client is told of a refused call, one
// per error code and one per code and reason, phrased in terms of this
// server's tools and arguments: the one table of them, for the vault's
// refusals and the tools' own. A refusal reports what went wrong as data
// (code, reason and values, see vault.Error); values stand in braces (see
// vault.Error.Fill), and {why} is the sentence of the refusal behind this
// one. Internal errors all get the one sentence of their code, whatever
// their reason.
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
	vault.CodeNoMatch:            "old_text was not found in the note; fetch the note again and copy the exact text, including spaces and line breaks",
	vault.CodeMultipleMatches:    "old_text occurs {times}; include more surrounding text so it occurs once, or set replace_all to change every occurrence",
	vault.CodeBadFrontmatter:     "the note's frontmatter is not valid YAML; repair it with edit_note before using update_frontmatter",
	vault.CodeNotANote:           "only Markdown notes (paths ending in .md) can be used here",
	vault.CodeInvalidArgument:    "check the arguments against the tool's input schema and try again",
	vault.CodeInternal:           "something went wrong on the server; try again later, and tell the owner if it keeps happening",
	vault.CodeOutsideScope:       "this app may not reach notes here; use notes inside its scope, or ask the owner to widen the app's scope in the console",
	vault.CodeAmbiguousName:      "several notes have this name; pass the path of the one you mean, from candidates",
	vault.CodeHistoryUnavailable: "the note's history could not be saved, so the change was refused to keep the old text safe; tell the owner (the server log says why) and try again later",

	key(vault.CodeInvalidArgument, vault.ReasonVersionForm):          "the version {subject_q} is not a note version (12 hex digits); fetch the note and pass its metadata.version as version",
	key(vault.CodeInvalidArgument, vault.ReasonNoText):               "text is empty; pass the Markdown to add",
	key(vault.CodeInvalidArgument, vault.ReasonNoOldText):            "old_text is empty; copy the exact text to replace from the note",
	key(vault.CodeInvalidArgument, vault.ReasonNoHeading):            "heading is empty; pass the heading of the section to replace",
	key(vault.CodeInvalidArgument, vault.ReasonNoKeys):               "nothing to change; pass keys to set, keys to remove, or both",
	key(vault.CodeInvalidArgument, vault.ReasonFrontmatterLimit):     "the frontmatter would be past what cortex reads ({limit_n} KiB, {count} keys); keep it smaller, or shorten it with an edit first",
	key(vault.CodeInvalidArgument, vault.ReasonDanglingAlias):        "the change would remove or replace a value that an alias (*name) elsewhere in the frontmatter uses; change the frontmatter with edit_note instead",
	key(vault.CodeInvalidArgument, vault.ReasonKeyEmptySet):          "a key in set is empty; name every frontmatter key you set",
	key(vault.CodeInvalidArgument, vault.ReasonKeyEmptyRemove):       "a key in remove is empty; name every frontmatter key you remove",
	key(vault.CodeInvalidArgument, vault.ReasonKeySetAndRemoved):     "the key {subject_q} is both in set and in remove; put it in set to change its value, or in remove to delete it, not both",
	key(vault.CodeInvalidArgument, vault.ReasonKeyValue):             "frontmatter value for {subject_q} cannot be written as YAML; use strings, numbers, booleans, null, lists or objects",
	key(vault.CodeInvalidArgument, vault.ReasonFrontmatterUnwritten): "frontmatter cannot be written as YAML",
	key(vault.CodeInvalidArgument, vault.ReasonObsidianOperator):     "search does not have Obsidian's {subject}; use words, \"phrases\", OR, -word, tag:#x, path:x, file:x, [property:value], task-todo:x, line:(a b) or a folder",
	key(vault.CodeInvalidArgument, vault.ReasonTooManyAlternatives):  "the query has more than 32 alternatives (each OR counts, and each combination of property values such as [a:x OR y] [b:1 OR 2]); split it into several searches",
	key(vault.CodeInvalidArgument, vault.ReasonLineNeedsWords):       "{subject} needs the words to find on the line, as in {subject}call or {subject}(call Ana); to find every open task, search - [ ] instead",
	key(vault.CodeInvalidArgument, vault.ReasonOperatorNeedsValue):   "{subject} needs its value right after it, as in tag:#project, path:Daily, file:budget or folder:Projects; add one or leave it out",
	key(vault.CodeInvalidArgument, vault.ReasonEmptyQuery):           "give words to search for, a tag or a folder",
	key(vault.CodeInvalidArgument, vault.ReasonForeignCursor):        "the cursor does not belong to this search; repeat the search without a cursor",
	key(vault.CodeInvalidArgument, vault.ReasonSamePath):             "the new path is the same as the old one; give a different path",
	key(vault.CodeInvalidArgument, vault.ReasonNoName):               "name a note by its path, like Projects/Plan.md, or by its name, like Plan",
	key(vault.CodeInvalidArgument, vault.ReasonBlockAndPlace):        "name either a block to add after, or a place at the start or end of a section, not both",
	key(vault.CodeInvalidArgument, vault.ReasonNotUTF8):              "the text is not valid UTF-8; send it as UTF-8 text",
	key(vault.CodeInvalidPath, vault.ReasonFileInNewPath):            "a part of this path is a file, not a folder; choose another path",
	key(vault.CodeInvalidPath, vault.ReasonLinkInPath):               "a folder in this path is a symbolic link, which cortex never follows; use the real path",
	key(vault.CodeInvalidPath, vault.ReasonTrashBlocked):             "the trash holds a file where this note's folder would go, so the note cannot be moved there; ask the owner to tidy .trash/",
	key(vault.CodeInvalidPath, vault.ReasonLinkFile):                 "this file is a symbolic link, which cortex never follows; use the path of the file it points to",
	key(vault.CodeInvalidPath, vault.ReasonLinkNote):                 "this note is a symbolic link, which cortex never follows; use the path of the note it points to, or ask the owner to replace the link with the note itself",
	key(vault.CodeInvalidPath, vault.ReasonPathEmpty):                "the path is empty; give a vault-relative path such as Projects/Plan.md",
	key(vault.CodeInvalidPath, vault.ReasonPathNotUTF8):              "the path is not valid UTF-8; send names as UTF-8 text",
	key(vault.CodeInvalidPath, vault.ReasonPathTooLong):              "the path is {size_n} bytes long, over the limit of {limit_n}; choose a shorter path",
	key(vault.CodeInvalidPath, vault.ReasonPathAbsolute):             "the path starts with '/'; give it relative to the top of the vault, such as Projects/Plan.md",
	key(vault.CodeInvalidPath, vault.ReasonPathEmptyPart):            "the path has an empty part ('//' or a '/' at the end); remove it",
	key(vault.CodeInvalidPath, vault.ReasonPathDotPart):              "the path has a '.' or '..' part; give the path from the top of the vault without them",
	key(vault.CodeInvalidPath, vault.ReasonNameTooLong):              "a name in the path is {size_n} bytes long, over the limit of {limit_n}; choose a shorter name",
	key(vault.CodeInvalidPath, vault.ReasonPathBackslash):            "the path holds a backslash; separate folders with '/'",
	key(vault.CodeInvalidPath, vault.ReasonPathInvisible):            "the path holds a control character or an invisible one (such as a zero-width space or a direction mark); remove it",
	key(vault.CodeInvalidPath, vault.ReasonLinkChar):                 "the name {subject_q} holds {detail_q}, and Obsidian cannot link to a name with any of # ^ [ ] | (a link reads them as heading, block or alias marks); choose a name without them",
	key(vault.CodeInvalidPath, vault.ReasonWindowsChar):              "the name {subject_q} holds {detail_q}, and names with any of < > : \" | ? * cannot be stored on Windows or Android; choose a name without them",
	key(vault.CodeInvalidPath, vault.ReasonTrailingDot):              "the name {subject_q} ends in a dot or a space, which Windows drops, so that it would name another file there; remove it",
	key(vault.CodeInvalidPath, vault.ReasonDeviceName):               "the name {subject_q} is a device name that Windows reserves (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension); choose another name",
	key(vault.CodeInvalidPath, vault.ReasonHiddenPart):               "hidden folders and files (names starting with '.') are not for notes, because list and search never show them; choose a path without such a part",
	key(vault.CodeInvalidPath, vault.ReasonDailyPath):                "the daily-notes settings give the path {subject_q}, which cortex cannot use: {why}",
	key(vault.CodeInvalidPath, vault.ReasonCaseFolder):               "a folder {subject_q} already exists here, differing only in case or Unicode form, and macOS, Windows and phones would take both for one; use its spelling",
	key(vault.CodeNotFound, vault.ReasonFileInPath):                  "a part of this path is a file, not a folder; check the path",
	key(vault.CodeNotFound, vault.ReasonNoSuchName):                  "no note has the path, name or alias {subject_q}; use search or list to find it",
	key(vault.CodeNotFound, vault.ReasonNoSuchNameClose):             "no note has the path, name or alias {subject_q}; pass one of the close names in candidates, or use search to find it",
	key(vault.CodeNotFound, vault.ReasonReplaced):                    "the note was replaced while being read; try again",
	key(vault.CodeNoteExists, vault.ReasonTrashFull):                 "the trash already holds too many notes of this name; ask the owner to empty .trash/",
	key(vault.CodeNoteExists, vault.ReasonCaseTwin):                  "a note or folder {subject_q} already exists here, differing only in case or Unicode form, and macOS, Windows and phones would take both for one; edit that note, or choose another name",
	key(vault.CodeProtectedPath, vault.ReasonAlreadyInTrash):         "this note is already in .trash/; nothing in .trash/ is removed by cortex",
	key(vault.CodeProtectedPath, vault.ReasonMoveWithinTrash):        "a note in .trash/ is only moved out of it, to restore it; give a path outside .trash/",
	key(vault.CodeProtectedPath, vault.ReasonMoveIntoTrash):          "notes go to .trash/ by delete_note, which keeps them for the owner to restore; call delete_note on this note instead of moving it",
	key(vault.CodeProtectedPath, vault.ReasonHiddenFile):             "hidden files and folders are not shown through cortex",
	key(vault.CodeProtectedPath, vault.ReasonInstructions):           "the instructions file is read-only here; ask the owner to change it",
	key(vault.CodeProtectedPath, vault.ReasonInTrash):                "notes in .trash/ cannot be changed; move the note out of .trash/ first to restore it",
	key(vault.CodeProtectedPath, vault.ReasonForgetOutsideTrash):     "only notes in .trash/ can be deleted for good; delete the note first",
	key(vault.CodeNotANote, vault.ReasonNotShown):                    "this is neither a note nor an attachment cortex shows",
	key(vault.CodeNotANote, vault.ReasonSpecialFile):                 "this path is a folder or a special file; list it instead",
	key(vault.CodeNotANote, vault.ReasonSpecialNote):                 "this path is a folder or a special file, not a note; list it instead",
	key(vault.CodeNotANote, vault.ReasonFolder):                      "this is a folder, not a note; list it to see its notes",
	key(vault.CodeNotANote, vault.ReasonConflictCopy):                "this is a Syncthing conflict copy (its name holds .sync-conflict-): it can be read or deleted but not changed; merge its text into the note it copies, then delete it",
	key(vault.CodeNotANote, vault.ReasonConflictName):                "names holding .sync-conflict- are Syncthing conflict copies, which cortex never writes; choose another name",
	key(vault.CodeSectionNotFound, vault.ReasonNotAmong):             "no heading matches this section; pass one of the note's headings listed in candidates, like \"## Plan\"",
	key(vault.CodeSectionNotFound, vault.ReasonNoHeadings):           "the note has no headings; leave the section out to use the whole note",
	key(vault.CodeSectionNotFound, vault.ReasonNoBlocks):             "the note has no block ^{subject}, nor any other; leave the block out to read the whole note",
	key(vault.CodeSectionNotFound, vault.ReasonNoBlock):              "the note has no block ^{subject}; pass one of its blocks, listed in candidates, or leave the block out to read the whole note",
	key(vault.CodeSectionNotFound, vault.ReasonNoAnchor):             "the note has no block ^{subject}; fetch the note to see its block ids, or leave the block out to add at the end",
	key(vault.CodeWriteTooLarge, vault.ReasonSizes):                  "the text sent is {size}, over the limit of {limit} for one write; send it in smaller parts, for example a create_note followed by several append calls",
	key(vault.CodeNoteTooLarge, vault.ReasonSizes):                   "the note is {size}, over the largest size cortex reads, {limit}; ask the owner to split it",
	key(vault.CodeNoteTooLarge, vault.ReasonOverLimit):               "the note is over the largest size cortex reads, {limit}; ask the owner to split it",
	key(vault.CodeNoteTooLarge, vault.ReasonWouldGrow):               "the note would grow to {size}, over the largest size cortex reads, {limit}; write the text into a new note instead",
	key(vault.CodeOutsideScope, vault.ReasonWrite):                   "this app may not change notes here: its scope is {subject}; choose a path inside it, or ask the owner to widen the app's scope in the console",
	key(vault.CodeOutsideScope, vault.ReasonDaily):                   "the daily notes lie outside this app's scope ({subject}); fetch or append to notes inside it, or ask the owner to widen the app's scope in the console",
	key(vault.CodeAmbiguousName, vault.ReasonNamed):                  "{count} notes are named {subject_q}; pass the path of the one you mean, from candidates",

	// The tools' own refusals.
	key(vault.CodeInvalidArgument, reasonOffsetNegative):    "offset must not be negative; leave it out to start at the beginning",
	key(vault.CodeInvalidArgument, reasonOffsetPastEnd):     "offset is past the end of the text ({size_n} characters); use a smaller offset or leave it out",
	key(vault.CodeInvalidArgument, reasonVersionOfFile):     "earlier versions are kept for notes only; leave version out to read this file",
	key(vault.CodeInvalidArgument, reasonIDAndIDs):          "pass either id or ids, not both",
	key(vault.CodeInvalidArgument, reasonNoIDOrIDs):         "id is empty; pass the note's path or name, or ids to read several",
	key(vault.CodeInvalidArgument, reasonTooManyIDs):        "ids lists {count} notes; pass at most {limit_n} and read the rest in another call",
	key(vault.CodeInvalidArgument, reasonOffsetWithIDs):     "offset applies to one note; fetch that note alone with id and offset",
	key(vault.CodeInvalidArgument, reasonVersionWithIDs):    "version applies to one note; fetch that note alone with id and version",
	key(vault.CodeInvalidArgument, reasonEmptyIDInIDs):      "this id is empty; pass the note's path or name",
	key(vault.CodeInvalidArgument, reasonNoID):              "id is empty; pass the note's path or name",
	key(vault.CodeInvalidArgument, reasonNoQuery):           "query is empty; pass what to search for, or a folder or tag to list",
	key(vault.CodeInvalidArgument, reasonLinkQuery):         "search finds words, not links; for the notes that link to [[{subject}]] and those it links to, call links with id {subject_q}",
	key(vault.CodeInvalidArgument, reasonNegative):          "{subject} must not be negative; leave it out for the default",
	key(vault.CodeInvalidArgument, reasonForeignListCursor): "cursor is not one this tool returned; pass next_cursor exactly, or leave cursor out to start again",
	key(vault.CodeInvalidArgument, reasonVersionRef):        "version must be the 12 hexadecimal digits of a metadata.version or of a version listed by recent with id",
	key(vault.CodeInvalidArgument, reasonIDIntoPart): "id points into {subject} (a section or block), but {detail} works on the whole note; pass {subject} as id, " +
		"and to change one section, use replace_section with the note as id and the section as heading",
	key(vault.CodeInvalidArgument, reasonIDIntoSection): "id points into {subject} (a section or block), but {detail} works on the whole note; pass {subject} as id, and name the section as heading",
	key(vault.CodeInvalidArgument, reasonNoPath):        "path is empty; pass a vault-relative path ending in .md",
	key(vault.CodeInvalidArgument, reasonNoTo):          "to is empty; pass the new vault-relative path ending in .md",
	key(vault.CodeInvalidArgument, reasonBadAt):         "at must be end, start, or ^ and a block id (like ^ab12); leave it out to add at the end",
	key(vault.CodeInvalidArgument, reasonDryRunDaily):   "the daily note does not exist yet, so a dry run can show only text added at its end; leave section and at out, or leave dry_run out",
	key(vault.CodeInvalidArgument, reasonArgsNotUTF8):   "the arguments hold bytes that are not valid UTF-8; send every name and text as UTF-8",
	key(vault.CodeInvalidArgument, reasonArgNotUTF8): "{subject} is not valid UTF-8 (it holds invalid bytes or an unpaired \\u surrogate escape); " +
		"send it as UTF-8 text, as nothing is stored with such bytes replaced",
	key(vault.CodeInvalidArgument, reasonSchema): "the arguments do not match the tool's input schema ({subject}); fix them and call again",
	key(vault.CodeNotFound, reasonNoDaily):       "there is no daily note for {subject} yet (it would be {detail}); append to it to create it",
	codeUnknownVersion:                           "this note has no stored version {subject_q}; call recent with the note's id to list the versions it has",
	key(codeNoHistory, reasonFetchVersion):       "this server keeps no history of the notes, so only the current version can be read; leave version out",
	key(codeNoHistory, reasonListVersions):       "this server keeps no history of the notes; leave id out to list the recently changed notes",
	key(codeNoHistory, reasonUndo):               "cortex keeps no note history here, so a change cannot be undone; ask the owner to turn the history on",
	codeUndoConflict: "the note changed after this change, so undoing it here would also undo what came after; " +
		"compare the versions and restore one in the console: {subject}",
	codeNotUndoable: "only this app's own last change to a note's text can be undone here; undo anything else in the console: {subject}",
}

// toolSentence is what the client is told of a vault refusal: the
// sentence of its reason, else of its code, with its values filled in.
func toolSentence(ve *vault.Error) string {
	msg, ok := toolMessages[ve.Key()]
	if !ok {
		msg, ok = toolMessages[ve.Code]
	}
	if !ok {
		// A code the table lacks (a test keeps it from happening): the
		// vault's own sentence for people says at least what is wrong.
		return ve.Message
	}
	if ve.Why != nil {
		msg = strings.ReplaceAll(msg, "{why}", toolSentence(ve.Why))
	}
	return ve.Fill(msg)
}

// toolError maps any error to what the client sees, and logs what the
// client must not see. Unknown errors become "internal".
func (s *server) toolError(c call, err error) *toolError {
	var ve *vault.Error
	if !errors.As(err, &ve) || ve.Code == vault.CodeInternal || ve.Code == "" {
		s.log.Error("tool failed", "tool", c.tool, "app", c.app, "err", err)
		return &toolError{Code: vault.CodeInternal, Message: toolMessages[vault.CodeInternal]}
	}
	if ve.Err != nil {
		s.log.Debug("tool refused", "tool", c.tool, "app", c.app, "code", ve.Code, "err", ve.Err)
	}
	te := &toolError{
		Code:           ve.Code,
		Message:        toolSentence(ve),
		CurrentVersion: ve.Version,
		Candidates:     ve.Candidates,
		More:           ve.More,
	}
	if ve.Code == vault.CodeMultipleMatches {
		te.Count = ve.Count // the vault counts other things too
	}
	return te
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
		e := &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonSchema, Subject: detail}
		if detail == `required: missing properties: ["version"]` {
			// Only the version is missing: say where one comes from.
			e = &vault.Error{Code: vault.CodeVersionRequired}
		}
		te := &toolError{Code: e.Code, Message: toolSentence(e)}
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
