//go:build !linux

package vault

// renameNoReplace is not available outside Linux: moves fall back to a
// hard link and the removal of the old name.
func (v *Vault) renameNoReplace(from, to string) error { return errNoRenameat2 }
