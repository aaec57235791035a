//go:build !linux

package vault

import (
	"io/fs"
	"os"
)

// openBeneath has no one-call confined lookup to offer outside Linux:
// reads walk the path.
func openBeneath(*os.Root) *os.File { return nil }

func (v *Vault) readBeneath(string, []byte) ([]byte, fs.FileInfo, bool) { return nil, nil, false }

func (v *Vault) folderBeneath(string) (fs.FileInfo, bool) { return nil, false }
