package vault

import (
	"errors"
	"io/fs"
	"strings"
)

// Notes travel: Obsidian on Windows, a phone or Syncthing must be able to
// hold every name that cortex creates, and Obsidian to link to it. Names that exist already are never
// refused; only the parts of a path that a create or a move would bring
// into being are held to these rules.

// unportableChars cannot appear in names on Windows and Android (FAT and
// exFAT cards, Syncthing's Android app), nor in Obsidian's own names.
const unportableChars = `<>:"|?*`

// reservedNames are Windows device names, reserved with any extension.
var reservedNames = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true}

// unlinkableChars cannot appear in a name that Obsidian links to: a link
// reads # as a heading, ^ as a block, | as the start of its text and [ ]
// as its brackets, so [[Plan #2]] would point at a heading of "Plan ".
const unlinkableChars = `#^[]|`

// unportable says which rule name breaks, or nil when it breaks none.
func unportable(name string) *Error {
	if i := strings.IndexAny(name, unlinkableChars); i >= 0 {
		return fail(&Error{Code: CodeInvalidPath, Reason: ReasonLinkChar, Subject: name, Detail: name[i : i+1]})
	}
	if i := strings.IndexAny(name, unportableChars); i >= 0 {
		return fail(&Error{Code: CodeInvalidPath, Reason: ReasonWindowsChar, Subject: name, Detail: name[i : i+1]})
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return fail(&Error{Code: CodeInvalidPath, Reason: ReasonTrailingDot, Subject: name})
	}
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	if reservedNames[stem] || len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) && stem[3] >= '0' && stem[3] <= '9' {
		return fail(&Error{Code: CodeInvalidPath, Reason: ReasonDeviceName, Subject: name})
	}
	return nil
}

// checkPortable refuses a new path any of whose new parts (the note's
// name, and the folders that do not exist yet) breaks a rule above.
func (v *Vault) checkPortable(p string) *Error {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if i < len(segs)-1 {
			if _, err := v.root.Lstat(strings.Join(segs[:i+1], "/")); err == nil || !errors.Is(err, fs.ErrNotExist) {
				continue // exists (or checkNewPath reports why not)
			}
		}
		if e := unportable(seg); e != nil {
			return e
		}
	}
	return nil
}
