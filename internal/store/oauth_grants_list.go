package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// OAuthGrantInfo is a live grant for the owner's listings.
type OAuthGrantInfo struct {
	OAuthGrant
	LastUsed time.Time // zero if never
	LastAddr string    // the address of that use, "" if unknown
}

// LiveOAuthGrants returns every grant not revoked, oldest first.
func (s *Store) LiveOAuthGrants(ctx context.Context) ([]OAuthGrantInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, client_id, scope, resource, vault_scope, created, last_used, last_addr
		FROM oauth_grants WHERE revoked = 0 ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []OAuthGrantInfo
	for rows.Next() {
		var g OAuthGrantInfo
		var created, used int64
		if err := rows.Scan(&g.ID, &g.ClientID, &g.Scope, &g.Resource, &g.VaultScope, &created, &used, &g.LastAddr); err != nil {
			return nil, fmt.Errorf("list grants: %w", err)
		}
		g.Created, g.LastUsed = fromNanos(created), fromNanos(used)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	return out, nil
}

// SetClientScope limits every live grant of the client to vaultScope
// (scope.Encode; "" for the whole vault) and returns how many it changed.
// The scope lives with the grant, chosen when the owner approved it; this
// is the owner changing their mind for the app as a whole. Each grant's next
// request sees it: verified answers are remembered only until the next
// commit.
func (s *Store) SetClientScope(ctx context.Context, clientID, vaultScope string) (int, error) {
	var n int64
	err := s.ownerTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM oauth_clients WHERE id = ?`, clientID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrClientNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET vault_scope = ? WHERE client_id = ? AND revoked = 0`, vaultScope, clientID)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("set scope of client %q: %w", clientID, err)
	}
	s.log.Info("oauth client scope changed", "client", clientID, "grants", n)
	return int(n), nil
}
