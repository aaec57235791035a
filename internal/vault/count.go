package vault

import (
	"context"
	"io/fs"
	"os"
	"strings"
)

// CountNotes counts the notes under dir without opening a Vault: it only
// lists folders (through an os.Root, skipping hidden entries and links) and
// never opens a note or removes a temporary file, so `cortex admin status`
// can run beside a live server.
func CountNotes(ctx context.Context, dir string) (int, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, &Error{Code: CodeInvalidPath, Message: "the vault folder cannot be opened; check that it exists and is readable", Err: err}
	}
	defer root.Close()
	n := 0
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable subfolder: count what can be read
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isNoteName(d.Name()) {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, &Error{Code: CodeInternal, Message: "the vault folder cannot be listed; check its permissions", Err: err}
	}
	return n, nil
}

// FreeSpace reports the bytes available to unprivileged users on the file
// system holding dir: the figure the disk floor checks, for `cortex admin
// status`.
func FreeSpace(dir string) (uint64, error) { return statfsFree(dir) }
