package vault

import (
	"maps"
	"strconv"
	"strings"
)

// Reasons say, within an error code, what exactly went wrong. Like the
// codes they are stable: a caller keys its own sentences on them.
const (
	// invalid_argument
	ReasonVersionForm          = "version_form"          // Subject: the version given
	ReasonNoText               = "no_text"               // nothing to add
	ReasonNoOldText            = "no_old_text"           // nothing to replace
	ReasonNoHeading            = "no_heading"            // no section named
	ReasonNoKeys               = "no_keys"               // no key to set or remove
	ReasonFrontmatterLimit     = "frontmatter_limit"     // Limit KiB, Count keys
	ReasonDanglingAlias        = "dangling_alias"        // an alias would lose its value
	ReasonKeyEmptySet          = "key_empty_set"         // an empty key to set
	ReasonKeyEmptyRemove       = "key_empty_remove"      // an empty key to remove
	ReasonKeySetAndRemoved     = "key_set_and_removed"   // Subject: the key
	ReasonKeyValue             = "key_value"             // Subject: the key
	ReasonFrontmatterUnwritten = "frontmatter_unwritten" // the new block is no YAML
	ReasonObsidianOperator     = "obsidian_operator"     // Subject: the operator
	ReasonTooManyAlternatives  = "too_many_alternatives"
	ReasonLineNeedsWords       = "line_needs_words"     // Subject: the operator
	ReasonOperatorNeedsValue   = "operator_needs_value" // Subject: the operator
	ReasonEmptyQuery           = "empty_query"
	ReasonForeignCursor        = "foreign_cursor"
	ReasonSamePath             = "same_path"
	ReasonNoName               = "no_name"
	ReasonBlockAndPlace        = "block_and_place"
	ReasonNotUTF8              = "not_utf8"

	// invalid_path
	ReasonFileInNewPath = "file_in_new_path"
	ReasonLinkInPath    = "link_in_path"
	ReasonTrashBlocked  = "trash_blocked"
	ReasonLinkFile      = "link_file"
	ReasonLinkNote      = "link_note"
	ReasonPathEmpty     = "path_empty"
	ReasonPathNotUTF8   = "path_not_utf8"
	ReasonPathTooLong   = "path_too_long" // Size bytes, Limit
	ReasonPathAbsolute  = "path_absolute"
	ReasonPathEmptyPart = "path_empty_part"
	ReasonPathDotPart   = "path_dot_part"
	ReasonNameTooLong   = "name_too_long" // Size bytes, Limit
	ReasonPathBackslash = "path_backslash"
	ReasonPathInvisible = "path_invisible"
	ReasonLinkChar      = "link_char"    // Subject: the name, Detail: the character
	ReasonWindowsChar   = "windows_char" // Subject: the name, Detail: the character
	ReasonTrailingDot   = "trailing_dot" // Subject: the name
	ReasonDeviceName    = "device_name"  // Subject: the name
	ReasonHiddenPart    = "hidden_part"
	ReasonDailyPath     = "daily_path"  // Subject: the path, Why: what is wrong with it
	ReasonCaseFolder    = "case_folder" // Subject: the folder there

	// not_found
	ReasonFileInPath      = "file_in_path"
	ReasonNoSuchName      = "no_such_name"       // Subject: the name
	ReasonNoSuchNameClose = "no_such_name_close" // Subject: the name; Candidates
	ReasonReplaced        = "replaced"           // replaced while read

	// note_exists
	ReasonTrashFull = "trash_full"
	ReasonCaseTwin  = "case_twin" // Subject: the note or folder there

	// protected_path
	ReasonAlreadyInTrash     = "already_in_trash"
	ReasonMoveWithinTrash    = "move_within_trash"
	ReasonMoveIntoTrash      = "move_into_trash"
	ReasonHiddenFile         = "hidden_file"
	ReasonInstructions       = "instructions"
	ReasonInTrash            = "in_trash"
	ReasonForgetOutsideTrash = "forget_outside_trash"

	// not_a_note
	ReasonNotShown     = "not_shown"
	ReasonSpecialFile  = "special_file"
	ReasonSpecialNote  = "special_note"
	ReasonFolder       = "folder"
	ReasonConflictCopy = "conflict_copy"
	ReasonConflictName = "conflict_name"

	// section_not_found
	ReasonNotAmong   = "not_among" // Candidates: the note's headings
	ReasonNoHeadings = "no_headings"
	ReasonNoBlocks   = "no_blocks" // Subject: the block id
	ReasonNoBlock    = "no_block"  // Subject: the block id; Candidates
	ReasonNoAnchor   = "no_anchor" // Subject: the block id to add after

	// write_too_large, note_too_large
	ReasonSizes     = "sizes"      // Size, Limit
	ReasonOverLimit = "over_limit" // Limit; the size is not known
	ReasonWouldGrow = "would_grow" // Size, Limit

	// outside_scope: Subject is the app's scope
	ReasonWrite = "write"
	ReasonDaily = "daily"

	// ambiguous_name
	ReasonNamed = "named" // Count, Subject: the name

	// internal: what the server log and the owner are told
	ReasonPermission  = "permission"
	ReasonStatfs      = "statfs"
	ReasonStatfsWrite = "statfs_write"
	ReasonCancelled   = "cancelled"
	ReasonUnsteady    = "unsteady"
)

// reasonNone is the reason of a code's general case.
const reasonNone = ""

// sentences holds the one sentence, per code and per code and reason (see
// Error.Key), that the vault gives people: the console and the command
// line show it. It names no tool and no tool argument; the tools keep
// their own table. Values of the failure stand in braces (see Fill), and
// {why} is the sentence of Error.Why.
var sentences = map[string]string{
	CodeInvalidPath:      "Use a vault-relative path with '/' separators and no '..', '.', empty segments, backslashes, control characters or symbolic links.",
	CodeProtectedPath:    "This path is protected; choose a note outside the protected folders.",
	CodeNotFound:         "No note exists at this path; check the path, or look in its folder for the right one.",
	CodeNoteExists:       "A note already exists at this path; read and edit it, or choose another path.",
	CodeNoteChanged:      "The note changed since you read it; read it again and redo your change against the current version.",
	CodeVersionRequired:  "Read the note first and pass the version you read with this change.",
	CodeWriteTooLarge:    "The text is too large for one write; send it in smaller parts.",
	CodeNoteTooLarge:     "The note is too large to handle; split it into smaller notes outside cortex.",
	CodeDiskLow:          "The disk is nearly full, so writes are paused; ask the owner to free some space.",
	CodeSectionNotFound:  "No heading matches this section; read the note to see its headings.",
	CodeSectionAmbiguous: "Several headings match this section; pass one of the candidate headings in full.",
	CodeSectionHasSubsections: "The section holds the subsections listed in candidates, which replacing it would erase too; " +
		"replace one of them, change exact text with an edit, or ask to replace the subsections as well.",
	CodeNoMatch:            "The old text was not found; read the note again and copy the exact text to replace.",
	CodeMultipleMatches:    "The old text occurs {times}; include more surrounding text to make it unique, or replace all occurrences.",
	CodeBadFrontmatter:     "The note's frontmatter is not valid YAML; fix it with an edit first.",
	CodeInvalidArgument:    "Check the arguments and try again.",
	CodeNotANote:           "Only Markdown notes (names ending in .md) can be read or written.",
	CodeVaultReplaced:      "The vault folder was moved, replaced or deleted while cortex was running, so notes can be neither read nor written; ask the owner to restart cortex.",
	CodeInternal:           "Something went wrong on the server; try again later or tell the owner.",
	CodeOutsideScope:       "This app may not reach notes here; ask the owner to widen the app's scope in the console.",
	CodeAmbiguousName:      "Several notes have this name; pass the path of the one you mean, from candidates.",
	CodeHistoryUnavailable: "The note's history could not be saved, so the change was refused to keep the old text safe; tell the owner (the server log says why) and try again later.",

	CodeInvalidArgument + "/" + ReasonVersionForm:          "The version {subject_q} is not a note version (12 hex digits); read the note again and use the version it has now.",
	CodeInvalidArgument + "/" + ReasonNoText:               "Give the text to add.",
	CodeInvalidArgument + "/" + ReasonNoOldText:            "Give the exact text to replace; it must not be empty.",
	CodeInvalidArgument + "/" + ReasonNoHeading:            "Name the heading of the section to replace.",
	CodeInvalidArgument + "/" + ReasonNoKeys:               "Give at least one frontmatter key to set or remove.",
	CodeInvalidArgument + "/" + ReasonFrontmatterLimit:     "The frontmatter would be past what cortex reads ({limit_n} KiB, {count} keys); keep it smaller, or shorten it with an edit first.",
	CodeInvalidArgument + "/" + ReasonDanglingAlias:        "The change would remove or replace a value that an alias (*name) elsewhere in the frontmatter uses; change the frontmatter by editing the note's text instead.",
	CodeInvalidArgument + "/" + ReasonKeyEmptySet:          "A key to set is empty; name every frontmatter key you set.",
	CodeInvalidArgument + "/" + ReasonKeyEmptyRemove:       "A key to remove is empty; name every frontmatter key you remove.",
	CodeInvalidArgument + "/" + ReasonKeySetAndRemoved:     "The key {subject_q} is both to be set and to be removed; set it to change its value, or remove it, not both.",
	CodeInvalidArgument + "/" + ReasonKeyValue:             "The frontmatter value for {subject_q} cannot be written as YAML; use strings, numbers, booleans, null, lists or objects.",
	CodeInvalidArgument + "/" + ReasonFrontmatterUnwritten: "The frontmatter cannot be written as YAML.",
	CodeInvalidArgument + "/" + ReasonObsidianOperator:     "The query language does not have Obsidian's {subject}; use words, \"phrases\", OR, -word, tag:#x, path:x, file:x, [property:value], task-todo:x, line:(a b) or a folder.",
	CodeInvalidArgument + "/" + ReasonTooManyAlternatives:  "The query has more than 32 alternatives (each OR counts, and each combination of property values such as [a:x OR y] [b:1 OR 2]); split it into several queries.",
	CodeInvalidArgument + "/" + ReasonLineNeedsWords:       "{subject} needs the words to find on the line, as in {subject}call or {subject}(call Ana); to find every open task, look for - [ ] instead.",
	CodeInvalidArgument + "/" + ReasonOperatorNeedsValue:   "{subject} needs its value right after it, as in tag:#project, path:Daily, file:budget or folder:Projects; add one or leave it out.",
	CodeInvalidArgument + "/" + ReasonEmptyQuery:           "Give words to look for, a tag or a folder.",
	CodeInvalidArgument + "/" + ReasonForeignCursor:        "The cursor does not belong to this query; repeat the query without a cursor.",
	CodeInvalidArgument + "/" + ReasonSamePath:             "The new path is the same as the old one; give a different path.",
	CodeInvalidArgument + "/" + ReasonNoName:               "Name a note by its path, like Projects/Plan.md, or by its name, like Plan.",
	CodeInvalidArgument + "/" + ReasonBlockAndPlace:        "Name either a block to add after, or a place at the start or end of a section, not both.",
	CodeInvalidArgument + "/" + ReasonNotUTF8:              "The text is not valid UTF-8; send it as UTF-8 text.",

	CodeInvalidPath + "/" + ReasonFileInNewPath: "A part of this path is a file, not a folder; choose another path.",
	CodeInvalidPath + "/" + ReasonLinkInPath:    "A folder in this path is a symbolic link, which cortex never follows; use the real path.",
	CodeInvalidPath + "/" + ReasonTrashBlocked:  "The trash holds a file where this note's folder would go, so the note cannot be moved there; ask the owner to tidy .trash/.",
	CodeInvalidPath + "/" + ReasonLinkFile:      "This file is a symbolic link, which cortex never follows; use the path of the file it points to.",
	CodeInvalidPath + "/" + ReasonLinkNote:      "This note is a symbolic link, which cortex never follows; use the path of the note it points to, or ask the owner to replace the link with the note itself.",
	CodeInvalidPath + "/" + ReasonPathEmpty:     "The path is empty; give a vault-relative path such as Projects/Plan.md.",
	CodeInvalidPath + "/" + ReasonPathNotUTF8:   "The path is not valid UTF-8; send names as UTF-8 text.",
	CodeInvalidPath + "/" + ReasonPathTooLong:   "The path is {size_n} bytes long, over the limit of {limit_n}; choose a shorter path.",
	CodeInvalidPath + "/" + ReasonPathAbsolute:  "The path starts with '/'; give it relative to the top of the vault, such as Projects/Plan.md.",
	CodeInvalidPath + "/" + ReasonPathEmptyPart: "The path has an empty part ('//' or a '/' at the end); remove it.",
	CodeInvalidPath + "/" + ReasonPathDotPart:   "The path has a '.' or '..' part; give the path from the top of the vault without them.",
	CodeInvalidPath + "/" + ReasonNameTooLong:   "A name in the path is {size_n} bytes long, over the limit of {limit_n}; choose a shorter name.",
	CodeInvalidPath + "/" + ReasonPathBackslash: "The path holds a backslash; separate folders with '/'.",
	CodeInvalidPath + "/" + ReasonPathInvisible: "The path holds a control character or an invisible one (such as a zero-width space or a direction mark); remove it.",
	CodeInvalidPath + "/" + ReasonLinkChar:      "The name {subject_q} holds {detail_q}, and Obsidian cannot link to a name with any of # ^ [ ] | (a link reads them as heading, block or alias marks); choose a name without them.",
	CodeInvalidPath + "/" + ReasonWindowsChar:   "The name {subject_q} holds {detail_q}, and names with any of < > : \" | ? * cannot be stored on Windows or Android; choose a name without them.",
	CodeInvalidPath + "/" + ReasonTrailingDot:   "The name {subject_q} ends in a dot or a space, which Windows drops, so that it would name another file there; remove it.",
	CodeInvalidPath + "/" + ReasonDeviceName:    "The name {subject_q} is a device name that Windows reserves (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension); choose another name.",
	CodeInvalidPath + "/" + ReasonHiddenPart:    "Hidden folders and files (names starting with '.') are not for notes, because cortex never shows them in listings or query results; choose a path without such a part.",
	CodeInvalidPath + "/" + ReasonDailyPath:     "The daily-notes settings give the path {subject_q}, which cortex cannot use: {why}",
	CodeInvalidPath + "/" + ReasonCaseFolder:    "A folder {subject_q} already exists here, differing only in case or Unicode form, and macOS, Windows and phones would take both for one; use its spelling.",

	CodeNotFound + "/" + ReasonFileInPath:      "A part of this path is a file, not a folder; check the path.",
	CodeNotFound + "/" + ReasonNoSuchName:      "No note has the path, name or alias {subject_q}; check the name, or look for the note by its words.",
	CodeNotFound + "/" + ReasonNoSuchNameClose: "No note has the path, name or alias {subject_q}; pass one of the close names in candidates.",
	CodeNotFound + "/" + ReasonReplaced:        "The note was replaced while being read; try again.",

	CodeNoteExists + "/" + ReasonTrashFull: "The trash already holds too many notes of this name; ask the owner to empty .trash/.",
	CodeNoteExists + "/" + ReasonCaseTwin:  "A note or folder {subject_q} already exists here, differing only in case or Unicode form, and macOS, Windows and phones would take both for one; edit that note, or choose another name.",

	CodeProtectedPath + "/" + ReasonAlreadyInTrash:     "This note is already in .trash/; nothing in .trash/ is removed by cortex.",
	CodeProtectedPath + "/" + ReasonMoveWithinTrash:    "A note in .trash/ is only moved out of it, to restore it; give a path outside .trash/.",
	CodeProtectedPath + "/" + ReasonMoveIntoTrash:      "Notes go to .trash/ by being deleted, which keeps them for the owner to restore; delete this note instead of moving it.",
	CodeProtectedPath + "/" + ReasonHiddenFile:         "Hidden files and folders are not shown through cortex.",
	CodeProtectedPath + "/" + ReasonInstructions:       "The instructions file is read-only here; ask the owner to change it.",
	CodeProtectedPath + "/" + ReasonInTrash:            "Notes in .trash/ cannot be changed; move the note out of .trash/ first to restore it.",
	CodeProtectedPath + "/" + ReasonForgetOutsideTrash: "Only notes in .trash/ can be deleted for good; delete the note first.",

	CodeNotANote + "/" + ReasonNotShown:     "This is neither a note nor an attachment cortex shows.",
	CodeNotANote + "/" + ReasonSpecialFile:  "This path is a folder or a special file, not a file cortex shows.",
	CodeNotANote + "/" + ReasonSpecialNote:  "This path is a folder or a special file, not a note.",
	CodeNotANote + "/" + ReasonFolder:       "This is a folder, not a note; look inside it for its notes.",
	CodeNotANote + "/" + ReasonConflictCopy: "This is a Syncthing conflict copy (its name holds .sync-conflict-): it can be read or deleted but not changed; merge its text into the note it copies, then delete it.",
	CodeNotANote + "/" + ReasonConflictName: "Names holding .sync-conflict- are Syncthing conflict copies, which cortex never writes; choose another name.",

	CodeSectionNotFound + "/" + ReasonNotAmong:   "No heading matches this section; pass one of the note's headings listed in candidates, like \"## Plan\".",
	CodeSectionNotFound + "/" + ReasonNoHeadings: "The note has no headings; leave the section out to use the whole note.",
	CodeSectionNotFound + "/" + ReasonNoBlocks:   "The note has no block ^{subject}, nor any other; leave the block out to read the whole note.",
	CodeSectionNotFound + "/" + ReasonNoBlock:    "The note has no block ^{subject}; pass one of its blocks, listed in candidates, or leave the block out to read the whole note.",
	CodeSectionNotFound + "/" + ReasonNoAnchor:   "The note has no block ^{subject}; read the note to see its block ids, or leave the block out to add at the end.",

	CodeWriteTooLarge + "/" + ReasonSizes:    "The text sent is {size}, over the limit of {limit} for one write; send it in smaller parts.",
	CodeNoteTooLarge + "/" + ReasonSizes:     "The note is {size}, over the largest size cortex reads, {limit}; ask the owner to split it.",
	CodeNoteTooLarge + "/" + ReasonOverLimit: "The note is over the largest size cortex reads, {limit}; ask the owner to split it.",
	CodeNoteTooLarge + "/" + ReasonWouldGrow: "The note would grow to {size}, over the largest size cortex reads, {limit}; write the text into a new note instead.",

	CodeOutsideScope + "/" + ReasonWrite: "This app may not change notes here: its scope is {subject}; choose a path inside it, or ask the owner to widen the app's scope in the console.",
	CodeOutsideScope + "/" + ReasonDaily: "The daily notes lie outside this app's scope ({subject}); use notes inside it, or ask the owner to widen the app's scope in the console.",

	CodeAmbiguousName + "/" + ReasonNamed: "{count} notes are named {subject_q}; pass the path of the one you mean, from candidates.",

	CodeInternal + "/" + ReasonPermission:  "The server may not access this file; tell the owner to check its permissions.",
	CodeInternal + "/" + ReasonStatfs:      "Free disk space could not be checked; tell the owner.",
	CodeInternal + "/" + ReasonStatfsWrite: "Free disk space could not be checked, so the write was refused; try again later or tell the owner.",
	CodeInternal + "/" + ReasonCancelled:   "The request was cancelled before it finished; try again.",
	CodeInternal + "/" + ReasonUnsteady:    "The note kept changing while being read; try again in a moment.",
}

// Sentences returns the vault's sentences for people, keyed as by
// Error.Key: every code and reason the vault reports.
func Sentences() map[string]string { return maps.Clone(sentences) }

// Fill writes the values of e into a sentence's braces: {subject} and
// {detail} as they are, {subject_q} and {detail_q} quoted; {size} and
// {limit} as sizes ("1.5 KiB (1536 bytes)"), {size_n} and {limit_n} as
// plain numbers; {count} as a number and {times} as "3 times" or, when the
// vault did not count, "more than once".
func (e *Error) Fill(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	times := "more than once"
	if e.Count > 1 {
		times = strconv.Itoa(e.Count) + " times"
	}
	return strings.NewReplacer(
		"{subject}", e.Subject, "{subject_q}", strconv.Quote(e.Subject),
		"{detail}", e.Detail, "{detail_q}", strconv.Quote(e.Detail),
		"{size}", byteSize(e.Size), "{limit}", byteSize(e.Limit),
		"{size_n}", strconv.FormatInt(e.Size, 10), "{limit_n}", strconv.FormatInt(e.Limit, 10),
		"{count}", strconv.Itoa(e.Count), "{times}", times,
	).Replace(s)
}

// sentence is e's sentence for people, from the table: the one of its
// reason, else the one of its code.
func (e *Error) sentence() string {
	s, ok := sentences[e.Key()]
	if !ok {
		s = sentences[e.Code]
	}
	if e.Why != nil {
		s = strings.ReplaceAll(s, "{why}", e.Why.Message)
	}
	return e.Fill(s)
}
