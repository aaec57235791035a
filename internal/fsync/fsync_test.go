package fsync

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A file system that cannot sync a folder says so with EINVAL, ENOTSUP,
// EOPNOTSUPP or ENOSYS, wrapped in the *PathError of the sync; any other
// failure is a failure.
func TestUnsupported(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.EINVAL}, true},
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.ENOTSUP}, true},
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.EOPNOTSUPP}, true},
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.ENOSYS}, true},
		{&fs.PathError{Op: "sync", Path: "/x", Err: syscall.EIO}, false},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, false},
		{errors.New("other"), false},
		{nil, false},
	} {
		if got := Unsupported(c.err); got != c.want {
			t.Errorf("Unsupported(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestClose(t *testing.T) {
	dir := t.TempDir()
	if err := Close(os.Open(dir)); err != nil {
		t.Errorf("a folder: %v", err)
	}
	f := filepath.Join(dir, "a")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Close(os.Open(f)); err != nil {
		t.Errorf("a file: %v", err)
	}
	if err := Close(os.Open(filepath.Join(dir, "missing"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want not found", err)
	}
	opened, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	opened.Close()
	if err := Close(opened, nil); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a closed file: %v, want closed", err)
	}
}
