package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"
)

// defaultMessages holds, per code, the one sentence that tells the caller
// what to do next. Call sites may give a more precise sentence.
var defaultMessages = map[string]string{
	CodeInvalidPath:      "Use a vault-relative path with '/' separators and no '..', '.', empty segments, backslashes, control characters or symbolic links.",
	CodeProtectedPath:    "This path is protected; choose a note outside the protected folders.",
	CodeNotFound:         "No note exists at this path; list the folder or search to find the right path.",
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
	CodeNoMatch:         "The old text was not found; read the note again and copy the exact text to replace.",
	CodeMultipleMatches: "The old text occurs more than once; include more surrounding text to make it unique, or replace all occurrences.",
	CodeBadFrontmatter:  "The note's frontmatter is not valid YAML; fix it with an edit first.",
	CodeInvalidArgument: "Check the arguments and try again.",
	CodeNotANote:        "Only Markdown notes (names ending in .md) can be read or written.",
	CodeVaultReplaced:   msgReplaced,
	CodeInternal:        "Something went wrong on the server; try again later or tell the owner.",
}

// Sentences for a path through a file, as if it were a folder: one for
// paths that must exist, one for paths about to be created.
const (
	msgFileInPath    = "A part of this path is a file, not a folder; check the path."
	msgFileInNewPath = "A part of this path is a file, not a folder; choose another path."
	msgLinkInPath    = "A folder in this path is a symbolic link, which cortex never follows; use the real path."
)

// newErr builds an *Error; an empty msg means the code's default sentence.
func newErr(code, msg string, cause error) *Error {
	if msg == "" {
		msg = defaultMessages[code]
	}
	return &Error{Code: code, Message: msg, Err: cause}
}

// errVersion reports a stale version together with the current one.
func errVersion(current string) *Error {
	e := newErr(CodeNoteChanged, "", nil)
	e.Version = current
	return e
}

// versionMismatch reports a version that is not the note's current one.
// One that is no version at all (a guess, a date, a version id of the
// history) is an invalid argument: reading the note again, which
// note_changed asks for, would not mend the next call.
func versionMismatch(given, current string) *Error {
	if !isVersion(given) {
		return newErr(CodeInvalidArgument, fmt.Sprintf("The version %q is not a note version (12 hex digits); fetch the note and pass its metadata.version as version.",
			clipRunes(given, 40)), nil)
	}
	return errVersion(current)
}

// isVersion reports whether s has the form of a version as versionOf
// makes it: 12 lowercase hex digits.
func isVersion(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// fsErr maps an error from the file system to an *Error. op names the
// operation for the logged cause; it never reaches the caller's message.
func fsErr(op string, err error) *Error {
	var ve *Error
	if errors.As(err, &ve) {
		return ve
	}
	cause := fmt.Errorf("vault %s: %w", op, err)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return newErr(CodeNotFound, msgFileInPath, cause)
	case errors.Is(err, fs.ErrNotExist):
		return newErr(CodeNotFound, "", cause)
	case errors.Is(err, fs.ErrExist):
		return newErr(CodeNoteExists, "", cause)
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENAMETOOLONG), isEscapeErr(err):
		return newErr(CodeInvalidPath, "", cause)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return newErr(CodeDiskLow, "", cause)
	case errors.Is(err, fs.ErrPermission):
		return newErr(CodeInternal, "The server may not access this file; tell the owner to check its permissions.", cause)
	}
	return newErr(CodeInternal, "", cause)
}

// mkdirErr maps the failure to create the folders of a new note. A file
// where a folder should be (put there after the path was checked) means
// the caller must choose another path.
func mkdirErr(err error) *Error {
	if errors.Is(err, syscall.ENOTDIR) {
		return newErr(CodeInvalidPath, msgFileInNewPath, fmt.Errorf("vault mkdir: %w", err))
	}
	return fsErr("mkdir", err)
}

// isEscapeErr reports the error os.Root returns for a name that leaves it.
func isEscapeErr(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err != nil && pe.Err.Error() == "path escapes from parent"
	}
	return false
}

// byteSize writes a size for people and models alike: "1.5 MiB (1572864
// bytes)", or "512 bytes" below a KiB.
func byteSize(n int64) string {
	const (
		kib = 1 << 10
		mib = 1 << 20
	)
	unit, div := "", int64(1)
	switch {
	case n >= mib:
		unit, div = "MiB", mib
	case n >= kib:
		unit, div = "KiB", kib
	default:
		return strconv.FormatInt(n, 10) + " bytes"
	}
	v := strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64)
	if n%div == 0 {
		v = strconv.FormatInt(n/div, 10)
	}
	return fmt.Sprintf("%s %s (%d bytes)", v, unit, n)
}

// errWriteTooLarge names the size sent and the limit.
func errWriteTooLarge(n, limit int) *Error {
	return newErr(CodeWriteTooLarge, fmt.Sprintf("The text sent is %s, over the limit of %s for one write; send it in smaller parts, for example a create_note followed by several append calls.",
		byteSize(int64(n)), byteSize(int64(limit))), nil)
}

// errNoteTooLarge names the note's size (when known, else n < 0) and the
// largest that is read.
func errNoteTooLarge(n, limit int64) *Error {
	if n < 0 {
		return newErr(CodeNoteTooLarge, fmt.Sprintf("The note is over the largest size cortex reads, %s; ask the owner to split it.", byteSize(limit)), nil)
	}
	return newErr(CodeNoteTooLarge, fmt.Sprintf("The note is %s, over the largest size cortex reads, %s; ask the owner to split it.",
		byteSize(n), byteSize(limit)), nil)
}
