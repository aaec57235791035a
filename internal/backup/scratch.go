package backup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault"
)

// Limits are what verify and restore hold themselves to on this machine.
// Zero values mean the defaults.
type Limits struct {
	// TimeLimit bounds the check of each database (default: 30 s and one
	// more per 4 MiB), so that no archive keeps SQLite busy for long.
	TimeLimit time.Duration
	// MinFree is the disk floor: nothing is copied out of an archive
	// that would leave less free than this on the disk it goes to.
	MinFree uint64
	// FreeSpace reports a folder's free bytes (default vault.FreeSpace).
	FreeSpace func(dir string) (uint64, error)
	// Now is the clock that ages scratch folders left behind (default
	// time.Now).
	Now func() time.Time
}

func (l Limits) withDefaults() Limits {
	if l.FreeSpace == nil {
		l.FreeSpace = vault.FreeSpace
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	return l
}

// ErrNoRoom: what an archive holds would not fit on the disk it is copied
// to above the free-space floor. Nothing was copied.
var ErrNoRoom = errors.New("not enough free disk space")

// room refuses to copy size bytes (what name declares) into dir when that
// would take its disk below the floor. used: bytes already copied there in
// this run. archive: the archive's own size, to say how far it expands.
func room(dir, name string, size, used, archive int64, l Limits) error {
	free, err := l.FreeSpace(nearestDir(dir))
	if err != nil {
		return fmt.Errorf("read free disk space: %w", err)
	}
	avail := int64(0)
	if free > l.MinFree {
		avail = int64(min(free-l.MinFree, 1<<62))
	}
	if size <= avail-used {
		return nil
	}
	return fmt.Errorf("%w: the backup's %s is %s (the archive is %s), and %s has %s free above the floor of %s; nothing was copied: check the backup elsewhere, or free space there",
		ErrNoRoom, name, Bytes(uint64(max(size, 0))), Bytes(uint64(max(archive, 0))), nearestDir(dir), Bytes(uint64(max(avail-used, 0))), Bytes(l.MinFree))
}

// nearestDir is dir, or its nearest parent that exists (a restore's target
// may not exist yet).
func nearestDir(dir string) string {
	d := abs(dir)
	for {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return d
		}
		d = up
	}
}

// staleAfter is the age past which a scratch folder is taken for one left
// by a run that was killed: no check runs for that long.
const staleAfter = time.Hour

// sweepStale removes the folders named prefix* in dir that are older than
// staleAfter: what a verify or backup killed with SIGKILL left behind,
// which no defer could remove.
func sweepStale(dir, prefix string, now time.Time) {
	if dir == "" {
		dir = os.TempDir()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < staleAfter || fi.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
