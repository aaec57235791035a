package vault

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errNoSyncfs = errors.New("syncfs is not available")

// syncFS flushes the whole file system that holds the open folder f to
// stable storage with syncfs(2). Since Linux 5.8 it reports a write-back
// error of any file on it since f was opened, so f is opened before the
// writes it is to cover.
func syncFS(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return err
	}
	if errors.Is(serr, unix.ENOSYS) {
		return errNoSyncfs
	}
	return serr
}
