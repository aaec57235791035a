package backup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Entry is one backup found in a backup folder.
type Entry struct {
	Path string
	Size int64
}

// List returns the backups in dir, oldest first (their names sort by the
// time they were taken).
func List(dir string) ([]Entry, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range names {
		n := d.Name()
		if !d.Type().IsRegular() || !strings.HasPrefix(n, Prefix) || !strings.HasSuffix(n, Ext) {
			continue
		}
		fi, err := d.Info()
		if err != nil {
			continue
		}
		out = append(out, Entry{Path: filepath.Join(dir, n), Size: fi.Size()})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// Prune removes the oldest backups in dir beyond the newest keep, and
// returns what it removed. Only files named like cortex's backups are
// touched.
func Prune(dir string, keep int) ([]string, error) {
	if keep <= 0 {
		return nil, nil
	}
	list, err := List(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range list[:max(len(list)-keep, 0)] {
		if err := os.Remove(e.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, ext := range []string{SumExt, SigExt} {
			if err := os.Remove(e.Path + ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		removed = append(removed, e.Path)
	}
	return removed, errors.Join(errs...)
}
