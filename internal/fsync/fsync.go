// Package fsync owns the one rule by which cortex makes what it wrote
// durable: fsync a file or folder, and which refusals of a file system
// mean "nothing more to give" rather than a failure. The vault (notes) and
// the store (the state databases) share it.
//
// It must import no other cortex package and open no file itself: the
// vault and the store, which may import nothing else that is internal,
// import it, and they alone decide which files to open.
package fsync

import (
	"errors"
	"os"
	"syscall"
)

// Close fsyncs and closes the file or folder just opened as (f, err), so
// that a caller writes Close(root.Open(p)). The first error wins.
func Close(f *os.File, err error) error {
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Unsupported reports a file system that cannot sync a folder: EINVAL (as
// some network and FUSE file systems answer) or ENOTSUP, EOPNOTSUPP or
// ENOSYS (errors.ErrUnsupported, also on Windows). Such a file system has
// nothing more to give, so a folder's sync that fails this way is done.
func Unsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported)
}
