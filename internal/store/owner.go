package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Owner errors. Callers match them with errors.Is.
var (
	ErrNoOwner          = errors.New("no owner has been set up")
	ErrOwnerExists      = errors.New("the owner is already set up")
	ErrPasskeyNotFound  = errors.New("passkey not found")
	ErrEnrolLinkInvalid = errors.New("enrolment link is unknown, used or expired")
	ErrSessionNotFound  = errors.New("login session not found")
	ErrInvalidOwner     = errors.New("invalid owner data")
)

// Bounds on what the owner tables can hold. Only the owner (or `cortex admin`)
// can add rows, but a bound costs nothing and keeps a bug from filling the disk.
const (
	// MaxOwnerSessions is how many login sessions are kept; a new login past
	// it ends the oldest.
	MaxOwnerSessions = 32
	// MaxEnrolLinks is how many unexpired enrolment links may exist at once;
	// issuing one more voids the oldest.
	MaxEnrolLinks = 5
	// MaxPasskeys is how many passkeys the owner may register.
	MaxPasskeys = 32
	// RecoveryCodeCount is how many recovery codes a set holds.
	RecoveryCodeCount = 10
)

// NewOwner is everything `cortex admin setup` creates in one go. Secrets
// arrive already hashed, except the TOTP secret, which must be kept to
// compute codes.
type NewOwner struct {
	UserHandle     []byte   // WebAuthn user handle, 16 to 64 random bytes
	TOTPSecret     string   // base32
	RecoveryHashes []string // RecoveryCodeCount hex SHA-256 digests
}

// OwnerRecord is the owner row as the login code needs it.
type OwnerRecord struct {
	UserHandle   []byte
	TOTPSecret   string
	TOTPLastStep int64
	TOTPFailures int
	TOTPLocked   time.Time // zero when TOTP is open
	Created      time.Time
}

func (n NewOwner) validate() error {
	if len(n.UserHandle) < 16 || len(n.UserHandle) > 64 {
		return fmt.Errorf("%w: user handle must be 16 to 64 bytes", ErrInvalidOwner)
	}
	if n.TOTPSecret == "" {
		return fmt.Errorf("%w: empty TOTP secret", ErrInvalidOwner)
	}
	if len(n.RecoveryHashes) != RecoveryCodeCount {
		return fmt.Errorf("%w: want %d recovery codes, got %d", ErrInvalidOwner, RecoveryCodeCount, len(n.RecoveryHashes))
	}
	return nil
}

// CreateOwner stores a new owner with its TOTP secret and recovery codes.
// Without replace it fails with ErrOwnerExists if there is one already; with
// replace the old owner and everything hanging off it (passkeys, codes,
// sessions, links) and every OAuth grant are deleted in the same transaction, so there is never a
// moment with both sets of factors valid, or neither.
func (s *Store) CreateOwner(ctx context.Context, n NewOwner, replace bool) error {
	if err := n.validate(); err != nil {
		return fmt.Errorf("create owner: %w", err)
	}
	now := nanos(s.now())
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		if replace {
			if _, err := tx.ExecContext(ctx, `DELETE FROM owner`); err != nil {
				return err
			}
			// Factors are replaced when they may be in other hands: an
			// app approved with them must be approved again.
			if err := deleteAllOAuth(ctx, tx); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO owner (id, user_handle, totp_secret, created) VALUES (1, ?, ?, ?)`,
			n.UserHandle, n.TOTPSecret, now)
		if isOwnerUnique(err) {
			return ErrOwnerExists
		}
		if err != nil {
			return err
		}
		return insertRecovery(ctx, tx, n.RecoveryHashes, now)
	})
	if err != nil {
		return fmt.Errorf("create owner: %w", err)
	}
	s.log.Info("owner created", "replaced", replace)
	return nil
}

// Owner returns the owner row, or ErrNoOwner.
func (s *Store) Owner(ctx context.Context) (OwnerRecord, error) {
	var o OwnerRecord
	var locked, created int64
	err := s.db.QueryRowContext(ctx,
		`SELECT user_handle, totp_secret, totp_last_step, totp_failures, totp_locked, created FROM owner WHERE id = 1`).
		Scan(&o.UserHandle, &o.TOTPSecret, &o.TOTPLastStep, &o.TOTPFailures, &locked, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OwnerRecord{}, ErrNoOwner
	}
	if err != nil {
		return OwnerRecord{}, fmt.Errorf("read owner: %w", err)
	}
	o.TOTPLocked, o.Created = fromNanos(locked), fromNanos(created)
	return o, nil
}

// DeleteOwner removes the owner and, by cascade, every passkey, recovery
// code, login session and enrolment link, and in the same transaction every
// OAuth grant, code and pending request. It reports ErrNoOwner when there
// was nothing to delete.
func (s *Store) DeleteOwner(ctx context.Context) error {
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM owner`)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNoOwner
		}
		return deleteAllOAuth(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("delete owner: %w", err)
	}
	s.log.Info("owner deleted")
	return nil
}

// UseTOTPStep records that a code for time step step was accepted. It is
// the atomic replay guard: it succeeds only if step is later than every step
// accepted before and TOTP is not locked, and then also clears the failure
// count. false means the code must be refused.
func (s *Store) UseTOTPStep(ctx context.Context, step int64) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`UPDATE owner SET totp_last_step = ?, totp_failures = 0
		 WHERE id = 1 AND totp_last_step < ? AND totp_locked = 0`, step, step)
	if err != nil {
		return false, fmt.Errorf("use totp step: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RecordTOTPFailure counts one wrong TOTP code and locks TOTP when the count
// reaches limit. It returns the count and whether TOTP is now locked.
func (s *Store) RecordTOTPFailure(ctx context.Context, limit int) (int, bool, error) {
	var failures int
	var locked int64
	err := s.db.QueryRowContext(ctx,
		`UPDATE owner SET totp_failures = totp_failures + 1,
		   totp_locked = CASE WHEN totp_locked = 0 AND totp_failures + 1 >= ? THEN ? ELSE totp_locked END
		 WHERE id = 1 RETURNING totp_failures, totp_locked`, limit, nanos(s.now())).Scan(&failures, &locked)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, ErrNoOwner
	}
	if err != nil {
		return 0, false, fmt.Errorf("record totp failure: %w", err)
	}
	if locked != 0 && failures == limit {
		s.log.Warn("totp locked after too many wrong codes", "failures", failures)
	}
	return failures, locked != 0, nil
}

// UnlockTOTP clears the TOTP failure count and lock.
func (s *Store) UnlockTOTP(ctx context.Context) error {
	res, err := s.db.ExecContext(ctx, `UPDATE owner SET totp_failures = 0, totp_locked = 0 WHERE id = 1`)
	if err != nil {
		return fmt.Errorf("unlock totp: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("unlock totp: %w", ErrNoOwner)
	}
	return nil
}

// OwnerRowCounts reports how many rows each owner table holds; the flood
// tests use it to show that strangers cannot grow them.
func (s *Store) OwnerRowCounts(ctx context.Context) (map[string]int, error) {
	out := make(map[string]int)
	for _, t := range []string{"owner", "owner_passkeys", "owner_recovery_codes", "owner_sessions", "owner_enrol_links"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

// ownerTx runs fn in one immediate transaction.
func (s *Store) ownerTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func isOwnerUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}
