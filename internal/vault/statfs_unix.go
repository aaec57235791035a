//go:build linux || darwin || freebsd

package vault

import "syscall"

// statfsFree reports the bytes available to unprivileged users on the file
// system holding dir.
func statfsFree(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return blocksBytes(st.Bavail, st.Bsize), nil
}

// blocksBytes multiplies a block count by the block size, whose integer
// types differ between systems (FreeBSD's count is signed and goes below
// zero once root's reserve is in use: that is no space at all).
func blocksBytes[N, S ~int32 | ~int64 | ~uint32 | ~uint64](n N, size S) uint64 {
	if n <= 0 || size <= 0 {
		return 0
	}
	return uint64(n) * uint64(size)
}
