//go:build !linux

package vault

import (
	"errors"
	"os"
)

var errNoSyncfs = errors.New("syncfs is not available")

// syncFS: outside Linux there is no syncfs(2); Restorer.Sync syncs file by
// file instead.
func syncFS(*os.File) error { return errNoSyncfs }
