package vault

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// renameNoReplace moves the file from to the free name to in one step:
// renameat2(RENAME_NOREPLACE) fails with EEXIST rather than replace
// anything, and a crash leaves the file at one of its two names, never at
// both. The folders are opened through the vault's root, so the call
// works relative to folders inside it. errNoRenameat2 means the kernel or
// file system lacks the call.
func (v *Vault) renameNoReplace(from, to string) error {
	if v.noRenameat2 || faultNoRenameat2() {
		return errNoRenameat2
	}
	fd, err := v.root.Open(path.Dir(from))
	if err != nil {
		return err
	}
	defer fd.Close()
	td := fd
	if path.Dir(to) != path.Dir(from) {
		if td, err = v.root.Open(path.Dir(to)); err != nil {
			return err
		}
		defer td.Close()
	}
	err = renameat2(fd, path.Base(from), td, path.Base(to))
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return errNoRenameat2
	}
	return err
}

func renameat2(fromDir *os.File, from string, toDir *os.File, to string) error {
	fc, err := fromDir.SyscallConn()
	if err != nil {
		return err
	}
	tc, err := toDir.SyscallConn()
	if err != nil {
		return err
	}
	var rerr error
	err = fc.Control(func(ffd uintptr) {
		err := tc.Control(func(tfd uintptr) {
			rerr = unix.Renameat2(int(ffd), from, int(tfd), to, unix.RENAME_NOREPLACE)
		})
		if rerr == nil {
			rerr = err
		}
	})
	if err != nil {
		return err
	}
	if rerr != nil {
		return &os.LinkError{Op: "renameat2", Old: from, New: to, Err: rerr}
	}
	return nil
}
