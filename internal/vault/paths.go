package vault

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

const (
	maxPathLen    = 1024
	maxSegmentLen = 255

	// trashDir receives deleted notes. It is readable; moving a note out of
	// it restores the note.
	trashDir = ".trash"
	// tmpPrefix starts the name of every temporary file cortex writes. Such
	// names are hidden and never end in .md, so they are never notes.
	tmpPrefix = ".cortex-tmp-"
)

// alwaysProtected are folders no tool may read, write or list, whatever the
// configuration says.
var alwaysProtected = []string{".git", ".obsidian", ".cortex"}

// checkPath validates a vault-relative path as given by a caller. It refuses
// everything that could name something other than one plain entry below the
// vault: absolute paths, '..' and '.' segments, empty segments, backslashes,
// control characters, invisible characters, invalid UTF-8 and overlong names.
func checkPath(p string) *Error {
	bad := func(reason string) *Error { return newErr(CodeInvalidPath, reason, nil) }
	switch {
	case p == "":
		return bad(ReasonPathEmpty)
	case !utf8.ValidString(p):
		return bad(ReasonPathNotUTF8)
	case len(p) > maxPathLen:
		return fail(&Error{Code: CodeInvalidPath, Reason: ReasonPathTooLong, Size: int64(len(p)), Limit: maxPathLen})
	case p[0] == '/':
		return bad(ReasonPathAbsolute)
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			return bad(ReasonPathEmptyPart)
		case seg == "." || seg == "..":
			return bad(ReasonPathDotPart)
		case len(seg) > maxSegmentLen:
			return fail(&Error{Code: CodeInvalidPath, Reason: ReasonNameTooLong, Size: int64(len(seg)), Limit: maxSegmentLen})
		case strings.ContainsRune(seg, '\\'):
			return bad(ReasonPathBackslash)
		case !cleanRunes(seg):
			return bad(ReasonPathInvisible)
		}
	}
	return nil
}

// validName reports whether a name read from a folder may be part of a
// path that checkPath accepts.
func validName(name string) bool {
	return len(name) <= maxSegmentLen && utf8.ValidString(name) && cleanRunes(name)
}

// cleanRunes reports whether a path segment (valid UTF-8) is free of
// backslashes, control characters and characters that do not show:
// format characters (zero-width spaces and joiners, bidirectional marks
// and overrides, soft hyphens, byte-order marks, tags) and line and
// paragraph separators. Such characters make two different names look
// the same, or one name look like another. The one exception is a
// zero-width joiner or non-joiner between two non-ASCII characters: emoji
// sequences and Persian or Indic words need them, and they cannot hide
// inside a Latin name there.
func cleanRunes(seg string) bool {
	prev := rune(-1)
	for i, r := range seg {
		switch {
		case r == '\\' || unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp):
			return false
		case unicode.Is(unicode.Cf, r):
			if r != zwj && r != zwnj || prev < utf8.RuneSelf || unicode.Is(unicode.Cf, prev) {
				return false
			}
			next, _ := utf8.DecodeRuneInString(seg[i+utf8.RuneLen(r):])
			if next < utf8.RuneSelf || next == utf8.RuneError || unicode.Is(unicode.Cf, next) {
				return false
			}
		}
		prev = r
	}
	return true
}

const (
	zwnj = '\u200c' // zero-width non-joiner
	zwj  = '\u200d' // zero-width joiner
)

// checkFolder validates a folder argument: "" and "/" mean the vault root,
// and one trailing '/' is accepted. It returns the cleaned folder.
func checkFolder(p string) (string, *Error) {
	if p == "" || p == "/" {
		return "", nil
	}
	p = strings.TrimSuffix(p, "/")
	if e := checkPath(p); e != nil {
		return "", e
	}
	return p, nil
}

// foldKey is the form in which paths are compared with protected prefixes
// and patterns and used as lock keys (scope.Key).
func foldKey(p string) string { return scope.Key(p) }

// hasPrefixKey reports whether the folded key equals prefix or lies below it.
func hasPrefixKey(key, prefix string) bool {
	return key == prefix || (strings.HasPrefix(key, prefix) && key[len(prefix)] == '/')
}

// isProtected reports whether a valid path may be neither read nor written.
func (v *Vault) isProtected(p string) bool {
	key := foldKey(p)
	for _, pre := range v.protected {
		if hasPrefixKey(key, pre) {
			return true
		}
	}
	if v.deny.MatchKey(strings.Split(key, "/")) {
		return true
	}
	// A denied note deleted by hand, or copied by a sync conflict, is
	// denied under its new name too.
	if t := twin(key); t != "" && v.deny.MatchKey(strings.Split(t, "/")) {
		return true
	}
	if r := ruled(key); r != key {
		return v.deny.MatchKey(strings.Split(r, "/"))
	}
	return false
}

// isInstructions reports whether p is the instructions file.
func (v *Vault) isInstructions(p string) bool {
	return foldKey(p) == v.instrKey
}

// inTrash reports whether p lies inside the trash folder.
func inTrash(p string) bool {
	return hasPrefixKey(foldKey(p), trashDir)
}

// checkReadable validates a note path for reading. Conflict copies are
// readable (and may be deleted) so that a conflict can be resolved.
func (v *Vault) checkReadable(p string) *Error {
	if e := checkPath(p); e != nil {
		return e
	}
	if v.isProtected(p) {
		return newErr(CodeProtectedPath, reasonNone, nil)
	}
	if name := path.Base(p); !isNoteName(name) && !isConflictCopy(name) {
		return newErr(CodeNotANote, reasonNone, nil)
	}
	return nil
}

// checkRemovable validates the source of a move or delete: any readable
// note except the instructions file.
func (v *Vault) checkRemovable(p string) *Error {
	if e := v.checkReadable(p); e != nil {
		return e
	}
	if v.isInstructions(p) {
		return newErr(CodeProtectedPath, ReasonInstructions, nil)
	}
	return nil
}

// checkWritable validates a note path for any change of its text or as the
// target of a move: the instructions file and the trash are readable but
// never written through the tools (notes leave the trash only by a move).
func (v *Vault) checkWritable(p string) *Error {
	if e := v.checkRemovable(p); e != nil {
		return e
	}
	if !isNoteName(path.Base(p)) {
		return newErr(CodeNotANote, ReasonConflictCopy, nil)
	}
	if inTrash(p) {
		return newErr(CodeProtectedPath, ReasonInTrash, nil)
	}
	return nil
}

// checkCreatable validates the path of a note about to appear: a new note
// or the target of a move. Beyond checkWritable, no segment may start with
// '.': list, search and recent never look into hidden folders or at hidden
// files, so a note written there would vanish from every assistant's view.
func (v *Vault) checkCreatable(p string) *Error {
	if isConflictCopy(path.Base(p)) && checkPath(p) == nil {
		return newErr(CodeNotANote, ReasonConflictName, nil)
	}
	// "plan.md " is a note's name with a space after it, not a file that
	// is no note: say which rule it breaks.
	if name := path.Base(p); !isNoteName(name) && isNoteName(strings.TrimRight(name, ". ")) {
		return unportable(name)
	}
	if e := v.checkWritable(p); e != nil {
		return e
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg[0] == '.' {
			return newErr(CodeInvalidPath, ReasonHiddenPart, nil)
		}
	}
	return nil
}

// isNoteName reports whether a base name is a note: it ends in .md, has a
// name before that, and is none of the temporary or conflict files that
// Syncthing or cortex itself leave beside notes.
func isNoteName(name string) bool {
	if len(name) <= 3 || !strings.EqualFold(name[len(name)-3:], ".md") {
		return false
	}
	return !isTempName(name) && !isConflictName(name)
}

// isTempName reports temporary files of cortex and Syncthing.
func isTempName(name string) bool {
	if strings.HasPrefix(name, tmpPrefix) {
		return true
	}
	return strings.HasSuffix(name, ".tmp") &&
		(strings.HasPrefix(name, ".syncthing.") || strings.HasPrefix(name, "~syncthing~"))
}

// isConflictName reports a Syncthing conflict copy.
func isConflictName(name string) bool {
	return strings.Contains(name, ".sync-conflict-")
}

// isConflictCopy reports a Syncthing conflict copy of a note.
func isConflictCopy(name string) bool {
	return isConflictName(name) && strings.EqualFold(path.Ext(name), ".md") && !isTempName(name)
}

// conflictOf reports whether name is a conflict copy of the note named base
// in the same folder ("Foo.md" → "Foo.sync-conflict-20240102-030405-ABCDEFG.md").
func conflictOf(name, base string) bool {
	stem := base[:len(base)-3]
	return len(name) > len(stem) && strings.HasPrefix(name, stem) &&
		strings.HasPrefix(name[len(stem):], ".sync-conflict-") &&
		strings.EqualFold(path.Ext(name), ".md")
}
