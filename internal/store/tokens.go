package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Token is a bearer token as the owner sees it; the secret itself is never
// stored.
type Token struct {
	ID       int64
	Name     string
	Created  time.Time
	LastUsed time.Time // zero if never used
	LastAddr string    // the address of that use, "" if unknown
	// VaultScope is the part of the vault it may use, as scope.Encode
	// wrote it ("" for the whole vault); store keeps it as a string.
	VaultScope string
}

const (
	tokenPrefix = "ctx_"
	// secretLen is the length of "ctx_" + unpadded base64url of 32 bytes.
	secretLen = len(tokenPrefix) + 43

	// touchEvery is how stale last_used may get before a use rewrites it.
	touchEvery = time.Minute
	// maxTouched bounds the in-process memory of last_used writes.
	maxTouched = 256
)

const (
	tokenCols = `id, name, created, last_used, last_addr, vault_scope`
	verifySQL = `SELECT ` + tokenCols + ` FROM tokens WHERE hash = ? AND revoked IS NULL`
)

// ValidTokenName reports whether name is 1–64 characters of [A-Za-z0-9._-].
func ValidTokenName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken makes a new token called name for the whole vault and returns
// its secret, which exists nowhere else afterwards: only its SHA-256 is
// stored.
func (s *Store) CreateToken(ctx context.Context, name string) (string, Token, error) {
	return s.CreateScopedToken(ctx, name, "")
}

// CreateScopedToken is CreateToken for a token limited to vaultScope (as
// scope.Encode wrote it).
func (s *Store) CreateScopedToken(ctx context.Context, name, vaultScope string) (string, Token, error) {
	if !ValidTokenName(name) {
		return "", Token{}, fmt.Errorf("%w: use 1 to 64 letters, digits, '.', '_' or '-'", ErrInvalidTokenName)
	}
	var raw [32]byte
	rand.Read(raw[:]) // never fails since Go 1.24
	secret := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])

	t := Token{Name: name, Created: fromNanos(nanos(s.now())), VaultScope: vaultScope}
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO tokens (name, hash, created, vault_scope) VALUES (?, ?, ?, ?) RETURNING id`,
		name, hashSecret(secret), nanos(t.Created), vaultScope).Scan(&t.ID)
	if err != nil {
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE {
			return "", Token{}, fmt.Errorf("create token %q: %w", name, ErrTokenExists)
		}
		return "", Token{}, fmt.Errorf("create token %q: %w", name, err)
	}
	s.log.Info("token created", "token", name, "id", t.ID)
	return secret, t, nil
}

// VerifyToken returns the live token whose secret this is, or
// ErrTokenNotFound. It runs on every request: the answer is remembered
// until anything is committed to the database (verified.go), otherwise it
// is one indexed SELECT; last_used is rewritten at most once a minute per
// token.
func (s *Store) VerifyToken(ctx context.Context, secret string) (Token, error) {
	// Looking up a hash leaks nothing about stored secrets through timing,
	// so no constant-time compare is needed; malformed input never hits SQL.
	if len(secret) != secretLen || secret[:len(tokenPrefix)] != tokenPrefix {
		return Token{}, ErrTokenNotFound
	}
	key := "token:" + hashSecret(secret)
	version, known := s.verified.version()
	if known {
		if v, ok := s.verified.get(key, version); ok {
			t := v.(Token)
			s.touch(ctx, &t)
			return t, nil
		}
	}
	t, err := scanToken(s.verify.QueryRowContext(ctx, key[len("token:"):]))
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, ErrTokenNotFound
	}
	if err != nil {
		return Token{}, fmt.Errorf("verify token: %w", err)
	}
	if known {
		s.verified.put(key, version, t)
	}
	s.touch(ctx, &t)
	return t, nil
}

// touch records a use of t in last_used, and the address it came from
// (WithUseAddr) in last_addr, when it is due.
func (s *Store) touch(ctx context.Context, t *Token) {
	now := s.now()
	if !s.shouldTouch(t.ID, t.LastUsed, now) {
		return
	}
	// A failed bookkeeping write must not turn away a valid token.
	addr := useAddr(ctx)
	if _, err := s.db.ExecContext(ctx, `UPDATE tokens SET last_used = ?, last_addr = ? WHERE id = ?`, nanos(now), addr, t.ID); err != nil {
		s.log.Warn("record token use", "token", t.Name, "err", err)
	} else {
		t.LastUsed, t.LastAddr = fromNanos(nanos(now)), addr
	}
}

// shouldTouch decides whether last_used needs writing, and if so claims the
// write so that concurrent uses of the same token do not all write.
func (s *Store) shouldTouch(id int64, lastUsed, now time.Time) bool {
	if !lastUsed.IsZero() && now.Sub(lastUsed) < touchEvery && !now.Before(lastUsed) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.touched[id]; ok && now.Sub(prev) < touchEvery && !now.Before(prev) {
		return false
	}
	if len(s.touched) >= maxTouched {
		for k, v := range s.touched {
			if now.Sub(v) >= touchEvery || now.Before(v) {
				delete(s.touched, k)
			}
		}
		if len(s.touched) >= maxTouched {
			clear(s.touched)
		}
	}
	s.touched[id] = now
	return true
}

func scanToken(r scanner) (Token, error) {
	var t Token
	var created, lastUsed int64
	if err := r.Scan(&t.ID, &t.Name, &created, &lastUsed, &t.LastAddr, &t.VaultScope); err != nil {
		return Token{}, err
	}
	t.Created, t.LastUsed = fromNanos(created), fromNanos(lastUsed)
	return t, nil
}

// ListTokens returns the live tokens, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]Token, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+tokenCols+` FROM tokens WHERE revoked IS NULL ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// LiveToken returns the live token called name, or ErrTokenNotFound.
func (s *Store) LiveToken(ctx context.Context, name string) (Token, error) {
	t, err := scanToken(s.db.QueryRowContext(ctx,
		`SELECT `+tokenCols+` FROM tokens WHERE name = ? AND revoked IS NULL`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, fmt.Errorf("token %q: %w", name, ErrTokenNotFound)
	}
	if err != nil {
		return Token{}, fmt.Errorf("token %q: %w", name, err)
	}
	return t, nil
}

// RevokeToken revokes the live token called name; its secret stops working
// at once. The row is kept (marked revoked) and the name may be reused.
func (s *Store) RevokeToken(ctx context.Context, name string) error {
	if !ValidTokenName(name) {
		return fmt.Errorf("revoke token: %w: use 1 to 64 letters, digits, '.', '_' or '-'", ErrInvalidTokenName)
	}
	var id int64
	err := s.db.QueryRowContext(ctx,
		`UPDATE tokens SET revoked = ? WHERE name = ? AND revoked IS NULL RETURNING id`,
		nanos(s.now()), name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("revoke token %q: %w", name, ErrTokenNotFound)
	}
	if err != nil {
		return fmt.Errorf("revoke token %q: %w", name, err)
	}
	s.mu.Lock()
	delete(s.touched, id)
	s.mu.Unlock()
	s.log.Info("token revoked", "token", name, "id", id)
	return nil
}

// SetTokenScope limits the live token called name to vaultScope (as
// scope.Encode wrote it; "" for the whole vault). Its next request sees the
// new scope: verified answers are remembered only until the next commit.
func (s *Store) SetTokenScope(ctx context.Context, name, vaultScope string) error {
	if !ValidTokenName(name) {
		return fmt.Errorf("set token scope: %w: use 1 to 64 letters, digits, '.', '_' or '-'", ErrInvalidTokenName)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE tokens SET vault_scope = ? WHERE name = ? AND revoked IS NULL`, vaultScope, name)
	if err != nil {
		return fmt.Errorf("set scope of token %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("set scope of token %q: %w", name, ErrTokenNotFound)
	}
	s.log.Info("token scope changed", "token", name)
	return nil
}
