package store

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// A file system that cannot sync a folder says so with EINVAL or ENOTSUP,
// wrapped in the *PathError of the sync; SyncDir takes that as done, and
// any other failure as a failure.
func TestUnsupportedSync(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.EINVAL}, true},
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.ENOTSUP}, true},
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.EIO}, false},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, false},
		{errors.New("other"), false},
	} {
		if got := unsupportedSync(c.err); got != c.want {
			t.Errorf("unsupportedSync(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	if err := SyncDir(t.TempDir()); err != nil {
		t.Errorf("SyncDir of a folder: %v", err)
	}
	if err := SyncDir(t.TempDir() + "/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SyncDir of a missing folder = %v, want not found", err)
	}
}
