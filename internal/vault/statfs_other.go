//go:build !(linux || darwin || freebsd)

package vault

import "errors"

// statfsFree is not available here; writes are refused rather than risking
// a full disk, unless Options.FreeSpace is set.
func statfsFree(string) (uint64, error) {
	return 0, errors.New("free space unknown on this platform")
}
