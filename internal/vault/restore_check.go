package vault

import (
	"fmt"
	"path"
	"strings"
)

// CheckRestoreEntry refuses a file or folder of a backup that the vault
// would not hold or the server would not serve: a path the vault's tools
// refuse (control or invisible characters, '..', overlong names), or a
// note larger than maxNote (0: DefaultMaxNote), which every read would
// refuse. The error's text says what is wrong in a clause.
func CheckRestoreEntry(p string, size int64, maxNote int64) error {
	if maxNote <= 0 {
		maxNote = DefaultMaxNote
	}
	if e := checkPath(p); e != nil {
		return fmt.Errorf("has a name the vault refuses: %s", strings.TrimSuffix(e.Message, "."))
	}
	if size > maxNote && isNoteName(path.Base(p)) {
		return fmt.Errorf("is a note of %s, over the largest note cortex reads (%s)", byteSize(size), byteSize(maxNote))
	}
	return nil
}
