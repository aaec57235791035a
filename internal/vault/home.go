package vault

import (
	"errors"
	"fmt"
	"os"
)

// The vault is held by identity: the folder cortex opened (its device and
// inode) must still be the folder the configured path names. A restore
// from backup (mv vault vault.old; mkdir vault; cp -a …) or a deleted
// folder leaves cortex holding a folder nobody looks at; writing there
// would acknowledge notes that are lost to the owner, and reading there
// (or from its index) would answer with notes the owner no longer has or
// miss the ones restored. cortex does not re-open the new folder by
// itself: it may still be being filled by the restore. It refuses reads
// and writes and fails /healthz until it is restarted, which opens
// whatever folder the path names then.

// homeLost is what the log says once, when the folder is found replaced.
const homeLost = "vault: the vault path no longer names the folder cortex opened (it was moved, replaced or deleted, as a restore from backup does); reads and writes are refused and /healthz fails until cortex is restarted, which opens the folder the path names now"

// checkHome reports CodeVaultReplaced when the configured path no longer
// names the opened folder. It logs the change once each way.
func (v *Vault) checkHome() *Error {
	fi, err := os.Stat(v.dir)
	if err == nil && os.SameFile(fi, v.home) {
		if v.homeLost.Swap(false) {
			v.log.Warn("vault: the vault path names the folder cortex opened again; reads and writes resume", "vault", v.dir)
		}
		return nil
	}
	if err == nil {
		err = errors.New("the vault path names another folder")
	}
	if !v.homeLost.Swap(true) {
		v.log.Error(homeLost, "vault", v.dir, "err", err, "hint", "finish the restore, then restart cortex")
	}
	return newErr(CodeVaultReplaced, reasonNone, fmt.Errorf("vault home: %w", err))
}

// Check reports whether the vault can be served: nil, or an *Error with
// CodeVaultReplaced. /healthz calls it.
func (v *Vault) Check() error {
	if e := v.checkHome(); e != nil {
		return e
	}
	return nil
}

// orReplaced turns a read's not_found into vault_replaced when the folder
// went from the vault path after the read's first check: then the note is
// not missing, the vault is. Only failing reads pay for the second look.
func (v *Vault) orReplaced(e *Error) *Error {
	if e.Code == CodeNotFound {
		if h := v.checkHome(); h != nil {
			return h
		}
	}
	return e
}
