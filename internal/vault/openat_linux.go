package vault

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// beneathResolve confines an openat2 lookup the way the vault's walk does:
// nothing outside the root (no "..", no absolute path), and no symbolic
// link at any position, the last one included. Mount points are crossed,
// as os.Root crosses them.
const beneathResolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openBeneath opens the folder of root for the one-call lookups of
// readBeneath, or returns nil when the kernel lacks openat2 (before Linux
// 5.6) or a seccomp filter refuses it: reads then walk the path.
func openBeneath(root *os.Root) *os.File {
	f, err := root.Open(".")
	if err != nil {
		return nil
	}
	d, err := openat2(f, ".", unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		f.Close()
		return nil
	}
	d.Close()
	return f
}

// openat2 opens name below the folder dir with flags, confined by
// beneathResolve. The folder's descriptor is held for the call, so a
// concurrent Close cannot hand its number to another file meanwhile.
func openat2(dir *os.File, name string, flags uint64) (*os.File, error) {
	c, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	how := unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: beneathResolve}
	fd, oerr := -1, error(nil)
	if err := c.Control(func(d uintptr) {
		for {
			fd, oerr = unix.Openat2(int(d), name, &how)
			if oerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return nil, err
	}
	if oerr != nil {
		return nil, &fs.PathError{Op: "openat2", Path: name, Err: oerr}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// readBeneath reads the note at p (already validated) with a single
// lookup from the vault's root, where the walk of readNoteWalking costs two
// system calls a folder. It reports false for anything but a regular note
// within the size limit, read whole: a link anywhere in the path, a
// missing or special file, an error. The walk then reads the note again
// and says exactly what is wrong, in the words it has always used, so that
// only the cost of a read changes here, never its answer. The note is
// read into buf's room when it is enough.
func (v *Vault) readBeneath(p string, buf []byte) ([]byte, fs.FileInfo, bool) {
	if v.beneath == nil || v.noOpenat2 {
		return nil, nil, false
	}
	// O_NONBLOCK: a named pipe given a note's name must not hang the open;
	// it is refused below as not regular. A regular file ignores the flag.
	f, err := openat2(v.beneath, p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > v.maxNote {
		return nil, nil, false
	}
	data, e := readAllSized(f, fi.Size(), v.maxNote, buf)
	if e != nil {
		return nil, nil, false
	}
	return data, fi, true
}

// folderBeneath returns the info of the folder dir ("." for the root),
// found as readBeneath finds notes; false sends the caller to the walk.
func (v *Vault) folderBeneath(dir string) (fs.FileInfo, bool) {
	if v.beneath == nil || v.noOpenat2 {
		return nil, false
	}
	if dir == "." {
		fi, err := v.beneath.Stat()
		return fi, err == nil
	}
	f, err := openat2(v.beneath, dir, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	return fi, err == nil && fi.IsDir()
}
