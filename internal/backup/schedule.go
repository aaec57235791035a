package backup

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// Recorder keeps each backup's outcome (the state database does).
type Recorder interface {
	RecordBackup(ctx context.Context, r store.BackupRun) error
	LastBackup(ctx context.Context) (store.BackupRun, error)
}

// Schedule takes a backup every Every into Dir and keeps the newest Keep.
type Schedule struct {
	Dir   string
	Every time.Duration
	Keep  int
	// Backup says what to back up; its Now is the schedule's clock too.
	Backup Options
	Record Recorder
	Logger *slog.Logger
	// After is the timer; nil means time.After. Tests pass a fake one.
	After func(time.Duration) <-chan time.Time
	// Command, when set, is run on each new archive to take it off the
	// machine (see handOff); its outcome is logged and recorded. One
	// that fails is not run again for that archive: the next backup's
	// archive, which holds everything, is handed to it in turn.
	Command []string
}

// Run takes backups on time until ctx ends. The first is due Every after
// the last one recorded (at once when there is none, or it is overdue); a
// run that is skipped or fails is tried again Every later, never in a loop.
func (s *Schedule) Run(ctx context.Context) {
	now := s.Backup.Now
	if now == nil {
		now = time.Now
		s.Backup.Now = now
	}
	after := s.After
	if after == nil {
		after = time.After
	}
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	next := now()
	if last, err := s.Record.LastBackup(ctx); err == nil {
		next = last.Time.Add(s.Every)
	}
	for {
		if wait := next.Sub(now()); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-after(wait):
			}
		}
		if ctx.Err() != nil {
			return
		}
		started := now()
		s.Once(ctx, log)
		next = started.Add(s.Every)
	}
}

// Once takes one backup now, prunes to Keep and records the outcome.
func (s *Schedule) Once(ctx context.Context, log *slog.Logger) store.BackupRun {
	start := s.Backup.Now()
	res, err := Create(ctx, s.Dir, s.Backup)
	run := store.BackupRun{Time: start, Result: store.BackupOK, Detail: res.Path, Size: res.Size, Took: res.Took}
	switch {
	case errors.Is(err, ErrDiskLow):
		run.Result, run.Detail = store.BackupSkipped, err.Error()
		log.Warn("scheduled backup skipped", "err", err, "dir", s.Dir)
	case err != nil:
		if ctx.Err() != nil {
			return run // shutting down: not a failure of the backup
		}
		run.Result, run.Detail = store.BackupFailed, err.Error()
		log.Error("scheduled backup failed", "err", err, "dir", s.Dir)
	default:
		log.Info("backup taken", "path", res.Path, "bytes", res.Size, "notes", res.Manifest.Notes, "took", res.Took)
		if len(s.Command) > 0 {
			run.Command, run.CommandDetail = handOff(ctx, s.Command, res.Path, s.Every)
			if run.Command == store.CommandOK {
				log.Info("backup command done", "path", res.Path, "detail", run.CommandDetail)
			} else {
				log.Error("backup command failed; the next backup is handed to it again", "path", res.Path, "detail", run.CommandDetail)
			}
		}
		removed, err := Prune(s.Dir, s.Keep)
		if err != nil {
			log.Warn("removing old backups failed", "err", err)
		}
		for _, p := range removed {
			log.Info("removed an old backup", "path", p)
		}
	}
	if err := s.Record.RecordBackup(context.WithoutCancel(ctx), run); err != nil {
		log.Warn("could not record the backup's outcome", "err", err)
	}
	return run
}
