package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// BackupKeyName is the file in the state folder holding the key that
// signs backups (HMAC-SHA256 of each archive's SHA-256). It is never put
// into a backup: whoever holds a backup must not be able to sign one.
const BackupKeyName = "backup.key"

// ErrNoBackupKey: the state folder holds no backup key.
var ErrNoBackupKey = errors.New("the state folder holds no backup key")

// BackupKey returns the state folder's backup key, creating it (32 random
// bytes, mode 0600) on first use.
func BackupKey(stateDir string) ([]byte, error) {
	key, err := ReadBackupKey(stateDir)
	if !errors.Is(err, ErrNoBackupKey) {
		return key, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	p := filepath.Join(stateDir, BackupKeyName)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // #nosec G304 -- the state folder
	if errors.Is(err, fs.ErrExist) {
		return ReadBackupKey(stateDir) // made meanwhile by another backup
	}
	if err != nil {
		return nil, fmt.Errorf("create the backup key: %w", err)
	}
	_, err = f.WriteString(hex.EncodeToString(raw) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return nil, fmt.Errorf("create the backup key: %w", err)
	}
	if err := SyncDir(stateDir); err != nil {
		return nil, fmt.Errorf("create the backup key: %w", err)
	}
	return raw, nil
}

// ReadBackupKey returns the state folder's backup key, or an error
// wrapping ErrNoBackupKey when there is none.
func ReadBackupKey(stateDir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(stateDir, BackupKeyName)) // #nosec G304 -- the state folder
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", stateDir, ErrNoBackupKey)
	}
	if err != nil {
		return nil, fmt.Errorf("read the backup key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("the backup key %s is not the hex key cortex writes; remove it and a new one is made at the next backup", filepath.Join(stateDir, BackupKeyName))
	}
	return key, nil
}
