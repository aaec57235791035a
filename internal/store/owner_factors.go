package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Passkey is a stored WebAuthn credential of the owner.
type Passkey struct {
	ID                int64
	CredentialID      []byte
	PublicKey         []byte
	SignCount         uint32
	Flags             byte // authenticator flags: UP 0x01, UV 0x04, BE 0x08, BS 0x10
	Transports        []string
	AAGUID            []byte
	AttestationType   string
	AttestationFormat string
	Attachment        string
	Name              string
	Created           time.Time
	LastUsed          time.Time // zero if never used
}

func insertRecovery(ctx context.Context, tx *sql.Tx, hashes []string, now int64) error {
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO owner_recovery_codes (hash, created) VALUES (?, ?)`, h, now); err != nil {
			return err
		}
	}
	return nil
}

// UseRecoveryCode consumes the recovery code with this SHA-256 hash. It
// returns false if no such code is left. A code works once: it is deleted in
// the same statement that finds it. A successful use also unlocks TOTP.
func (s *Store) UseRecoveryCode(ctx context.Context, hash string) (bool, error) {
	used := false
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var h string
		err := tx.QueryRowContext(ctx, `DELETE FROM owner_recovery_codes WHERE hash = ? RETURNING hash`, hash).Scan(&h)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		used = true
		_, err = tx.ExecContext(ctx, `UPDATE owner SET totp_failures = 0, totp_locked = 0 WHERE id = 1`)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("use recovery code: %w", err)
	}
	return used, nil
}

// ReplaceRecoveryCodes voids every recovery code and stores hashes instead,
// in one transaction.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, hashes []string) error {
	if len(hashes) != RecoveryCodeCount {
		return fmt.Errorf("replace recovery codes: %w: want %d codes", ErrInvalidOwner, RecoveryCodeCount)
	}
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		if err := ownerExists(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM owner_recovery_codes`); err != nil {
			return err
		}
		return insertRecovery(ctx, tx, hashes, nanos(s.now()))
	})
	if err != nil {
		return fmt.Errorf("replace recovery codes: %w", err)
	}
	s.log.Info("recovery codes replaced")
	return nil
}

// RecoveryCodesLeft reports how many unused recovery codes remain.
func (s *Store) RecoveryCodesLeft(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM owner_recovery_codes`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count recovery codes: %w", err)
	}
	return n, nil
}

func ownerExists(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM owner`).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrNoOwner
	}
	return nil
}

// CreateEnrolLink stores the hash of a one-time passkey enrolment link that
// expires at expires. Expired links are swept, and past MaxEnrolLinks live
// links the oldest is voided.
func (s *Store) CreateEnrolLink(ctx context.Context, hash string, expires time.Time) error {
	now := nanos(s.now())
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		if err := ownerExists(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM owner_enrol_links WHERE expires <= ?`, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO owner_enrol_links (hash, created, expires) VALUES (?, ?, ?)`,
			hash, now, nanos(expires)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM owner_enrol_links WHERE hash NOT IN
			(SELECT hash FROM owner_enrol_links ORDER BY created DESC, rowid DESC LIMIT ?)`, MaxEnrolLinks)
		return err
	})
	if err != nil {
		return fmt.Errorf("create enrolment link: %w", err)
	}
	return nil
}

// EnrolLinkValid reports whether an unexpired enrolment link has this hash.
func (s *Store) EnrolLinkValid(ctx context.Context, hash string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM owner_enrol_links WHERE hash = ? AND expires > ?`,
		hash, nanos(s.now())).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("check enrolment link: %w", err)
	}
	return n == 1, nil
}

// AddPasskeyWithLink consumes the enrolment link with hash linkHash and
// stores p, in one transaction: a link adds at most one passkey, and a
// passkey is only ever added through a live link. It returns
// ErrEnrolLinkInvalid if the link is unknown, used or expired.
func (s *Store) AddPasskeyWithLink(ctx context.Context, linkHash string, p Passkey) (Passkey, error) {
	if len(p.CredentialID) == 0 || len(p.PublicKey) == 0 || p.Name == "" {
		return Passkey{}, fmt.Errorf("add passkey: %w: empty credential", ErrInvalidOwner)
	}
	p.Created = fromNanos(nanos(s.now()))
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var expires int64
		err := tx.QueryRowContext(ctx, `DELETE FROM owner_enrol_links WHERE hash = ? RETURNING expires`, linkHash).Scan(&expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && expires <= nanos(p.Created)) {
			return ErrEnrolLinkInvalid
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM owner_passkeys`).Scan(&n); err != nil {
			return err
		}
		if n >= MaxPasskeys {
			return fmt.Errorf("%w: already %d passkeys; remove one first", ErrInvalidOwner, n)
		}
		err = tx.QueryRowContext(ctx, `INSERT INTO owner_passkeys
			(credential_id, public_key, sign_count, flags, transports, aaguid, attestation_type, attestation_format, attachment, name, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			p.CredentialID, p.PublicKey, int64(p.SignCount), int64(p.Flags), strings.Join(p.Transports, ","),
			nonNil(p.AAGUID), p.AttestationType, p.AttestationFormat, p.Attachment, p.Name, nanos(p.Created)).Scan(&p.ID)
		if isOwnerUnique(err) {
			return fmt.Errorf("%w: this passkey is already registered", ErrInvalidOwner)
		}
		return err
	})
	if err != nil {
		return Passkey{}, fmt.Errorf("add passkey: %w", err)
	}
	s.log.Info("passkey added", "id", p.ID)
	return p, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Passkeys lists the owner's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context) ([]Passkey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, credential_id, public_key, sign_count, flags, transports, aaguid,
		attestation_type, attestation_format, attachment, name, created, last_used FROM owner_passkeys ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list passkeys: %w", err)
	}
	defer rows.Close()
	var out []Passkey
	for rows.Next() {
		var p Passkey
		var sc, flags, created, lastUsed int64
		var transports string
		if err := rows.Scan(&p.ID, &p.CredentialID, &p.PublicKey, &sc, &flags, &transports, &p.AAGUID,
			&p.AttestationType, &p.AttestationFormat, &p.Attachment, &p.Name, &created, &lastUsed); err != nil {
			return nil, fmt.Errorf("list passkeys: %w", err)
		}
		if sc < 0 || sc > math.MaxUint32 || flags < 0 || flags > math.MaxUint8 {
			return nil, fmt.Errorf("list passkeys: passkey %d has sign count %d or flags %d out of range", p.ID, sc, flags)
		}
		p.SignCount, p.Flags = uint32(sc), byte(flags)
		if transports != "" {
			p.Transports = strings.Split(transports, ",")
		}
		p.Created, p.LastUsed = fromNanos(created), fromNanos(lastUsed)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list passkeys: %w", err)
	}
	return out, nil
}

// RecordPasskeyLogin writes back what a successful passkey login changed
// (sign count, flags, last use) and unlocks TOTP, in one transaction.
func (s *Store) RecordPasskeyLogin(ctx context.Context, credentialID []byte, signCount uint32, flags byte) error {
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE owner_passkeys SET sign_count = ?, flags = ?, last_used = ? WHERE credential_id = ?`,
			int64(signCount), int64(flags), nanos(s.now()), credentialID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrPasskeyNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE owner SET totp_failures = 0, totp_locked = 0 WHERE id = 1`)
		return err
	})
	if err != nil {
		return fmt.Errorf("record passkey login: %w", err)
	}
	return nil
}

// RemovePasskey deletes the passkey with this id.
func (s *Store) RemovePasskey(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM owner_passkeys WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("remove passkey %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("remove passkey %d: %w", id, ErrPasskeyNotFound)
	}
	s.log.Info("passkey removed", "id", id)
	return nil
}
