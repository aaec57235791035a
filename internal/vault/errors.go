package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"
)

// newErr builds an *Error of code and reason (reasonNone for the code's
// general case), with its sentence for people; cause is for the log.
func newErr(code, reason string, cause error) *Error {
	return fail(&Error{Code: code, Reason: reason, Err: cause})
}

// fail gives e, whose code, reason and values are set, its sentence for
// people.
func fail(e *Error) *Error {
	e.Message = e.sentence()
	return e
}

// openErr refuses to open the vault: a sentence for the operator starting
// cortex, which no client ever sees, so it stands outside the table.
func openErr(msg string, cause error) *Error {
	return &Error{Code: CodeInvalidArgument, Message: msg, Err: cause}
}

// isReason reports whether e is the refusal of code for reason.
func isReason(e *Error, code, reason string) bool {
	return e != nil && e.Code == code && e.Reason == reason
}

// errVersion reports a stale version together with the current one.
func errVersion(current string) *Error {
	return fail(&Error{Code: CodeNoteChanged, Version: current})
}

// versionMismatch reports a version that is not the note's current one.
// One that is no version at all (a guess, a date, a version id of the
// history) is an invalid argument: reading the note again, which
// note_changed asks for, would not mend the next call.
func versionMismatch(given, current string) *Error {
	if !IsVersion(given) {
		return fail(&Error{Code: CodeInvalidArgument, Reason: ReasonVersionForm, Subject: clipRunes(given, 40)})
	}
	return errVersion(current)
}

// IsVersion reports whether s has the form of a version as versionOf
// makes it: 12 lowercase hex digits.
func IsVersion(s string) bool {
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
		return newErr(CodeNotFound, ReasonFileInPath, cause)
	case errors.Is(err, fs.ErrNotExist):
		return newErr(CodeNotFound, reasonNone, cause)
	case errors.Is(err, fs.ErrExist):
		return newErr(CodeNoteExists, reasonNone, cause)
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENAMETOOLONG), isEscapeErr(err):
		return newErr(CodeInvalidPath, reasonNone, cause)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return newErr(CodeDiskLow, reasonNone, cause)
	case errors.Is(err, fs.ErrPermission):
		return newErr(CodeInternal, ReasonPermission, cause)
	}
	return newErr(CodeInternal, reasonNone, cause)
}

// mkdirErr maps the failure to create the folders of a new note. A file
// where a folder should be (put there after the path was checked) means
// the caller must choose another path.
func mkdirErr(err error) *Error {
	if errors.Is(err, syscall.ENOTDIR) {
		return newErr(CodeInvalidPath, ReasonFileInNewPath, fmt.Errorf("vault mkdir: %w", err))
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
	return fail(&Error{Code: CodeWriteTooLarge, Reason: ReasonSizes, Size: int64(n), Limit: int64(limit)})
}

// errNoteTooLarge names the note's size (when known, else n < 0) and the
// largest that is read.
func errNoteTooLarge(n, limit int64) *Error {
	if n < 0 {
		return fail(&Error{Code: CodeNoteTooLarge, Reason: ReasonOverLimit, Limit: limit})
	}
	return fail(&Error{Code: CodeNoteTooLarge, Reason: ReasonSizes, Size: n, Limit: limit})
}
