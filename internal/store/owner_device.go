package store

import (
	"context"
	"fmt"
)

// UseTOTPStepOnDevice is UseTOTPStep for a browser the owner has signed in
// from before (it carries the owner's device cookie and pays for its code
// attempts from a budget of its own). The lock exists to stop strangers
// guessing through the shared budget, so such a browser is let in even while
// TOTP is locked. It never unlocks: while locked, the failure count and the
// lock stay as they are, and only a passkey or recovery-code login or the
// console clears them. When TOTP is open it clears the failure count like
// UseTOTPStep. The replay guard is the same: the step must be later than
// every step accepted before. false means the code must be refused.
func (s *Store) UseTOTPStepOnDevice(ctx context.Context, step int64) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`UPDATE owner SET totp_last_step = ?,
		   totp_failures = CASE WHEN totp_locked = 0 THEN 0 ELSE totp_failures END
		 WHERE id = 1 AND totp_last_step < ?`, step, step)
	if err != nil {
		return false, fmt.Errorf("use totp step on device: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
