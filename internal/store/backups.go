package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Results of a backup run.
const (
	BackupOK      = "ok"
	BackupSkipped = "skipped"
	BackupFailed  = "failed"
)

// keepBackupRuns is how many backup outcomes are kept.
const keepBackupRuns = 100

// ErrNoBackup means no backup has been recorded on this state.
var ErrNoBackup = errors.New("no backup recorded")

// BackupRun is the outcome of one backup.
type BackupRun struct {
	Time   time.Time
	Result string // BackupOK, BackupSkipped or BackupFailed
	Detail string // the archive's path, or why it was skipped or failed
	Size   int64
	Took   time.Duration
	// Command is what the backup command made of the archive: "" when
	// none ran, CommandOK or CommandFailed; CommandDetail says how it
	// ended.
	Command       string
	CommandDetail string
}

// Outcomes of a backup command.
const (
	CommandOK     = "ok"
	CommandFailed = "failed"
)

// RecordBackup records a backup's outcome and forgets all but the latest
// hundred.
func (s *Store) RecordBackup(ctx context.Context, r BackupRun) error {
	switch r.Result {
	case BackupOK, BackupSkipped, BackupFailed:
	default:
		return fmt.Errorf("record backup: unknown result %q", r.Result)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record backup: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO backups (time, result, detail, size, took, command, command_detail) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		nanos(r.Time), r.Result, r.Detail, r.Size, int64(r.Took), r.Command, r.CommandDetail); err != nil {
		return fmt.Errorf("record backup: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM backups WHERE id <= (SELECT MAX(id) FROM backups) - ?`, keepBackupRuns); err != nil {
		return fmt.Errorf("record backup: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record backup: %w", err)
	}
	return nil
}

// LastBackup returns the latest recorded backup outcome, or ErrNoBackup.
func (s *Store) LastBackup(ctx context.Context) (BackupRun, error) {
	return s.lastBackup(ctx, `SELECT time, result, detail, size, took, command, command_detail FROM backups ORDER BY id DESC LIMIT 1`)
}

// LastGoodBackup returns the latest successful backup, or ErrNoBackup.
func (s *Store) LastGoodBackup(ctx context.Context) (BackupRun, error) {
	return s.lastBackup(ctx, `SELECT time, result, detail, size, took, command, command_detail FROM backups WHERE result = 'ok' ORDER BY id DESC LIMIT 1`)
}

// lastBackup reads the one backup row that query selects.
func (s *Store) lastBackup(ctx context.Context, query string) (BackupRun, error) {
	var r BackupRun
	var t, took int64
	err := s.db.QueryRowContext(ctx, query).Scan(&t, &r.Result, &r.Detail, &r.Size, &took, &r.Command, &r.CommandDetail)
	if errors.Is(err, sql.ErrNoRows) {
		return BackupRun{}, ErrNoBackup
	}
	if err != nil {
		return BackupRun{}, fmt.Errorf("last backup: %w", err)
	}
	r.Time, r.Took = fromNanos(t), time.Duration(took)
	return r, nil
}
