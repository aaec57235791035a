package store

import (
	"context"
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
	rows, err := s.db.QueryContext(ctx, `SELECT id, client_id, scope, resource, created, last_used, last_addr
		FROM oauth_grants WHERE revoked = 0 ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []OAuthGrantInfo
	for rows.Next() {
		var g OAuthGrantInfo
		var created, used int64
		if err := rows.Scan(&g.ID, &g.ClientID, &g.Scope, &g.Resource, &created, &used, &g.LastAddr); err != nil {
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
